# Live models written as their plain query are maintained by sluice in the
# class the query allows; after every refresh each equals its query over
# its input, through updates that move orders between regions, NULL
# regions and amounts, deletes of whole groups and a rebuild of the input.
land() { "$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region, qty) VALUES $1" >/dev/null; }
# equal MODEL...: whether each model holds exactly its query's rows
equal() {
	local m query bad
	for m in "$@"; do
		query=$(grep -v '^\(--\|@config\)' "models/gold/$m.sql")
		bad=$("$SLUICE_BIN" sql --json "SELECT count(*) AS n FROM ((SELECT * FROM gold.$m EXCEPT ALL ($query)) UNION ALL (($query) EXCEPT ALL SELECT * FROM gold.$m)) AS d" | jq -r '.[0].n')
		echo "gold.$m: $bad rows differ from its query"
	done
}
all() { equal by_region regions busy_regions big_orders landed ranked; }
refresh() {
	sl live advance orders
	sl live --once
	all
}

sl validate
sl run
all
note what a refresh of a counted model runs, in the dialect of the warehouse
sl compile gold.by_region
note a regroup refresh reads only the input rows of the regions the batch touched
sl compile gold.busy_regions
note orders land in A and B, one with no region and no amount
land "(1, 10, 'A', 1), (2, 5, 'A', 2), (3, 7, 'B', NULL), (4, NULL, NULL, 3)"
refresh
q "SELECT * FROM gold.by_region ORDER BY region"
q "SELECT * FROM _sluice.groups__gold__by_region ORDER BY region"
note order 1 moves to B, order 3 loses its region, order 2 doubles
land "(1, 10, 'B', 1), (3, 7, NULL, 5), (2, 10, 'A', 2)"
refresh
q "SELECT * FROM gold.by_region ORDER BY region"
q "SELECT * FROM gold.busy_regions ORDER BY region"
note every order leaves A: its group goes, from the model and from its hidden rows
land "(2, 10, 'C', 4)"
refresh
q "SELECT region FROM gold.by_region ORDER BY region"
q "SELECT count(*) AS a_rows FROM _sluice.groups__gold__by_region WHERE region = 'A'"
note silver.orders built again with other values, as its on_schema_change asks: its readers read it whole once
sed -i 's/SELECT order_id, amount, region/SELECT order_id, amount, upper(region) || '"'"'!'"'"' AS region/' models/silver/orders.sql
sed -i 's/incremental_strategy=merge,/incremental_strategy=merge, on_schema_change=full_refresh,/' models/silver/orders.sql
sl run
all
q "SELECT * FROM gold.by_region ORDER BY region"
land "(5, 1, 'd', 1)"
refresh
note a batch of most of the input is computed whole: past the crossover, that is the cheaper
if is_postgres; then rows="generate_series(0, 199999) AS r(i)"; else rows="range(200000) AS r(i)"; fi
"$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region, qty) SELECT 1000 + i, i % 100, 'x' || (i % 3000), i % 7 FROM $rows" >/dev/null
sl live advance orders
sl run
all
land "(6, 2, 'd', 1)"
sl live advance orders
sl run
note ivm=required refuses a model its refreshes would rebuild whole, at the construct
cat >models/gold/joined.sql <<'SQL'
@config materialized=incremental, live=true, ivm=required
SELECT o.region, count(*) AS n
FROM silver.orders AS o JOIN silver.orders AS p ON p.order_id = o.order_id
GROUP BY o.region
SQL
sl validate
rm models/gold/joined.sql
