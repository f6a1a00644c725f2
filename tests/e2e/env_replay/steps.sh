# An environment builds the models that keep watermarks of live sources
# with bookkeeping of its own, so that its runs never move the main
# watermarks. Built from scratch there, each replays its history by the
# change policy: bounded-7d for a model unchanged or changed without
# breaking (its rows from before the cutoff taken from the main table,
# the newer ones replayed from the landing table), full for a breaking
# change or --full-refresh, and for a model that cannot be split at a
# time (an aggregate) what bounded_replay_fallback says.
export SLUICE_NOW='2026-11-21 00:00'
# orders FIRST COUNT: COUNT orders from id FIRST, one every two hours from
# 2026-11-01 on (ids 0 to 239 span twenty days), landed and announced
orders() {
	"$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region, ts)
		SELECT $1 + i, i % 7, CASE i % 3 WHEN 0 THEN 'eu' WHEN 1 THEN 'us' ELSE 'apac' END,
		       TIMESTAMP '2026-11-01' + ($1 + i) * INTERVAL '2 hours'
		FROM generate_series(0, $2 - 1) AS t(i)" >/dev/null
	"$SLUICE_BIN" live advance orders >/dev/null
}
# totals SCHEMA_SUFFIX: what silver and gold hold, per copy
totals() {
	q "SELECT count(*) AS orders, count(DISTINCT order_id) AS distinct_orders, sum(amount) AS amount FROM silver$1.orders"
	q "SELECT region, orders, revenue FROM gold$1.by_region ORDER BY region"
}
"$SLUICE_BIN" run >/dev/null
orders 0 240
"$SLUICE_BIN" live --once >/dev/null
# the main table's older rows marked, to see which rows an env takes
# from it and which it replays
"$SLUICE_BIN" sql "UPDATE silver.orders SET amount = amount + 1000 WHERE ts < TIMESTAMP '2026-11-14'" >/dev/null

note an unchanged model: rows before the cutoff from the main table, the rest replayed
sl run --env pr1
totals _pr1
q "SELECT count(*) AS marked FROM silver_pr1.orders WHERE amount >= 1000"
q "SELECT model, input, watermark FROM _sluice.live_consumed ORDER BY model, input"

note new orders: the env refreshes from its own watermarks, main from its own
orders 240 10
sl run --env pr1
"$SLUICE_BIN" live --once >/dev/null
totals _pr1
q "SELECT count(*) AS orders, count(DISTINCT order_id) AS distinct_orders FROM silver.orders"
q "SELECT model, input, watermark FROM _sluice.live_consumed ORDER BY model, input"

note a column added is non-breaking: the older rows come without it
sed -i 's/SELECT order_id, amount,/SELECT order_id, amount, amount * 2 AS doubled,/' models/silver/orders.sql
sl run --env pr2 -s silver.orders
q "SELECT count(*) AS orders, count(doubled) AS with_doubled, count(DISTINCT order_id) AS distinct_orders FROM silver_pr2.orders"

note a changed column is breaking: all history replayed
sed -i 's/amount \* 2 AS doubled/amount * 2 AS doubled/; s/SELECT order_id, amount,/SELECT order_id, amount + 1 AS amount,/' models/silver/orders.sql
sl run --env pr3 -s silver.orders
q "SELECT count(*) AS orders, count(doubled) AS with_doubled, sum(amount) AS amount FROM silver_pr3.orders"
git_restore() {
	sed -i 's/, amount \* 2 AS doubled//; s/amount + 1 AS amount/amount/' models/silver/orders.sql
}
git_restore

note the model says its own policy, and an aggregate left without older history
cat >models/gold/pipeline.yml <<'YML'
bounded_replay_fallback: bounded_without_history
YML
sed -i 's/incremental_strategy=append,/incremental_strategy=append, replay_on_change=bounded-3d,/' models/silver/orders.sql
sl run --env pr4
totals _pr4
q "SELECT count(*) AS marked FROM silver_pr4.orders WHERE amount >= 1000"

note --full-refresh replays all, and --start-time bounds at its time whatever the change
sl run --env pr4 --full-refresh
totals _pr4
sl run --env pr5 --start-time 2026-11-19T00:00:00Z
totals _pr5
sl run --env pr6 --start-time 1763510400
q "SELECT count(*) AS orders FROM silver_pr6.orders"

note what is refused
sl run --start-time 2026-11-19T00:00:00Z
sl run --env pr7 --start-time 2026-11-19
sed -i 's/replay_on_change=bounded-3d/replay_on_change=[breaking:full, other:bounded-1d]/' models/silver/orders.sql
sl run --env pr7
sed -i 's/replay_on_change=\[breaking:full, other:bounded-1d\]/replay_on_change=sometimes/' models/silver/orders.sql
sl run --env pr7
q "SELECT count(*) AS pr7_relations FROM information_schema.tables WHERE table_schema LIKE '%_pr7'"
