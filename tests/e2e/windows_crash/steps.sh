# kill -9 in the middle of a run of 480 hourly windows, again and again,
# by one worker or several: each window is either applied with all of its
# rows or holds none; an hour of the flexible model's that its applied
# rows cover holds all of its rows, and one that none covers holds none
# (a window's row commits with its data; a kill before it is joined into
# its island leaves it apart, covered); the run after the last kill builds
# exactly the rest.
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.ev AS
SELECT TIMESTAMP '2026-10-01' + INTERVAL (i * 3) MINUTE AS ts, i AS v FROM range(0, 9600) t(i)" >/dev/null
export SLUICE_NOW='2026-11-01 00:00'
check() {
	"$SLUICE_BIN" sql "SELECT count(*) AS bad FROM (
		SELECT w.since, w.status, (SELECT count(*) FROM silver.ev e WHERE e.ts >= g.h AND e.ts < g.h + INTERVAL 1 HOUR) AS got,
		       (SELECT count(*) FROM raw.ev r WHERE r.ts >= g.h AND r.ts < g.h + INTERVAL 1 HOUR) AS want
		FROM (SELECT TIMESTAMP '2026-10-01' + INTERVAL (i) HOUR AS h FROM range(0, 480) t(i)) g
		LEFT JOIN _sluice.windows w ON w.model = 'silver.ev' AND w.since = g.h) x
		WHERE (status = 'applied' AND got <> want) OR (coalesce(status, '') <> 'applied' AND got > 0)" | tail -n 1
}
check_flex() {
	"$SLUICE_BIN" sql "SELECT count(*) AS bad FROM (
		SELECT EXISTS (SELECT 1 FROM _sluice.windows w WHERE w.model = 'silver.evf' AND w.status = 'applied'
				AND w.since <= g.h AND w.until >= g.h + INTERVAL 1 HOUR) AS covered,
		       (SELECT count(*) FROM silver.evf e WHERE e.ts >= g.h AND e.ts < g.h + INTERVAL 1 HOUR) AS got,
		       (SELECT count(*) FROM raw.ev r WHERE r.ts >= g.h AND r.ts < g.h + INTERVAL 1 HOUR) AS want
		FROM (SELECT TIMESTAMP '2026-10-01' + INTERVAL (i) HOUR AS h FROM range(0, 480) t(i)) g) x
		WHERE (covered AND got <> want) OR (NOT covered AND got <> 0)" | tail -n 1
}
kills=0 partial=0 i=0
# later kills come later, so that runs are stopped early, midway and late
while [ "$i" -lt 12 ] && [ "$partial" -lt 3 ]; do
	i=$((i + 1))
	# every other run builds the flexible model alone, so kills reach it
	# in the middle of its windows too
	sel=$([ $((i % 2)) = 1 ] && echo "-s silver.evf" || echo "")
	workers=$((i % 3 + 1))
	"$SLUICE_BIN" run $sel --chunk 1h --workers $workers >/dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v i="$i" -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.1 + i * 0.15 + (r % 10) / 100 }')"
	kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
	wait "$pid" 2>/dev/null
	if "$SLUICE_BIN" sql "SELECT 1 FROM silver.ev LIMIT 1" >/dev/null 2>&1; then
		bad=$(check)
		[ "$bad" = 0 ] || echo "iteration $i: $bad windows half built"
		n=$("$SLUICE_BIN" sql "SELECT count(*) FROM _sluice.windows WHERE model = 'silver.ev' AND status = 'applied'" | tail -n 1)
		[ "$n" -gt 0 ] && [ "$n" -lt 480 ] && partial=$((partial + 1))
	fi
	if "$SLUICE_BIN" sql "SELECT 1 FROM silver.evf LIMIT 1" >/dev/null 2>&1; then
		bad=$(check_flex)
		[ "$bad" = 0 ] || echo "iteration $i: $bad flexible hours half built"
		hours=$("$SLUICE_BIN" sql "SELECT coalesce(sum(epoch(until) - epoch(since)), 0) / 3600 FROM _sluice.windows WHERE model = 'silver.evf' AND status = 'applied'" | tail -n 1)
		[ "${hours%.*}" -gt 0 ] && [ "${hours%.*}" -lt 480 ] && partial=$((partial + 1))
	fi
	# a run that finished leaves nothing to stop: start the windows again
	[ "${n:-0}" = 480 ] && "$SLUICE_BIN" sql "DELETE FROM _sluice.windows WHERE model = 'silver.ev' AND since >= TIMESTAMP '2026-10-11';
		DELETE FROM silver.ev WHERE ts >= TIMESTAMP '2026-10-11';
		DELETE FROM _sluice.windows WHERE model = 'silver.evf' AND since >= TIMESTAMP '2026-10-11';
		UPDATE _sluice.windows SET until = TIMESTAMP '2026-10-11' WHERE model = 'silver.evf' AND until > TIMESTAMP '2026-10-11';
		DELETE FROM silver.evf WHERE ts >= TIMESTAMP '2026-10-11'" >/dev/null
done
echo "killed mid-run: $([ "$kills" -gt 0 ] && echo yes || echo no)"
echo "stopped between windows at least 3 times: $([ "$partial" -ge 3 ] && echo yes || echo no)"
"$SLUICE_BIN" run >/dev/null 2>&1
echo "[exit $?]"
echo "half-built windows: $(check)"
echo "half-built flexible hours: $(check_flex)"
q "SELECT count(*) AS islands, min(since) AS since, max(until) AS until FROM _sluice.windows WHERE model = 'silver.evf'"
q "SELECT count(*) AS n, sum(v) AS total FROM silver.evf"
q "SELECT count(*) AS windows FROM _sluice.windows WHERE model = 'silver.ev' AND status = 'applied'"
q "SELECT count(*) AS n, sum(v) AS total FROM silver.ev"
q "SELECT count(*) AS n, sum(v) AS total FROM raw.ev"
