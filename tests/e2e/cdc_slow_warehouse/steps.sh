# A warehouse whose every sync takes 3 s, behind a source server that ends
# a replication connection silent for 1 s (wal_sender_timeout): the
# consumer's status updates go on from a thread of their own while a
# commit waits on the disk, so the connection lives through every slow
# commit and each change lands once. Then a disk that fills mid-landing:
# nothing of the transaction lands, and the next run lands it once. The
# case runs a PostgreSQL server of its own: its wal_sender_timeout would
# end other cases' connections.
own_source_server
src -c "CREATE TABLE t (id SERIAL PRIMARY KEY, v TEXT)" -c "INSERT INTO t (v) VALUES ('first')"

note the slot is made and its snapshot lands
cdc t --once
src -c "ALTER SYSTEM SET wal_sender_timeout = '1s'" -c "SELECT pg_reload_conf()" >/dev/null

note the consumer runs on a warehouse whose syncs take 3 s each while three transactions commit
# the shim is loaded ahead of the sanitizer runtime of a SAN build
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
LD_PRELOAD="$SLUICE_TOOLS/faultfs.so" FAULTFS_MATCH=warehouse.duckdb FAULTFS_AFTER=1000000000000 \
	FAULTFS_SLOW_MS=3000 FAULTFS_SLOW_AFTER_MS=500 FAULTFS_LOG="$PWD/faults.log" \
	"$SLUICE_BIN" cdc t >cdc.out 2>cdc.err &
pid=$!
walsender() { src -c "SELECT pid FROM pg_stat_replication"; }
for _ in $(seq 100); do [ -n "$(walsender)" ] && break; sleep 0.1; done
first=$(walsender)
for v in a b c; do
	src -c "INSERT INTO t (v) VALUES ('$v')"
	sleep 0.5
done
target=$(src -c "SELECT pg_current_wal_lsn()")
for _ in $(seq 600); do
	[ "$(src -c "SELECT confirmed_flush_lsn >= '$target' FROM pg_replication_slots")" = t ] && break
	sleep 0.1
done
src -c "SELECT 'confirmed the last commit: ' || (confirmed_flush_lsn >= '$target') FROM pg_replication_slots"
last=$(walsender)
kill -TERM $pid
wait $pid
echo "exit $?"
echo "one replication connection throughout: $([ -n "$first" ] && [ "$first" = "$last" ] && echo yes || echo no)"
grep -c 'replication timeout' "$pg_dir/server.log" | sed 's/^/server timeouts: /'
[ "$(grep -c 'slow by 3000 ms' faults.log 2>/dev/null)" -ge 3 ] && echo "slow syncs: 3 or more" ||
	echo "slow syncs: $(grep -c 'slow by' faults.log 2>/dev/null)"
cat cdc.err
q "SELECT op, count(*) AS changes FROM landing.t GROUP BY op ORDER BY op"

note a disk that fills while a transaction lands: a clear error, nothing of it lands, and the next run lands it once
src -c "INSERT INTO t (v) SELECT repeat('x', 200) FROM generate_series(1, 5000)"
for n in 20000 400000; do
	LD_PRELOAD="$SLUICE_TOOLS/faultfs.so" FAULTFS_MATCH=warehouse.duckdb FAULTFS_AFTER=$n \
		"$SLUICE_BIN" cdc t --once 2>&1 | sed -n 1p | sed -E 's/Error: .*(No space left on device).*/Error: ... \1/'
	q "SELECT count(*) AS landed FROM landing.t WHERE op = 'c'"
done
cdc t --once
q "SELECT op, count(*) AS changes, count(DISTINCT lsn) AS transactions, count(DISTINCT (lsn, _sluice_seq)) AS transaction_sequences FROM landing.t GROUP BY op ORDER BY op"
