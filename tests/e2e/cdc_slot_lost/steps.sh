# A slot the server invalidated (wal_status lost: it removed WAL the slot
# still needed) is a loud failure naming the slot and --resnapshot, never
# made again in silence; --resnapshot then lands the table anew. The case
# runs a PostgreSQL server of its own: losing a slot takes a small
# max_slot_wal_keep_size, which would threaten the shared server's slots.
own_source_server
src -c "CREATE TABLE events (id SERIAL PRIMARY KEY, v TEXT)" -c "INSERT INTO events (v) VALUES ('first')"

note the slot is made and its snapshot lands
cdc events --once

note the server removes WAL the slot still needs while no consumer runs
src -c "ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'" -c "SELECT pg_reload_conf()" >/dev/null
for i in 1 2 3; do
	src -c "INSERT INTO events (v) SELECT md5(g::text) FROM generate_series(1, 20000) g" \
		-c "SELECT pg_switch_wal()" -c "CHECKPOINT" >/dev/null
done
src -c "SELECT slot_name, wal_status FROM pg_replication_slots"
cdc events --once
q "SELECT count(*) AS landed FROM landing.events"

note --resnapshot drops it, makes it again and lands the table anew
src -c "ALTER SYSTEM RESET max_slot_wal_keep_size" -c "SELECT pg_reload_conf()" >/dev/null
cdc events --once --resnapshot
src -c "INSERT INTO events (v) VALUES ('after')"
cdc events --once
q "SELECT op, count(*) AS rows FROM landing.events GROUP BY op ORDER BY op"
src -c "SELECT 'source rows: ' || count(*) FROM events"

note a slot of another database, or of another plugin, is refused, naming it
psql "$SRC_PG dbname=postgres" -qAt -c "SELECT 1 FROM pg_create_logical_replication_slot('e2e_other_db', 'pgoutput')" >/dev/null
src -c "SELECT 1 FROM pg_create_logical_replication_slot('e2e_other_plugin', 'test_decoding')" >/dev/null
for slot in e2e_other_db e2e_other_plugin; do
	sed -i "s/slot: [a-z0-9_]*/slot: $slot/" sluice.yml
	cdc events --once
done
