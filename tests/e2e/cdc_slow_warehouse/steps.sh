# A warehouse whose every sync takes 3 s, behind a source server that ends
# a replication connection silent for 1 s (wal_sender_timeout): the
# consumer's status updates go on from a thread of their own while a
# commit waits on the disk, so the connection lives through every slow
# commit and each change lands once. Then a disk that fills mid-landing:
# nothing of the transaction lands, and the next run lands it once. The
# case runs a PostgreSQL server of its own: its wal_sender_timeout would
# end other cases' connections. While a slow commit is under way the
# transactions after it are held: an update whose TOASTed value did not
# change takes it from an insert held so, once that has joined the next
# batch. A stream lost while a commit waits on the disk: the commit ends,
# what it landed counts in the summary, and the next attempt skips it.
own_source_server
src -c "CREATE TABLE t (id SERIAL PRIMARY KEY, v TEXT, n INT)" \
	-c "ALTER TABLE t ALTER COLUMN v SET STORAGE EXTERNAL" -c "INSERT INTO t (v) VALUES ('first')"

note the slot is made and its snapshot lands
cdc t --once
src -c "ALTER SYSTEM SET wal_sender_timeout = '1s'" -c "SELECT pg_reload_conf()" >/dev/null

note the consumer runs on a warehouse whose syncs take 3 s each while four transactions commit, the last an update of a TOASTed row the one before inserted
# the shim is loaded ahead of the sanitizer runtime of a SAN build
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
LD_PRELOAD="$SLUICE_TOOLS/faultfs.so" FAULTFS_MATCH=warehouse.duckdb FAULTFS_AFTER=1000000000000 \
	FAULTFS_SLOW_MS=3000 FAULTFS_SLOW_AFTER_MS=500 FAULTFS_LOG="$PWD/faults.log" \
	"$SLUICE_BIN" cdc t >cdc.out 2>cdc.err &
pid=$!
walsender() { src -c "SELECT pid FROM pg_stat_replication"; }
walsender_up() { [ -n "$(walsender)" ]; }
wait_until 10 walsender_up
first=$(walsender)
# once what the server had is confirmed the stream is idle; the last two
# transactions come while the commit of one of the first two is under way
idle=$(src -c "SELECT pg_current_wal_lsn()")
wait_until 20 prints t src -c "SELECT confirmed_flush_lsn >= '$idle' FROM pg_replication_slots"
src -c "INSERT INTO t (v) VALUES ('a')"
sleep 1
src -c "INSERT INTO t (v) VALUES ('c')"
sleep 0.5
src -c "INSERT INTO t (v) VALUES (repeat('b', 5000))"
sleep 0.5
src -c "UPDATE t SET n = 1 WHERE v LIKE 'b%'"
target=$(src -c "SELECT pg_current_wal_lsn()")
wait_until 60 prints t src -c "SELECT confirmed_flush_lsn >= '$target' FROM pg_replication_slots"
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
q "SELECT op, length(payload->>'v') AS v, payload->>'n' AS n FROM landing.t WHERE op <> 'r' ORDER BY _sluice_seq, _sluice_pos"

note a disk that fills while a transaction lands: a clear error, nothing of it lands, and the next run lands it once
src -c "INSERT INTO t (v) SELECT repeat('x', 200) FROM generate_series(1, 5000)"
for n in 20000 400000; do
	LD_PRELOAD="$SLUICE_TOOLS/faultfs.so" FAULTFS_MATCH=warehouse.duckdb FAULTFS_AFTER=$n \
		"$SLUICE_BIN" cdc t --once 2>&1 | sed -n 1p | sed -E 's/Error: .*(No space left on device).*/Error: ... \1/'
	q "SELECT count(*) AS landed FROM landing.t WHERE op = 'c'"
done
cdc t --once
q "SELECT op, count(*) AS changes, count(DISTINCT lsn) AS transactions, count(DISTINCT (lsn, _sluice_seq)) AS transaction_sequences FROM landing.t GROUP BY op ORDER BY op"

note the stream lost while a commit waits on the disk: the commit ends, what it landed is counted, and the next attempt skips it
src -c "INSERT INTO t (v) VALUES ('lost stream')"
target=$(src -c "SELECT pg_current_wal_lsn()")
rm -f faults.log
LD_PRELOAD="$SLUICE_TOOLS/faultfs.so" FAULTFS_MATCH=warehouse.duckdb FAULTFS_AFTER=1000000000000 \
	FAULTFS_SLOW_MS=3000 FAULTFS_LOG="$PWD/faults.log" "$SLUICE_BIN" cdc t >lost.out 2>lost.err &
pid=$!
wait_until 10 grep -qs 'slow by' faults.log
src -c "SELECT pg_terminate_backend(pid) FROM pg_stat_replication" >/dev/null
# the next attempt streams from what landed, and confirms past it
wait_until 15 prints t src -c "SELECT active AND confirmed_flush_lsn >= '$target' FROM pg_replication_slots"
# and says so once its stream holds, which a slower build can reach after the server saw it
wait_until 15 grep -qs 'streaming again' lost.err
kill -TERM $pid
wait $pid
echo "exit $?"
sed -E 's#\b[0-9A-F]+/[0-9A-F]+\b#<lsn>#g' lost.out
cat lost.err
q "SELECT count(*) AS landed FROM landing.t WHERE payload->>'v' = 'lost stream'"
