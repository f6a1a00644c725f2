# Windows of one model built by several workers at once, each on its own
# connection: the same windows, rows and state rows as one after the
# other, a failed window failing alone, a flexible model's windows joined
# into one island whatever order they commit in.
if is_postgres; then
	"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.ev AS SELECT TIMESTAMP '2026-10-01' + i * INTERVAL '3 minutes' AS ts, i AS v FROM generate_series(0, 9599) AS t(i);
		CREATE TABLE raw.clicks AS SELECT TIMESTAMP '2026-11-01' + i * INTERVAL '10 minutes' AS ts,
		CASE WHEN i % 5 = 0 THEN 'health' ELSE 'home' END AS page FROM generate_series(0, 287) AS t(i)" >/dev/null
else
	"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.ev AS SELECT TIMESTAMP '2026-10-01' + INTERVAL (i * 3) MINUTE AS ts, i AS v FROM range(0, 9600) t(i);
		CREATE TABLE raw.clicks AS SELECT TIMESTAMP '2026-11-01' + INTERVAL (i * 10) MINUTE AS ts,
		CASE WHEN i % 5 = 0 THEN 'health' ELSE 'home' END AS page FROM range(0, 288) t(i)" >/dev/null
fi
export SLUICE_NOW='2026-11-05 00:00'
windows() {
	q "SELECT status, count(*) AS n, sum(attempts) AS attempts FROM _sluice.windows WHERE model = 'silver.ev' GROUP BY status ORDER BY status"
}
note 480 hourly windows by 4 workers: one fails its check, the others build
sl run -s silver.ev --workers 4
windows
q "SELECT count(*) AS n, sum(v) AS total FROM silver.ev"
q "SELECT hash IS NOT NULL AS recorded, data_version > 0 AS versioned FROM _sluice.models WHERE name = 'silver.ev'"
# the comment is written once, after the windows: in theirs it would conflict
if is_postgres; then
	q "SELECT obj_description('silver.ev'::regclass) AS comment"
else
	q "SELECT comment FROM duckdb_tables() WHERE schema_name = 'silver' AND table_name = 'ev'"
fi
note the failed window is tried again, and builds once its data passes
sl run -s silver.ev --workers 4
windows
"$SLUICE_BIN" sql "UPDATE raw.ev SET v = 1 WHERE v = 4000" >/dev/null
sl run -s silver.ev --workers 4
windows
q "SELECT count(*) AS n, sum(v) AS total FROM silver.ev"
note a bulldozer over three days by 3 workers builds them again, rows once
sl run -s silver.ev --since 2026-10-05 --until 2026-10-08 --workers 3
windows
q "SELECT count(*) AS n, sum(v) AS total FROM silver.ev"
note a flexible model cut in hours by 4 workers keeps one island
sl run -s silver.clicks --chunk 1h --workers 4
win silver.clicks
q "SELECT count(*) AS n FROM silver.clicks"
note uncovered and covered again by 3 workers: still one island
sl run -s silver.clicks --since '2026-11-01 10:00' --until '2026-11-02 13:00' --chunk 1h --workers 3
win silver.clicks
q "SELECT count(*) AS n FROM silver.clicks"
sl run -s gold.daily --workers 2
q "SELECT CAST(day AS DATE) AS day, clicks FROM gold.daily ORDER BY day"
if is_postgres; then
	note two runs at once on a shared warehouse build each window once: the one that waited reads the windows again
	"$SLUICE_BIN" sql "DELETE FROM _sluice.windows WHERE model = 'silver.ev' AND since >= TIMESTAMP '2026-10-10';
		DELETE FROM silver.ev WHERE ts >= TIMESTAMP '2026-10-10';
		DELETE FROM _sluice.windows WHERE model = 'silver.clicks';
		DELETE FROM silver.clicks WHERE ts >= TIMESTAMP '2026-11-02'" >/dev/null
	"$SLUICE_BIN" run -s silver.ev,silver.clicks --chunk 1h --workers 2 >a.out 2>&1 &
	first=$!
	"$SLUICE_BIN" run -s silver.ev,silver.clicks --chunk 1h --workers 2 >b.out 2>&1
	wait $first
	for m in silver.ev silver.clicks; do
		echo "windows of $m built by the two runs: $(cat a.out b.out | awk -v m="$m" '$3 == m { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^windows?$/) s += $i } END { print s + 0 }')"
	done
	windows
	q "SELECT count(*) AS n, sum(v) AS total FROM silver.ev"
	win silver.clicks
	q "SELECT count(*) AS n FROM silver.clicks"
fi
note --workers takes a whole number from 1 to 64
sl run --workers 0
sl run --workers 65
sl run --workers two
