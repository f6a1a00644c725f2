# Contract and grid mistakes are reported at validate time, each at its
# file and line, and nothing runs.
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.ev (ts TIMESTAMP)" >/dev/null
sl validate
sl run
q "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema IN ('silver', 'gold')"
note bad run windows and modes are usage errors
rm models/gold/bad.sql models/gold/report.sql models/gold/nowindow.sql models/silver/eph.sql
sl run --since 2026-11-01
sl run --since 2026-11-02 --until 2026-11-01
sl run --since 2026-11-01 --until 'next tuesday'
sl run --mode bulldoze
sl run --mode bulldozer
sl run --chunk 1.5s
sl windows silver.nothere
SLUICE_NOW=yesterday sl run
