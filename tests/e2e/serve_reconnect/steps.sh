# The PostgreSQL warehouse's server ends sluice serve's connections, as a
# restart or a failover does, over and over while a load generator posts
# webhook events and the source database of a postgres_cdc slot takes
# changes: every connection the server holds (the landing writer, the
# live runner, the slot's warehouse and replication connections, the
# poller's, the status reader) comes back on its own. While the warehouse refuses
# connections, /api/health says which parts wait for it (503); after it,
# every acknowledged event is landed once, the CDC model equals the source
# table and the live models equal a rebuild. On DuckDB there is no server
# to end the connections: the same load, and health says ok.
# a poll source too: an API with nothing new each time
"$SLUICE_TOOLS/fake_api" pages/empty.json >api.port &
api=$!
wait_until 5 test -s api.port
sed -i "s/PORT/$(sed 's/^port //' api.port)/" sluice.yml
export SERVE_TOKEN=t0ken
# a slot and a source database of each run's own: the two runs of the case
# may run at once on the same server
slot=e2e_serve_reconnect_$(is_postgres && echo pg || echo duck)
sed -i "s/e2e_serve_reconnect\b/$slot/g" sluice.yml
cdc_source ${slot}_src $slot
src -c "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount NUMERIC(10,2))"
retry "$SLUICE_BIN" run >/dev/null
health() { curl -s -H "Authorization: Bearer $SERVE_TOKEN" -o health.json -w '%{http_code}' "http://127.0.0.1:$serve_port/api/health"; }
status() { curl -s -H "Authorization: Bearer $SERVE_TOKEN" "http://127.0.0.1:$serve_port/api/live/status"; }
wh_db=${SLUICE_E2E_PG##*dbname=}
admin() { PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAtX -v ON_ERROR_STOP=1 "$@"; }

serve_start
wait_until 10 status_is '.cdc[0].state == "streaming"'
note health before anything happens
echo "health $(health) $(jq -c '{status}' health.json)"

"$SLUICE_TOOLS/post_load" --server-file .sluice/server.json --source events --token "$SERVE_TOKEN" \
	--events 6000 --batch 5 --conns 8 --rate 1000 --accounts 50 --deadline 120 \
	--acked acked.txt >load.log 2>&1 &
load=$!
# the source takes a change every few milliseconds meanwhile
(for i in $(seq 300); do
	src -c "INSERT INTO orders VALUES ($i, 'c$i', $i.25)" -c "UPDATE orders SET amount = amount + 1 WHERE id = $(((i + 1) / 2))"
done) >source.log 2>&1 &
changes=$!

if is_postgres; then
	note the warehouse ends every connection of the server, five times, once refusing new ones for a while
	seen=no
	# all_unreachable: whether health answers 503 with every part waiting
	# for the warehouse; sets seen once it answers 503
	all_unreachable() {
		[ "$(health)" = 503 ] && seen=yes &&
			jq -e '[.components[] | .status] | all(. == "unreachable")' health.json >/dev/null
	}
	for round in 1 2 3 4 5; do
		sleep 0.$((RANDOM % 5 + 3))
		[ $round = 3 ] && admin -c "ALTER DATABASE $wh_db ALLOW_CONNECTIONS false"
		admin -c "SELECT count(pg_terminate_backend(pid)) >= 0 FROM pg_stat_activity
			WHERE datname = '$wh_db' AND pid <> pg_backend_pid()" >/dev/null
		src -c "SELECT count(pg_terminate_backend(active_pid)) >= 0 FROM pg_replication_slots
			WHERE slot_name = '$slot' AND active_pid IS NOT NULL" >/dev/null
		if [ $round = 3 ]; then
			# each part finds the loss at its next use of the warehouse
			wait_until 10 all_unreachable
			cp health.json down.json
			echo "meanwhile: status $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $SERVE_TOKEN" \
				"http://127.0.0.1:$serve_port/api/live/status"), advance $(curl -s -o /dev/null -w '%{http_code}' \
				-H "Authorization: Bearer $SERVE_TOKEN" -X POST "http://127.0.0.1:$serve_port/api/live/sources/events/advance"), sql $(curl -s -o /dev/null -D sql.h -w '%{http_code}' \
				-H "Authorization: Bearer $SERVE_TOKEN" --data-binary 'SELECT 1' "http://127.0.0.1:$serve_port/api/sql") $(grep -ci '^Retry-After: 1' sql.h)"
			sleep 1
			admin -c "ALTER DATABASE $wh_db ALLOW_CONNECTIONS true"
		fi
	done
	echo "health said 503 while the warehouse refused connections: $seen"
	jq -c '{status, components: (.components | map_values(.status))}' down.json
	jq -r '.components.writer.error' down.json | grep -Eq 'PostgreSQL was lost|not currently accepting connections' &&
		echo "the writer says why"
