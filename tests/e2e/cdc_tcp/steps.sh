# The source reached as a server on another machine is: over TCP, its
# password from a passfile (scram-sha-256), the connection string a URI,
# the way a consumer that does not run beside the database connects. The
# snapshot and the stream land over it, the server sees the replication
# connection come from 127.0.0.1, and the CDC model equals the source
# table afterwards. A wrong password is refused with the server's reason
# and the source's name, and lands nothing. The case runs a PostgreSQL
# server of its own, the only one that listens on TCP.
own_pg_server tcp
psql "$pg_dsn" -qAt -c "CREATE DATABASE src" >/dev/null
# set up through the unix socket; the consumer reads through TCP only
port=$(sed -E 's/.*port=([0-9]+).*/\1/' <<<"$pg_tcp_dsn")
export SRC_PG="postgresql://sluice@127.0.0.1:$port/src?passfile=$pg_dir/pgpass"
local_src() {
	PGOPTIONS="-c client_min_messages=warning" psql "$pg_dsn dbname=src" -qAt -v ON_ERROR_STOP=1 "$@"
}
local_src -c "CREATE TABLE events (id INTEGER PRIMARY KEY, v TEXT)" \
	-c "INSERT INTO events SELECT g, 'row ' || g FROM generate_series(1, 500) g"
# same_as_source: the CDC model against the source table, row by row
same_as_source() {
	local_src -c "SELECT id || ',' || v FROM events ORDER BY id" >source.txt
	"$SLUICE_BIN" sql "SELECT id || ',' || v AS r FROM silver.events WHERE op <> 'd' ORDER BY id" |
		tail -n +2 | sed 's/ *$//' >landed.txt
	diff source.txt landed.txt && echo "silver.events equals the source table: $(wc -l <source.txt) rows"
}

note the snapshot lands over TCP
cdc events --once
sl run
same_as_source

note changes stream over TCP, from a consumer the server sees at 127.0.0.1
"$SLUICE_BIN" cdc events >cdc.out 2>cdc.err &
cdc_pid=$!
wait_until 20 prints t local_src -c "SELECT active FROM pg_replication_slots WHERE slot_name = 'e2e_cdc_tcp'" ||
	{ echo "the consumer did not start streaming"; cat cdc.err; }
local_src -c "SELECT 'replication from ' || host(client_addr) FROM pg_stat_replication"
local_src -c "UPDATE events SET v = 'changed ' || id WHERE id % 3 = 0" \
	-c "DELETE FROM events WHERE id % 7 = 0" \
	-c "INSERT INTO events SELECT g, 'late ' || g FROM generate_series(501, 20000) g"
# until the slot is confirmed past the last change, which the consumer
# confirms only once the warehouse stored it
target=$(local_src -c "SELECT pg_current_wal_lsn()")
wait_until 20 prints t local_src -c "SELECT confirmed_flush_lsn >= '$target' FROM pg_replication_slots WHERE slot_name = 'e2e_cdc_tcp'" ||
	{ echo "the consumer did not land the changes"; cat cdc.err; }
kill -TERM $cdc_pid
wait $cdc_pid
echo "consumer exit $?"
sed -E 's#\b[0-9A-F]+/[0-9A-F]+\b#<lsn>#g' cdc.out
sl run
same_as_source
q "SELECT op, count(*) AS changes FROM landing.events GROUP BY op ORDER BY op"

note a wrong password is refused and lands nothing
local_src -c "INSERT INTO events VALUES (0, 'not yet')"
SRC_PG="postgresql://sluice:wrong@127.0.0.1:$port/src" cdc events --once |
	sed "s/port $port/port <port>/"
q "SELECT count(*) AS changes FROM landing.events WHERE payload->>'v' = 'not yet'"
