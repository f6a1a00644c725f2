# Long grids: an hourly model from 1900 (1,111,896 windows by the fixed
# clock) and a daily rollup of it plan and run under a memory limit of
# 600 MB, their schedules and their state held as runs of windows, never
# one by one, and so is a day due again after an hour of it was applied
# again; a grid from year 1 by the hour is refused.
if is_postgres; then
	hours="generate_series(0, 1111800) AS t(i)" hour="i * INTERVAL '1 hour'"
else
	hours="range(0, 1111801) t(i)" hour="INTERVAL (i) HOUR"
fi
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events (ts TIMESTAMP, v INTEGER);
INSERT INTO raw.events VALUES ('2026-11-01 05:30', 1), ('2026-11-02 07:00', 2)" >/dev/null
export SLUICE_NOW='2026-11-05 00:00'
# the limit is on the address space of sluice, the warehouse's own memory
# included on DuckDB: a grid held window by window does not fit
limited() { mem_limited 600 "$@"; }
plan() {
	echo "\$ sluice plan $*"
	limited "$SLUICE_BIN" plan "$@" 2>&1 | sed -E 's/[0-9]+(\.[0-9]+)?(ms|s)\b/<dur>/g'
	echo "[exit ${PIPESTATUS[0]}]"
}
rows() {
	q "SELECT model, status, count(*) AS rows FROM _sluice.windows GROUP BY model, status ORDER BY model, status"
}

note every window is due: one run from the start to the newest closed hour, and the days after it
plan
note the days alone wait for the hours: their rows are written, one per day
limited sl run -s gold.daily
rows
note two days of hours built: the rest stays implied by the grid, not recorded
limited sl run -s silver.hist --since 2026-11-01 --until 2026-11-03
q "SELECT CAST(ts AS DATE) AS day, v FROM silver.hist ORDER BY ts"
plan
win silver.hist --since '2026-10-31 23:00' --until '2026-11-01 02:00'
note their two days build: the days around them still wait
limited sl run -s gold.daily --since 2026-10-31 --until 2026-11-04
win gold.daily --since 2026-10-30 --until 2026-11-05
rows

note a century of applied hours as runs would have left them: read as runs
"$SLUICE_BIN" sql "DELETE FROM _sluice.windows WHERE model = 'silver.hist';
INSERT INTO _sluice.windows (model, env, since, until, status, applied_at, attempts, grain)
SELECT 'silver.hist', '', TIMESTAMP '1900-01-01' + $hour, TIMESTAMP '1900-01-01' + $hour + INTERVAL '1 hour',
	'applied', TIMESTAMP '2026-11-04', 1, '1h' FROM $hours" >/dev/null
plan -s silver.hist
limited sl run -s silver.hist
plan -s silver.hist
rows

note an hour applied again after its day was built: that day is due again among the days never built, its runs searched, not its windows
export SLUICE_NOW='2026-11-05 01:00'
limited sl run -s silver.hist --mode bulldozer --since '2026-11-02 07:00' --until '2026-11-02 08:00'
plan -s gold.daily
export SLUICE_NOW='2026-11-05 00:00'

note a grid from year 1 by the hour is refused, with the start that would do
sed -i "s/start='1900-01-01'/start='0001-01-01'/" models/silver/hist.sql
plan -s silver.hist
limited sl run -s silver.hist
note refused before anything is forgotten: torch leaves its rows as they were
limited sl run -s silver.hist --mode torch
win silver.hist --since 2026-11-01 --until '2026-11-01 02:00'
rows
