# Models in PostgreSQL's own SQL build unchanged on a PostgreSQL warehouse:
# :: casts, DISTINCT ON, ->> and ->, FILTER (WHERE ...), LATERAL and
# generate_series. sluice finds what each reads with DuckDB's SQL parser,
# which reads all of these; what that parser cannot read is reported at its
# file:line:col, saying whose parser it is.
cd shop

# a database of the case's own on the suite's server
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt -c "DROP DATABASE IF EXISTS e2e_postgres_sql" \
	-c "CREATE DATABASE e2e_postgres_sql" 2>&1
export PGSQL_PG="$SLUICE_TEST_PG dbname=e2e_postgres_sql"
"$SLUICE_BIN" sql "CREATE SCHEMA raw;
  CREATE TABLE raw.orders (id integer, customer text, status text, amount text, placed_at timestamptz, payload jsonb);
  INSERT INTO raw.orders VALUES
    (1, 'ann', 'paid',    '10.5', '2024-01-01 09:00+00', '{\"channel\": \"web\", \"items\": [{\"sku\": \"a\", \"qty\": 2}]}'),
    (2, 'bob', 'pending', '7',    '2024-01-01 10:00+00', '{\"channel\": \"shop\", \"items\": []}'),
    (3, 'ann', 'paid',    '4.25', '2024-01-03 08:00+00', '{\"channel\": \"web\", \"items\": [{\"sku\": \"b\", \"qty\": 1}, {\"sku\": \"a\", \"qty\": 3}]}'),
    (4, 'ann', 'pending', '1',    '2024-01-03 12:00+00', '{\"channel\": \"app\", \"items\": [{\"sku\": \"c\", \"qty\": 5}]}')" >/dev/null

note every reference is found: the models build in the order they read each other
sl validate
sl dag
sl run
q "SELECT * FROM silver.latest_order ORDER BY customer"
q "SELECT * FROM gold.daily ORDER BY day"
q "SELECT * FROM gold.items ORDER BY id, sku"
q "SELECT * FROM gold.last_two ORDER BY customer, id"
q "SELECT id, customer, amount FROM silver.paid ORDER BY id"

note a new paid order: the incremental model merges only what its filter lets through
"$SLUICE_BIN" sql "INSERT INTO raw.orders VALUES (5, 'bob', 'paid', '3', '2024-01-04 07:00+00', '{\"channel\": \"web\", \"items\": []}')" >/dev/null
sl run
q "SELECT id, customer, amount FROM silver.paid ORDER BY id"
q "SELECT * FROM gold.daily ORDER BY day"

note compile shows the PostgreSQL SQL as it is sent, references and all
sl compile gold.last_two

note SQL that DuckDB parser does not read is reported where it is, and nothing is built
cat >models/gold/top.sql <<'SQL'
@config materialized=table
SELECT customer, amount FROM silver.orders
ORDER BY amount DESC FETCH FIRST 2 ROWS WITH TIES
SQL
cat >models/gold/pairs.sql <<'SQL'
@config materialized=table
SELECT * FROM ROWS FROM (generate_series(1, 2), generate_series(1, 3)) AS t(a, b)
SQL
# a column named at, which DuckDB reads as a keyword unless it is quoted
cat >models/gold/times.sql <<'SQL'
@config materialized=table
SELECT id, at FROM (SELECT id, placed_at AS at FROM silver.orders) AS o
SQL
sl validate
sl run
rm models/gold/top.sql models/gold/pairs.sql models/gold/times.sql
sl run -s gold.daily
