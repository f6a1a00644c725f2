# PostgreSQL as the source of two postgres_cdc sources sharing one slot:
# `sluice cdc --once` makes the publication and the slot, then lands each
# source transaction in one warehouse transaction with one sequence, a
# transaction touching both tables included. Then the consumer is killed
# (-9) 20 times while a generator commits, and a last --once finds
# every change landed exactly once; models applying the changes equal the
# source tables.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
slot=e2e_cdc_consumer
cdc_source e2e_cdc_consumer_src "$slot"
src -c "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount NUMERIC(10,2), note TEXT)" \
	-c "CREATE TABLE order_items (order_id INTEGER, line INTEGER, sku TEXT, PRIMARY KEY (order_id, line))" \
	-c "INSERT INTO orders VALUES (99, 'before', 1, NULL)"

note without the variable dsn_env names, nothing is read
SRC_PG= cdc orders --once
note a source that is not postgres_cdc, or none
cdc nosuch --once

note the first run makes the publication and the slot: with snapshot: never what came before is not landed
cdc orders --once
src -c "SELECT pubname FROM pg_publication" -c "SELECT slot_name, plugin FROM pg_replication_slots WHERE database = current_database()"
src -c "SELECT tablename FROM pg_publication_tables ORDER BY 1"

note five source transactions, the third touching both tables of the slot
src -c "INSERT INTO orders VALUES (1, 'ann', 10.50, NULL), (2, 'bob', 20, 'a \"quoted\" note'), (3, 'cy', 30, NULL)"
src -c "BEGIN" -c "UPDATE orders SET amount = 21.25 WHERE id = 2" -c "DELETE FROM orders WHERE id = 3" -c "COMMIT"
src -c "BEGIN" -c "INSERT INTO orders VALUES (4, 'dee', 40, 'two lines')" \
	-c "INSERT INTO order_items VALUES (4, 1, 'apple'), (4, 2, 'pear')" -c "COMMIT"
src -c "UPDATE orders SET note = 'late' WHERE id = 1"
src -c "DELETE FROM order_items WHERE order_id = 4 AND line = 2"
cdc orders --once
changes="SELECT 'orders' AS t, _sluice_seq, _sluice_pos, lsn, xid, op, payload FROM landing.orders UNION ALL SELECT 'items', _sluice_seq, _sluice_pos, lsn, xid, op, payload FROM landing.items"
q "SELECT dense_rank() OVER (ORDER BY lsn) AS txn, t, op, payload FROM ($changes) AS c ORDER BY _sluice_seq, _sluice_pos"
note one sequence and one xid per source transaction, across both tables, and the landing order is the commit order
q "SELECT dense_rank() OVER (ORDER BY lsn) AS txn, count(*) AS changes, count(DISTINCT _sluice_seq) AS sequences, count(DISTINCT xid) AS xids FROM ($changes) AS c GROUP BY lsn ORDER BY lsn"
q "SELECT count(*) AS out_of_order FROM ($changes) a JOIN ($changes) b ON (a._sluice_seq < b._sluice_seq OR (a._sluice_seq = b._sluice_seq AND a._sluice_pos < b._sluice_pos)) AND a.lsn > b.lsn"
q "SELECT source, watermark = (SELECT max(_sluice_seq) FROM ($changes) AS c WHERE 'landing.' || t = source) AS at_its_last_landing, rows FROM _sluice.live_sources ORDER BY source"
q "SELECT slot, landed_lsn = (SELECT max(lsn) FROM (SELECT lsn FROM landing.orders UNION ALL SELECT lsn FROM landing.items)) AS landed_is_last, confirmed_lsn >= landed_lsn AS confirmed_after FROM _sluice.cdc_slots"

note a second run lands nothing, and the server was told what the warehouse stored, no more
cdc orders --once
server=$(src -c "SELECT confirmed_flush_lsn - '0/0' FROM pg_replication_slots WHERE slot_name = '$slot'")
stored=$("$SLUICE_BIN" sql "SELECT confirmed_lsn FROM _sluice.cdc_slots" | tail -1)
[ "$server" -gt 0 ] && [ "$server" -le "$stored" ] && echo "confirmed by the server: above 0, at most the stored LSN"

