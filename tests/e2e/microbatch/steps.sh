# A microbatch model builds window by window; later runs build its newest
# window again (lookback=1: late rows land there), and a run window rebuilds
# older ones.
# windows are decided at a fixed time, so that the output stays the same
export SLUICE_NOW='2026-12-01 12:00'
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.ev (ts TIMESTAMP, v INTEGER); INSERT INTO raw.ev VALUES ('2026-08-31 23:00', 100), ('2026-09-03 10:00', 1), ('2026-09-20 10:00', 2), ('2026-10-01 00:00', 3), ('2026-11-02 12:00', 4)" >/dev/null
sl compile gold.monthly
sl run
q "SELECT CAST(month AS DATE) AS month, events, total FROM gold.monthly ORDER BY month"
note a late row for the newest month and one for an old month
"$SLUICE_BIN" sql "INSERT INTO raw.ev VALUES ('2026-11-15 08:00', 10), ('2026-09-05 08:00', 20)" >/dev/null
sl run
q "SELECT CAST(month AS DATE) AS month, events, total FROM gold.monthly ORDER BY month"
note a run window rebuilds the old month
sl run --since 2026-09-01 --until 2026-10-01
q "SELECT CAST(month AS DATE) AS month, events, total FROM gold.monthly ORDER BY month"
note a full refresh rebuilds every window from start
sl run --full-refresh
q "SELECT CAST(month AS DATE) AS month, events, total FROM gold.monthly ORDER BY month"
note a microbatch model must read only its window
cat > models/gold/monthly.sql <<'SQL'
@config materialized=incremental, incremental_strategy=microbatch, temporality=temporal,
        time_column=month, grain=1mo
SELECT CAST(date_trunc('month', ts) AS TIMESTAMP) AS month, count(*) AS events FROM raw.ev GROUP BY 1
SQL
sl validate
