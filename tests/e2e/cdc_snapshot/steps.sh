# The initial snapshot of postgres_cdc (snapshot: initial, the default):
# the slot is made with an exported snapshot, the rows there land as op r
# in one warehouse transaction with the slot's row, shaped as a streamed
# insert of them would be, and the stream starts at the consistent point:
# no gap, no duplicate, also while a generator commits. A snapshot that
# never landed starts over; a slot made by someone else, one that was
# dropped or read by another consumer is refused, naming --resnapshot,
# which lands the tables anew. Consumers killed (-9) while they take
# snapshots leave every row landed once after the next run. A slot
# another process streams from is refused before anything changes; a
# consumer without --once tries again until the slot is free.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
# the run on a PostgreSQL warehouse has a slot and a source database of its own
! is_postgres || sed -i 's/e2e_cdc_snapshot/e2e_cdc_snapshot_pg/g' sluice.yml
name=e2e_cdc_snapshot$(is_postgres && echo _pg)
slot=$name
cdc_source "${name}_src" "$slot" "${slot}_b"
# the server lets go of a slot a little after its consumer ended
slot_let_go() {
	wait_until 5 prints 0 src -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$slot' AND active"
}
# kinds: one row of many types before the slot, the same values streamed after
kinds="1, 9223372036854775807, 12345678901234567890.000000000001, 0.1::float8, 'NaN'::float8,
	true, '{\"b\": [1, 2.50], \"a\": null}'::json, '{\"b\": [1, 2.50], \"a\": null}'::jsonb,
	'2024-02-29 23:59:59.123456', '2024-02-29 23:59:59.5+02', '\\x00ff'::bytea,
	'{{1,2},{3,NULL}}'::int[], '{\"a b\",\"c\\\"d\"}'::text[], 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid,
	'infinity'::date, '1 day 02:03:04'::interval, NULL, 'ünïcode \"quoted\"'"
src -c "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount NUMERIC(10,2),
		doubled NUMERIC GENERATED ALWAYS AS (amount * 2) STORED)" \
	-c "CREATE TABLE kinds (id INTEGER PRIMARY KEY, i8 BIGINT, n NUMERIC, f FLOAT8, nan FLOAT8, b BOOLEAN,
		j JSON, jb JSONB, ts TIMESTAMP, tstz TIMESTAMPTZ, by BYTEA, ia INTEGER[], ta TEXT[], u UUID,
		d DATE, iv INTERVAL, nul TEXT, t TEXT)" \
	-c "CREATE TABLE other (id INTEGER PRIMARY KEY, v TEXT)" \
	-c "INSERT INTO orders SELECT g, 'c' || g, g * 1.5 FROM generate_series(1, 600) g" \
	-c "INSERT INTO kinds VALUES ($kinds)" -c "INSERT INTO other VALUES (1, 'before')"

note the first run makes the slot with a snapshot: the rows there land as op r, one sequence, at the consistent point
cdc orders --once
q "SELECT op, count(*) AS rows, count(DISTINCT _sluice_seq) AS seqs, count(DISTINCT lsn) AS lsns, count(xid) AS xids FROM landing.orders GROUP BY op"
q "SELECT payload FROM landing.orders WHERE CAST(payload->>'id' AS INTEGER) IN (1, 600) ORDER BY CAST(payload->>'id' AS INTEGER)"
q "SELECT slot, snapshot, landed_lsn = (SELECT max(lsn) FROM landing.orders) AS landed_at_snapshot, confirmed_lsn >= landed_lsn AS confirmed_after FROM _sluice.cdc_slots"
q "SELECT source, watermark = (SELECT max(_sluice_seq) FROM landing.orders) AS advanced, rows FROM _sluice.live_sources ORDER BY source"
server=$(src -c "SELECT confirmed_flush_lsn - '0/0' FROM pg_replication_slots WHERE slot_name = '$slot'")
landed=$("$SLUICE_BIN" sql "SELECT landed_lsn FROM _sluice.cdc_slots WHERE slot = '$slot'" | tail -1)
confirmed=$("$SLUICE_BIN" sql "SELECT confirmed_lsn FROM _sluice.cdc_slots WHERE slot = '$slot'" | tail -1)
# the slot starts confirmed at its consistent point; an idle slot may go on
[ "$server" -ge "$landed" ] && [ "$server" -le "$confirmed" ] &&
	echo "the server's confirmed LSN: from the consistent point up to the stored one"

