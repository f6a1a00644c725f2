# A table without a primary key that a publication publishes makes the
# application's own UPDATE and DELETE fail in the source database. With
# create: true sluice refuses to make such a publication, naming the
# table and the choices, and changes nothing; with replica_identity: full
# under the source it makes the table's replica identity FULL in the
# transaction that makes the publication. A table whose replica identity
# is FULL already, or USING INDEX, is fine.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
slot=e2e_cdc_identity
cdc_source "${slot}_src" "$slot"
src -c "CREATE TABLE events (at TIMESTAMPTZ NOT NULL, what TEXT)" \
	-c "CREATE TABLE tags (name TEXT NOT NULL, n INTEGER)" \
	-c "CREATE UNIQUE INDEX tags_name ON tags (name)" \
	-c "ALTER TABLE tags REPLICA IDENTITY USING INDEX tags_name" \
	-c "CREATE TABLE keyed (id INTEGER PRIMARY KEY, v TEXT)" \
	-c "CREATE TABLE notes (body TEXT)" -c "ALTER TABLE notes REPLICA IDENTITY FULL" \
	-c "INSERT INTO events VALUES ('2024-01-01 00:00:00+00', 'first')" \
	-c "INSERT INTO tags VALUES ('a', 1)" -c "INSERT INTO keyed VALUES (1, 'one')"
identity() {
	src -c "SELECT relname, relreplident FROM pg_class WHERE relname IN ('events', 'tags', 'keyed', 'notes') ORDER BY relname"
	src -c "SELECT count(*) AS publications FROM pg_publication" -c "SELECT count(*) AS slots FROM pg_replication_slots WHERE slot_name = '$slot'"
}

note a table without a primary key is refused before anything changes
cdc events --once
identity
note and the application can still update and delete its rows
src -c "UPDATE events SET what = 'changed'" -c "DELETE FROM events WHERE what = 'nothing'" && echo "updated"

note the same with REPLICA IDENTITY NOTHING on a table with a primary key
src -c "ALTER TABLE keyed REPLICA IDENTITY NOTHING"
sed -i 's/^  events: .*$/  events: {kind: postgres_cdc, dsn_env: SRC_PG, slot: e2e_cdc_identity, publication: e2e_cdc_identity, create: true, replica_identity: full}/' sluice.yml
cdc events --once
identity
src -c "ALTER TABLE keyed REPLICA IDENTITY DEFAULT"

note replica_identity: full makes the table FULL with the publication, and the tables FULL or USING INDEX already are fine
cdc events --once
identity
src -c "UPDATE events SET what = 'again'" -c "UPDATE tags SET n = 2" -c "DELETE FROM keyed" && echo "updated"
cdc events --once
q "SELECT op, payload FROM landing.events ORDER BY _sluice_seq, _sluice_pos"
q "SELECT op, payload FROM landing.tags ORDER BY _sluice_seq, _sluice_pos"

note replica_identity takes full only, and only for postgres_cdc sources
sed -i 's/replica_identity: full}/replica_identity: fll}/' sluice.yml
echo "  hooks: {kind: webhook, replica_identity: full}" >>sluice.yml
sl validate
