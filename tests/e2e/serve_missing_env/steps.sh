# A source whose environment variable is not set (a webhook's secret_env,
# a postgres_cdc source's dsn_env) does not keep `sluice serve` from
# serving the others: it starts, says which source is left out and why,
# the health check answers 200 "degraded" naming it, the live status lists
# it under "unavailable", its webhook refuses requests with 503 naming the
# variable, and the other sources land and refresh as ever.
unset E2E_MISSING_SECRET E2E_MISSING_DSN
retry "$SLUICE_BIN" run >/dev/null
health() { curl -s -o health.json -w '%{http_code}' "http://127.0.0.1:$serve_port/api/health"; }
status() { curl -s "http://127.0.0.1:$serve_port/api/live/status"; }
post() { curl -s -o reply.json -w '%{http_code}' -d "$2" "http://127.0.0.1:$serve_port/api/ingest/webhook/$1"; }

note the server starts, and says what it leaves out
serve_start
grep "is not served" serve.log | sed 's/ (hint.*//'
echo "health $(health)"
jq -c '{status, components: (.components | map_values(.status))}' health.json
jq -r '.components["source orders"].error' health.json

note the live status lists the sources that cannot take data
status | jq -c '.unavailable[] | {source, state, error: (.error | sub(" \\(hint.*"; ""))}'

"$SLUICE_BIN" live status | sed -n '/^UNAVAILABLE/,$p' | normalize

note the signed source refuses its requests, naming the variable
echo "signed: $(post signed '{"id": 1}') $(jq -r .error reply.json)"
jq -r .detail reply.json

note the other webhook lands, and its live model refreshes
echo "events: $(post events '{"id": 1, "amount": 5}') $(jq -c . reply.json)"
wait_until 10 status_is '[.models[] | select(.model == "silver.events") | .covered] | first >= 1'
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
q "SELECT id, amount FROM silver.events"