note a streamed insert of the same values lands the same payload as the snapshot did
src -c "INSERT INTO kinds VALUES (${kinds/#1,/2,})" -c "UPDATE orders SET amount = 0 WHERE id = 1" -c "DELETE FROM orders WHERE id = 2"
cdc orders --once
q "SELECT op, payload FROM landing.kinds ORDER BY op DESC"
q "SELECT count(DISTINCT replace(replace(CAST(payload AS VARCHAR), '{\"id\":1,', '{'), '{\"id\":2,', '{')) AS distinct_payloads FROM landing.kinds"
q "SELECT op, payload FROM landing.orders WHERE op <> 'r' ORDER BY _sluice_seq, _sluice_pos"

note a snapshot that never landed starts over from a new slot, replacing what was there
"$SLUICE_BIN" sql "UPDATE _sluice.cdc_slots SET snapshot = 'pending' WHERE slot = '$slot'" >/dev/null
src -c "INSERT INTO orders VALUES (601, 'late', 1)"
cdc orders --once
q "SELECT op, count(*) AS rows, count(DISTINCT CAST(payload->>'id' AS INTEGER)) AS ids FROM landing.orders GROUP BY op"
q "SELECT count(*) AS kinds_rows FROM landing.kinds"

note no gap and no duplicate: a snapshot taken while a generator commits, then its stream
gen=200
(
	for ((i = 1; i <= gen; i++)); do
		echo "BEGIN;"
		echo "INSERT INTO orders VALUES ($((1000 + i)), 'gen', $i);"
		echo "UPDATE orders SET amount = amount + 1 WHERE id = $((i % 50 + 3));"
		echo "DELETE FROM orders WHERE id = $((999 + i));"
		echo "COMMIT;"
		echo "SELECT pg_sleep(0.01);"
	done
) | src >/dev/null &
generator=$!
sleep 0.5
"$SLUICE_BIN" cdc orders --once --resnapshot >resnapshot.log 2>&1 || cat resnapshot.log
wait $generator
snap=$("$SLUICE_BIN" sql "SELECT count(*) FROM landing.orders WHERE op = 'r' AND (payload->>'customer') = 'gen'" | tail -1)
[ "$snap" -gt 0 ] && echo "the snapshot holds rows the generator had committed"
cdc orders --once | sed -E 's/[0-9]+ transactions? landed \([0-9]+ changes?\), [0-9]+ skipped/<n> transactions landed (<n> changes), <n> skipped/'
sl run --full-refresh -s silver.orders | grep -v '^  '
src -c "SELECT concat_ws(',', id, customer, amount) FROM orders ORDER BY id" >source.txt
"$SLUICE_BIN" sql "SELECT concat_ws(',', id, customer, amount) AS r FROM silver.orders ORDER BY id" | tail -n +2 | sed 's/ *$//' >landed.txt
diff source.txt landed.txt && echo "orders: the same $(wc -l <source.txt) rows"
q "SELECT count(*) = count(DISTINCT (lsn, CAST(payload AS VARCHAR))) AS no_duplicate, count(*) FILTER (WHERE op <> 'r') > 0 AS streamed_after FROM landing.orders"

note a slot someone else made: what came before it is unknown, so it is refused unless --resnapshot
src -c "SELECT 1 FROM pg_create_logical_replication_slot('${slot}_b', 'pgoutput')" >/dev/null
cdc other --once
cdc other --once --resnapshot
q "SELECT op, payload FROM landing.other"

note a slot dropped by someone else is not made again in silence
src -c "SELECT pg_drop_replication_slot('$slot')" -c "DELETE FROM orders WHERE id = 3" -c "UPDATE orders SET customer = 'renamed' WHERE id = 4" >/dev/null
cdc orders --once
note a slot read by another consumer is refused: the changes it took never landed
src -c "INSERT INTO other VALUES (2, 'taken')" -c "SELECT 1 FROM pg_replication_slot_advance('${slot}_b', pg_current_wal_lsn())" >/dev/null
cdc other --once

note --resnapshot lands the tables anew, and a full refresh of the models then equals the source
cdc orders --once --resnapshot
q "SELECT op, count(*) AS rows FROM landing.orders GROUP BY op"
sl run --full-refresh -s silver.orders | grep -v '^  '
src -c "SELECT concat_ws(',', id, customer, amount) FROM orders ORDER BY id" >source.txt
"$SLUICE_BIN" sql "SELECT concat_ws(',', id, customer, amount) AS r FROM silver.orders ORDER BY id" | tail -n +2 | sed 's/ *$//' >landed.txt
diff source.txt landed.txt && echo "orders: the same $(wc -l <source.txt) rows"

