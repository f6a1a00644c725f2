# A live model fails on a bad landing row; the row is deleted by hand and
# the model recovers with a refresh that applies nothing. The model
# downstream has nothing to consume: it is caught up, not behind, and
# stays fresh after max_lag (3s). A failing model is never fresh.
statuses() {
	"$SLUICE_BIN" live status --json | grep -E '"(model|state|lag_ms|covered)"' | tr -d ' ,' |
		sed -E 's/"lag_ms":[1-9][0-9]*/"lag_ms":<more than 0>/'
}
# the status table up to its LAG column: events/s depend on timing
table() {
	echo "\$ sluice live status"
	"$SLUICE_BIN" live status | cut -c1-52 | sed 's/ *$//' | normalize
}
land() { "$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region) VALUES $1" >/dev/null; }

sl run
land "(1, 10, 'eu')"
sl live advance orders
sl live --once
sl check
note a bad row: the refresh fails and is rolled back, check names the failing model with its error and exits 1
land "(2, -3, 'us')"
sl live advance orders
sl live --once
sl check
echo "\$ sluice check --json (silver.orders)"
"$SLUICE_BIN" check --json | grep -A3 '"silver.orders"' | normalize
statuses
note the row is deleted from landing, and the refresh that recovers applies nothing
echo "\$ sql: DELETE FROM landing.orders WHERE order_id = 2"
"$SLUICE_BIN" sql "DELETE FROM landing.orders WHERE order_id = 2" >/dev/null
sl live resume silver.orders
sl live --once
grep -o '"alert":"[a-z_]*","model":"[a-z.]*"' alerts.log
note past max_lag nothing is behind, and every way of asking agrees
sleep 3.5
statuses
table
sl live --once
sl run
sl check
q "SELECT * FROM gold.revenue ORDER BY region"
note what lands next goes through the whole chain
land "(3, 4, 'us')"
sl live advance orders
sl live --once
q "SELECT * FROM gold.revenue ORDER BY region"
statuses
sl check
