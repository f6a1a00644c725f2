#!/usr/bin/env bash
# The demo: builds the example shop project in a scratch copy, shows what
# was built, lands new data, and builds again to show that only what
# changed is rebuilt; then starts a throwaway PostgreSQL server
# (tests/pg_server.sh) whose products table streams its changes into the
# project, first as a snapshot, then live under `sluice serve`; a Kafka
# topic (librdkafka's mock brokers) lands its messages, a folder of CSV
# files lands each file once, and a changed model is replayed from the
# landing history while checkouts keep arriving. Whatever
# happens, the server, its folder and the scratch copy are gone at the end.
#   scripts/demo.sh [path/to/sluice]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "${1:-$root/sluice}")" && pwd)/$(basename "${1:-sluice}")
kafka_mock=$root/build/release/tools/kafka_mock
work=$(mktemp -d)
pg_dir=
serve_pid=
cleanup() {
	if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
		kill -TERM "$serve_pid"
		wait "$serve_pid" || true
	fi
	if [ -n "$pg_dir" ]; then
		(cd / && "$root/tests/pg_server.sh" stop "$pg_dir")
		rm -rf "$pg_dir"
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
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

step "8. Change data capture: a PostgreSQL database whose products table streams its changes"
pg_dir=$(mktemp -d /tmp/sluice-pg-XXXXXX)
# started from /: under root the server runs as the postgres user, who may
# not enter the scratch copy
pg_dsn=$(cd / && "$root/tests/pg_server.sh" start "$pg_dir")
printf 'a throwaway PostgreSQL server (wal_level=logical) listens on a unix socket in %s\n' "$pg_dir"
psql_on() { PGOPTIONS="-c client_min_messages=warning" psql "$1" -qAtX -v ON_ERROR_STOP=1 -c "$2"; }
psql_on "$pg_dsn" "CREATE DATABASE shop"
export SHOP_PG_DSN="$pg_dsn dbname=shop"
pg() {
	printf '$ psql: %s\n' "$1"
	psql_on "$SHOP_PG_DSN" "$1"
}
pg "CREATE TABLE products (product_id BIGINT PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, price NUMERIC(10, 2) NOT NULL)"
pg "INSERT INTO products VALUES (1, 'Espresso cup', 'kitchen', 9.50), (2, 'Teapot', 'kitchen', 24.00), (3, 'Notebook', 'office', 4.20)"
show cdc pg_products --once
show live --once
show sql "SELECT product_id, name, price, op, lsn, _sluice_deleted FROM silver.products ORDER BY product_id"
show sql "SELECT * FROM gold.catalog ORDER BY category"

step "9. A Kafka topic: the shop's click stream lands, each message once, its offsets kept in the warehouse"
# librdkafka's mock brokers stand in for a Kafka cluster (tools/kafka_mock)
coproc KAFKA { exec "$kafka_mock" 2>kafka_mock.log; }
read -r line <&"${KAFKA[0]}"
kafka_brokers=${line#bootstrap }
kafka() {
	local reply
	echo "$*" >&"${KAFKA[1]}"
	read -r reply <&"${KAFKA[0]}"
	[[ $reply == ok* ]] || { printf 'demo: kafka_mock: %s: %s\n' "$*" "$reply" >&2; return 1; }
}
clicks="  clicks: {kind: kafka, brokers: \"$kafka_brokers\", topic: shop.clicks, columns: {customer_id: BIGINT, page: VARCHAR}}"
printf 'mock Kafka brokers at %s; sluice.yml gains a source:\n%s\n' "$kafka_brokers" "$clicks"
sed -i "/^sources:/a\\$clicks" sluice.yml
kafka topic shop.clicks 2
kafka send shop.clicks 0 c1 %7B%22customer_id%22%3A1%2C%22page%22%3A%22%2Fcups%22%7D
kafka send shop.clicks 1 c2 %7B%22customer_id%22%3A2%2C%22page%22%3A%22%2Fteapots%22%7D
kafka send shop.clicks 0 c1 %7B%22customer_id%22%3A1%2C%22page%22%3A%22%2Fcheckout%22%7D
show kafka clicks --once
kafka send shop.clicks 1 c3 %7B%22customer_id%22%3A3%2C%22page%22%3A%22%2Fnotebooks%22%7D
show kafka clicks --once
show sql "SELECT customer_id, page, _sluice_partition, _sluice_offset, _sluice_key FROM landing.clicks ORDER BY _sluice_partition, _sluice_offset"

step "10. A file drop: CSV files of returns put in a folder land once each, then move to an archive"
returns="  returns: {kind: files, path: drop/returns_*.csv, archive_folder: drop/done, columns: {order_id: BIGINT, reason: VARCHAR, day: DATE}}"
printf 'sluice.yml gains a source:\n%s\n' "$returns"
sed -i "/^sources:/a\\$returns" sluice.yml
mkdir -p drop
printf 'order_id,reason,day\n1002,broken,2026-11-06\n1004,late,2026-11-07\n' >drop/returns_1.csv
printf 'order_id,reason,day\n1007,wrong size,2026-11-08\n' >drop/returns_2.csv
sleep 1.2 # a file is landed once its size stays put a moment (settle: 1s)
show files returns --once
show files returns --once
show sql "SELECT order_id, reason, day, _sluice_file FROM landing.returns ORDER BY order_id"
printf '$ ls drop drop/done\n'
ls drop drop/done

step "11. Under sluice serve, an insert, an update and a delete committed in PostgreSQL reach silver and gold within a second"
printf '$ sluice serve --listen 127.0.0.1:0 &\n'
"$bin" serve --listen 127.0.0.1:0 >serve.log 2>&1 &
serve_pid=$!
# status: the server's status document; caught_up JQ waits (10 s at most)
# until it holds
status() { curl -s "$(sed -E 's/.*"url": "([^"]+)".*/\1/' .sluice/server.json)/api/live/status"; }
caught_up() {
	local i
	for i in $(seq 200); do
		grep -qs "\"pid\": $serve_pid," .sluice/server.json && status | jq -e "$1" >/dev/null && return 0
		kill -0 "$serve_pid" 2>/dev/null || break
		sleep 0.05
	done
	printf 'demo: sluice serve did not reach: %s\n' "$1" >&2
	tail -5 serve.log >&2
	return 1
}
caught_up '.cdc[0].state == "streaming"'
pg "INSERT INTO products VALUES (4, 'Desk lamp', 'office', 32.00)"
pg "UPDATE products SET price = 19.00 WHERE product_id = 2"
pg "DELETE FROM products WHERE product_id = 3"
committed=$(date +%s%N)
caught_up '(.cdc[0].transactions >= 3) and
	([.models[] | select(.model == "silver.products" or .model == "gold.catalog") | .covered] | min) >=
	([.sources[] | select(.source == "landing.pg_products") | .watermark] | first)'
elapsed=$((($(date +%s%N) - committed) / 1000000))
printf 'silver.products and gold.catalog caught up %d ms after the last commit\n' "$elapsed"
show live status

step "12. A changed model replayed from the history its source keeps, while checkouts keep arriving"
server_url() { sed -E 's/.*"url": "([^"]+)".*/\1/' .sluice/server.json 2>/dev/null; }
# checkouts 100, 101, ... arrive about 50 a second until told to stop,
# each sent again until the server (restarted meanwhile) takes it
(
	id=100
	until [ -f stop ]; do
		until [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d "{\"checkout_id\": $id, \"customer_id\": 1, \"amount\": 10, \"region\": \"Europe\"}" "$(server_url)/api/ingest/webhook/checkouts")" = 202 ]; do
			sleep 0.05
		done
		id=$((id + 1))
		sleep 0.02
	done
	echo $((id - 100)) >sent
) &
sender=$!
sleep 1
printf '$ sed -i s/region/upper(region) AS region/ models/silver/checkouts.sql\n'
sed -i 's/customer_id, amount, region, _sluice_seq/customer_id, amount, upper(region) AS region, _sluice_seq/' models/silver/checkouts.sql
show replay silver.checkouts --dry-run
show replay silver.checkouts || true
printf '$ kill -TERM %s; sluice serve --listen 127.0.0.1:0 &   # the server takes the edit in\n' "$serve_pid"
kill -TERM "$serve_pid"
wait "$serve_pid"
"$bin" serve --listen 127.0.0.1:0 >>serve.log 2>&1 &
serve_pid=$!
caught_up '.cdc[0].state == "streaming"'
show replay silver.checkouts
sleep 1
touch stop
wait "$sender"
caught_up "([.models[] | select(.model == \"gold.live_revenue\") | .covered] | first) >= ([.sources[] | select(.source == \"landing.checkouts\") | .watermark] | first)"
printf '%s checkouts were sent meanwhile; each is in silver and gold exactly once:\n' "$(cat sent)"
show sql "SELECT count(*) AS checkouts, count(DISTINCT checkout_id) AS distinct_ids, min(region) AS region FROM silver.checkouts WHERE checkout_id >= 100"
show sql "SELECT * FROM gold.live_revenue ORDER BY region"
printf '$ kill -TERM %s   # sluice serve stops cleanly; its log:\n' "$serve_pid"
kill -TERM "$serve_pid"
wait "$serve_pid"
serve_pid=
sed 's/^/  /' serve.log
show sql "SELECT op, lsn, xid, payload FROM landing.pg_products ORDER BY _sluice_seq, payload"
show sql "SELECT product_id, name, price, op, lsn, _sluice_deleted FROM silver.products ORDER BY product_id"
show sql "SELECT * FROM gold.catalog ORDER BY category"
printf '\nThe demo project is examples/shop; its warehouse lived in %s, and its PostgreSQL\nserver in %s (both removed now).\n' "$work" "$pg_dir"
printf '\nThe web UI comes with sluice serve. In a copy of the project:\n  cp -r examples/shop /tmp/shop && cd /tmp/shop && %s run && %s serve\nthen open http://127.0.0.1:8080/ (the Live page: models, sources, activity; docs/ui.md).\n' "$bin" "$bin"
