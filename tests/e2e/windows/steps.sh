# Windows and contracts: an hourly model feeds a daily rollup (encapsulate),
# a running total (through) and a report (whole, with freshness). The
# clock is fixed with SLUICE_NOW so windows and applied_at are the same on
# every run.
if is_postgres; then
	hours="generate_series(0, 71) AS t(i)" hour="i * INTERVAL '1 hour'"
else
	hours="range(0, 72) t(i)" hour="INTERVAL (i) HOUR"
fi
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events (ts TIMESTAMP, user_id INTEGER, amount INTEGER);
INSERT INTO raw.events SELECT TIMESTAMP '2026-11-01' + $hour, i % 7, 1 FROM $hours" >/dev/null
export SLUICE_NOW='2026-11-05 00:00'

note the daily rollup alone: every day waits for its hours
sl run -s gold.daily
win gold.daily
sl plan
note the whole project: hours, then days, then the running total and the report
sl run
q "SELECT CAST(day AS DATE) AS day, events, total FROM gold.daily ORDER BY day"
q "SELECT CAST(day AS DATE) AS day, running_total FROM gold.running ORDER BY day"
q "SELECT * FROM gold.summary"
win gold.daily --json
win gold.summary
note nothing is due now
sl run

note a bad row fails its hour alone: its day waits, and the running total from that day on
"$SLUICE_BIN" sql "INSERT INTO raw.events VALUES ('2026-11-02 05:30', 1, -50)" >/dev/null
sl run --since '2026-11-02' --until '2026-11-03'
win silver.events_hourly --status failed
win gold.daily
win gold.running
q "SELECT CAST(day AS DATE) AS day, events, total FROM gold.daily ORDER BY day"
note the bad row removed, the next run retries the hour and the days follow
"$SLUICE_BIN" sql "DELETE FROM raw.events WHERE amount < 0" >/dev/null
sl run
win silver.events_hourly --since '2026-11-02 04:00' --until '2026-11-02 07:00'
win gold.running
q "SELECT CAST(day AS DATE) AS day, events, total FROM gold.daily ORDER BY day"

note torch on the hourly model keeps only its run window: the first day is a hole
sl run --mode torch -s silver.events_hourly --since '2026-11-02' --until '2026-11-04'
sl plan --since '2026-11-01' --until '2026-11-04' -s gold.daily,gold.running
sl run --since '2026-11-01' --until '2026-11-04' -s gold.daily,gold.running
win gold.daily
win gold.running
note discover fills the hole, and the days follow
sl run

note two days later the report finds its upstream stale
SLUICE_NOW='2026-11-07 00:00' sl run -s gold.summary --full-refresh
SLUICE_NOW='2026-11-07 00:00' sl plan -s gold.summary --full-refresh
note a day rebuilt makes it fresh for the latest scope
SLUICE_NOW='2026-11-07 00:00' sl run -s gold.daily --since 2026-11-03 --until 2026-11-04
SLUICE_NOW='2026-11-07 00:00' sl run -s gold.summary --full-refresh
note a plan in json
sl plan --json --since 2026-11-01 --until 2026-11-02 -s gold.daily
