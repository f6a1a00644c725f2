# `sluice sql` prints every value as DuckDB writes it as text, type by type;
# --json shows a value whole, a NUL byte it holds included. Timestamps are
# printed as they are (not normalized): they are constants here.
cd proj
note every type family, as text
"$SLUICE_BIN" sql "SELECT 42 AS i, -9223372036854775808 AS big, 170141183460469231731687303715884105727::HUGEINT AS huge,
  12.30::DECIMAL(5,2) AS dec, 0.5::DECIMAL(3,3) AS frac, true AS b, NULL AS n"
"$SLUICE_BIN" sql "SELECT -1.5::DOUBLE AS d, 1 / 3 AS third, 1e20::DOUBLE AS e20, 'nan'::DOUBLE AS nan,
  0.1::FLOAT AS f, 147629008::FLOAT AS f2"
"$SLUICE_BIN" sql "SELECT DATE '2024-02-29' AS d, DATE '0044-03-15 (BC)' AS bc, 'infinity'::DATE AS inf,
  TIME '03:04:05.5' AS t, TIMESTAMP '2024-01-02 03:04:05.12' AS ts,
  INTERVAL '1 year 2 months 3 days 04:05:06.789' AS iv, INTERVAL (-5) MINUTE AS back"
"$SLUICE_BIN" sql "SELECT 'héllo' AS s, unhex('00FF41') AS bl, [1, 2] AS l, {'a': 1} AS st,
  '12345678-1234-5678-1234-567812345678'::UUID AS u, 'b'::ENUM('a', 'b') AS e,
  TIMESTAMP_S '2024-01-02 03:04:05' AS secs"

note a NUL byte: the JSON shows the value whole, the table each NUL as a backslash and 0
"$SLUICE_BIN" sql --json "SELECT 'a' || chr(0) || 'b' AS v, repeat('x', 14) || chr(0) AS long, NULL AS n"
"$SLUICE_BIN" sql "SELECT 'a' || chr(0) || 'b' AS v, 1 AS after" | od -An -c | tr -s ' '

note a result of several chunks, every row in order
"$SLUICE_BIN" sql "SELECT i, i / 4 AS q FROM range(5000) t(i) ORDER BY i" | sed -n '1,3p;$p'
"$SLUICE_BIN" sql --json "SELECT i FROM range(5000) t(i) ORDER BY i" | grep -c '"i"'

note RETURNING rows: reals as in a query, a list reads as NULL unless cast
"$SLUICE_BIN" sql "CREATE TABLE r (x DOUBLE, l INTEGER[])" >/dev/null
"$SLUICE_BIN" sql "INSERT INTO r VALUES (0.1, [1]) RETURNING x, l, l::VARCHAR AS l_text"
