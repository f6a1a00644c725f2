# kill -9 `sluice serve` at random moments while a load generator posts
# webhook events over 16 connections, and start it again on a new port
# each time; the load generator finds the new port in .sluice/server.json
# and retries what was not acknowledged, with the same delivery ids. At the
# end every acknowledged event is in landing exactly once, none is there
# twice, and the live chain equals a rebuild from scratch. 20,000 events in
# requests of 5 and 3 kills (SLUICE_SLOW=1: 200,000 events, and kills for
# as long as the load runs, at least 10). The rate keeps the load going
# past the kills: at 3,000 events/s it needs over 5.9 s of server time (a
# restart is made up for by at most 250 ms worth), and each kill comes
# within 0.6 s of server time.
if [ -n "${SLUICE_SLOW:-}" ]; then
	events=200000 rate=10000 want=10 most=100000
else
	events=20000 rate=3000 want=3 most=3
fi
export SERVE_TOKEN=t0ken
retry "$SLUICE_BIN" run >/dev/null

serve_start
"$SLUICE_TOOLS/post_load" --server-file .sluice/server.json --source events --token "$SERVE_TOKEN" \
	--events $events --batch 5 --conns 16 --rate $rate --accounts 50 --deadline 240 \
	--acked acked.txt >load.log 2>&1 &
load=$!
kills=0
while [ $kills -lt $most ] && kill -0 $load 2>/dev/null; do
	sleep 0.$((RANDOM % 6 + 1))
	kill -0 $load 2>/dev/null || break
	# count only the kills that found the server running, with load going on
	kill -9 $serve_pid 2>/dev/null && kills=$((kills + 1))
	wait $serve_pid 2>/dev/null
	serve_start
done
wait $load
echo "load generator exit $?"
[ $kills -ge $want ] && echo "server killed with SIGKILL as often as asked while the load ran"

note "a clean stop, then the live chain catches up on what is left"
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
retry "$SLUICE_BIN" live --once >/dev/null
sl live --once

note "every acknowledged event landed exactly once"
"$SLUICE_BIN" sql "CREATE SCHEMA check_" >/dev/null
load_ids check_.acked acked.txt || echo "cannot load the acknowledged ids"
"$SLUICE_BIN" sql "SELECT count(*) = $events AS all_acknowledged, count(*) = count(DISTINCT id) AS each_acknowledged_once FROM check_.acked"
"$SLUICE_BIN" sql "SELECT count(*) FILTER (WHERE n <> 1) = 0 AS each_acknowledged_event_landed_once
	FROM (SELECT a.id, count(l.id) AS n FROM check_.acked a LEFT JOIN landing.events l USING (id) GROUP BY a.id) AS per_id"
"$SLUICE_BIN" sql "SELECT count(*) = count(DISTINCT id) AS no_event_landed_twice,
	count(*) FILTER (WHERE id NOT IN (SELECT id FROM check_.acked)) = 0 AS nothing_landed_unacknowledged
	FROM landing.events"
"$SLUICE_BIN" sql "SELECT count(*) = $events / 5 AS one_delivery_per_request FROM _sluice.deliveries"
"$SLUICE_BIN" sql "SELECT count(*) = (SELECT count(*) FROM landing.events) AS bronze_applied_each_once,
	count(*) = count(DISTINCT id) AS none_twice_in_bronze FROM bronze.events"
"$SLUICE_BIN" sql "DROP TABLE check_.acked; DROP SCHEMA check_" >/dev/null
same_as_rebuild bronze.events silver.events gold.accounts