note kill -9 the consumer again and again while a generator commits
# each transaction: a new order, its item, an update of order 1 and the
# delete of the item before: 4 changes (3 in the first)
gen=600
seen=$("$SLUICE_BIN" sql "SELECT max(_sluice_seq) FROM ($changes) AS c" | tail -1)
(
	for ((i = 1; i <= gen; i++)); do
		echo "BEGIN;"
		echo "INSERT INTO orders VALUES ($((1000 + i)), 'gen', $i.$((i % 100)), NULL);"
		echo "INSERT INTO order_items VALUES ($((1000 + i)), 1, 'sku$i');"
		echo "UPDATE orders SET amount = $i, note = 'gen $i' WHERE id = 1;"
		echo "DELETE FROM order_items WHERE order_id = $((999 + i));"
		echo "COMMIT;"
		echo "SELECT pg_sleep(0.02);"
	done
) | src >/dev/null &
generator=$!
kill_consumers orders "$slot" 20
wait $generator
echo "killed $kills times"
before=$("$SLUICE_BIN" sql "SELECT count(*) FROM landing.orders WHERE _sluice_seq > $seen" | tail -1)
[ "$before" -gt 0 ] && echo "the killed consumers had landed changes"
grep -v '^slot ' consumer.log
cdc orders --once | sed -E 's/[0-9]+ transactions landed \([0-9]+ changes\), [0-9]+ skipped/<n> transactions landed (<n> changes), <n> skipped/'
note every change the generator committed landed exactly once
# (the sequence the generator's changes start after depends on how many
# landing commits the runs before made, so the output does not show it)
echo "\$ sql: counts of the changes landed since the generator started"
"$SLUICE_BIN" sql "SELECT count(*) AS changes, count(DISTINCT (lsn, payload)) AS distinct_changes, count(DISTINCT lsn) AS transactions, count(DISTINCT (lsn, _sluice_seq)) AS transaction_sequences FROM ($changes) AS c WHERE _sluice_seq > $seen" 2>&1 | normalize
echo "expected: $((4 * gen - 1)) changes in $gen transactions"

note the models that apply the changes equal the source tables, less order 99 from before the slot, as snapshot: never asks
sl run
src -c "SELECT concat_ws(',', id, customer, amount, coalesce(note, '-')) FROM orders WHERE id <> 99 ORDER BY id" >source.txt
"$SLUICE_BIN" sql "SELECT concat_ws(',', id, customer, amount, coalesce(note, '-')) AS r FROM silver.orders ORDER BY id" | tail -n +2 | sed 's/ *$//' >landed.txt
diff source.txt landed.txt && echo "orders: the same $(wc -l <source.txt) rows"
src -c "SELECT concat_ws(',', order_id, line, sku) FROM order_items ORDER BY 1" >source.txt
"$SLUICE_BIN" sql "SELECT concat_ws(',', order_id, line, sku) AS r FROM silver.items ORDER BY 1" | tail -n +2 | sed 's/ *$//' >landed.txt
diff source.txt landed.txt && echo "items: the same $(wc -l <source.txt) rows"

note a slot someone else made, with snapshot: never: its changes are followed from where it stands
src -c "SELECT 1 FROM pg_create_logical_replication_slot('e2e_cdc_consumer_pre', 'pgoutput')" \
	-c "CREATE PUBLICATION e2e_cdc_consumer_pre FOR TABLE orders" \
	-c "INSERT INTO orders VALUES (98, 'premade', 2, NULL)" >/dev/null
cdc premade --once
q "SELECT op, payload FROM landing.premade ORDER BY _sluice_pos"
src -c "SELECT pg_drop_replication_slot('e2e_cdc_consumer_pre')" >/dev/null

note a slot the consumer made is known from then on: read by someone else before anything landed, it is refused
"$SLUICE_BIN" cdc fresh >fresh.log 2>&1 &
fresh_pid=$!
# killed as soon as it streams from the slot it made, before it confirms
# anything (the slot is listed already while it is being made)
wait_every=0.01 wait_until 10 prints 1 src -c "SELECT count(*) FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid WHERE s.slot_name = 'e2e_cdc_consumer_fresh' AND r.state IN ('catchup', 'streaming')"
# (the shell's word of the kill, whenever it reaps the process, unsaid)
{
	kill -9 $fresh_pid
	wait $fresh_pid
} 2>/dev/null
# (a slot just made may still be held by the walsender of the killed consumer)
wait_until 10 prints f src -c "SELECT active FROM pg_replication_slots WHERE slot_name = 'e2e_cdc_consumer_fresh'"
src -c "INSERT INTO orders VALUES (97, 'taken', 3, NULL)" \
	-c "SELECT 1 FROM pg_replication_slot_advance('e2e_cdc_consumer_fresh', pg_current_wal_lsn())" >/dev/null
cdc fresh --once
src -c "SELECT pg_drop_replication_slot('e2e_cdc_consumer_fresh')" >/dev/null

note the consumer runs DuckDB on one thread fewer than the cores it may use, at least one: its stream reader keeps a core busy
threads() {
	SLUICE_TRACE_SQL=1 "$@" "$SLUICE_BIN" cdc orders --once 2>&1 >/dev/null | grep -o 'SET threads = [0-9]*'
}
# DuckDB's own count (a CPU quota may lower it), within the cores the
# process may run on
cores=$("$SLUICE_BIN" sql "SELECT current_setting('threads')" | tail -1)
allowed=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
[ "$allowed" -lt "$cores" ] && cores=$allowed
[ "$(threads)" = "SET threads = $((cores > 1 ? cores - 1 : 1))" ] && echo "on every core: one fewer, at least one" ||
	echo "on $cores cores: $(threads)"
first=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
threads taskset -c "$first" | sed 's/$/ (on one core)/'
