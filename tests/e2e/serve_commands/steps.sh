# sluice seed, run, plan and test while sluice serve holds the warehouse:
# the server runs the same handler (between its runner's cycles when the
# runner is on) and they print what they print without a server, with
# the same exit codes, a failing check's 1 too. Two copies of one
# project: one alone, one served.
export CMDS_TOKEN=t0ken
cp -r shop served

commands() {
	sl plan
	sl seed
	sl run -s silver.regions
	sl run
	sl test
	sl test -s silver.regions
	sed -i '1a @assert id < 3' models/silver/regions.sql
	sl test -s silver.regions
	sed -i '2d' models/silver/regions.sql
	sl run --json -s gold.counted
	sl run -s nosuch
	sl run --workers 0
	sl plan --full-refresh -s gold.named
}

note "alone"
cd shop
commands | tee ../alone.txt
cd ../served
own_warehouse served

note "served: the same output and exit codes"
serve_start
commands >../served.txt
diff ../alone.txt ../served.txt && echo "the same output, byte for byte"

note "with the runner on, the command runs on its thread, between cycles"
curl -s -X POST -H "Authorization: Bearer t0ken" "http://127.0.0.1:$serve_port/api/live/start"; echo
sl test -s gold.named
sl run -s silver.regions

if ! is_postgres; then
	note "the token is the server's: a client without it is refused"
	CMDS_TOKEN=nope sl run
	(unset CMDS_TOKEN; sl test)
fi

note "bad requests to POST /api/commands"
api() { curl -s -w ' %{http_code}\n' -H "Authorization: Bearer t0ken" "$@"; }
url=http://127.0.0.1:$serve_port/api/commands
api --data-binary '{"args": []}' "$url/serve"
api --data-binary '{"args": []}' "$url/sql"
api --data-binary 'not json' "$url/run"
api --data-binary '{"args": "run"}' "$url/run"
api --data-binary '{"args": [1]}' "$url/run"
api --data-binary '{"args": ["-s", "a\u0000b"]}' "$url/run"
api --data-binary '{"args": [], "now": 5}' "$url/run"
api --data-binary '{"args": ["--no-such-flag"]}' "$url/run"
api --data-binary "{\"args\": [$(printf '"-s",%.0s' $(seq 70))\"x\"]}" "$url/run"
api "$url/run"

note "and a good one: the answer carries the exit code and both streams"
api --data-binary '{"args": ["-s", "gold.named"], "now": null, "env": null}' "$url/test" |
	sed -E 's/[0-9]+ms/<dur>/g'
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
