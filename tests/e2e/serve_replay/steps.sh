# sluice serve: a signed request sent again, as whoever captured it would,
# lands nothing: answered as the first one was, or 409 while that one is
# still landing. A copy of a failed request is its retry; a request stamped
# before the server started is refused.
export SERVE_TOKEN=t0ken HOOK_SECRET=k3y
before=$(date +%s)
serve_start
url=http://127.0.0.1:$serve_port/api/ingest/webhook/events

sign() {
	printf '%s.%s' "$1" "$2" | openssl dgst -sha256 -hmac "$HOOK_SECRET" | sed 's/.*= //'
}

# post TS BODY [CURL ARGS...]: the body signed at TS; prints the answer and
# its Retry-After
post() {
	local ts=$1 body=$2 headers=headers.$BASHPID
	shift 2
	curl -s -D "$headers" -H "Authorization: Bearer $SERVE_TOKEN" \
		-H "X-Sluice-Timestamp: $ts" -H "X-Sluice-Signature: sha256=$(sign "$ts" "$body")" \
		--data-binary "$body" -w '\n%{http_code}\n' "$@" "$url" |
		awk '{ lines[NR] = $0 } END { print "< " lines[NR] " " lines[1] }'
	tr -d '\r' <"$headers" | grep -i '^retry-after' | sed 's/^/  /'
	rm -f "$headers"
}

ts=$(date +%s)
pair='[{"id": 1}, {"id": 2}]'

note "a signed request lands"
post "$ts" "$pair"

note "the same request again is a duplicate and lands nothing"
post "$ts" "$pair"
echo "with another delivery id, the same request still:"
post "$ts" "$pair" -H 'X-Sluice-Delivery: another'

note "another body in the same second is another request"
post "$ts" '[{"id": 3}, {"id": 4}]'

note "a copy while the first is landing: 409, then the first one's answer"
post "$ts" '{"id": 5}' >first.out &
first=$!
sleep 1
post "$ts" '{"id": 5}'
wait $first
cat first.out
post "$ts" '{"id": 5}'

note "rows the table refuses land nothing, and the same request is retried"
post "$ts" '[{"id": 6, "tags": "x"}, {"id": 7}]'
post "$ts" '[{"id": 6, "tags": "x"}, {"id": 7}]'

note "stamped before the server started: refused"
post $((before - 5)) '[{"id": 8}, {"id": 9}]'

kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
q "SELECT id, _sluice_seq FROM landing.events ORDER BY id"
