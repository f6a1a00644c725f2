# kill -9 at random points of windowed runs of appending models, fixed and
# flexible, in every mode (discover with lookback, bulldozer and torch over
# random run windows, one worker or several): no hour ever holds its rows
# twice or in part, an hour that is applied (or that a flexible model's
# coverage holds) holds all of them, and once a last run has built the
# rest, each model holds every row of the source exactly once, as a clean
# rebuild does.
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.ev AS
SELECT TIMESTAMP '2026-10-01' + (i * 3) * INTERVAL '1 minute' AS ts, i AS v
FROM generate_series(0, 4799) AS t(i)" >/dev/null
export SLUICE_NOW='2026-10-11 00:00'
hours="SELECT TIMESTAMP '2026-10-01' + i * INTERVAL '1 hour' AS h FROM generate_series(0, 239) AS t(i)"
# hours of MODEL that hold some but not all of their rows, or more; and
# with its state, hours it holds applied (or covered) without all of them
bad_hours() {
	"$SLUICE_BIN" sql "SELECT count(*) AS bad FROM (
		SELECT EXISTS (SELECT 1 FROM _sluice.windows w WHERE w.model = '$1' AND w.status = 'applied'
				AND w.since <= g.h AND w.until >= g.h + INTERVAL '1 hour') AS covered,
		       (SELECT count(*) FROM $1 e WHERE e.ts >= g.h AND e.ts < g.h + INTERVAL '1 hour') AS got,
		       (SELECT count(*) FROM raw.ev r WHERE r.ts >= g.h AND r.ts < g.h + INTERVAL '1 hour') AS want
		FROM ($hours) g) x
		WHERE (got <> 0 AND got <> want) OR (covered AND got <> want)" | tail -n 1
}
check() {
	for m in silver.ev_fix silver.ev_flex; do
		"$SLUICE_BIN" sql "SELECT 1 FROM $m LIMIT 1" >/dev/null 2>&1 || continue
		bad=$(bad_hours $m)
		[ "$bad" = 0 ] || echo "$1: $m has $bad hours doubled or in part"
	done
}
# a random day-aligned run window of at least a day
range() {
	local a=$((RANDOM % 9 + 1)) n=$((RANDOM % 2 + 1))
	printf -- "--since 2026-10-%02d --until 2026-10-%02d" "$a" $((a + n))
}
kills=0
# the kill comes at a random point of a run as long as the last whole one
# took (ms), so that it lands mid-run however fast the machine is
took=600
for i in $(seq 1 14); do
	workers=$((RANDOM % 3 + 1))
	case $((i % 4)) in
	0) args="--mode bulldozer $(range)" ;;
	1) args="" ;;
	2) args="--mode torch -s silver.ev_flex $(range)" ;;
	3) args="--mode torch -s silver.ev_fix $(range)" ;;
	esac
	"$SLUICE_BIN" run $args --chunk 1h --workers $workers >/dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v r="$RANDOM" -v t="$took" 'BEGIN { printf "%.3f", t * (0.05 + (r % 90) / 100) / 1000 }')"
	kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
	wait "$pid" 2>/dev/null
	check "after run $i ($args, killed)"
	# and the same run to its end, which builds its windows again
	started=$(date +%s%N)
	"$SLUICE_BIN" run $args --chunk 1h --workers $workers >/dev/null 2>&1
	took=$((($(date +%s%N) - started) / 1000000))
	check "after run $i ($args)"
done
echo "killed mid-run: $([ "$kills" -gt 3 ] && echo yes || echo no)"
note a last run builds what is left, lookback included
"$SLUICE_BIN" run --chunk 1h >/dev/null 2>&1
echo "[exit $?]"
note every row of the source once in each model, as a clean rebuild holds it
for m in silver.ev_fix silver.ev_flex; do
	if [ "$(rows_of $m)" = "$(rows_of raw.ev)" ]; then
		echo "$m: every row once"
	else
		echo "$m: rows differ from the source"
		q "SELECT count(*) AS n, count(DISTINCT v) AS distinct_v FROM $m"
	fi
done
q "SELECT model, count(*) AS islands FROM _sluice.windows WHERE model = 'silver.ev_flex' GROUP BY model"
q "SELECT count(*) AS applied FROM _sluice.windows WHERE model = 'silver.ev_fix' AND status = 'applied'"
