# An environment builds every model into SCHEMA_ENV with state rows of its
# own; references to managed models read the env's copy, but for an
# upstream trusted with deactivate_for_dev=true, which reads the main table
# and is not gated; outside tables stay as written.
if is_postgres; then
	hours="generate_series(0, 23) AS t(i)" hour="i * INTERVAL '1 hour'"
else
	hours="range(0, 24) t(i)" hour="INTERVAL (i) HOUR"
fi
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events (ts TIMESTAMP, amount INTEGER);
INSERT INTO raw.events SELECT TIMESTAMP '2026-11-01' + $hour, 1 FROM $hours" >/dev/null
export SLUICE_NOW='2026-11-05 00:00'
note main builds
sl run
note in the env the daily model waits for the env hours, and the trusting one reads main
sl run --env pr1 -s gold.daily,gold.shared
sl compile gold.shared --env pr1
sl compile gold.daily --env pr1
note the whole env, then its own numbers from a changed source
"$SLUICE_BIN" sql "UPDATE raw.events SET amount = 2" >/dev/null
SLUICE_ENV=pr1 sl run
q "SELECT 'main' AS env, total FROM gold.daily UNION ALL SELECT 'pr1', total FROM gold_pr1.daily UNION ALL SELECT 'pr1 shared', total FROM gold_pr1.shared ORDER BY env"
q "SELECT env, count(*) AS windows FROM _sluice.windows WHERE model = 'silver.hourly' GROUP BY env ORDER BY env"
win gold.daily --env pr1
sl run --env PR-1
