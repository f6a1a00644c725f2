# `sluice run` handed to `sluice serve` runs on its live runner's thread,
# between two of its cycles: the runner writes what it kept before and
# reads the live state again after, so rows the run applied to a live
# append model are not applied a second time by the runner's next cycle.
"$SLUICE_BIN" run >/dev/null
serve_start
post() { curl -s -o /dev/null -w '%{http_code}' -d "$1" "http://127.0.0.1:$serve_port/api/ingest/webhook/events"; }
note a first row, refreshed by the runner
echo "posted: $(post '{"id": 1}')"
# (each look is a command the server runs beside its runner: every 0.1 s)
events_rows() { "$SLUICE_BIN" sql --format csv "SELECT count(*) AS n FROM silver.events" | tail -1; }
wait_every=0.1 wait_until 10 prints 1 events_rows
q "SELECT id FROM silver.events ORDER BY id"
note two more rows, applied by a run through the server before the runner gets to them
echo "posted: $(post '{"id": 2}') $(post '{"id": 3}')"
sl run -s silver.events
note the next cycle of the runner finds nothing left to apply
sleep 5
q "SELECT id, count(*) AS times FROM silver.events GROUP BY id ORDER BY id"
note a server without a token answers to its address and localhost, never to a name
for host in "127.0.0.1:$serve_port" "localhost:$serve_port" "rebound.example:$serve_port"; do
	curl -s -o /dev/null -w "$host %{http_code}\n" -H "Host: $host" "http://127.0.0.1:$serve_port/api/live/status" |
		sed "s/:$serve_port/:PORT/"
done
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
