# GET /api/windows lists the temporal models and the sources that publish
# coverage; GET /api/windows/NAME answers a model's windows as runs of one
# state each, [since, until, status, count, reason], read on the server's
# windows thread; a range rebuilt through POST /api/commands/run shows in
# the next answer. Every input is bounded. Times are UTC seconds, printed
# here as dates.
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events (ts TIMESTAMP, v INTEGER);
INSERT INTO raw.events SELECT TIMESTAMP '2026-11-01 00:30' + h * INTERVAL '1 hour',
	CASE WHEN h = 5 THEN -1 ELSE h END FROM generate_series(0, 47) AS t(h)" >/dev/null
export SLUICE_NOW='2026-11-05 00:00'
sl run
export SERVE_TOKEN=t0ken
serve_start
url=http://127.0.0.1:$serve_port
get() { curl -s -H "Authorization: Bearer $SERVE_TOKEN" "$@"; }
# runs WHAT PATH: the answer's head, then each run with its times as dates
runs() {
	echo "> GET $1"
	get "$url$1" >answer.json
	jq -c 'del(.runs) | with_entries(if (.key | IN("start", "end", "now", "since", "until", "next", "covered_until")) and (.value | type) == "number" then .value |= todate else . end)' answer.json
	jq -r '.runs[] | [(.[0] | if . then todate else "-" end), (.[1] | if . then todate else "-" end), .[2], .[3], (.[4] // "")] | @tsv' answer.json
}

note "what has windows"
get "$url/api/windows" | jq -c .

note "a fixed grid: the hour that failed, the rest applied"
runs /api/windows/silver.hourly
note "a range of it, and no more runs than asked for: where to ask again"
runs "/api/windows/silver.hourly?since=2026-11-01%2003:00&until=2026-11-01%2009:00"
runs "/api/windows/silver.hourly?max_runs=2"
runs "/api/windows/silver.hourly?since=2026-11-01%2006:00"

note "a day waits for its hours: the reason"
runs /api/windows/gold.daily
note "a flexible model's islands, a model without windows, a source's coverage"
runs /api/windows/silver.spans
runs /api/windows/totals
get -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
	-d '{"order_id": 1, "amount": 5, "created_at": "2026-11-04 20:40:00"}' "$url/api/ingest/webhook/orders"
runs "/api/windows/orders?since=2026-11-04%2012:00"

note "refusals"
for path in /api/windows/nosuch /api/windows/silver.hourlyy /api/windows/silver.inline \
	/api/windows/plain "/api/windows/silver.hourly?since=yesterday" \
	"/api/windows/silver.hourly?since=2026-11-02&until=2026-11-01" \
	"/api/windows/silver.hourly?max_runs=0" "/api/windows/silver.hourly?max_runs=200001" \
	"/api/windows/silver.hourly?env=a-b" "/api/windows/$(printf 'x%.0s' $(seq 300))"; do
	echo "> GET ${path:0:70}"
	get -w ' %{http_code}\n' "$url$path"
done
echo "> POST /api/windows/silver.hourly"
get -X POST -w ' %{http_code}\n' "$url/api/windows/silver.hourly"
echo "> GET /api/windows/silver.hourly without a token"
curl -s -o /dev/null -w '%{http_code}\n' "$url/api/windows/silver.hourly"

note "a range rebuilt as the Windows page asks for it: torch forgets every hour, builds six"
get -H 'Content-Type: application/json' -d '{"args": ["-s", "silver.hourly", "--since", "2026-11-02 00:00:00",
	"--until", "2026-11-02 06:00:00", "--mode", "torch"], "now": "2026-11-05 00:00"}' \
	"$url/api/commands/run" | jq -r '"exit \(.exit)", .stdout' | normalize
runs /api/windows/silver.hourly

kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
