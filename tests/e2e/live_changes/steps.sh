# The change log of a live merge model: an order that moves from one region
# to another is taken out of the old region's totals by a live aggregate
# that reads the change log, and kept there by one that reads the merge
# model alone (which validate warns about). The log is pruned once every
# reader has consumed it.
land() { "$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region) VALUES $1" >/dev/null; }
changes() {
	q "SELECT order_id, amount, region, _sluice_weight, _sluice_seq
	   FROM _sluice.changes__silver__orders ORDER BY _sluice_seq, order_id, _sluice_weight"
}

sl validate
sl run
note three orders, two in A
land "(1, 10, 'A'), (2, 5, 'A'), (3, 7, 'B')"
sl live advance orders
sl live --once
q "SELECT * FROM gold.by_region ORDER BY region"
changes
note order 1 moves from A to B: the log holds its old row, weight -1, and its new one, +1
land "(1, 10, 'B')"
sl live advance orders
sl live --once
changes
note through the change log A has 1 order and 5.0
q "SELECT * FROM gold.by_region ORDER BY region"
note reading silver.orders alone, A keeps the moved order
q "SELECT * FROM gold.by_region_naive ORDER BY region"
note the next refresh forgets what both readers consumed
land "(4, 2, 'C')"
sl live advance orders
sl live --once
changes
q "SELECT * FROM gold.by_region ORDER BY region"
note a rebuild of the aggregate equals what the change log kept up to date
sl run -s gold.by_region --full-refresh
q "SELECT * FROM gold.by_region ORDER BY region"
