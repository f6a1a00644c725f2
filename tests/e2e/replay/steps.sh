# sluice replay drops and rebuilds the selected models, and every model
# that reads them, from the history their sources keep, in one
# transaction: the models are all as they were or all rebuilt, and the
# live runner takes over exactly where the replay's snapshot ended. A
# replay reads from the nearest anchor (a model that carries a source's
# rows one for one with its boundary columns), rebuilds the models between,
# records what each build read, and refuses to drop rows that retention
# has pruned from the landing tables since.
kafka_start
sed -i "s/KAFKA_BROKERS/$kafka_brokers/" sluice.yml
kafka topic clicks 2
# times relative to now, whole hours, so that counts do not depend on the
# day the case runs
base=$(date -u -d "$(date -u '+%F %H:00:00') - 10 days" '+%F %T')
at() { date -u -d "$base UTC + $1 hours" '+%FT%TZ'; }
# orders FIRST COUNT HOURS: COUNT orders from id FIRST, one an hour from
# base + HOURS, landed and announced
orders() {
	retry "$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region, ts)
		SELECT $1 + i, i % 7, CASE i % 3 WHEN 0 THEN 'eu' WHEN 1 THEN 'us' ELSE 'apac' END,
		       TIMESTAMP '$base' + ($3 + i) * INTERVAL '1 hour'
		FROM generate_series(0, $2 - 1) AS t(i)" >/dev/null
	retry "$SLUICE_BIN" live advance orders >/dev/null
}
# replay ARGS...: sl replay, its start times, run id and sequences left out
replay() {
	sl replay "$@" | sed -E -e 's/\(run [0-9]+\)/(run <n>)/' -e 's/(sequences? (through )?)[0-9]+/\1<n>/g' \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/<T>/g'
}
retry "$SLUICE_BIN" run >/dev/null

note where a replay reads history from: the nearest anchor, the models between rebuilt
sl replay platinum.totals --dry-run
sl replay gold.slim_total --dry-run
sl replay gold.private_total --dry-run
sl replay gold.clicks_by_p --dry-run --start-time 2026-01-01T00:00:00Z
replay silver.orders --start-time '2026-01-01 00:00'
sl replay silver.orders --start-time 2026-02-30T00:00:00Z
sl replay silver.orders --start-time "2026-01-01T00:00:00Z; DROP TABLE landing.orders"
sl replay
sl replay gold.nothing

note a replay rebuilds from the landing history, equal to a build from scratch
orders 0 240 0
kafka sendmany clicks 0 30 a
kafka sendmany clicks 1 20 b
retry "$SLUICE_BIN" kafka clicks --once >/dev/null
retry "$SLUICE_BIN" live --once >/dev/null
replay silver.orders
same_as_rebuild silver.orders gold.by_region platinum.totals
replay silver.clicks
same_as_rebuild silver.clicks gold.clicks_by_p
q "SELECT model, source, mode, part, low, high, rows FROM _sluice.replay_boundaries ORDER BY model, part"
note a model the live runner builds first records what it read too
cat >models/silver/first_live.sql <<'EOF'
@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT order_id, ts, _sluice_seq FROM landing.orders
EOF
retry "$SLUICE_BIN" live --once >/dev/null
q "SELECT model, mode, rows FROM _sluice.replay_boundaries WHERE model = 'silver.first_live'"
rm models/silver/first_live.sql

note from a start time the rebuilt tables hold no rows from before it, and live goes on from the replay
replay silver.orders --start-time "$(at 120)"
q "SELECT count(*), min(order_id) FROM silver.orders"
q "SELECT sum(orders) FROM gold.by_region"
q "SELECT orders, regions FROM platinum.totals"
q "SELECT count(*) FROM silver.orders_slim"
orders 1000 5 200
retry "$SLUICE_BIN" live --once >/dev/null
q "SELECT count(*) FROM silver.orders"
q "SELECT orders FROM platinum.totals"

note a model that fails undoes the whole replay
cat >models/gold/broken.sql <<'EOF'
@config materialized=incremental, live=true
@assert orders < 0
SELECT region, count(*) AS orders FROM silver.orders GROUP BY region
EOF
replay silver.orders
q "SELECT count(*) FROM silver.orders"
q "SELECT count(*) FROM information_schema.tables WHERE table_name = 'broken'"
rm models/gold/broken.sql

