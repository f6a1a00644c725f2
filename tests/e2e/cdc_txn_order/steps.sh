# Several changes of one row in one source transaction, and truncates:
# the changes share their commit LSN, and _sluice_pos (their order in the
# transaction) says which came last; a truncate deletes every key older
# than itself, hard or soft, and what the same transaction writes after
# it stays. After each transaction the models equal the source table.
# A column added mid-transaction is recorded as the table's new shape
# from the change after it.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
# the run on a PostgreSQL warehouse has a slot and a source database of its own
! is_postgres || sed -i 's/e2e_cdc_txn_order/e2e_cdc_txn_order_pg/g' sluice.yml
name=e2e_cdc_txn_order$(is_postgres && echo _pg)
cdc_source "${name}_src" "$name"
src -c "CREATE TABLE items (id INTEGER PRIMARY KEY, v TEXT)" \
	-c "INSERT INTO items SELECT g, 'v' || g FROM generate_series(1, 5) g"

# step: lands what the source committed, builds, and compares both models
# with the source table row by row
step() {
	cdc items --once | grep -v '^slot'
	sl run | grep -v '^  ' | grep -v '^Done\|^Running\|^OK' || true
	src -c "SELECT concat_ws(',', id, v) FROM items ORDER BY id" >source.txt
	for m in silver.items "silver.items_soft WHERE NOT _sluice_deleted"; do
		"$SLUICE_BIN" sql "SELECT concat_ws(',', id, v) AS r FROM $m ORDER BY id" | tail -n +2 |
			sed 's/ *$//' | grep -v '^$' >landed.txt
		if diff source.txt landed.txt >/dev/null; then
			echo "${m%% *}: the same $(wc -l <source.txt) rows as the source"
		else
			echo "${m%% *}: differs from the source"
			diff source.txt landed.txt
		fi
	done
}

note the snapshot
step
note one transaction: a row updated twice, a row deleted and inserted again, a row inserted and deleted
src -c "BEGIN" -c "UPDATE items SET v = 'first' WHERE id = 1" -c "UPDATE items SET v = 'second' WHERE id = 1" \
	-c "DELETE FROM items WHERE id = 2" -c "INSERT INTO items VALUES (2, 'again')" \
	-c "INSERT INTO items VALUES (6, 'brief')" -c "DELETE FROM items WHERE id = 6" -c "COMMIT"
step
q "SELECT op, payload->>'id' AS id, payload->>'v' AS v, _sluice_pos FROM landing.items WHERE op <> 'r' ORDER BY _sluice_pos"

note a truncate and inserts after it, in one transaction
src -c "BEGIN" -c "UPDATE items SET v = 'gone' WHERE id = 3" -c "TRUNCATE items" \
	-c "INSERT INTO items VALUES (7, 'after'), (1, 'back')" -c "COMMIT"
step
q "SELECT op, payload, _sluice_pos FROM landing.items WHERE _sluice_seq = (SELECT max(_sluice_seq) FROM landing.items) ORDER BY _sluice_pos"
note the truncated keys are tombstones of the hard model, and flagged rows of the soft one
q "SELECT id FROM _sluice.cdc_tombstones__silver__items ORDER BY id"
q "SELECT id, v, op, _sluice_deleted FROM silver.items_soft ORDER BY id"

note a truncate alone, then a new row
src -c "TRUNCATE items"
step
src -c "INSERT INTO items VALUES (8, 'new')"
step
note a rebuild from every change ends the same
sl run --full-refresh | grep -c '^OK' >/dev/null
step

note a column added inside a transaction: the table shape is recorded from the change after it
src -c "BEGIN" -c "INSERT INTO items VALUES (9, 'before')" -c "ALTER TABLE items ADD COLUMN w INTEGER" \
	-c "INSERT INTO items VALUES (10, 'after', 1)" -c "COMMIT"
step
q "SELECT payload, _sluice_pos FROM landing.items WHERE _sluice_seq = (SELECT max(_sluice_seq) FROM landing.items) ORDER BY _sluice_pos"
q "SELECT relation, lsn = (SELECT max(lsn) FROM landing.items) AS last_txn, pos, columns FROM _sluice.cdc_relations ORDER BY lsn, pos"

note a model that orders by the landing sequence alone is warned: several source transactions share one
cat > models/silver/by_seq.sql <<'SQL'
@config materialized=incremental, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=_sluice_seq
SELECT CAST(payload->>'id' AS INTEGER) AS id, op, _sluice_seq FROM landing.items
SQL
sl validate
rm models/silver/by_seq.sql
