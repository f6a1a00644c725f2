# sluice serve against a burst of connections that all ask at once, on
# keep-alive connections too, and against slow clients from 127.0.0.2
# that never finish their headers or trickle their body: the per-client
# cap closes what is past it at once, the header deadline and the minimum
# body rate close the rest, and a client on 127.0.0.1 is served meanwhile.
# Only what does not depend on timing is printed: counts, not latencies.
export SERVE_TOKEN=t0ken
serve_start
url=http://127.0.0.1:$serve_port

# no_local_conns: whether the server holds no connection of 127.0.0.1's
no_local_conns() {
	! awk -v l="$(printf '0100007F:%04X' "$serve_port")" '$2 == l && $3 ~ /^0100007F:/ && ($4 == "01" || $4 == "08")' \
		/proc/net/tcp | grep -q .
}
# settled: until no connection of 127.0.0.1's from the step before is
# left, at most 5 s: the server closes them on its own thread, and until
# it has, each counts against the cap on one client's connections
settled() {
	wait_until 5 no_local_conns
}
# flood ARGS...: conn_flood against the server; its exit code
flood() {
	settled
	"$SLUICE_TOOLS/conn_flood" --url "$url" "$@"
	echo "[exit $?]"
}
# keep KEYS: of each summary line, only the pairs named (a regex
# alternation); other lines as they are
keep() {
	awk -v keys="^($1)=" '/=/ { out = ""; for (i = 1; i <= NF; i++) if ($i ~ keys)
		out = out (out == "" ? "" : " ") $i; $0 = out } { print }'
}

note "20 connections ask for /api/health at once"
flood --mode burst --conns 20 --path /api/health --token "$SERVE_TOKEN" |
	keep 'mode|opened|requests|ok|status_[0-9]+|errors|timeouts'

note "20 connections, 3 rounds each on the same connections"
flood --mode burst --conns 20 --rounds 3 --path /api/health --token "$SERVE_TOKEN" |
	keep 'mode|opened|requests|ok|status_[0-9]+|errors|timeouts'

note "50 at once from one address: the 30 past the cap of 20 are closed unanswered"
flood --bind 127.0.0.4 --mode burst --conns 50 --path /api/health --token "$SERVE_TOKEN" |
	keep 'mode|opened|requests|ok|status_[0-9]+|errors|timeouts'

note "without the token every request is refused"
flood --mode burst --conns 20 --path /api/health |
	keep 'mode|opened|requests|ok|status_[0-9]+|errors|timeouts'

note "300 slow clients from 127.0.0.2 for 4 s: headers, bodies"
flood --bind 127.0.0.2 --mode slow-headers --conns 150 --interval-ms 200 --duration 4 \
	>slow_headers.out 2>&1 &
headers=$!
flood --bind 127.0.0.2 --mode slow-body --conns 150 --interval-ms 200 --duration 4 \
	--body-bytes 100000 --path /api/ingest/webhook/events --token "$SERVE_TOKEN" \
	>slow_body.out 2>&1 &
body=$!
sleep 0.5
note "meanwhile 127.0.0.1 is served: 20 requests at once"
flood --mode burst --conns 20 --path /api/health --token "$SERVE_TOKEN" |
	keep 'mode|opened|requests|ok|status_[0-9]+|errors|timeouts'
wait $headers $body
note "every slow connection was closed: past the 20 a client may hold at once, or past its deadline"
# within_s LIMIT: whether the last close came within LIMIT seconds
within_s() {
	awk -v lim="$1" '{ for (i = 1; i <= NF; i++) if ($i ~ /^closed_after_s_max=/) {
		split($i, kv, "="); print "last closed within " lim " s: " (kv[2] + 0 <= lim ? "yes" : "no, " kv[2]) } }'
}
keep 'mode|opened|connect_errors|closed_by_server|answered|status_[0-9]+|still_open' <slow_headers.out
within_s 2.5 <slow_headers.out
keep 'mode|opened|connect_errors|closed_by_server|answered|status_[0-9]+|still_open' <slow_body.out
within_s 2.5 <slow_body.out

note "it is never aimed anywhere but at loopback"
"$SLUICE_TOOLS/conn_flood" --url http://192.0.2.1:80 --mode burst 2>&1
echo "[exit $?]"

kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
