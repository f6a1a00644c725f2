# sluice sql reads through sluice serve while it holds the warehouse: the
# same output as without it in every format, the query from an argument,
# a file or standard input (a leading -- comment too); read-only for
# real, bounded in rows, bytes and time, and behind the token. What an
# attacker sends (writes, several statements, files read or written,
# oversized or slow requests) is refused and changes nothing.
export READS_TOKEN=t0ken
api() { curl -s -w ' %{http_code}\n' "$@"; }
sqlapi() { api -H "Authorization: Bearer t0ken" --data-binary "$1" "http://127.0.0.1:$serve_port/api/sql${2:-}"; }

"$SLUICE_BIN" run >/dev/null 2>&1
"$SLUICE_BIN" sql "INSERT INTO landing.people (id, name, note) VALUES
	(1, 'ann', 'likes, commas'), (2, 'bob', NULL), (3, 'cy', ''), (4, 'di', 'says \"hi\"')" >/dev/null
"$SLUICE_BIN" sql "CREATE SEQUENCE silver.ids" >/dev/null
sl run
printf -- '-- a comment first\nSELECT count(*) AS n FROM silver.people\n' >q.sql

shows() {
	sl sql "SELECT id, name, note FROM silver.people ORDER BY id"
	sl sql --format csv "SELECT id, name, note FROM silver.people ORDER BY id"
	sl sql --format ndjson "SELECT id, name, note FROM silver.people ORDER BY id"
	sl sql --json "SELECT id, name FROM silver.people ORDER BY id"
	sl sql --format json --max-rows 2 "SELECT id FROM silver.people ORDER BY id"
	sl sql -f q.sql
	sl sql - <q.sql
	sl sql <q.sql
	sl sql "$(cat q.sql)"
	sl sql --format xml "SELECT 1"
	sl sql -f missing.sql
}

note "without a server"
shows | tee without.txt

serve_start
note "with the server: the same output"
shows >with.txt
diff without.txt with.txt && echo "the same output, byte for byte"

note "the API: each format by parameter or Accept header, truncation reported"
sqlapi "SELECT id, name FROM silver.people ORDER BY id" "?max_rows=3"
api -H "Authorization: Bearer t0ken" -H "Accept: text/csv" -D - --data-binary "SELECT id FROM silver.people ORDER BY id" \
	"http://127.0.0.1:$serve_port/api/sql?max_rows=2" | tr -d '\r' | grep -Ev '^(Date|Content-Length):'
sqlapi "SELECT id FROM silver.people ORDER BY id" "?format=ndjson&max_rows=1"

note "no token, a wrong token: 401, from the API and from sluice sql"
api --data-binary "SELECT 1" "http://127.0.0.1:$serve_port/api/sql"
api -H "Authorization: Bearer nope" --data-binary "SELECT 1" "http://127.0.0.1:$serve_port/api/sql"
is_postgres || READS_TOKEN=nope sl sql "SELECT 1"

note "writes are refused: by the statement, not by its text"
for q in "INSERT INTO silver.people (id) VALUES (9)" \
	"CREATE TABLE silver.evil AS SELECT 1 AS x" \
	"UPDATE silver.people SET name = 'x'" \
	"DELETE FROM silver.people" \
	"DROP TABLE silver.people" \
	"SELECT 1 AS x; DROP TABLE silver.people" \
	"COPY silver.people TO 'copied.csv'" \
	"COPY (SELECT 1) TO 'copied.csv'" \
	"ATTACH 'other.db' AS other" \
	"PRAGMA version" \
	"SET threads = 1" \
	"BEGIN" \
	"EXPORT DATABASE 'exported'" \
	"WITH gone AS (DELETE FROM silver.people RETURNING *) SELECT * FROM gone" \
	"CALL pragma_version()" \
	"CHECKPOINT" \
	"SET TRANSACTION READ WRITE" \
	"COMMIT; DELETE FROM silver.people" \
	"-- a comment first
INSERT INTO silver.people (id) VALUES (9)" \
	"SELECT nextval('silver.ids') AS n"; do
	echo "> $q"
	sqlapi "$q"
done
# a PostgreSQL warehouse is shared: sluice sql connects to it itself and
# may write there, so only a DuckDB file's client is refused
is_postgres || sl sql "DELETE FROM silver.people"

