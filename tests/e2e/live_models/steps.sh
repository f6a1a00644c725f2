# Live models: sequences, what may be advanced, watermarks, the runner,
# pause and resume, failures with backoff and alerts, lag and freshness.
statuses() { "$SLUICE_BIN" live status --json | grep -E '"(model|state|source|watermark)"' | tr -d ' ,'; }
land() { "$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region) VALUES $1" >/dev/null; }

sl validate
sl run
note rows that are not announced yet stay invisible
land "(1, 10, 'eu'), (2, 5, 'us')"
sl live --once
q "SELECT count(*) AS silver_rows FROM silver.orders"
note announcing them stamps the next sequence
sl live advance orders
sl live advance orders
statuses
note only declared or followed sources advance: the state schema, models and unknown names are refused, changing nothing
sl live advance _sluice.live_advances
sl live advance gold.revenue
sl live advance ordrs
sl live advance nosuch
q "SELECT count(*) AS seq_columns FROM information_schema.columns WHERE table_schema = '_sluice' AND table_name NOT LIKE 'changes%' AND column_name = '_sluice_seq'"
q "SELECT count(*) AS advances FROM _sluice.live_advances"
note one cycle moves the whole chain
sl live --once
q "SELECT order_id, amount, region, _sluice_seq FROM silver.orders ORDER BY order_id"
q "SELECT * FROM gold.revenue ORDER BY region"
q "SELECT model, input, watermark FROM _sluice.live_consumed ORDER BY model"
statuses
note the batch model downstream rebuilds on the next batch run only
sl run
sl run -s gold.summary
note an update and a new order
land "(1, 12, 'eu'), (3, 7, 'eu')"
sl live advance landing.orders
sl live --once
q "SELECT * FROM gold.revenue ORDER BY region"
note paused models wait, and catch up on resume
sl live pause silver.orders
land "(4, 1, 'us')"
sl live advance orders
sl live --once
statuses
sl live resume silver.orders
sl live --once
q "SELECT * FROM gold.revenue ORDER BY region"
note a failing check rolls the refresh back, alerts once and backs off
land "(5, -3, 'us')"
sl live advance orders
sl live --once
sl live --once
statuses
q "SELECT count(*) AS silver_rows FROM silver.orders"
grep -o '"alert":"[a-z_]*","model":"[a-z.]*"' alerts.log
note after the fix, resume skips the backoff and the model applies what waited
sed -i 's/^@assert amount >= 0/@assert warn: amount >= 0/' models/silver/orders.sql
sl live resume silver.orders
sl live --once
q "SELECT * FROM gold.revenue ORDER BY region"
grep -o '"alert":"[a-z_]*","model":"[a-z.]*"' alerts.log
q "SELECT model, status FROM _sluice.run_log WHERE run_type = 'live' AND status <> 'ok' ORDER BY started_at, model"
q "SELECT model, count(*) > 0 AS logged FROM _sluice.run_log WHERE run_type = 'live' AND status = 'ok' GROUP BY model ORDER BY model"
note freshness: caught-up live models are fresh, the batch model is stale until a run
sl check
note advances every consumer has covered are forgotten
q "SELECT count(*) AS pending_advances FROM _sluice.live_advances"
note live_interval is not part of the change hash
sed -i 's/live=true, incremental_strategy=merge/live=true, live_interval=10s, incremental_strategy=merge/' models/silver/orders.sql
sl plan -s silver.orders
note sluice test checks live models too: the warn check reports the negative amount, the run is not failed
sl test
