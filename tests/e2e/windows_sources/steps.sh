# Windowed models gate on live sources as on batch upstreams: a source
# with event_time publishes coverage up to its newest event less its
# lateness, fresh as its newest landing; definition errors name the line.
note a contract on a source without event_time, exact or whole on a stream, and through from a timeless model are refused
sl validate
rm -r models/bad
sl live --once
export SLUICE_NOW='2026-11-01 05:00'
note the coverage of a source: none yet, and none at all without event_time
win orders
win plain
note nothing has landed: every hour waits for the streams, while exists only names a source
sl run
"$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, created_at, _sluice_landed_at, _sluice_seq) VALUES
	(1, 10, '2026-11-01 00:10', '2026-11-01 04:30', 1), (2, 5, '2026-11-01 01:30', '2026-11-01 04:30', 2),
	(3, 7, '2026-11-01 02:15', '2026-11-01 04:30', 3);
	INSERT INTO landing.clicks (payload, _sluice_landed_at, _sluice_seq) VALUES
	('{\"ts\": \"2026-11-01 00:20:00\"}', '2026-11-01 04:30', 4), ('{\"ts\": \"2026-11-01 03:00:00\"}', '2026-11-01 04:30', 5)" >/dev/null
note orders up to 02:15 less 10 minutes of lateness cover two hours, clicks up to 03:00 three
sl run
win orders
win landing.clicks --json
win silver.orders_hourly
win silver.clicks_hourly
q "SELECT hour, orders, amount FROM silver.orders_hourly ORDER BY hour"
note later orders, landed 40 minutes after the last: the hours they pass build
"$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, created_at, _sluice_landed_at, _sluice_seq) VALUES
	(4, 1, '2026-11-01 03:20', '2026-11-01 05:10', 6), (5, 2, '2026-11-01 05:00', '2026-11-01 05:10', 7)" >/dev/null
SLUICE_NOW='2026-11-01 05:30' sl run -s silver.orders_hourly
win silver.orders_hourly --since '2026-11-01 02:00' --until '2026-11-01 06:00'
note one more order, then nothing lands for over an hour: the stream is stale
"$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, created_at, _sluice_landed_at, _sluice_seq) VALUES
	(6, 3, '2026-11-01 06:30', '2026-11-01 06:40', 8)" >/dev/null
SLUICE_NOW='2026-11-01 07:50' sl run -s silver.orders_hourly
win silver.orders_hourly --since '2026-11-01 05:00' --until '2026-11-01 07:00'
note a day of hours passed: the daily rollup builds
"$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, created_at, _sluice_landed_at, _sluice_seq) VALUES
	(7, 4, '2026-11-02 01:00', '2026-11-02 01:00', 9)" >/dev/null
SLUICE_NOW='2026-11-02 01:30' sl run -s silver.orders_hourly,gold.daily
q "SELECT day, orders FROM gold.daily ORDER BY day"
q "SELECT count(*) AS applied FROM _sluice.windows WHERE model = 'silver.orders_hourly' AND status = 'applied'"
note a model that keeps watermarks builds its windows one after another, whatever --workers says
cat > models/silver/orders_tracked.sql <<'SQL'
@config materialized=incremental, temporality=temporal, time_column=created_at, grain=1h,
        start='2026-11-01', end='2026-11-02'
@upstream orders contract=through
SELECT order_id, amount, created_at FROM landing.orders
WHERE created_at >= {since} AND created_at < {until} AND _sluice_seq > {watermark}
SQL
SLUICE_NOW='2026-11-02 01:30' sl run -s silver.orders_tracked --workers 3
q "SELECT count(*) AS orders, sum(amount) AS amount FROM silver.orders_tracked"
