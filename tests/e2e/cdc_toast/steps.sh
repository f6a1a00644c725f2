# Unchanged TOAST values: an update that leaves a large (> 2 kB, stored
# out of line) value alone does not carry it. Under REPLICA IDENTITY FULL
# the old row brings it; under DEFAULT the consumer takes it from the
# latest earlier row of the key: the snapshot's, a landed change's, or one
# of the same transaction (the later by its place in it). A key of two
# columns too. With no row to take it from, the consumer stops naming the
# table, the key and the column, and lands nothing.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
# the run on a PostgreSQL warehouse has a slot and a source database of its own
! is_postgres || sed -i 's/e2e_cdc_toast/e2e_cdc_toast_pg/g' sluice.yml
name=e2e_cdc_toast$(is_postgres && echo _pg)
cdc_source "${name}_src" "$name"
# 4 kB of md5 text per value: it does not compress below 2 kB, so it is stored out of line
big() { echo "(SELECT string_agg(md5('$1' || g), '') FROM generate_series(1, 128) g)"; }
src -c "CREATE TABLE docs (id INTEGER PRIMARY KEY, status TEXT, body TEXT)" \
	-c "CREATE TABLE pairs (a INTEGER, b TEXT, status TEXT, body TEXT, PRIMARY KEY (a, b))" \
	-c "INSERT INTO docs VALUES (1, 'new', $(big one)), (2, 'new', $(big two))" \
	-c "INSERT INTO pairs VALUES (1, 'x', 'new', $(big pair))"
toast=$(src -c "SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'docs'")
src -c "SELECT 'values stored out of line: ' || (count(DISTINCT chunk_id) = 2) FROM $toast"

note the snapshot lands the values, then updates that leave them alone take them from the landed rows
cdc docs --once
src -c "UPDATE docs SET status = 'seen' WHERE id = 1" -c "UPDATE pairs SET status = 'seen'"
cdc docs --once
q "SELECT op, payload->>'status' AS status, length(payload->>'body') AS body_length, md5(payload->>'body') = (SELECT md5(payload->>'body') FROM landing.docs d WHERE op = 'r' AND CAST(d.payload->>'id' AS INTEGER) = 1) AS same_body FROM landing.docs WHERE CAST(payload->>'id' AS INTEGER) = 1 ORDER BY _sluice_seq"
q "SELECT op, payload->>'status' AS status, length(payload->>'body') AS body_length FROM landing.pairs ORDER BY _sluice_seq, _sluice_pos"

note in one transaction: a new value, then updates that leave it alone take it from the change before
src -c "BEGIN" -c "UPDATE docs SET body = $(big three) WHERE id = 2" -c "UPDATE docs SET status = 'one' WHERE id = 2" \
	-c "UPDATE docs SET status = 'two' WHERE id = 2" -c "INSERT INTO docs VALUES (3, 'new', $(big four))" \
	-c "UPDATE docs SET status = 'three' WHERE id = 3" -c "COMMIT"
src -c "UPDATE docs SET status = 'later' WHERE id = 2" -c "UPDATE docs SET status = 'settled' WHERE id = 3"
cdc docs --once
q "SELECT op, payload->>'status' AS status, md5(payload->>'body') AS body FROM landing.docs WHERE CAST(payload->>'id' AS INTEGER) IN (2, 3) ORDER BY _sluice_seq, _sluice_pos"
src -c "SELECT id, md5(body) FROM docs WHERE id IN (2, 3) ORDER BY id" | tr '|' ' '

note under REPLICA IDENTITY FULL the old row brings the value
src -c "ALTER TABLE docs REPLICA IDENTITY FULL" -c "UPDATE docs SET status = 'full' WHERE id = 1"
cdc docs --once
q "SELECT op, payload->>'status' AS status, length(payload->>'body') AS body_length FROM landing.docs WHERE payload->>'status' = 'full'"

note the models that apply the changes equal the source table, large values included
sl run | grep -v '^  '
src -c "SELECT concat_ws(',', id, status, md5(body)) FROM docs ORDER BY id" >source.txt
"$SLUICE_BIN" sql "SELECT concat_ws(',', id, status, md5(body)) AS r FROM silver.docs ORDER BY id" | tail -n +2 | sed 's/ *$//' >landed.txt
diff source.txt landed.txt && echo "docs: the same $(wc -l <source.txt) rows"

note with no earlier row of the key, the consumer stops and lands nothing, never NULL
src -c "ALTER TABLE docs REPLICA IDENTITY DEFAULT"
"$SLUICE_BIN" sql "DELETE FROM landing.docs WHERE CAST(payload->>'id' AS INTEGER) = 3" >/dev/null
src -c "UPDATE docs SET status = 'lost' WHERE id = 3"
cdc docs --once
q "SELECT count(*) AS landed_lost FROM landing.docs WHERE payload->>'status' = 'lost'"
note --resnapshot lands the table anew, and the consumer goes on
cdc docs --once --resnapshot
src -c "UPDATE docs SET status = 'found' WHERE id = 3"
cdc docs --once
q "SELECT op, payload->>'status' AS status, length(payload->>'body') AS body_length FROM landing.docs WHERE CAST(payload->>'id' AS INTEGER) = 3 ORDER BY _sluice_seq, _sluice_pos"

note rows of one transaction that differ on the value: the later by position in it wins
src -c "BEGIN" -c "UPDATE docs SET status = 'a' WHERE id = 1" -c "UPDATE docs SET body = $(big five) WHERE id = 1" -c "COMMIT"
cdc docs --once
src -c "UPDATE docs SET status = 'b' WHERE id = 1"
cdc docs --once
q "SELECT payload->>'status' AS status, md5(payload->>'body') AS body_md5 FROM landing.docs WHERE CAST(payload->>'id' AS INTEGER) = 1 ORDER BY _sluice_seq DESC, _sluice_pos DESC LIMIT 1"
src -c "SELECT status, md5(body) FROM docs WHERE id = 1" | tr '|' ' '
