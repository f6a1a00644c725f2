# A flexible model keeps its coverage as islands, one row each, whatever
# the chunks its runs were cut in; a fixed model downstream gates on it.
if is_postgres; then
	"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.clicks AS SELECT TIMESTAMP '2026-11-01' + i * INTERVAL '10 minutes' AS ts,
		CASE WHEN i % 5 = 0 THEN 'health' ELSE 'home' END AS page FROM generate_series(0, 287) AS t(i)" >/dev/null
else
	"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.clicks AS SELECT TIMESTAMP '2026-11-01' + INTERVAL (i * 10) MINUTE AS ts,
		CASE WHEN i % 5 = 0 THEN 'health' ELSE 'home' END AS page FROM range(0, 288) t(i)" >/dev/null
fi
export SLUICE_NOW='2026-11-05 00:00'
note the first day in chunks of 6 hours: one island
sl run -s silver.clicks --since 2026-11-01 --until 2026-11-02 --chunk 6h
win silver.clicks
note the daily model builds the day that is covered and waits for the other
sl run -s gold.daily
note the rest in chunks of 5 hours joins the island
sl run -s silver.clicks --chunk 5h
win silver.clicks
note bulldozer uncovers a range and covers it again: still one island
sl run -s silver.clicks --since '2026-11-01 10:00' --until '2026-11-01 13:00' --chunk 1h
win silver.clicks
note torch with a run window leaves that range alone covered
sl run -s silver.clicks --mode torch --since '2026-11-02 06:00' --until '2026-11-02 12:00'
win silver.clicks
q "SELECT count(*) AS n FROM silver.clicks"
sl run
q "SELECT count(*) AS n FROM silver.clicks"
win gold.daily
q "SELECT CAST(day AS DATE) AS day, clicks FROM gold.daily ORDER BY day"
q "SELECT count(*) AS n FROM _sluice.windows WHERE model = 'silver.clicks'"
note --chunk on a fixed model is ignored, with a warning
sl run -s gold.daily --chunk 2h
note rows left apart, as a crash between a window and its island leaves them, join into one island
"$SLUICE_BIN" sql "DELETE FROM _sluice.windows WHERE model = 'silver.clicks';
	INSERT INTO _sluice.windows (model, env, since, until, status, applied_at, attempts) VALUES
	('silver.clicks', '', TIMESTAMP '2026-11-01 00:00', TIMESTAMP '2026-11-02 00:00', 'applied', TIMESTAMP '2026-11-05 00:00', 1),
	('silver.clicks', '', TIMESTAMP '2026-11-02 00:00', TIMESTAMP '2026-11-02 01:00', 'applied', TIMESTAMP '2026-11-05 00:00', 1);
	DELETE FROM silver.clicks WHERE ts >= TIMESTAMP '2026-11-02 01:00'" >/dev/null
sl run -s silver.clicks --chunk 1h
win silver.clicks
q "SELECT count(*) AS n FROM silver.clicks"
note a flexible model that aggregates is refused, one that appends is not: each window replaces its rows
cat > models/silver/agg.sql <<'SQL'
@config materialized=incremental, temporality=temporal, flexibility=flex, time_column=h,
        grain=1h, start='2026-11-01'
SELECT CAST({since} AS TIMESTAMP) AS h, count(*) AS n FROM raw.clicks WHERE ts >= {since} AND ts < {until}
SQL
cat > models/silver/app.sql <<'SQL'
@config materialized=incremental, incremental_strategy=append, temporality=temporal,
        flexibility=flex, time_column=ts, grain=1h, start='2026-11-01'
SELECT ts FROM raw.clicks WHERE ts >= {since} AND ts < {until}
SQL
sl validate
