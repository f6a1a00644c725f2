# ALTER TABLE while the slot streams: changes before and after ADD
# COLUMN, DROP COLUMN and a column type change (integer to bigint, then
# to text), each in a transaction of its own, then one transaction that
# mixes DDL and changes. One consumer run reads the first four, another
# the last: each payload has the shape of the table at its change, and a
# CDC model reading the columns the table ends with, built after each
# run, equals the source table row by row.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
# the run on a PostgreSQL warehouse has a slot and a source database of its own
! is_postgres || sed -i 's/e2e_cdc_alter/e2e_cdc_alter_pg/g' sluice.yml
name=e2e_cdc_alter$(is_postgres && echo _pg)
cdc_source "${name}_src" "$name"
src -c "CREATE TABLE items (id integer PRIMARY KEY, name text, qty integer, price numeric(8,2))" \
	-c "INSERT INTO items VALUES (1, 'one', 1, 1.10), (2, 'two', 2, 2.20)"
# landed SEQ WHAT: the changes landed after sequence SEQ, numbered by
# transaction, in landing order (a snapshot's rows by payload). How many
# landing commits a run makes depends on timing, so the output names the
# rows by WHAT instead of by SEQ.
landed() {
	echo "\$ sql: landing.items, $2"
	"$SLUICE_BIN" sql "SELECT dense_rank() OVER (ORDER BY lsn) AS txn, op, payload FROM landing.items WHERE _sluice_seq > $1 ORDER BY _sluice_seq, CASE WHEN op = 'r' THEN CAST(payload AS VARCHAR) END, _sluice_pos" 2>&1 | normalize
}
last_seq() {
	"$SLUICE_BIN" sql "SELECT max(_sluice_seq) FROM landing.items" | tail -1
}
# same_as_source: builds the model, prints its rows in the columns the
# source table has now and says whether they are the source's rows
same_as_source() {
	local cols
	sl run | grep -v '^  '
	cols=$(src -c "SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'items'")
	echo "source columns: $cols"
	src -c "SELECT concat_ws('|', $(echo "$cols" | sed -E "s/([a-z]+)/coalesce(\1::text, '-')/g")) FROM items ORDER BY id" >source.txt
	"$SLUICE_BIN" sql --json "SELECT $cols FROM silver.items ORDER BY id" | jq -r '.[] | [.[] | . // "-"] | join("|")' >model.txt
	cat model.txt
	diff source.txt model.txt && echo "silver.items equals the source table ($(wc -l <source.txt) rows)"
}

note the snapshot lands the table as it was made
cdc items --once

note changes around ADD COLUMN, DROP COLUMN and two type changes, each DDL in a transaction of its own
src -c "INSERT INTO items VALUES (3, 'three', 3, 3.30)" -c "UPDATE items SET qty = 10 WHERE id = 1"
src -c "ALTER TABLE items ADD COLUMN note text"
src -c "INSERT INTO items VALUES (4, 'four', 4, 4.40, 'noted')" -c "UPDATE items SET note = 'later' WHERE id = 2"
src -c "ALTER TABLE items DROP COLUMN price"
src -c "UPDATE items SET qty = 30 WHERE id = 3" -c "INSERT INTO items VALUES (5, 'five', 5, NULL)"
src -c "ALTER TABLE items ALTER COLUMN qty TYPE bigint"
src -c "INSERT INTO items VALUES (6, 'six', 9000000000, 'big')" -c "UPDATE items SET qty = 5000000000 WHERE id = 1"
src -c "ALTER TABLE items ALTER COLUMN qty TYPE text"
src -c "UPDATE items SET name = 'two, text qty' WHERE id = 2"
cdc items --once
landed 0 "every row"
same_as_source

note one transaction: a change, ADD COLUMN, a change, a type change, changes, DROP COLUMN, a change
src -c "BEGIN" \
	-c "UPDATE items SET name = 'four, before' WHERE id = 4" \
	-c "ALTER TABLE items ADD COLUMN tag text" \
	-c "UPDATE items SET tag = 'tagged' WHERE id = 6" \
	-c "ALTER TABLE items ALTER COLUMN qty TYPE varchar(20)" \
	-c "INSERT INTO items (id, name, qty, note, tag) VALUES (7, 'seven', 'seven', 'gone soon', 'new')" \
	-c "DELETE FROM items WHERE id = 5" \
	-c "ALTER TABLE items DROP COLUMN note" \
	-c "UPDATE items SET name = 'three, after' WHERE id = 3" \
	-c "COMMIT"

seen=$(last_seq)
cdc items --once
landed "$seen" "the rows of the last consumer run"
q "SELECT count(DISTINCT lsn) AS lsns, max(seqs) AS sequences_per_lsn, bool_and(lsns_set) AS lsns_set FROM (SELECT lsn, count(DISTINCT _sluice_seq) AS seqs, bool_and(lsn > 0) AS lsns_set FROM landing.items WHERE op <> 'r' GROUP BY lsn) AS g"
q "SELECT count(*) AS out_of_order FROM landing.items a JOIN landing.items b ON (a._sluice_seq < b._sluice_seq OR (a._sluice_seq = b._sluice_seq AND a._sluice_pos < b._sluice_pos)) AND a.lsn > b.lsn"

same_as_source
