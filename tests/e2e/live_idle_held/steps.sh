# `sluice live` with min_interval 0 comes back at once only for models it
# can refresh now: one that failed and backs off (or is paused) is looked
# at again on the next poll, so a runner holding it idles instead of
# spinning a core until its retry.
"$SLUICE_BIN" run >/dev/null
"$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount) VALUES (1, -5)" >/dev/null
"$SLUICE_BIN" live advance orders >/dev/null
sl live --once
SLUICE_TRACE_SQL=1 "$SLUICE_BIN" live >runner.log 2>&1 &
pid=$!
sleep 1
before=$(wc -l <runner.log)
sleep 4
sent=$(( $(wc -l <runner.log) - before ))
kill -TERM $pid
wait $pid
echo "runner exit $?"
# a poll a second is a few statements each; a spinning runner sends
# hundreds, and on DuckDB reopens the file for each
if [ "$sent" -le 100 ]; then
	echo "idle while the model backs off: at most 100 statements in 4 s"
else
	echo "busy while the model backs off: $sent statements in 4 s"
fi
sl live status
