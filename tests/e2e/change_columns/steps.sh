# A change of a model is told apart column by column: a changed
# expression breaks that column alone, and a model that reads none of the
# changed columns is not built again; a change of what decides the rows
# breaks every column; a column added breaks none.
cd shop
sl run

note one expression changed: the models that read amount are built again, the others are not
sed -i 's/amount \* 2 AS amount/amount * 3 AS amount/' models/silver/orders.sql
sl plan
sl run
q "SELECT region, total FROM gold.revenue ORDER BY region"
"$SLUICE_BIN" sql "SELECT name, column_versions IS NOT NULL AS cols FROM _sluice.models WHERE name LIKE 'silver.%' OR name LIKE 'gold.%' ORDER BY name"
sl run

note a column added: nothing reads it yet
sed -i 's/, region FROM/, region, upper(region) AS code FROM/' models/silver/orders.sql
sl plan
sl run
q "SELECT id, code FROM silver.orders ORDER BY id"

note a model that reads the new column is built, one that reads an older changed column too
printf '@config materialized=table\nSELECT code, amount FROM silver.orders\n' >models/gold/codes.sql
sl run
sed -i 's/upper(region) AS code/lower(region) AS code/' models/silver/orders.sql
sl plan

note what decides the rows changed: every reader is built again
sed -i 's/WHERE amount > 0/WHERE amount > 10/' models/silver/orders.sql
sl plan
sl run
q "SELECT n FROM gold.counts"
sl run
