# A project on a PostgreSQL warehouse: the connection string comes from
# the environment, tables, views and incremental models build and are
# checked there, and seeds load with COPY.
cd shop

note without the variable dsn_env names, nothing is opened
unset SHOP_PG
sl run

note a server that cannot be reached is named, with the reason libpq gives
export SHOP_PG="host=/nonexistent-sluice-socket-dir port=5432"
sl run

# a database of the case's own on the suite's server
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt -c "DROP DATABASE IF EXISTS e2e_postgres_warehouse" \
	-c "CREATE DATABASE e2e_postgres_warehouse" 2>&1
export SHOP_PG="$SLUICE_TEST_PG dbname=e2e_postgres_warehouse"

note credentials the server refuses are named, with its reason
(export SHOP_PG="$SHOP_PG user=no_such_role"; sl run) | sed -E 's#"[^"]*/\.s\.PGSQL\.[0-9]+"#"<the test server>"#'

note tables, a view and an incremental model build on PostgreSQL
sl run
q "SELECT * FROM gold.by_country ORDER BY country"
q "SELECT * FROM gold.top ORDER BY country"

note a second run finds everything up to date
sl run

note a changed incremental model keeps the rows it holds, so a change to what decides them is refused until asked for
sed -i 's/(2, 3, 4.0)/(2, 3, 5.0), (3, 2, 7.0)/' models/silver/orders.sql
sl plan
sl run
note built anew on --full-refresh, and the view that reads it follows
sl run --full-refresh -s silver.orders
q "SELECT * FROM silver.orders ORDER BY id"
q "SELECT * FROM gold.by_country ORDER BY country"

note a failing check fails the model and leaves its table as it was
sed -i "s/(3, 'cy', 'uk')/(3, 'cy', 'uk'), (3, 'dup', 'fr')/" models/silver/customers.sql
sl run -s silver.customers
q "SELECT count(*) AS customers FROM silver.customers"

note sluice test checks what is built, writing nothing
sl test

note a seed is read, its types inferred as on DuckDB, and sent with COPY
mkdir -p seeds && printf 'code,label,rate,since\nuk,"United Kingdom, the",1.5,2020-01-31\nus,,2,2021-06-01\n' >seeds/codes.csv
sl run -s seeds.codes
q "SELECT code, coalesce(label, '(none)') AS label, rate * 2 AS twice, since + 1 AS next_day FROM seeds.codes ORDER BY code"

note webhook rows go in with COPY: the characters COPY escapes land as sent, and a value the column refuses is refused to the sender
serve_start
curl -s -w ' %{http_code}\n' -X POST -d '{"id": 1, "note": "tab\there, back\\slash, line\nbreak"}' "http://127.0.0.1:$serve_port/api/ingest/webhook/events"
echo
curl -s -w ' %{http_code}\n' -X POST -d '{"id": 2, "tags": "not an array"}' "http://127.0.0.1:$serve_port/api/ingest/webhook/events"
echo
printf '{"id": 3, "note": "fine"}\n{"id": 4, "tags": "x"}\n' |
	curl -s -w ' %{http_code}\n' -X POST -H 'Content-Type: application/x-ndjson' --data-binary @- \
		"http://127.0.0.1:$serve_port/api/ingest/webhook/events"
echo
note a JSON array lands in an array column, as DuckDB lands it in a list
curl -s -w ' %{http_code}\n' -X POST -d '{"id": 5, "note": "listed", "tags": [1, 2, null]}' "http://127.0.0.1:$serve_port/api/ingest/webhook/events"
echo
kill -TERM "$serve_pid" && wait "$serve_pid"
q "SELECT id, replace(replace(note, chr(9), '<tab>'), chr(10), '<nl>') AS note, tags, tags[2] AS second FROM landing.events ORDER BY id"

note two runs at once: the one that waits while the other builds a model reads its row again and finds it up to date
printf -- '-- takes a second to build\n@config materialized=table\nSELECT 1 AS x FROM pg_sleep(1)\n' >models/silver/pause.sql
"$SLUICE_BIN" run -s silver.pause >/dev/null 2>&1
sed -i 's/SELECT 1 AS x/SELECT 2 AS x/' models/silver/pause.sql
"$SLUICE_BIN" run -s silver.pause >first.out 2>&1 &
first=$!
sleep 0.3
t0=$(date +%s%N)
"$SLUICE_BIN" run -s silver.pause >second.out 2>&1
echo "second run exit $?"
[ $((($(date +%s%N) - t0) / 1000000)) -ge 500 ] && echo "the second run waited for the first"
wait $first
echo "first run exit $?"
grep -h "silver.pause" first.out second.out | normalize | sed -E 's/ +/ /g' | sort
q "SELECT x FROM silver.pause"
q "SELECT build_count FROM _sluice.models WHERE name = 'silver.pause'"
