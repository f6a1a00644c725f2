# sluice serve: a full queue answers 503 with Retry-After and lands nothing;
# what was queued before still lands, and the retry is taken.
serve_start
url=http://127.0.0.1:$serve_port/api/ingest/webhook/events
rows=$(for i in $(seq 2 26); do printf '{"id": %d}\n' "$i"; done)

note "one event waits in the queue for its flush"
curl -s -w ' %{http_code}\n' --data-binary '{"id": 1}' "$url" >first.out &
first=$!
sleep 1

note "25 more rows do not fit beside it: 503, Retry-After"
curl -s -D headers.out -w ' %{http_code}\n' -H 'Content-Type: application/x-ndjson' \
	--data-binary "$rows" "$url"
tr -d '\r' <headers.out | grep -i '^retry-after'

note "the queued event is answered once its flush commits"
wait $first
cat first.out

note "the retry fits now"
curl -s -w ' %{http_code}\n' -H 'Content-Type: application/x-ndjson' --data-binary "$rows" "$url"

kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
q "SELECT count(*) AS rows, count(DISTINCT _sluice_seq) AS batches, min(id), max(id) FROM landing.events"
