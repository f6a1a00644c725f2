# sluice serve: webhook ingest with every refusal, signed sources, delivery
# ids, the live chain behind it, the live API, and a clean stop.
export SERVE_TOKEN=t0ken HOOK_SECRET=k3y
serve_start
url=http://127.0.0.1:$serve_port

# call METHOD PATH [BODY [CURL ARGS...]]: prints the status and the body
call() {
	local m=$1 p=$2 body=${3-}
	shift 3 2>/dev/null || shift $#
	if [ ${#body} -gt 120 ]; then
		echo "> $m $p (${#body} bytes)"
	else
		echo "> $m $p${body:+ $body}"
	fi
	curl -s -X "$m" -H "Authorization: Bearer $SERVE_TOKEN" ${body:+--data-binary "$body"} \
		-w '\n%{http_code}\n' "$@" "$url$p" | sed -E 's/is [0-9]+ s old/is <n> s old/' |
		awk '{ lines[NR] = $0 } END { print "< " lines[NR] " " lines[1] }'
}

# status: each live model's state and each source's watermark
status() {
	curl -s -H "Authorization: Bearer $SERVE_TOKEN" "$url/api/live/status" |
		sed -E 's/\},\{/}\n{/g; s/\[\{/[\n{/g' | awk 1 | sed -nE 's/.*"(model|source)":"([^"]*)".*"(state|watermark)":("[^"]*"|[0-9]+).*/\2 \3 \4/p'
}

# a watcher of the server's events, from the start to the stop
curl -sN -H "Authorization: Bearer $SERVE_TOKEN" "$url/api/live/events" >events.log &
watcher=$!
sleep 0.2

note "auth"
echo "> GET /api/health without a token"
curl -s -w ' %{http_code}\n' "$url/api/health"
echo "> GET /api/health with a wrong token"
curl -s -H 'Authorization: Bearer nope' -w ' %{http_code}\n' "$url/api/health"
call GET /api/health

note "webhook ingest: an object, an array, NDJSON"
call POST /api/ingest/webhook/orders '{"order_id": 1, "amount": 5, "region": "eu"}'
call POST /api/ingest/webhook/orders '[{"order_id": 2, "amount": 7, "region": "us"}, {"order_id": 3, "amount": "4", "region": "eu", "note": "kept in payload"}]'
call POST /api/ingest/webhook/orders $'{"order_id": 4, "amount": 1, "region": "us"}\n\n{"order_id": 5, "amount": 2, "region": "us"}\n' -H 'Content-Type: application/x-ndjson'

note "refusals land nothing"
call POST /api/ingest/webhook/order '{"order_id": 9}'
call GET /api/ingest/webhook/orders
call POST /api/ingest/webhook/orders '{"order_id": 9, "amount": 1,'
call POST /api/ingest/webhook/orders $'[{"order_id": 9, "amount": 1},\n {"order_id": 10, "amount": "ten"}]'
call POST /api/ingest/webhook/orders "[$(printf '{"order_id": 1, "amount": 1, "region": "xxxxxxxxxx"},%.0s' $(seq 40)) {}]"
call GET /api/nothing/here

note "signed source"
ts=$(date +%s)
body='{"id": 1}'
sig=$(printf '%s.%s' "$ts" "$body" | openssl dgst -sha256 -hmac "$HOOK_SECRET" | sed 's/.*= //')
call POST /api/ingest/webhook/signed "$body" -H "X-Sluice-Timestamp: $ts" -H "X-Sluice-Signature: sha256=$sig"
call POST /api/ingest/webhook/signed '{"id": 2}' -H "X-Sluice-Timestamp: $ts" -H "X-Sluice-Signature: sha256=$sig"
call POST /api/ingest/webhook/signed "$body"
old=$((ts - 1000))
oldsig=$(printf '%s.%s' "$old" "$body" | openssl dgst -sha256 -hmac "$HOOK_SECRET" | sed 's/.*= //')
call POST /api/ingest/webhook/signed "$body" -H "X-Sluice-Timestamp: $old" -H "X-Sluice-Signature: sha256=$oldsig"

note "a retried delivery lands once"
call POST /api/ingest/webhook/orders '{"order_id": 6, "amount": 3, "region": "eu"}' -H 'X-Sluice-Delivery: d-6'
call POST /api/ingest/webhook/orders '{"order_id": 6, "amount": 3, "region": "eu"}' -H 'X-Sluice-Delivery: d-6'

note "the live chain keeps up"
both_live() { [ "$(status | grep -c '"live"')" = 2 ]; }
wait_until 5 both_live
status

note "steering the runner"
call POST /api/live/models/silver.orders/pause
call POST /api/ingest/webhook/orders '{"order_id": 7, "amount": 10, "region": "eu"}'
sleep 0.3
status
call POST /api/live/models/silver.order/pause
call GET /api/live/models/silver.orders/pause
call POST /api/live/models/silver.orders/resume
call POST /api/live/models/silver.orders/refresh
call POST /api/live/models/gold.revenue/refresh
call POST /api/live/models/revenue/refresh
call GET /api/models

note "the CLI goes through the running server"
sl live pause silver.orders
"$SLUICE_BIN" live status | awk '$1 == "silver.orders" { print $1, $2 }'
sl live resume orders
sl live advance orders
sl live pause silver.nope
SERVE_TOKEN=wrong "$SLUICE_BIN" live status
echo "[exit $?]"

note "a second server of the same project fails at once"
"$SLUICE_BIN" serve --listen 127.0.0.1:0 2>&1 | sed -E "s|$PWD|<case>|; s/(detail: ).*/\1.../"
echo "[exit ${PIPESTATUS[0]}]"

note "SIGTERM: a clean stop"
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
[ -f .sluice/server.json ] && echo "server file left behind" || echo "server file removed"
wait $watcher

note "without a server, the CLI acts on the warehouse itself"
sl live advance orders
"$SLUICE_BIN" live status | awk '$1 ~ /\.(orders|revenue)$/ { print $1, $2 }'

note "server-sent events, in the order they happened"
echo "advances:"
awk '/^event: advance/ { getline; sub(/^data: /, ""); print "  " $0 }' events.log
echo "steering:"
awk '/^event: (pause|resume)/ { e = $2; getline; sub(/^data: /, ""); print "  " e " " $0 }' events.log
for m in silver.orders gold.revenue; do
	grep -q "\"model\":\"$m\",\"rows\"" events.log && echo "refreshes of $m: seen"
done
q "SELECT order_id, amount, region, payload->>'note' AS note FROM landing.orders ORDER BY order_id"
q "SELECT count(DISTINCT _sluice_seq) AS batches, count(*) FILTER (WHERE _sluice_landed_at IS NULL) AS unstamped FROM landing.orders"
q "SELECT id, payload, _sluice_landed_at IS NOT NULL AS landed, _sluice_seq FROM landing.signed"
q "SELECT * FROM gold.revenue ORDER BY region"