note "files on the server's machine are not read through it"
printf 'secret\nhidden\n' >secrets.csv
for q in "SELECT * FROM read_text('/etc/passwd')" \
	"SELECT * FROM read_csv('/etc/passwd')" \
	"SELECT * FROM '/etc/passwd'" \
	"SELECT * FROM 'q.sql'" \
	"SELECT * FROM glob('/etc/*')" \
	"SELECT 1 AS x WHERE EXISTS (SELECT * FROM read_blob('/etc/hostname'))" \
	"SELECT * FROM query('DELETE FROM silver.people')" \
	"SELECT * FROM secrets.csv" \
	"SELECT * FROM \"$PWD/secrets\".csv" \
	"DESCRIBE secrets.csv" \
	"SUMMARIZE secrets.csv" \
	"SHOW secrets.csv" \
	"SUMMARIZE 'secrets.csv'" \
	"SELECT 'x' AS v UNION ALL SELECT * FROM secrets.csv" \
	"SELECT * FROM silver.people, LATERAL (SELECT * FROM secrets.csv)" \
	"WITH c AS (SELECT * FROM secrets.csv) SELECT * FROM c"; do
	echo "> $q" | sed "s|$PWD|PWD|"
	sqlapi "$q" | sed -E -e "s|$PWD|PWD|g" -e 's/(Error: [^"]{0,60}).*/\1.../'
done

note "bounded: time, SQL length, body size, parameters"
if is_postgres; then slow="SELECT pg_sleep(30)"; else
	slow="SELECT count(*) AS n FROM range(100000000000) a(x), range(1000) b(y)"; fi
sqlapi "$slow" "?timeout_ms=300"
sqlapi "SELECT 1 AS still_serving"
sqlapi "SELECT 1 AS n" "?timeout_ms=999999"
sqlapi "SELECT 1 AS n" "?max_rows=0"
sqlapi "SELECT 1 AS n" "?format=xml"
printf 'SELECT 1 AS n -- %0300000d' 0 >long.sql
api -H "Authorization: Bearer t0ken" --data-binary @long.sql "http://127.0.0.1:$serve_port/api/sql"
head -c 2000000 /dev/zero | tr '\0' ' ' >big.sql
api -H "Authorization: Bearer t0ken" --data-binary @big.sql "http://127.0.0.1:$serve_port/api/sql"
sqlapi "   "
printf 'SELECT 1\0' | api -H "Authorization: Bearer t0ken" --data-binary @- "http://127.0.0.1:$serve_port/api/sql"
api -H "Authorization: Bearer t0ken" "http://127.0.0.1:$serve_port/api/sql"

note "a row that would pass 2 MiB of text is not answered"
sqlapi "SELECT repeat('x', 3000000) AS v" | head -c 300
sqlapi "SELECT repeat('x', 1000000) AS v, 1 AS n UNION ALL SELECT repeat('y', 1000000), 2 UNION ALL SELECT repeat('z', 1000000), 3 ORDER BY n" | tr -s 'xyz' | head -c 300
if is_postgres; then
	note "one deadline for the whole read, whatever statement_timeout the query sets"
	sqlapi "SELECT set_config('statement_timeout', '0', true), pg_sleep(CASE WHEN g = 1001 THEN 3 ELSE 0 END) FROM generate_series(1, 1500) g" "?timeout_ms=500" | head -c 300
fi

note "a client that never finishes its request is cut off, unanswered"
exec 3<>"/dev/tcp/127.0.0.1/$serve_port"
printf 'POST /api/sql HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer t0ken\r\n' >&3
timeout 5 cat <&3 | wc -c
exec 3<&-

note "nothing changed"
sqlapi "SELECT count(*) AS people FROM silver.people"
sqlapi "SELECT count(*) AS evil FROM information_schema.tables WHERE table_name IN ('evil', 'other')"
sqlapi "SELECT nextval('silver.ids') IS NULL AS untouched" | sed -E 's/(Error: [^"]{0,60}).*/\1.../'
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
note "the sequence was never taken: its first value is still 1"
q "SELECT nextval('silver.ids') AS n"
ls copied.csv exported 2>&1 | sed 's/^ls: //'
q "SELECT id, name FROM silver.people ORDER BY id"
