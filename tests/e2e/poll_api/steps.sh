# sluice poll against a fake JSON API: typed rows, the cursor sent back as
# ?since= and stored with the rows it came from, failures that land
# nothing, the poll source's settings checked, a foreground poller stopped
# by SIGTERM, the pollers of sluice serve in the status API, and a cursor
# of awkward bytes sent back as it was from a url with a fragment.
"$SLUICE_TOOLS/fake_api" -l api.log -q since -q limit -H Authorization \
	pages/1.json pages/2.json 500:pages/error.json pages/bad.json pages/3.json hang \
	pages/4.json >api.port &
api=$!
wait_until 5 test -s api.port
port=$(sed 's/^port //' api.port)
sed -i "s/PORT/$port/" sluice.yml
export RATES_TOKEN=s3cret

# slp ARGS...: sl, with the fake API's port hidden
slp() {
	sl "$@" | sed -E "s/127\.0\.0\.1:$port/127.0.0.1:<port>/g"
}

note "the first poll sends no cursor; the rows land typed"
slp poll rates --once
note "the next one sends the highest cursor landed"
slp poll rates --once

note "failures land nothing and leave the cursor alone"
slp poll rates --once
slp poll rates --once
slp poll rates --once
slp poll rates --once
(unset RATES_TOKEN && slp poll rates --once)
RATES_TOKEN= slp poll rates --once

note "the API answers again, with nothing new"
slp poll rates --once
q "SELECT id, price, updated_at, payload->>'note' AS note, _sluice_seq FROM landing.rates ORDER BY id"
q "SELECT source, watermark, rows, cursor FROM _sluice.live_sources"
q "SELECT source, seq, rows FROM _sluice.live_advances ORDER BY seq"
sl run
q "SELECT * FROM silver.rates ORDER BY id"
sl live status

note "what the API was sent"
cat api.log

note "naming the source"
slp poll rate --once
slp poll hooks --once
slp poll
sl validate --project bad

note "in the foreground until SIGTERM"
"$SLUICE_BIN" poll rates >poll.log 2>&1 &
pid=$!
wait_until 5 test -s poll.log
kill -TERM $pid
wait $pid
echo "poll exit $?"
head -1 poll.log | sed -E "s/127\.0\.0\.1:$port/127.0.0.1:<port>/g"

note "sluice serve runs a poller per poll source"
serve_start
polled() { curl -s "http://127.0.0.1:$serve_port/api/live/status" | grep -q '"polls":[1-9]'; }
wait_until 5 polled
curl -s "http://127.0.0.1:$serve_port/api/live/status" | sed -E 's/.*"pollers":\[//; s/\]\}$//' |
	sed -E 's/"(last_ok|next_attempt|last_error_at)":"[^"]*"/"\1":"<ts>"/g;
		s/"(polls|next_attempt_in_ms)":[0-9]+/"\1":<n>/g' |
	sed -E "s/127\.0\.0\.1:$port/127.0.0.1:<port>/g"
echo
kill -TERM $serve_pid
wait $serve_pid
echo "serve exit $?"
sed -E "s/127\.0\.0\.1:[0-9]+/127.0.0.1:<port>/g" serve.log

kill -TERM $api
wait $api

note "a cursor goes back as the bytes it was, and a fragment stays out of the query"
"$SLUICE_TOOLS/fake_api" -l odd.log -q since -q limit pages/odd.json pages/none.json >odd.port &
api=$!
wait_until 5 test -s odd.port
port=$(sed 's/^port //' odd.port)
sed -i "s/PORT/$port/" odd/sluice.yml
slp poll events --once --project odd
slp poll events --once --project odd
cat odd.log
kill -TERM $api
wait $api
