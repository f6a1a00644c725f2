# A model may never write where sluice writes: its state schema _sluice,
# the landing schema and a source's landing table, the seeds schema, the
# side tables of builds. Each is refused at validate with the model file,
# and a run refuses before it changes anything.
land() { "$SLUICE_BIN" sql "INSERT INTO landing.orders (id) VALUES $1" >/dev/null; }
cd p
sl run
land "(1), (2)"
sl live advance orders
warehouse_saved before.sha

note models in _sluice, landing and seeds, one on a source landing table, one named like a side table
mkdir -p models/_sluice models/landing models/seeds
echo "SELECT 'gone' AS name" >models/_sluice/models.sql
echo "SELECT 99 AS id" >models/landing/orders.sql
echo "SELECT 1 AS code" >models/seeds/extra.sql
echo "SELECT 1 AS id" >models/silver/orders__sluice_new.sql
sl validate
sl run
warehouse_unchanged before.sha
q "SELECT id, _sluice_seq FROM landing.orders ORDER BY id"
q "SELECT name FROM _sluice.models ORDER BY name"

note moved to folders of their own, they pass
mkdir -p models/mine
mv models/_sluice/models.sql models/mine/models.sql
mv models/landing/orders.sql models/mine/orders.sql
mv models/seeds/extra.sql models/mine/extra.sql
mv models/silver/orders__sluice_new.sql models/mine/orders_new.sql
sl validate
