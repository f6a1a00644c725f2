# A slot whose table gets no changes while the source database takes
# heavy writes to a table outside the publication (20 batches of 10,000
# rows, a WAL segment switch and a checkpoint every 5): the consumer
# (`sluice cdc` in the foreground) lands nothing, yet confirms the
# server's WAL end, so the slot's confirmed_flush_lsn moves on while the
# writes go and then reaches the end of the WAL, and the WAL the slot
# keeps (pg_current_wal_lsn() - restart_lsn) shrinks to almost nothing.
# The case runs a PostgreSQL server of its own, so that no other slot or
# writer moves the WAL it measures.
own_source_server
slot=e2e_cdc_idle_slot
src -c "CREATE TABLE watched (id integer PRIMARY KEY, v text)" -c "INSERT INTO watched VALUES (1, 'one')" \
	-c "CREATE TABLE noise (id bigint, v text)"
# the slot's figures, in bytes: confirmed, restart, WAL end less restart
slot_lag() {
	src -c "SELECT confirmed_flush_lsn - '0/0', restart_lsn - '0/0', pg_current_wal_lsn() - restart_lsn FROM pg_replication_slots WHERE slot_name = '$slot'"
}

note the slot is made, its table lands, and the consumer starts
cdc watched --once
"$SLUICE_BIN" cdc watched >consumer.log 2>&1 &
consumer=$!
wait_until 5 prints t src -c "SELECT active FROM pg_replication_slots WHERE slot_name = '$slot'"
src -c "SELECT slot_name, active FROM pg_replication_slots"

note 200000 rows written to a table outside the publication while it runs
IFS='|' read -r start restart0 retained < <(slot_lag)
for b in $(seq 20); do
	if [ $((b % 5)) -eq 0 ]; then
		src -c "INSERT INTO noise SELECT g, md5(g::text) FROM generate_series(1, 10000) g" \
			-c "SELECT pg_switch_wal()" -c "CHECKPOINT" >/dev/null
	else
		src -c "INSERT INTO noise SELECT g, md5(g::text) FROM generate_series(1, 10000) g"
	fi
	slot_lag >>during.txt
done
src -c "SELECT 'rows written: ' || count(*) FROM noise"
written=$(src -c "SELECT pg_current_wal_lsn() - '0/0'")
echo "WAL written: over 32MB: $([ $((written - start)) -gt $((32 << 20)) ] && echo t || echo f)"
awk -F'|' -v s="$start" -v r="$restart0" '
	$1 > s { confirmed = 1 } $2 > r { restart = 1 }
	END {
		print "confirmed moved while the writes went: " (confirmed ? "t" : "f")
		print "restart moved while the writes went: " (restart ? "t" : "f")
	}' during.txt

note then the slot confirms the end of the WAL and keeps almost none of it
end=$(src -c "SELECT pg_current_wal_lsn() - '0/0'")
# reads the slot's figures into $confirmed, $restart and $retained
slot_idle() {
	IFS='|' read -r confirmed restart retained < <(slot_lag)
	[ "$confirmed" -ge "$end" ] && [ "$retained" -lt $((1 << 20)) ]
}
wait_until 25 slot_idle
echo "confirmed reached the WAL end: $([ "$confirmed" -ge "$end" ] && echo t || echo f)"
echo "retained under 1MB: $([ "$retained" -lt $((1 << 20)) ] && echo t || echo f)"

note the consumer stops cleanly, having landed nothing, and the server was told no more than it stored
kill -TERM $consumer
wait $consumer
echo "consumer exit $?"
sed -E 's#\b[0-9A-F]+/[0-9A-F]+\b#<lsn>#g' consumer.log
q "SELECT op, count(*) AS rows FROM landing.watched GROUP BY op"
server=$(slot_lag | cut -d'|' -f1)
stored=$("$SLUICE_BIN" sql "SELECT confirmed_lsn FROM _sluice.cdc_slots" | tail -1)
echo "confirmed by the server: past the writes, at most the stored LSN: $([ "$server" -ge "$end" ] && [ "$server" -le "$stored" ] && echo t || echo f)"
