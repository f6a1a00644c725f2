#!/usr/bin/env bash
# The demo: builds the example shop project in a scratch copy, shows what
# was built, lands new data, and builds again to show that only what
# changed is rebuilt.
#   scripts/demo.sh [path/to/sluice]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "${1:-$root/sluice}")" && pwd)/$(basename "${1:-sluice}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples/shop" "$work/shop"
cd "$work/shop"

if [ -t 1 ]; then
	step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	step() { printf '\n== %s\n' "$*"; }
fi
show() { printf '$ sluice %s\n' "$*"; "$bin" "$@"; }

step "1. Check the project: every model parsed, the graph drawn from the SQL itself"
show validate
show dag

step "2. Build everything into a DuckDB file, in dependency order"
show run

step "3. What was built"
show sql "SELECT * FROM gold.revenue_by_region"
show sql "SELECT * FROM gold.daily_revenue ORDER BY day"

step "4. New data lands: an order changes status, a new order, a customer moves tier"
cat >>seeds/raw_orders.csv <<'CSV'
1002,2,14.00,refunded,2026-11-05 10:00:00
1007,3,55.00,paid,2026-11-05 12:30:00
CSV
sed -i 's/^4,Margaret Hamilton,US,bronze$/4,Margaret Hamilton,US,gold/' seeds/customers.csv
show plan
show run

step "5. The incremental model merged the changes; the snapshot kept history"
show sql "SELECT order_id, amount, status, updated_at FROM silver.orders ORDER BY order_id"
show sql "SELECT customer_id, tier, valid_to IS NULL AS current FROM snapshots.customer_history ORDER BY customer_id, valid_from"

step "6. A run with nothing new does nothing"
show run

step "7. Live models: checkouts land, are announced, and one cycle moves silver and gold"
show sql "INSERT INTO landing.checkouts (checkout_id, customer_id, amount, region) VALUES (1, 1, 25.5, 'Europe'), (2, 2, 14.0, 'Americas'), (3, 3, 9.5, 'Europe')"
show live advance checkouts
show live --once
show sql "SELECT * FROM gold.live_revenue ORDER BY region"
show sql "INSERT INTO landing.checkouts (checkout_id, customer_id, amount, region) VALUES (2, 2, 16.0, 'Americas')"
show live advance checkouts
show live --once
show live status

step "8. Change data capture: the shop database's products table streams its changes"
show sql "INSERT INTO landing.pg_products (op, lsn, received_at, payload) VALUES
  ('c', 1001, now(), '{\"product_id\": 1, \"name\": \"Espresso cup\", \"category\": \"kitchen\", \"price\": 9.50}'),
  ('c', 1002, now(), '{\"product_id\": 2, \"name\": \"Teapot\", \"category\": \"kitchen\", \"price\": 24.00}'),
  ('c', 1003, now(), '{\"product_id\": 3, \"name\": \"Notebook\", \"category\": \"office\", \"price\": 4.20}'),
  ('u', 1004, now(), '{\"product_id\": 2, \"name\": \"Teapot\", \"category\": \"kitchen\", \"price\": 19.00}')"
show live advance pg_products
show live --once
show sql "SELECT product_id, name, price, op, lsn, _sluice_deleted FROM silver.products ORDER BY product_id"
show sql "SELECT * FROM gold.catalog ORDER BY category"

step "9. A product is deleted, and an older update is replayed: the delete stays"
show sql "INSERT INTO landing.pg_products (op, lsn, received_at, payload) VALUES
  ('d', 1005, now(), '{\"product_id\": 3}'),
  ('u', 1003, now(), '{\"product_id\": 3, \"name\": \"Notebook\", \"category\": \"office\", \"price\": 4.20}')"
show live advance pg_products
show live --once
show sql "SELECT product_id, name, price, op, lsn, _sluice_deleted FROM silver.products ORDER BY product_id"
show sql "SELECT * FROM gold.catalog ORDER BY category"
printf '\nThe demo project is examples/shop; its warehouse lived in %s (removed now).\n' "$work"
