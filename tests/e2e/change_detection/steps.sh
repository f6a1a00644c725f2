# What a run rebuilds: only what changed, what reads it, and what is
# missing; never a model whose change does not touch its data.
cd shop
sl run
note a second run: everything is up to date
sl run

note an edited model is rebuilt with the tables that read what changed, gold.regions reads no amount
sed -i 's/SELECT id, amount, region/SELECT id, amount * 2 AS amount, region/' models/silver/orders.sql
sl run
q "SELECT * FROM gold.revenue ORDER BY region"

note description= and tags= do not change the data: nothing is rebuilt
sed -i "s/description='orders with a region', tags=\[core\]/description='orders, amounts doubled', tags=[core, finance]/" models/silver/orders.sql
head -1 models/silver/orders.sql
sl run

note --full-refresh rebuilds the selection, up to date or not
sl run --full-refresh -s silver.orders+

note a table dropped by hand is built again
"$SLUICE_BIN" sql "DROP TABLE gold.regions" >/dev/null
sl run -s gold.*

note an edited ephemeral model rebuilds the models it is inlined into
sed -i 's/>= 10/>= 16/' models/silver/big.sql
sl run
q "SELECT * FROM gold.big_count"

note a snapshot records changes and keeps its history through --full-refresh
printf 'item,price\ntea,4\njam,5\nbun,2\n' >seeds/prices.csv
sl run -s +snap.prices
sl run --full-refresh -s +snap.prices
q "SELECT item, price, valid_to IS NULL AS current FROM snap.prices ORDER BY item, valid_from"
