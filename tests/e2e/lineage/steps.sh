# Column lineage from the parse trees: through an ephemeral with a star,
# a merge model, a view over a seed, a join USING, an
# aggregate, a CASE and a window; upstream and downstream, JSON and DOT;
# what cannot be followed is named. Before the first run the landing
# table's columns are not known to the warehouse; after it they are.
sl lineage gold.by_country.revenue
sl lineage staging.paid
sl run
note with the landing table made, its columns are known
sl lineage staging.paid --depth 1
sl lineage silver.orders
sl lineage gold.by_country --depth 1
sl lineage seeds.customers.country --downstream
sl lineage silver.orders.amount --downstream --dot
sl lineage gold.sample
sl lineage gold.sample --json
note how each model reads each input, row, agg, side or unknown, and whether that input changes rows or only gains them
sl lineage --edges
sl lineage gold.by_country --edges --json
sl lineage gold.by_country.revenue --edges
sl lineage gold.by_country --edges --depth 2
note one OpenLineage run event per model, a line each, its schema facet with the types of the last build
SLUICE_NOW='2026-12-01 09:00' "$SLUICE_BIN" lineage --openlineage | jq -c '{time: .eventTime, schema: .schemaURL, run: (.run.runId | test("^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")), job: .job.name, inputs: [.inputs[].name], columns: .outputs[0].facets.schema.fields, revenue: .outputs[0].facets.columnLineage.fields.revenue.inputFields}'
note a column many others read is walked once: 30 models that each read the one before twice
mkdir -p models/chain
printf '@config materialized=view\nSELECT 1 AS k, 1 AS x\n' >models/chain/c0.sql
for i in $(seq 1 30); do
	printf '@config materialized=view\nSELECT a.k, a.x + b.x AS x FROM chain.c%d AS a JOIN chain.c%d AS b USING (k)\n' $((i - 1)) $((i - 1)) >models/chain/c$i.sql
done
timeout 20 "$SLUICE_BIN" lineage chain.c30.x | head -c 1000000 | wc -l
timeout 20 "$SLUICE_BIN" lineage chain.c0.x --downstream | head -c 1000000 | wc -l
rm -r models/chain
note the models whose rows come from what sluice cannot follow
mkdir -p data
printf 'currency,rate\nEUR,1.0\n' >data/rates.csv
cat >models/gold/rates.sql <<'SQL'
@upstream fx type=file path=data/rates.csv
SELECT 'EUR' AS currency, 1.0 AS rate
SQL
printf 'SELECT 42 AS answer\n' >models/gold/constant.sql
sl lineage gold.constant
sl lineage --audit
"$SLUICE_BIN" lineage --audit --json | jq -c '.[] | {model, inputs_known, declared_inputs}'
rm -r models/gold/rates.sql models/gold/constant.sql data
note mistakes
sl lineage gold.by_country.nope
sl lineage gold.nope
sl lineage gold.by_country --depth 0
sl lineage gold.by_country --upstream --downstream
