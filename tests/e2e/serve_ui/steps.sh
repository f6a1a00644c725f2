# sluice serve's web UI from outside a browser: the shell and its files
# with their headers and ETags, signing in and out, the session cookie
# authorizing the API, the CSRF token a session's POST needs, POSTs from
# another origin refused, the event stream resumed from Last-Event-ID, and
# the status naming the upstream that holds a model back.
export UI_TOKEN=t0ken
"$SLUICE_BIN" run >/dev/null
serve_start
url=http://127.0.0.1:$serve_port
hdr() { tr -d '\r' | grep -iE "^($1):" | sed -E 's/^([^:]*):/\L\1:/'; }

note "the shell and its files"
curl -s -D head.txt -o shell.html "$url/"
head -1 head.txt | tr -d '\r'
hdr 'content-type|cache-control|x-content-type-options|referrer-policy' <head.txt
hdr content-security-policy <head.txt
grep -c '"ui/js/app.js"' shell.html
etag=$(hdr etag <head.txt | sed 's/^etag: //')
echo "$etag" | grep -cE '^"[0-9a-f]{32}"$'
curl -s -o /dev/null -w '%{http_code} with If-None-Match\n' -H "If-None-Match: $etag" "$url/"
curl -s -o /dev/null -w '%{http_code} with another ETag\n' -H 'If-None-Match: "0"' "$url/"
curl -s -D - -o /dev/null "$url/ui/js/app.js" | hdr content-type
curl -s -w ' %{http_code}\n' "$url/ui/js/none.js"
curl -s -w ' %{http_code}\n' -X POST "$url/ui/js/app.js"

note "signing in"
curl -s -w ' %{http_code}\n' -d '{"token": "nope"}' "$url/auth/signin"
# nothing outside the API takes a body past the sign-in's, asked before it is read
head -c 100000 /dev/zero | tr '\0' x | curl -s -w ' %{http_code}\n' --data-binary @- "$url/auth/signin"
curl -s -w ' %{http_code}\n' -d 'token=t0ken' "$url/auth/signin"
curl -s -D head.txt -o signin.json -d '{"token": "t0ken"}' "$url/auth/signin"
hdr set-cookie <head.txt | sed -E 's/=[0-9a-f]{64};/=ID;/'
jq -c '{auth, csrf: (.csrf | test("^[0-9a-f]{64}$"))}' signin.json
cookie="Cookie: $(hdr set-cookie <head.txt | sed -E 's/^set-cookie: ([^;]*);.*/\1/')"
csrf=$(jq -r .csrf signin.json)
# what a browser says of the page's own requests, without which a cookie
# counts for nothing
own='Sec-Fetch-Site: same-origin'
curl -s -w ' %{http_code}\n' -H "$cookie" "$url/api/session"
curl -s -H "$cookie" -H "$own" "$url/api/session" | jq -c '{auth, csrf: (.csrf == "'"$csrf"'"), token, project}'
curl -s -H "Authorization: Bearer t0ken" "$url/api/session" | jq -c .
curl -s -w ' %{http_code}\n' "$url/api/session"

note "a session's POST needs its CSRF token"
curl -s -w ' %{http_code}\n' -H "$cookie" -H "$own" -X POST "$url/api/live/models/silver.events/pause"
curl -s -w ' %{http_code}\n' -H "$cookie" -H "$own" -H 'X-Sluice-CSRF: nope' -X POST "$url/api/live/models/silver.events/pause"
curl -s -w ' %{http_code}\n' -H "$cookie" -H "$own" -H "X-Sluice-CSRF: $csrf" -X POST "$url/api/live/models/silver.events/pause"
curl -s -w ' %{http_code}\n' -H "$cookie" -H "X-Sluice-CSRF: $csrf" -H "Origin: $url" -H 'Sec-Fetch-Site: same-origin' \
	-X POST "$url/api/live/models/silver.events/resume"
curl -s -w ' %{http_code}\n' -H "$cookie" -H 'Sec-Fetch-Site: same-site' "$url/api/live/status"

note "nothing changes from another origin, whatever the authority"
curl -s -w ' %{http_code}\n' -H 'Authorization: Bearer t0ken' -H 'Origin: http://evil.example' -X POST "$url/api/live/stop"
curl -s -w ' %{http_code}\n' -H 'Authorization: Bearer t0ken' -H 'Sec-Fetch-Site: cross-site' -d '{"id": 1}' "$url/api/ingest/webhook/events"
curl -s -w ' %{http_code}\n' -H 'Origin: http://localhost:1' -d '{"token": "t0ken"}' "$url/auth/signin"
curl -s -H 'Authorization: Bearer t0ken' "$url/api/health" | jq -c '{live}'

note "the event stream resumes from Last-Event-ID"
curl -sN -H 'Authorization: Bearer t0ken' "$url/api/live/events" >events.log &
watcher=$!
wait_until 10 grep -q '^event: hello' events.log
for i in 1 2 3; do
	curl -s -H 'Authorization: Bearer t0ken' -d "{\"id\": $i, \"kind\": \"a\", \"amount\": $i}" "$url/api/ingest/webhook/events"
	echo
done
# every model has taken in the three: no event follows
settled() { curl -s -H 'Authorization: Bearer t0ken' "$url/api/live/status" | jq -e '[.models[].covered] | min >= 3' >/dev/null; }
wait_until 10 settled
sleep 0.3
kill "$watcher"
wait "$watcher" 2>/dev/null
grep '^event: hello' -A2 events.log | sed -E 's/[0-9a-f]{8}-/E-/g'
# what followed the first advance, as the first watcher saw it
first=$(grep -m1 -B1 '^event: advance' events.log | sed -n 's/^id: //p')
sed -n "/^id: $first\$/,\$p" events.log | tail -n +5 >after.log
curl -sN --max-time 1 -H 'Authorization: Bearer t0ken' -H "Last-Event-ID: $first" "$url/api/live/events" >resumed.log
sed -n '/^retry:/q;p' resumed.log | cmp -s - after.log && echo "resumed after the first advance: every later event, once, in order"
sed -n '/^retry:/,$p' resumed.log | sed -E 's/[0-9a-f]{8}-[0-9]+/ID/g' | head -4
curl -sN --max-time 1 -H 'Authorization: Bearer t0ken' "$url/api/live/events?last_event_id=00000000-2" |
	grep -A1 '^event: hello' | tail -1 | sed -E 's/[0-9a-f]{8}-[0-9]+/ID/g'

note "a failing model names itself, its reader names it as the cause"
curl -s -H 'Authorization: Bearer t0ken' -d '{"id": 9, "kind": "a", "amount": -1}' "$url/api/ingest/webhook/events"
echo
failing() { curl -s -H 'Authorization: Bearer t0ken' "$url/api/live/status" | jq -e '.models[] | select(.model == "silver.events") | .state == "failing"' >/dev/null; }
wait_until 10 failing
curl -s -H 'Authorization: Bearer t0ken' "$url/api/live/status" |
	jq -c '.models[] | {model, state, description, inputs, cause: (.cause | if . then {upstream, upstream_state, path} else null end)}'
curl -s -H 'Authorization: Bearer t0ken' "$url/api/live/status" | jq -c '.sources[] | {source, kind, columns}'

note "signing out ends the session"
curl -s -w ' %{http_code}\n' -H "$cookie" -H "$own" -X POST "$url/auth/signout"
curl -s -w ' %{http_code}\n' -H "$cookie" -H "$own" "$url/api/live/status"

kill -TERM "$serve_pid"
wait "$serve_pid"
echo "server exit $?"
