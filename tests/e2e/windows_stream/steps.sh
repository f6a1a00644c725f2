# sluice serve builds a windowed model's windows as the stream it gates
# on passes them: each webhook batch moves the coverage, and the hours
# behind it (less lateness) build at once, each exactly once.
export SERVE_TOKEN=t0ken
serve_start
url=http://127.0.0.1:$serve_port
post() {
	curl -s -X POST -H "Authorization: Bearer $SERVE_TOKEN" --data-binary "$1" \
		-o /dev/null -w '%{http_code}\n' "$url/api/ingest/webhook/orders"
}
# until LINE: waits (10 s at most) for the server to log a line
until_logged() {
	wait_until 10 grep -qF "$1" serve.log && { echo "logged: $1"; return 0; }
	echo "not logged within 10 s: $1"
	cat serve.log
}
note orders up to 02:15, less ten minutes of lateness: two hours pass
post '[{"order_id": 1, "amount": 10, "created_at": "2026-11-03 00:10:00"}, {"order_id": 2, "amount": 5, "created_at": "2026-11-03 01:30:00"}, {"order_id": 3, "amount": 7, "created_at": "2026-11-03 02:15:00"}]'
until_logged "built 2 windows of silver.orders_hourly: 2 rows; 22 windows wait for landing.orders (through)"
note a late order for an hour already built, then one that passes three more
post '{"order_id": 4, "amount": 1, "created_at": "2026-11-03 01:40:00"}'
post '{"order_id": 5, "amount": 2, "created_at": "2026-11-03 05:30:00"}'
until_logged "built 3 windows of silver.orders_hourly: 3 rows; 19 windows wait for landing.orders (through)"
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
# built by the server on its own clock: applied_at is now
win silver.orders_hourly --since '2026-11-03 00:00' --until '2026-11-03 07:00' |
	sed -E 's/(applied +)[0-9-]+ [0-9:]+/\1<now>              /'
q "SELECT hour, orders, amount FROM silver.orders_hourly ORDER BY hour"
note the late order is in landing, and a run with lookback or bulldozer takes it in
q "SELECT count(*) AS orders FROM landing.orders"
sl run --since '2026-11-03 01:00' --until '2026-11-03 02:00'
q "SELECT hour, orders, amount FROM silver.orders_hourly WHERE hour = TIMESTAMP '2026-11-03 01:00'"
