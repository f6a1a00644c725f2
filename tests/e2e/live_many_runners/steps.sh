# Many processes on one PostgreSQL warehouse: a load generator posts
# webhook events to `sluice serve` for 20 s while two `sluice live`
# processes and the server's own runner share the live models, and the
# runners (now and then the server too) are killed with SIGKILL and started
# again. Every acknowledged event is applied exactly once, and every live
# model equals a rebuild from scratch in another database.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
db() {
	PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt \
		-c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" 2>&1
}
db e2e_live_many_runners
export SHOP_PG="$SLUICE_TEST_PG dbname=e2e_live_many_runners"
export SERVE_TOKEN=t0ken
rate=1000 seconds=20
events=$((rate * seconds))
sl run

note two batch runs of the same selection at once both finish, and the tables are right
"$SLUICE_BIN" run --full-refresh >run1.log 2>&1 &
one=$!
"$SLUICE_BIN" run --full-refresh >run2.log 2>&1 &
two=$!
wait $one
echo "first run exit $?"
wait $two
echo "second run exit $?"

serve_start
"$SLUICE_TOOLS/post_load" --server-file .sluice/server.json --source events --token "$SERVE_TOKEN" \
	--events $events --batch 5 --conns 8 --rate $rate --accounts 50 --deadline 240 \
	--acked acked.txt >load.log 2>&1 &
load=$!
"$SLUICE_BIN" live >>live1.log 2>&1 &
live1=$!
"$SLUICE_BIN" live >>live2.log 2>&1 &
live2=$!

note each group of live models is refreshed by one runner, and the runners share them out
sleep 3
"$SLUICE_BIN" live status --json >status.json
jq -r '[.models[] | {model, runner}] as $m
	| "every live model has a runner: \([$m[] | .runner != null] | all)",
	  "one runner for the whole chain: \([$m[] | select(.model != "audit.by_account") | .runner] | unique | length == 1)",
	  "the two groups on different runners: \(([$m[] | .runner] | unique | length) == 2)"' status.json

kills=0 server_kills=0
while kill -0 $load 2>/dev/null; do
	sleep 0.$((RANDOM % 8 + 2))
	kill -0 $load 2>/dev/null || break
	case $((kills % 4)) in
	0|2)
		kill -9 $live1 2>/dev/null && kills=$((kills + 1))
		wait $live1 2>/dev/null
		"$SLUICE_BIN" live >>live1.log 2>&1 &
		live1=$! ;;
	1)
		kill -9 $live2 2>/dev/null && kills=$((kills + 1))
		wait $live2 2>/dev/null
		"$SLUICE_BIN" live >>live2.log 2>&1 &
		live2=$! ;;
	3)
		kill -9 $serve_pid 2>/dev/null && kills=$((kills + 1)) server_kills=$((server_kills + 1))
		wait $serve_pid 2>/dev/null
		serve_start ;;
	esac
done
wait $load
echo "load generator exit $?"
[ $kills -ge 10 ] && echo "processes killed with SIGKILL at least 10 times while the load ran"
[ $server_kills -ge 2 ] && echo "the server among them at least twice"

note a clean stop of every process, then one cycle catches up on what is left
kill -TERM $serve_pid $live1 $live2
wait $serve_pid $live1 $live2
"$SLUICE_BIN" live --once >/dev/null
sl live --once

note every acknowledged event landed and was applied exactly once
psql "$SHOP_PG" -qAt -c "CREATE TABLE public.acked (id BIGINT)" -c "\\copy public.acked FROM 'acked.txt'"
q "SELECT count(*) = $events AS all_acknowledged, count(*) = count(DISTINCT id) AS each_acknowledged_once FROM public.acked"
q "SELECT count(*) FILTER (WHERE n <> 1) = 0 AS each_acknowledged_event_landed_once FROM (SELECT a.id, count(l.id) AS n FROM public.acked a LEFT JOIN landing.events l USING (id) GROUP BY a.id) c"
q "SELECT count(*) = count(DISTINCT id) AS no_event_landed_twice, count(*) FILTER (WHERE id NOT IN (SELECT id FROM public.acked)) = 0 AS nothing_landed_unacknowledged FROM landing.events"
q "SELECT count(*) = (SELECT count(*) FROM landing.events) AS bronze_applied_each_once, count(*) = count(DISTINCT id) AS none_twice_in_bronze FROM bronze.events"

note every live model equals a rebuild from scratch in another database
db e2e_live_many_runners_rebuilt
rebuilt="$SLUICE_TEST_PG dbname=e2e_live_many_runners_rebuilt"
copy=$(mktemp -d)
cp -r models sluice.yml "$copy/"
(cd "$copy" && SHOP_PG="$rebuilt" "$SLUICE_BIN" run >/dev/null 2>&1) || echo "first rebuild run failed"
psql "$SHOP_PG" -qAt -c "\\copy landing.events TO '$copy/events.csv' CSV"
psql "$rebuilt" -qAt -c "\\copy landing.events FROM '$copy/events.csv' CSV"
(cd "$copy" && SHOP_PG="$rebuilt" "$SLUICE_BIN" run --full-refresh >/dev/null 2>&1) || echo "rebuild failed"
for m in bronze.events silver.events gold.accounts audit.by_account; do
	psql "$SHOP_PG" -qAt -c "\\copy (SELECT * FROM $m t ORDER BY t::text) TO '$copy/live.txt'"
	psql "$rebuilt" -qAt -c "\\copy (SELECT * FROM $m t ORDER BY t::text) TO '$copy/rebuilt.txt'"
	if cmp -s "$copy/live.txt" "$copy/rebuilt.txt"; then
		echo "$m equals a rebuild ($(wc -l <"$copy/live.txt" | tr -d ' ') rows)"
	else
		echo "$m differs from a rebuild"
		diff "$copy/live.txt" "$copy/rebuilt.txt" | head -5
	fi
done
rm -rf "$copy"
