# An update that changes a row's key lands as a delete of the old key and
# an update of the new one, with one sequence and in this order, so that
# the models that apply the changes drop the old key and hold the new one:
# with the primary key (the old key comes alone) and under REPLICA
# IDENTITY FULL (the old row comes whole; the key is the primary key),
# hard and soft deletes, a key moved and moved back within one transaction
# and across two, mixed with other updates and deletes. Then the consumer
# is killed (-9) again and again while a generator moves keys, and the
# models equal the source tables row by row.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
! is_postgres || sed -i 's/e2e_cdc_key_change/e2e_cdc_key_change_pg/g' sluice.yml
slot=e2e_cdc_key_change$(is_postgres && echo _pg)
cdc_source "${slot}_src" "$slot"
src -c "CREATE TABLE acct (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, note TEXT)" \
	-c "CREATE TABLE fullrow (a INTEGER, b TEXT, v INTEGER, PRIMARY KEY (a, b))" \
	-c "ALTER TABLE fullrow REPLICA IDENTITY FULL" \
	-c "INSERT INTO acct SELECT i, i * 10, 'row ' || i FROM generate_series(1, 5) AS i" \
	-c "INSERT INTO fullrow SELECT i, 'k' || i, i FROM generate_series(1, 3) AS i"

# same: each model equals its source table, row by row
same() {
	src -c "SELECT concat_ws(',', id, v, coalesce(note, '-')) FROM acct ORDER BY id" >source.txt
	"$SLUICE_BIN" sql "SELECT concat_ws(',', id, v, coalesce(note, '-')) AS r FROM silver.acct ORDER BY id" | tail -n +2 | sed 's/ *$//' >landed.txt
	diff source.txt landed.txt >d.txt && echo "acct: the same $(wc -l <source.txt) rows" || head -20 d.txt
	"$SLUICE_BIN" sql "SELECT concat_ws(',', id, v, coalesce(note, '-')) AS r FROM silver.acct_soft WHERE NOT _sluice_deleted ORDER BY id" | tail -n +2 | sed 's/ *$//' >landed.txt
	diff source.txt landed.txt >d.txt && echo "acct_soft: the same $(wc -l <source.txt) rows, less those deleted" || head -20 d.txt
	src -c "SELECT concat_ws(',', a, b, v) FROM fullrow ORDER BY a, b" >source.txt
	"$SLUICE_BIN" sql "SELECT concat_ws(',', a, b, v) AS r FROM silver.fullrow ORDER BY a, b" | tail -n +2 | sed 's/ *$//' >landed.txt
	diff source.txt landed.txt >d.txt && echo "fullrow: the same $(wc -l <source.txt) rows" || head -20 d.txt
}
changes="SELECT 'acct' AS t, _sluice_seq, _sluice_pos, lsn, op, CAST(payload AS VARCHAR) AS payload FROM landing.acct UNION ALL SELECT 'fullrow', _sluice_seq, _sluice_pos, lsn, op, CAST(payload AS VARCHAR) FROM landing.fullrow"
last() {
	q "SELECT t, op, payload FROM ($changes) AS c WHERE _sluice_seq = (SELECT max(_sluice_seq) FROM ($changes) AS m) ORDER BY _sluice_pos"
}

note the snapshot, then an update that moves key 3 to 10: a delete of 3, then an update of 10, in one sequence
cdc acct --once | grep -v '^slot '
src -c "UPDATE acct SET id = 10 WHERE id = 3"
cdc acct --once | grep -v '^slot '
last
sl run | grep -v '^  '
q "SELECT id, v, note, op FROM silver.acct ORDER BY id"
q "SELECT id, v, note, op, _sluice_deleted FROM silver.acct_soft ORDER BY id"
q "SELECT id FROM _sluice.cdc_tombstones__silver__acct ORDER BY id"

note an update that leaves the key alone lands as an update only, and so does one that sets the key to itself
src -c "UPDATE acct SET v = 11 WHERE id = 1" -c "UPDATE acct SET id = 2, note = 'same key' WHERE id = 2"
cdc acct --once | grep -v '^slot '
last

note one transaction: a key moved and moved back, one moved on twice, one moved onto a key deleted before, a deleted key inserted again
src -c "BEGIN" \
	-c "UPDATE acct SET id = 40, v = 41 WHERE id = 4" \
	-c "UPDATE acct SET id = 4 WHERE id = 40" \
	-c "UPDATE acct SET id = 50 WHERE id = 5" \
	-c "UPDATE acct SET id = 51, note = 'moved twice' WHERE id = 50" \
	-c "DELETE FROM acct WHERE id = 1" \
	-c "UPDATE acct SET id = 1 WHERE id = 2" \
	-c "INSERT INTO acct VALUES (2, 22, 'again')" \
	-c "COMMIT"
