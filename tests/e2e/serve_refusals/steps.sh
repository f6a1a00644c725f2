# sluice serve refuses, before any handler or token check, what could be
# read two ways, and changes nothing when it does.
raw() { "$SLUICE_TOOLS/raw_http" "$serve_port" "$1"; }
auth="Authorization: Bearer t0ken"

note "token_env names a variable that is not set: no server"
unset REFUSALS_TOKEN
sl serve --listen 127.0.0.1:0
export REFUSALS_TOKEN=t0ken
serve_start

note "an empty segment is not the route it resembles: 400, no token asked"
raw 'POST //api/live/stop HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n'
raw 'POST //api/ingest/webhook/orders HTTP/1.1\r\nHost: t\r\nContent-Length: 13\r\n\r\n{"order_id":1}'
raw 'POST /api/live/./stop HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n'
raw 'POST /api/live/%73top HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n'
curl -s -H "$auth" "http://127.0.0.1:$serve_port/api/health"; echo

note "a NUL in a source name is no source, encoded or raw"
raw "POST /api/ingest/webhook/orders%00x HTTP/1.1\r\nHost: t\r\n$auth\r\nContent-Length: 14\r\n\r\n{\"order_id\":2}"
raw "POST /api/ingest/webhook/orders\x00x HTTP/1.1\r\nHost: t\r\n$auth\r\nContent-Length: 14\r\n\r\n{\"order_id\":3}"

note "a body told two ways: 400 and the connection closes, nothing smuggled"
raw "POST /api/ingest/webhook/orders HTTP/1.1\r\nHost: t\r\n$auth\r\nContent-Length: 14\r\nContent-Length: 60\r\n\r\n{\"order_id\":4}POST /api/live/stop HTTP/1.1\r\nHost: t\r\n\r\n"
raw "POST /api/ingest/webhook/orders HTTP/1.1\r\nHost: t\r\n$auth\r\nContent-Length: 14\r\nTransfer-Encoding: chunked\r\n\r\ne\r\n{\"order_id\":5}\r\n0\r\n\r\n"

note "a header name a proxy may read another way, two tokens: 400, closed"
raw "POST /api/ingest/webhook/orders HTTP/1.1\r\nHost: t\r\n$auth\r\nTransfer-Encoding : chunked\r\n\r\ne\r\n{\"order_id\":8}\r\n0\r\n\r\n"
raw "POST /api/live/stop HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer nope\r\n$auth\r\nContent-Length: 0\r\n\r\n"
raw "POST /api/live/stop HTTP/1.1\r\nHost: t\r\n$auth\r\nAuthorization: Bearer nope\r\nContent-Length: 0\r\n\r\n"

note "a key twice in one object is read two ways: 400"
curl -s -w ' %{http_code}\n' -H "$auth" --data-binary '{"order_id": 9, "order_id": 10}' \
	"http://127.0.0.1:$serve_port/api/ingest/webhook/orders"

note "a delivery id that is not UTF-8: 400"
curl -s -w ' %{http_code}\n' -H "$auth" -H $'X-Sluice-Delivery: d\xff' \
	--data-binary '{"order_id": 6}' "http://127.0.0.1:$serve_port/api/ingest/webhook/orders"

note "nothing to land: 200, no sequence taken"
for body in '' '[]' ' '; do
	curl -s -w ' %{http_code}\n' -H "$auth" --data-binary "$body" \
		"http://127.0.0.1:$serve_port/api/ingest/webhook/orders"
done
curl -s -w ' %{http_code}\n' -H "$auth" -H 'Content-Type: application/x-ndjson' \
	--data-binary $'\n\n' "http://127.0.0.1:$serve_port/api/ingest/webhook/orders"

note "advance takes the project's sources only"
for src in _sluice.live_advances silver.orders ordrs; do
	curl -s -w ' %{http_code}\n' -X POST -H "$auth" \
		"http://127.0.0.1:$serve_port/api/live/sources/$src/advance"
done

note "and a real event still lands, with the first sequence"
curl -s -w ' %{http_code}\n' -H "$auth" --data-binary '{"order_id": 7, "amount": 70}' \
	"http://127.0.0.1:$serve_port/api/ingest/webhook/orders"
curl -s -H "$auth" "http://127.0.0.1:$serve_port/api/health"; echo

kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
q "SELECT order_id, _sluice_seq FROM landing.orders ORDER BY order_id"
q "SELECT source, watermark, rows FROM _sluice.live_sources"
q "SELECT count(*) AS state_columns FROM information_schema.columns WHERE table_schema = '_sluice' AND column_name = '_sluice_seq'"