note retention prunes landing rows past their age once every live reader has them, and records it
orders 2000 10 -900
retry "$SLUICE_BIN" live --once >/dev/null
q "SELECT count(*) FROM landing.orders WHERE order_id >= 2000"
q "SELECT source, part, rows FROM _sluice.replay_pruned"
note a replay refuses to drop rows its models hold that the history no longer has
replay silver.orders
replay silver.orders --start-time "$(at -800)"
replay silver.orders --start-time "$(at -1000)"
q "SELECT count(*) FROM silver.orders"
note built when no order had landed, a model holds what its refreshes applied since, and retention took some
replay gold.slim_total

note killed with kill -9 at any point, a replay leaves the old tables or the new ones, never a mix
orders 10000 300000 0
retry "$SLUICE_BIN" live --once >/dev/null
consistent() {
	"$SLUICE_BIN" sql "SELECT (SELECT count(*) FROM silver.orders) AS n,
		(SELECT sum(orders) FROM gold.by_region) = (SELECT count(*) FROM silver.orders)
		AND (SELECT orders FROM platinum.totals) = (SELECT count(*) FROM silver.orders) AS ok" |
		tail -n +2
}
# a replay's time, to kill the next ones somewhere within theirs
t0=$(date +%s%N)
"$SLUICE_BIN" replay silver.orders --start-time "$(at -100)" >replay.log 2>&1
took_ms=$((($(date +%s%N) - t0) / 1000000))
# ten rounds at least, more (30 at most) until five kills found a replay
# running: a replay that ended first makes the next kills come sooner
kills=0 mixed=0 round=0
while ((round < 10 || (kills < 5 && round < 30))); do
	round=$((round + 1))
	from=$(at $((round % 2 ? 120 : -100)))
	"$SLUICE_BIN" replay silver.orders --start-time "$from" >replay.log 2>&1 &
	pid=$!
	sleep "$(awk -v r=$RANDOM -v t=$took_ms 'BEGIN { printf "%.3f", (0.1 + 0.8 * (r % 1000) / 1000) * t / 1000 }')"
	if kill -9 $pid 2>/dev/null; then
		kills=$((kills + 1))
	else
		took_ms=$((took_ms * 2 / 3))
	fi
	wait $pid 2>/dev/null
	state=$(retry consistent)
	case "$state" in
	*true | *t) ;;
	*) mixed=$((mixed + 1)); echo "round $round: $state" ;;
	esac
done
[ $kills -ge 5 ] && echo "replay killed with SIGKILL at least 5 times"
echo "rounds that left a mix: $mixed"
replay silver.orders --start-time "$(at -100)" >/dev/null
same_as_rebuild silver.orders gold.by_region platinum.totals

note while orders arrive by webhook at 50 and 2000 a second and clicks by Kafka, replays hand over to live exactly once, killed with the server or not
serve_start
url="http://127.0.0.1:$serve_port/api/ingest/webhook/orders"
if ! is_postgres; then
	# sluice serve holds a DuckDB file and runs the replays sent to it, by
	# the models its runner had when it started
	cp models/gold/by_region.sql by_region.sql.kept
	sed -i 's/sum(amount) AS revenue/sum(amount) AS revenue, max(amount) AS top/' models/gold/by_region.sql
	replay gold.by_region
	mv by_region.sql.kept models/gold/by_region.sql
