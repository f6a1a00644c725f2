# `sluice sql` prints every value as the warehouse writes it as text, type
# by type (DuckDB: as CAST(x AS VARCHAR) writes it); --json shows a value
# whole, a NUL byte it holds included. Timestamps are printed as they are
# (not normalized): they are constants here. The few types one warehouse
# has and the other lacks are spelt for each: a HUGEINT is a NUMERIC on
# PostgreSQL, a BLOB a bytea, a STRUCT a row.
cd proj
if is_postgres; then
	huge="CAST(170141183460469231731687303715884105727 AS NUMERIC)"
	blob="decode('00FF41', 'hex')" struct="ROW(1)"
else
	huge="CAST(170141183460469231731687303715884105727 AS HUGEINT)"
	blob="unhex('00FF41')" struct="{'a': 1}"
fi
note every type family, as text
"$SLUICE_BIN" sql "SELECT 42 AS i, -9223372036854775808 AS big, $huge AS huge,
  CAST(12.30 AS DECIMAL(5,2)) AS dec, CAST(0.5 AS DECIMAL(3,3)) AS frac, true AS b, NULL AS n"
"$SLUICE_BIN" sql "SELECT CAST(-1.5 AS DOUBLE PRECISION) AS d, CAST(1 AS DOUBLE PRECISION) / 3 AS third,
  CAST(1e20 AS DOUBLE PRECISION) AS e20, CAST('nan' AS DOUBLE PRECISION) AS nan,
  CAST(0.1 AS REAL) AS f, CAST(147629008 AS REAL) AS f2"
"$SLUICE_BIN" sql "SELECT DATE '2024-02-29' AS d, DATE '0044-03-15 (BC)' AS bc, CAST('infinity' AS DATE) AS inf,
  TIME '03:04:05.5' AS t, TIMESTAMP '2024-01-02 03:04:05.12' AS ts,
  INTERVAL '1 year 2 months 3 days 04:05:06.789' AS iv, INTERVAL '-5 minutes' AS back"
"$SLUICE_BIN" sql "CREATE TYPE ab AS ENUM ('a', 'b')" >/dev/null
"$SLUICE_BIN" sql "SELECT 'héllo' AS s, $blob AS bl, ARRAY[1, 2] AS l, $struct AS st,
  CAST('12345678-1234-5678-1234-567812345678' AS UUID) AS u, CAST('b' AS ab) AS e,
  CAST('2024-01-02 03:04:05' AS TIMESTAMP(0)) AS secs"

note a NUL byte: the JSON shows the value whole, the table each NUL as a backslash and 0, where text may hold one: PostgreSQL refuses it
"$SLUICE_BIN" sql --json "SELECT 'a' || chr(0) || 'b' AS v, repeat('x', 14) || chr(0) AS long, NULL AS n"
"$SLUICE_BIN" sql "SELECT 'a' || chr(0) || 'b' AS v, 1 AS after" | od -An -c | tr -s ' '

note a result of several chunks, every row in order
rows="WITH RECURSIVE t(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM t WHERE i < 4999)"
"$SLUICE_BIN" sql "$rows SELECT i, CAST(i AS DOUBLE PRECISION) / 4 AS q FROM t ORDER BY i" | sed -n '1,3p;$p'
"$SLUICE_BIN" sql --json "$rows SELECT i FROM t ORDER BY i" | grep -c '"i"'

note RETURNING rows: reals as in a query, a list reads as NULL on DuckDB unless cast
"$SLUICE_BIN" sql "CREATE TABLE r (x DOUBLE PRECISION, l INTEGER[])" >/dev/null
"$SLUICE_BIN" sql "INSERT INTO r VALUES (0.1, ARRAY[1]) RETURNING x, l, CAST(l AS VARCHAR) AS l_text"