note a warehouse that takes no write when --resnapshot begins: an error, and the old slot is still there for the next run to go on from
# the slot's row says pending before the old slot is dropped: a crash or
# a failed write between the two leaves either the slot or the mark
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
# (a full disk under DuckDB; on PostgreSQL a trigger refuses the slot's row)
slot_let_go
refuse_slot_rows() {
	PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_E2E_PG" -qAt -v ON_ERROR_STOP=1 -c "$1"
}
! is_postgres || refuse_slot_rows "CREATE FUNCTION _sluice.refuse() RETURNS trigger LANGUAGE plpgsql AS
	\$\$ BEGIN RAISE EXCEPTION 'could not write: No space left on device'; END \$\$;
	CREATE TRIGGER refuse BEFORE INSERT OR UPDATE OR DELETE ON _sluice.cdc_slots EXECUTE FUNCTION _sluice.refuse()"
LD_PRELOAD="$SLUICE_TOOLS/faultfs.so" FAULTFS_MATCH=warehouse.duckdb FAULTFS_AFTER=0 \
	"$SLUICE_BIN" cdc orders --once --resnapshot >refused.log 2>&1
echo "exit $?"
! is_postgres || refuse_slot_rows "DROP FUNCTION _sluice.refuse() CASCADE"
head -c 300 refused.log | sed -n 1p | sed -E 's/Error: .*(No space left on device).*/Error: ... \1/'
src -c "SELECT 'slots named so: ' || count(*) FROM pg_replication_slots WHERE slot_name = '$slot'"
cdc orders --once | sed -E 's/[0-9]+ transactions? landed \([0-9]+ changes?\), [0-9]+ skipped/<n> landed, <n> skipped/'

note kill -9 while snapshots are taken: wherever it lands, the next run finds every row landed once
src -c "INSERT INTO orders SELECT g, 'bulk', 1 FROM generate_series(10001, 60000) g"
for k in 1 2 3; do
	"$SLUICE_BIN" cdc orders --once --resnapshot >>killed.log 2>&1 &
	consumer=$!
	sleep 0.$((RANDOM % 8 + 1))
	kill -9 $consumer 2>/dev/null
	wait $consumer 2>/dev/null
	slot_let_go
done
grep -v '^slot ' killed.log
src -c "UPDATE orders SET amount = 2 WHERE id = 10001"
cdc orders --once | grep -v 'initial snapshot landed' | sed -E 's/[0-9]+ transactions? landed \([0-9]+ changes?\), [0-9]+ skipped/<n> landed, <n> skipped/'
q "SELECT count(*) = count(DISTINCT CAST(payload->>'id' AS INTEGER)) AS each_row_once FROM landing.orders WHERE op = 'r'"
sl run --full-refresh -s silver.orders | grep -v '^  '
src -c "SELECT concat_ws(',', id, customer, amount) FROM orders ORDER BY id" >source.txt
"$SLUICE_BIN" sql "SELECT concat_ws(',', id, customer, amount) AS r FROM silver.orders ORDER BY id" | tail -n +2 | sed 's/ *$//' >landed.txt
diff source.txt landed.txt >/dev/null && echo "orders: the same $(wc -l <source.txt) rows"

note --resnapshot while another process streams from the slot: refused before anything changes
state() {
	"$SLUICE_BIN" sql "SELECT snapshot, landed_lsn, confirmed_lsn, (SELECT count(*) FROM landing.orders) FROM _sluice.cdc_slots WHERE slot = '$slot'"
}
before=$(state)
slot_let_go
pg_recvlogical -d "$SRC_PG" -S "$slot" --start -f /dev/null -o proto_version=1 \
	-o publication_names="$slot" 2>/dev/null &
holder=$!
wait_until 5 prints 1 src -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$slot' AND active"
cdc orders --once --resnapshot | sed -E 's/by process [0-9]+/by process <pid>/'
[ "$(state)" = "$before" ] && echo "the slot's row and the landing table: as they were"

note without --once the consumer tries again, and takes its snapshot once the other lets go of the slot
"$SLUICE_BIN" cdc orders --resnapshot >held.out 2>held.err &
consumer=$!
wait_until 10 grep -q 'in use by process' held.err
kill $holder
wait $holder 2>/dev/null
wait_until 30 grep -q 'streaming again' held.err
kill -TERM $consumer
wait $consumer
echo "exit $?"
sed -E -e 's#\b[0-9A-F]+/[0-9A-F]+\b#<lsn>#g' -e "s/, $(src -c "SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM kinds)") rows/, every row of orders and kinds/" held.out
sed -E -e 's/by process [0-9]+/by process <pid>/' -e 's/again in [0-9]+ ms/again in <n> ms/' held.err | sed -n 1p
grep -c 'streaming again' held.err | sed 's/^/recovered: /'
q "SELECT op, count(*) = (SELECT count(DISTINCT CAST(payload->>'id' AS INTEGER)) FROM landing.orders) AS each_row_once FROM landing.orders GROUP BY op"
