# conn_flood against sluice serve as it is: a burst of connections that all
# ask at once, on keep-alive connections too, and slow clients from
# 127.0.0.2 that never finish their headers or their body while a client
# on 127.0.0.1 is served. Only what does not depend on timing is printed:
# the counts, not the latencies.
export SERVE_TOKEN=t0ken
serve_start
url=http://127.0.0.1:$serve_port

# flood ARGS...: conn_flood against the server; its exit code
flood() {
	"$SLUICE_TOOLS/conn_flood" --url "$url" "$@"
	echo "[exit $?]"
}
# keep KEYS: of each summary line, only the pairs named (a regex
# alternation); other lines as they are
keep() {
	awk -v keys="^($1)=" '/=/ { out = ""; for (i = 1; i <= NF; i++) if ($i ~ keys)
		out = out (out == "" ? "" : " ") $i; $0 = out } { print }'
}

note "200 connections ask for /api/health at once"
flood --mode burst --conns 200 --path /api/health --token "$SERVE_TOKEN" |
	keep 'mode|opened|requests|ok|status_[0-9]+|errors|timeouts'

note "50 connections, 3 rounds each on the same connections"
flood --mode burst --conns 50 --rounds 3 --path /api/health --token "$SERVE_TOKEN" |
	keep 'mode|opened|requests|ok|status_[0-9]+|errors|timeouts'

note "without the token every request is refused"
flood --mode burst --conns 20 --path /api/health |
	keep 'mode|opened|requests|ok|status_[0-9]+|errors|timeouts'

note "slow clients from 127.0.0.2 for 2 s: headers, bodies; nothing closes them"
flood --bind 127.0.0.2 --mode slow-headers --conns 5 --interval-ms 200 --duration 2 \
	>slow_headers.out 2>&1 &
headers=$!
flood --bind 127.0.0.2 --mode slow-body --conns 5 --interval-ms 200 --duration 2 \
	--path /api/ingest/webhook/events --token "$SERVE_TOKEN" >slow_body.out 2>&1 &
body=$!
sleep 1
echo "meanwhile /api/health from 127.0.0.1:" \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $SERVE_TOKEN" "$url/api/health")"
wait $headers $body
keep 'mode|opened|connect_errors|closed_by_server|answered|status_[0-9]+|still_open' <slow_headers.out
keep 'mode|opened|connect_errors|closed_by_server|answered|status_[0-9]+|still_open' <slow_body.out

note "it is never aimed anywhere but at loopback"
"$SLUICE_TOOLS/conn_flood" --url http://192.0.2.1:80 --mode burst 2>&1
echo "[exit $?]"

kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
