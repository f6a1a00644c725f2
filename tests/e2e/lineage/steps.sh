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
note mistakes
sl lineage gold.by_country.nope
sl lineage gold.nope
sl lineage gold.by_country --depth 0
sl lineage gold.by_country --upstream --downstream
