# `sluice live` in the foreground picks up another process's advances on its
# next poll, and SIGTERM stops it cleanly: exit 0, aggregated log written.
# It says at start what it follows.
retry "$SLUICE_BIN" run >/dev/null
"$SLUICE_BIN" live >runner.log 2>&1 &
pid=$!
retry "$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region) VALUES (1, 5, 'eu'), (2, 7, 'us')" >/dev/null
retry "$SLUICE_BIN" live advance orders
# (each look opens the DuckDB file the runner opens too: no more often than 0.1 s)
revenue_rows() { retry "$SLUICE_BIN" sql "SELECT count(*) FROM gold.revenue" | tail -1; }
wait_every=0.1 wait_until 10 prints 2 revenue_rows
kill -TERM $pid
wait $pid
echo "runner exit $?"
echo "it said at start:"
grep -v -e '^refreshed' -e 'warning: model' -e '^  hint: find' runner.log | head -3 | normalize
grep -c '^refreshed' runner.log | sed 's/^/refresh lines: /'
q "SELECT * FROM gold.revenue ORDER BY region"
q "SELECT model, rows FROM _sluice.run_log WHERE run_type = 'live' AND status = 'ok' ORDER BY model"
