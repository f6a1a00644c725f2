# Restatements cascade: hours rebuilt by bulldozer or torch make the days
# built from them due again, and the running totals built from those days,
# in one run in DAG order; plan says which upstream re-applied what. The
# clock moves between runs, as it does: a window built in the same second
# as its upstream's rows read them as they are.
if is_postgres; then
	hours="generate_series(0, 71) AS t(i)" hour="i * INTERVAL '1 hour'"
else
	hours="range(0, 72) t(i)" hour="INTERVAL (i) HOUR"
fi
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events (ts TIMESTAMP, amount INTEGER);
INSERT INTO raw.events SELECT TIMESTAMP '2026-11-01' + $hour, 1 FROM $hours" >/dev/null
# what a clean rebuild holds, straight from the source
clean() {
	"$SLUICE_BIN" sql "SELECT CAST(d.day AS DATE) AS day, d.total,
		(SELECT sum(amount) FROM raw.events e WHERE e.ts < d.day + INTERVAL '1 day') AS running_total
		FROM (SELECT date_trunc('day', ts) AS day, sum(amount) AS total FROM raw.events GROUP BY 1) d
		ORDER BY day" | tail -n +2
}
built() {
	"$SLUICE_BIN" sql "SELECT CAST(d.day AS DATE) AS day, d.total, r.running_total
		FROM gold.daily d JOIN gold.running r ON r.day = d.day ORDER BY d.day" | tail -n +2
}
same() {
	if [ "$(clean)" = "$(built)" ]; then
		echo "the days and running totals are a clean rebuild's"
	else
		echo "the days and running totals differ from a clean rebuild's:"
		built
	fi
}
export SLUICE_NOW='2026-11-05 00:00'
sl run
same

note two hours restated by bulldozer: their day, and the running totals from that day on, are due again
"$SLUICE_BIN" sql "UPDATE raw.events SET amount = 10 WHERE ts >= TIMESTAMP '2026-11-02 05:00' AND ts < TIMESTAMP '2026-11-02 07:00'" >/dev/null
export SLUICE_NOW='2026-11-05 01:00'
sl run --mode bulldozer -s silver.events_hourly --since '2026-11-02 05:00' --until '2026-11-02 07:00'
sl plan
win gold.daily
note one run rebuilds both levels in DAG order
sl run
same
sl run

note torch rebuilds every hour: every day and running total follows in one run
"$SLUICE_BIN" sql "UPDATE raw.events SET amount = 2 WHERE ts >= TIMESTAMP '2026-11-03 00:00'" >/dev/null
export SLUICE_NOW='2026-11-05 02:00'
sl run --mode torch -s silver.events_hourly
sl run
same
sl run

note a run window rebuilds that window in each model; the running totals after it read the day rebuilt, and the next run builds them
"$SLUICE_BIN" sql "UPDATE raw.events SET amount = 3 WHERE ts < TIMESTAMP '2026-11-02 00:00'" >/dev/null
export SLUICE_NOW='2026-11-05 03:00'
sl run --since 2026-11-01 --until 2026-11-02
sl plan
sl run
same