cdc acct --once | grep -v '^slot '
last
note a row moved to another key with a large value left alone: the value comes from the row of the old key
src -c "ALTER TABLE acct ALTER note SET STORAGE EXTERNAL" -c "INSERT INTO acct VALUES (7, 70, repeat('large ', 1000))"
cdc acct --once | grep -v '^slot '
src -c "UPDATE acct SET id = 8 WHERE id = 7"
cdc acct --once | grep -v '^slot '
q "SELECT op, payload->>'id' AS id, length(payload->>'note') AS note_length FROM landing.acct WHERE _sluice_seq = (SELECT max(_sluice_seq) FROM landing.acct) ORDER BY _sluice_pos"
src -c "DELETE FROM acct WHERE id = 8"
note a key moved back by the next transaction
src -c "UPDATE acct SET id = 100 WHERE id = 10" -c "UPDATE acct SET id = 10, v = 101 WHERE id = 100"
note the keys of several rows moved by one statement, and the rows of REPLICA IDENTITY FULL: an update of a key column, of another column, then one moved back
src -c "UPDATE acct SET id = id + 1000 WHERE id IN (1, 2)" \
	-c "UPDATE fullrow SET b = 'moved' WHERE a = 1" \
	-c "UPDATE fullrow SET v = 20 WHERE a = 2" \
	-c "UPDATE fullrow SET a = 30 WHERE a = 3" -c "UPDATE fullrow SET a = 3 WHERE a = 30"
cdc acct --once | grep -v '^slot '
q "SELECT t, op, payload FROM ($changes) AS c WHERE t = 'fullrow' AND op <> 'r' ORDER BY _sluice_seq, _sluice_pos"
sl run | grep -v '^  '
q "SELECT id, v, note, op FROM silver.acct ORDER BY id"
q "SELECT id, v, note, op, _sluice_deleted FROM silver.acct_soft ORDER BY id"
q "SELECT id FROM _sluice.cdc_tombstones__silver__acct ORDER BY id"
q "SELECT a, b, v, op FROM silver.fullrow ORDER BY a, b"
same

note kill -9 the consumer again and again while a generator moves keys, updates and deletes
gen=300
# txn I: the statements of the generator's transaction I (of five kinds)
txn() {
	local i=$1
	echo "BEGIN;"
	if [ $((i % 5)) -eq 0 ]; then
		echo "UPDATE acct SET id = -id, v = v + 1 WHERE id = (SELECT id FROM acct ORDER BY abs(id) LIMIT 1 OFFSET $((i % 7)));"
	elif [ $((i % 5)) -eq 1 ]; then
		echo "UPDATE acct SET id = id + 100000 WHERE id = (SELECT max(id) FROM acct);"
		echo "UPDATE acct SET id = id - 100000, note = 'back $i' WHERE id = (SELECT max(id) FROM acct);"
	elif [ $((i % 5)) -eq 2 ]; then
		echo "INSERT INTO acct VALUES ($((2000 + i)), $i, 'gen');"
		echo "UPDATE acct SET v = v + 1 WHERE id % 3 = $((i % 3));"
	elif [ $((i % 5)) -eq 3 ]; then
		echo "DELETE FROM acct WHERE id = (SELECT min(id) FROM acct WHERE id > 0);"
		echo "UPDATE acct SET id = id + 3000 WHERE id = (SELECT min(id) FROM acct WHERE id > 0 AND id < 3000);"
	else
		echo "UPDATE fullrow SET a = a + 1, v = v + 1 WHERE a = (SELECT max(a) FROM fullrow);"
		echo "UPDATE fullrow SET b = CASE WHEN b LIKE '%x' THEN rtrim(b, 'x') ELSE b || 'x' END WHERE a = (SELECT min(a) FROM fullrow);"
		echo "INSERT INTO fullrow VALUES ($i, 'g', $i) ON CONFLICT DO NOTHING;"
	fi
	echo "COMMIT;"
	echo "SELECT pg_sleep(0.02);"
}
for ((i = 1; i <= gen; i++)); do txn $i; done | src >/dev/null &
generator=$!
kill_consumers acct "$slot" 15 4
wait $generator
echo "killed $kills times"
grep -v '^slot ' consumer.log
cdc acct --once | sed -E 's/[0-9]+ transactions landed \([0-9]+ changes\), [0-9]+ skipped/<n> transactions landed (<n> changes), <n> skipped/' | grep -v '^slot '
note every change the generator committed landed once: one sequence per source transaction, no change twice
q "SELECT count(DISTINCT lsn) = count(DISTINCT (lsn, _sluice_seq)) AS each_once FROM ($changes) AS c"
"$SLUICE_BIN" run >>run.log 2>&1 || tail run.log
note the models equal the source tables
same