fi

wait $changes
wait $load
echo "load generator exit $?"
# a request met while the warehouse is away is refused with 503, never
# 500 (post_load says why of each 500 it got)
if is_postgres; then
	grep -q "answered 500" load.log && echo "some requests got 500" || echo "no request got 500"
	grep "answered 500" load.log | head -3
fi
note the server comes back to health ok on its own
# a slot whose replication connection was cut counts as failing until it
# streams again
healthy() { [ "$(health)" = 200 ] && jq -e '.status == "ok"' health.json >/dev/null; }
wait_until 30 healthy
echo "health $(health) $(jq -c '{status, components: (.components | map_values(.status))}' health.json)"
# every source change (300 inserts, 300 updates) landed, and silver.orders
# covers them: asked of the warehouse on PostgreSQL (a commit that met the
# loss lands in one attempt and is skipped by the next, so the slot's own
# counts may differ), of the slot on DuckDB (whose file the server holds)
changes_landed() {
	if is_postgres; then
		"$SLUICE_BIN" sql "SELECT count(*) FROM landing.orders" | tail -n +2
	else
		status | jq -r '.cdc[0].changes'
	fi
}
wait_until 60 prints 600 changes_landed
echo "source changes landed: $(changes_landed)"
wait_until 20 status_is '([.models[]? | select(.model == "silver.orders") | .covered] | first) ==
	([.sources[]? | select(.source == "landing.orders") | .watermark] | first) and
	([.models[]? | select(.model == "gold.accounts") | .covered] | first) != null'
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
grep -q "sluice serve: stopped" serve.log && echo "stopped cleanly"
kill $api
wait $api 2>/dev/null
retry "$SLUICE_BIN" live --once >/dev/null
sl live --once

note every acknowledged event landed exactly once
"$SLUICE_BIN" sql "CREATE SCHEMA check_" >/dev/null
load_ids check_.acked acked.txt || echo "cannot load the acknowledged ids"
"$SLUICE_BIN" sql "SELECT count(*) = 6000 AS all_acknowledged, count(*) = count(DISTINCT id) AS each_acknowledged_once FROM check_.acked"
"$SLUICE_BIN" sql "SELECT count(*) FILTER (WHERE n <> 1) = 0 AS each_acknowledged_event_landed_once
	FROM (SELECT a.id, count(l.id) AS n FROM check_.acked a LEFT JOIN landing.events l USING (id) GROUP BY a.id) AS per_id"
"$SLUICE_BIN" sql "SELECT count(*) = count(DISTINCT id) AS no_event_landed_twice FROM landing.events"
"$SLUICE_BIN" sql "DROP TABLE check_.acked; DROP SCHEMA check_" >/dev/null

note the CDC model equals the source table, and no change landed twice
src -c "SELECT id || '|' || customer || '|' || amount FROM orders ORDER BY id" >source.txt
"$SLUICE_BIN" sql "SELECT id || '|' || customer || '|' || amount FROM silver.orders WHERE op <> 'd' ORDER BY id" | tail -n +2 >model.txt
cmp -s source.txt model.txt && echo "silver.orders equals the source table ($(wc -l <source.txt) rows)" || diff source.txt model.txt | head
"$SLUICE_BIN" sql "SELECT count(*) = count(DISTINCT (lsn, payload)) AS none_twice FROM landing.orders"

note the live models equal a rebuild
same_as_rebuild bronze.events silver.events gold.accounts silver.orders
