# Every build that makes a model's relation records its columns in
# _sluice.model_columns (position, name, the type as the warehouse names
# it), in the transaction of its data: tables, views and seeds; an
# ephemeral has none. A rebuild with another select list replaces them, an
# incremental build into its table keeps its own, and a failed build
# leaves those of the last one that held. A temporal model records them
# with the window that makes its table, not with those its workers add.
export SLUICE_NOW='2026-11-05 00:00'
cols() {
	q "SELECT model, position, column_name, column_type FROM _sluice.model_columns ORDER BY model, position"
}
sl run --workers 2
note 'each table, view and seed with its columns, a temporal model too, the ephemeral none'
cols

note 'another select list: the table gets its new columns, the incremental model reading it keeps its own'
sed -i 's/AS "Ordered On"/AS "Ordered On", CAST(NULL AS VARCHAR) AS note/' models/silver/orders.sql
sl run
cols
q "SELECT count(*) AS quantities FROM gold.quantities"

note 'a build whose check fails leaves the columns of the last build that held'
sed -i '1i @assert qty < 0' models/silver/orders.sql
sed -i 's/, CAST(NULL AS VARCHAR) AS note//' models/silver/orders.sql
sl run
q "SELECT model, position, column_name FROM _sluice.model_columns WHERE model = 'silver.orders' ORDER BY position"

note 'a temporal model built again from scratch records its new columns with its first window'
sed -i 's/count(\*) AS visits/count(*) AS visits, min(sku) AS first_sku/' models/gold/daily.sql
sl run -s gold.daily --full-refresh --workers 2
q "SELECT position, column_name FROM _sluice.model_columns WHERE model = 'gold.daily' ORDER BY position"
q "SELECT count(*) AS windows FROM _sluice.windows WHERE model = 'gold.daily' AND status = 'applied'"
