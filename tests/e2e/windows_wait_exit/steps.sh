# A run whose models only wait exits 0, as waiting for data is no failure;
# with --fail-on-wait a run or plan in which a model, or some of its
# windows, waited exits 4 (a failure still exits 1).
if is_postgres; then
	hours="generate_series(0, 47) AS t(i)" hour="i * INTERVAL '1 hour'"
else
	hours="range(0, 48) t(i)" hour="INTERVAL (i) HOUR"
fi
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events (ts TIMESTAMP, amount INTEGER);
INSERT INTO raw.events SELECT TIMESTAMP '2026-11-01' + $hour, 1 FROM $hours" >/dev/null
export SLUICE_NOW='2026-11-05 00:00'

note every model waits: 0 by default, 4 with --fail-on-wait
sl run -s gold.daily,gold.report
sl run -s gold.daily,gold.report --fail-on-wait
sl plan -s gold.daily --fail-on-wait
note the first day of hours only: one day builds, the other waits
sl run -s silver.hourly --since 2026-11-01 --until 2026-11-02
sl run --fail-on-wait -s gold.daily
note a failed hour and a waiting day: a failure exits 1
"$SLUICE_BIN" sql "INSERT INTO raw.events VALUES (TIMESTAMP '2026-11-02 03:30', -5)" >/dev/null
sl run --fail-on-wait
note nothing waits once the hour is fixed
"$SLUICE_BIN" sql "DELETE FROM raw.events WHERE amount < 0" >/dev/null
sl run --fail-on-wait
sl run --fail-on-wait