fi
now_ts() { date -u '+%F %T'; }
# post ID BODY [CURL ARGS...]: one delivery, sent again (to whichever
# server runs by then) until one takes it, for 30 s at most; its id makes
# a copy land nothing
post() {
	local id=$1 body=$2 code tries=600
	shift 2
	until code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "X-Sluice-Delivery: $id" "$@" \
		--data-binary "$body" \
		"http://127.0.0.1:$(sed -E 's/.*"port": ([0-9]+).*/\1/' .sluice/server.json 2>/dev/null)/api/ingest/webhook/orders") &&
		[[ $code == 200 || $code == 202 ]]; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || { echo "delivery $id not taken: $code" >>undelivered; return 1; }
		sleep 0.05
	done
}
(
	id=5000000
	until [ -f stop ]; do
		post "s$id" "{\"order_id\": $id, \"amount\": 1, \"region\": \"eu\", \"ts\": \"$(now_ts)\"}"
		id=$((id + 1))
		sleep 0.02
	done
) &
slow=$!
(
	id=6000000
	until [ -f stop ]; do
		post "f$id" "$(for k in $(seq 0 99); do
			echo "{\"order_id\": $((id + k)), \"amount\": 2, \"region\": \"us\", \"ts\": \"$(now_ts)\"}"
		done)" -H 'Content-Type: application/x-ndjson'
		id=$((id + 100))
		sleep 0.05
	done
) &
fast=$!
# the mock cluster's pipes, as plain descriptors a background shell keeps
exec {kafka_w}>&"${KAFKA[1]}" {kafka_r}<&"${KAFKA[0]}"
(
	n=0
	until [ -f stop ]; do
		echo "sendmany clicks $((n % 2)) 100 live$n" >&$kafka_w
		read -r answer <&$kafka_r
		[[ $answer == ok* ]] || echo "kafka_mock: $answer"
		n=$((n + 1))
		echo $n >bursts
		sleep 0.05
	done
) &
clicker=$!
# replay_now N: one of three replays, as the process itself (exec), so
# that a kill of the background job's pid reaches sluice
replay_now() {
	case $1 in
	0) exec "$SLUICE_BIN" replay gold.by_region ;;
	1) exec "$SLUICE_BIN" replay silver.orders --start-time "$(at -100)" ;;
	2) exec "$SLUICE_BIN" replay silver.clicks ;;
	esac
}
# ten replays; every third one killed with kill -9 somewhere along the
# way, the server with it, which starts again (on DuckDB the replay runs
# inside the server)
failed=0 killed=0
for round in $(seq 1 10); do
	if ((round % 3)); then
		(replay_now $((round % 3))) >>replays.log 2>&1 || failed=$((failed + 1))
	else
		replay_now $((round % 3)) >>replays.log 2>&1 &
		pid=$!
		sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.3f", 0.05 + (r % 300) / 1000 }')"
		kill -9 $pid $serve_pid 2>/dev/null && killed=$((killed + 1))
		wait $pid $serve_pid 2>/dev/null
		serve_start || break
	fi
	sleep 0.3
done
touch stop
wait $slow $fast $clicker
echo "replays that failed: $failed"
[ "$failed" = 0 ] || tail -20 replays.log
echo "killed along with the server: $killed of 3"
[ -f undelivered ] && head -3 undelivered
# every click sent has landed, and every order and click reached the ends
caught_up() {
	"$SLUICE_BIN" sql "SELECT (SELECT count(*) FROM landing.orders) = (SELECT orders FROM platinum.totals)
		AND (SELECT count(*) FROM landing.clicks) = 50 + 100 * $(cat bursts)
		AND (SELECT count(*) FROM landing.clicks) = (SELECT sum(clicks) FROM gold.clicks_by_p) AS ok" |
		tail -1 | grep -Eq '^(true|t)$'
}
wait_until 60 caught_up || echo "live did not catch up"
q "SELECT count(*) = count(DISTINCT order_id) AS each_order_once, count(*) = (SELECT count(*) FROM landing.orders) AS every_order FROM silver.orders"
q "SELECT sum(orders) = (SELECT count(*) FROM landing.orders) AS region_sums FROM gold.by_region"
q "SELECT count(*) = count(DISTINCT (_sluice_partition, _sluice_offset)) AS each_click_once, count(*) = (SELECT count(*) FROM landing.clicks) AS every_click FROM silver.clicks"
q "SELECT sum(clicks) = sum(offsets) AS click_sums FROM gold.clicks_by_p"
q "SELECT count(*) > 1000 AS many_arrived, count(*) = count(DISTINCT order_id) AS each_delivery_once FROM landing.orders WHERE order_id >= 5000000"
kill -TERM $serve_pid
wait $serve_pid
echo "serve exit $?"
same_as_rebuild silver.orders gold.by_region platinum.totals silver.clicks gold.clicks_by_p
