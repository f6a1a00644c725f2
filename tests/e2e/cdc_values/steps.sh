# Exact values: a source table with a column of each kind (integers and
# oid at their limits, numeric of 50 digits and a scale of 20, NaN and
# infinities, boolean, json and jsonb nested, arrays of several
# dimensions with quotes and NULLs, bytea, timestamps and dates at
# infinity, uuid, an enum, text with quotes, backslashes, control
# characters and more than ASCII, domains over an integer, text and an
# array, arrays of an enum, of a composite and of a domain, a composite)
# lands as the row as JSON: numbers as PostgreSQL wrote them, never
# through a double, NaN and infinities as strings, a domain as its base
# type, arrays as JSON arrays, a composite as an object of its fields.
# The snapshot and the stream land a row alike.
# compare.sql reads every landed value back as its column's type in the
# source database and compares it with the source row, then does the
# same for a CDC model's columns.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
# the run on a PostgreSQL warehouse has a slot and a source database of its own
! is_postgres || sed -i 's/e2e_cdc_values/e2e_cdc_values_pg/g' sluice.yml
name=e2e_cdc_values$(is_postgres && echo _pg)
cdc_source "${name}_src" "$name"
src -f source.sql
# compare MODE QUERY [SKIP]: the rows of a warehouse query against the
# source table, but for the columns SKIP names
compare() {
	src -v mode="$1" -v rows="$("$SLUICE_BIN" sql --json "$2")" -v skip="${3:-}" -f compare.sql
}

note the snapshot lands the five rows
cdc vals --once

note the same values inserted again stream in as the snapshot landed them
src -c "INSERT INTO vals SELECT id + 100, i2, i4, i8, o, n, ns, f4, f8, b, j, jb, ai, at, af, by, ts, tz, d, u, m, p, ma, t, dt, di, pc, pa, pp FROM vals"
cdc vals --once
q "SELECT op, payload FROM landing.vals WHERE op = 'c' ORDER BY CAST(payload->>'id' AS INTEGER)"
# the payloads as text, grouped by all but their id: each group one of the snapshot, one streamed
"$SLUICE_BIN" sql --json "SELECT op, CAST(payload AS VARCHAR) AS payload FROM landing.vals" |
	jq -r 'group_by(.payload | sub("^\\{\"id\":[0-9]+,"; "{")) | map(map(.op) | sort | join(" and ")) |
		group_by(.) | map("payloads alike but for the id, landed as \(.[0]): \(length)")[]'

note every landed value read back as its column type equals the source value
compare payload "SELECT CAST(payload AS VARCHAR) AS payload FROM landing.vals"

note an update and a delete, then the model applies every change
src -c "UPDATE vals SET (i8, n, f8, jb, t) = (-1, 0.000000000000000000000000000001, 'NaN', '[[[]]]', 'changed') WHERE id = 101" \
	-c "DELETE FROM vals WHERE id = 105"
cdc vals --once
q "SELECT op, payload FROM landing.vals WHERE op IN ('u', 'd') ORDER BY _sluice_seq, _sluice_pos"
sl run | grep -v '^  '

note every column of the model equals the source value
# DuckDB's JSON functions read a number through a double: on DuckDB the
# columns whose numbers a double cannot hold are compared in the payloads only
compare model "SELECT * FROM silver.vals" "$(is_postgres || echo n,ns,jb)"

note a composite given a field while the consumer runs, after it read the type: its values follow the type as it is now
# landed: waits until the consumer has confirmed everything committed so far
landed() {
	local target
	target=$(src -c "SELECT pg_current_wal_lsn()")
	wait_until 10 prints t src -c "SELECT confirmed_flush_lsn >= '$target' FROM pg_replication_slots WHERE slot_name = '$name'" ||
		echo "the consumer did not land the changes"
}
"$SLUICE_BIN" cdc vals >consumer.log 2>&1 &
consumer=$!
src -c "UPDATE vals SET pc = ROW(8, 'read', 'ok') WHERE id = 1"
landed
src -c "ALTER TYPE pair ADD ATTRIBUTE n numeric CASCADE" -c "UPDATE vals SET pc = ROW(9, 'added', 'ok', 1.50) WHERE id = 1"
landed
kill $consumer
wait $consumer
grep -v '^slot ' consumer.log
note a value made before a change of its type that the consumer reads only after it lands as its text, the one after as an object
src -c "UPDATE vals SET pc = ROW(10, 'before', 'sad', 2) WHERE id = 2" -c "ALTER TYPE pair DROP ATTRIBUTE b CASCADE" \
	-c "UPDATE vals SET pc = ROW(11, 'happy', 3) WHERE id = 3"
cdc vals --once | grep -v '^slot '
q "SELECT op, payload->>'id' AS id, payload->'pc' AS pc FROM landing.vals WHERE _sluice_seq > (SELECT max(_sluice_seq) FROM landing.vals WHERE op = 'd') ORDER BY _sluice_seq, _sluice_pos"
