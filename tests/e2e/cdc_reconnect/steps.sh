# `sluice cdc NAME` in the foreground outlives its source database: the
# server restarts twice under it (once at once, once after a pause) while
# a generator commits, and the consumer tries again after 1 s, then 2 s,
# says so on stderr, and resumes from what landed. Afterwards every
# source transaction landed once, each change of it once, counted by
# transaction id and op against what the source recorded in the same
# transactions. An error trying again cannot mend ends the command at
# once, and --once keeps failing at once. The case runs a PostgreSQL
# server of its own, as it restarts it.
own_source_server
# ops: what each source transaction did, written in it, by its id
src -c "CREATE TABLE events (id INTEGER PRIMARY KEY, v TEXT)" -c "INSERT INTO events VALUES (0, 'before')" \
	-c "CREATE TABLE ops (xid BIGINT, op TEXT, n BIGINT)"

# txn I: one source transaction that inserts row I, updates row I-1 and,
# every third, deletes row I-2, and records the rows each op touched (a
# transaction before it may have failed as the server went away)
txn() {
	local i=$1 del=-1
	((i % 3 == 0)) && del=$((i - 2))
	src -c "WITH c AS (INSERT INTO events VALUES ($i, 'new $i') RETURNING 1),
		u AS (UPDATE events SET v = 'changed in $i' WHERE id = $((i - 1)) RETURNING 1),
		d AS (DELETE FROM events WHERE id = $del RETURNING 1)
		INSERT INTO ops SELECT pg_current_xact_id()::text::bigint, op, n FROM
		(SELECT 'c', count(*) FROM c UNION ALL SELECT 'u', count(*) FROM u
		 UNION ALL SELECT 'd', count(*) FROM d) t (op, n) WHERE n > 0" >/dev/null 2>&1
}
# wait_streaming: until a consumer holds the slot (the snapshot landed,
# the stream started), at most 20 s
wait_streaming() {
	wait_until 20 prints t src -c "SELECT active FROM pg_replication_slots WHERE slot_name = 'e2e_cdc_reconnect'"
}
# wait_landed: until the slot's confirmed position reaches the server's,
# which the consumer confirms only after the warehouse stored it
wait_landed() {
	wait_until 20 prints t src -c "SELECT confirmed_flush_lsn >= pg_current_wal_lsn() FROM pg_replication_slots WHERE slot_name = 'e2e_cdc_reconnect'" 2>/dev/null ||
		echo "the consumer did not catch up"
}

note the consumer runs in the background, a generator commits, the server restarts twice
"$SLUICE_BIN" cdc events >cdc.out 2>cdc.err &
cdc_pid=$!
# the snapshot landed and the stream started: every transaction from here is a change
wait_streaming
(
	for ((i = 1; i <= 240; i++)); do
		txn $i || sleep 0.1
		sleep 0.02
	done
) &
gen_pid=$!
sleep 1.5
# (pg_ctl says it cannot enter the case's folder as the server's user)
"$pg_server" restart "$pg_dir" 2>>pg_restart.log || echo "the first restart failed"
sleep 1.5
"$pg_server" stop "$pg_dir" 2>>pg_restart.log
sleep 1.5
"$pg_server" restart "$pg_dir" 2>>pg_restart.log || echo "the second restart failed"
wait $gen_pid
wait_landed
kill -0 $cdc_pid 2>/dev/null && echo "the consumer still runs"
kill -TERM $cdc_pid
wait $cdc_pid
echo "consumer exit $?"
# (a message may take lines: the server's hint)
grep -q "^slot e2e_cdc_reconnect: .*(attempt 1; again in 1000 ms)$" cdc.err && echo "a failure is tried again after 1 s"
grep -q "(attempt 2; again in 2000 ms)$" cdc.err && echo "a second failure in a row after 2 s"
grep -c "^slot e2e_cdc_reconnect: streaming again$" cdc.err | sed 's/^/recoveries logged: /'
sed -E 's#\b[0-9A-F]+/[0-9A-F]+\b#<lsn>#g; s/[0-9]+ transactions landed \([0-9]+ changes\), [0-9]+ skipped/<n> transactions landed (<n> changes), <n> skipped/' cdc.out
landed=$(sed -n 's/.*: \([0-9]*\) transactions landed .*/\1/p' cdc.out)
committed=$(src -c "SELECT count(DISTINCT xid) FROM ops")
[ "$landed" = "$committed" ] && echo "the consumer counted each source transaction once"
[ "$committed" -gt 100 ] && echo "more than 100 source transactions committed"

note every change landed once: per transaction id and op, as many as the source recorded
src -c "SELECT xid || ',' || op || ',' || n FROM ops ORDER BY 1" >source.txt
"$SLUICE_BIN" sql "SELECT xid || ',' || op || ',' || count(*) AS r FROM landing.events WHERE op <> 'r' GROUP BY xid, op ORDER BY 1" | tail -n +2 | sed 's/ *$//' >landed.txt
diff source.txt landed.txt && echo "the same (transaction, op) counts"
q "SELECT count(*) = count(DISTINCT (lsn, payload)) AS none_twice, count(DISTINCT lsn) = count(DISTINCT xid) AS one_lsn_per_transaction FROM landing.events WHERE op <> 'r'"
"$SLUICE_BIN" run >run.out 2>&1 || cat run.out
src -c "SELECT id || ',' || v FROM events ORDER BY id" >source.txt
"$SLUICE_BIN" sql "SELECT id || ',' || v AS r FROM silver.events WHERE op <> 'd' ORDER BY id" | tail -n +2 | sed 's/ *$//' >landed.txt
diff source.txt landed.txt && echo "silver.events, built from the changes, equals the source table"

note a publication dropped under a streaming consumer ends the command, naming --resnapshot
"$SLUICE_BIN" cdc events >dropped.out 2>dropped.err &
cdc_pid=$!
wait_streaming
src -c "DROP PUBLICATION e2e_cdc_reconnect" -c "INSERT INTO events VALUES (1000, 'after the drop')"
# the server says so at the change: trying again meets the same change
wait_until 20 gone $cdc_pid
kill -0 $cdc_pid 2>/dev/null && kill -TERM $cdc_pid && echo "the consumer still ran after 20 s"
wait $cdc_pid
echo "exit $?"
grep -c "again in" dropped.err | sed 's/^/attempts logged: /'
grep -c "streaming again" dropped.err | sed 's/^/recoveries logged: /'
sed -E 's#\b[0-9A-F]+/[0-9A-F]+\b#<lsn>#g' dropped.err

note an error trying again cannot mend ends the command at once
timeout 20 "$SLUICE_BIN" cdc unmade >unmade.out 2>&1
echo "exit $?"
grep -c "again in" unmade.out | sed 's/^/attempts logged: /'
grep "^sluice: no publication" unmade.out

note with --once a source database that is down fails at once
"$pg_server" stop "$pg_dir" 2>>pg_restart.log
timeout 20 "$SLUICE_BIN" cdc events --once >once.out 2>&1
echo "exit $?"
grep -c "again in" once.out | sed 's/^/attempts logged: /'
grep -q "^sluice: source database: cannot connect" once.out && echo "it says it cannot connect"
