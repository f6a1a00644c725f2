# The documents of the web UI's model page and Runs and alerts page, as
# sluice serve answers them: GET /api/models/NAME (what the project says
# of a model, its columns as its last build made them with their
# descriptions, its checks with their last results and failing rows, its
# builds, its profiles, what it reads and what reads it) and GET /api/runs
# (the run log by run, the alerts sent with how their command took them),
# every input bounded; and POST /api/sql read page by page with offset.
export PAGES_TOKEN=t0ken
sl run
serve_start
url=http://127.0.0.1:$serve_port
get() { curl -s -H "Authorization: Bearer $PAGES_TOKEN" "$@"; }

note "a model's page: what the project says of it"
get "$url/api/models/silver.prices" >doc.json
jq -c '{name, schema, kind, materialized, strategy, live, temporal, path, description, tags, unique_key}' doc.json
jq -r .text doc.json
jq -r .compiled doc.json
jq -c '.config[]' doc.json
jq -c '{inputs, readers, declared_inputs, lineage}' doc.json
echo "keys: $(jq -c 'keys' doc.json)"

note "its columns as its last build made them, each with its description"
jq -c '.columns[]' doc.json

note "its checks, with their last results and failing rows"
jq -c '.checked | {run_id, window, in, checked_at: (.checked_at | test("^[0-9-]+ [0-9:.]+$"))}' doc.json
jq -c '.checks[]' doc.json

note "its builds and its profiles"
jq -c '.built | {build_count, last_built_at: (.last_built_at != null)}' doc.json
jq -c '.runs[] | {run_id, env, run_type, status, rows, message, when: (.started_at <= .finished_at)}' doc.json
jq -c '.profiles[] | {kind, run_id, status, rows, columns: [.columns[] | {name, nulls}], anomalies}' doc.json

note "a view reads the table; a seed is loaded from its file"
get "$url/api/models/gold.prices" | jq -c '{name, materialized, inputs, readers, compiled, columns: [.columns[].name]}'
get "$url/api/models/seeds.prices" | jq -c '{name, kind, sql, compiled, readers}'

note "a live model that fails: its checks, its failed build, its alert"
get -d '{"id": 1, "kind": "a", "amount": 2}' "$url/api/ingest/webhook/events" | jq -c .
covered() { get "$url/api/live/status" | jq -e '.models[] | select(.model == "silver.events") | .covered >= 1' >/dev/null; }
wait_until 10 covered
get -d '{"id": 2, "kind": "b", "amount": -5}' "$url/api/ingest/webhook/events" | jq -c .
failing() { get "$url/api/live/status" | jq -e '.models[] | select(.model == "silver.events") | .state == "failing"' >/dev/null; }
wait_until 10 failing
alerted() { [ -s alerts.sent ]; }
wait_until 10 alerted
get "$url/api/models/silver.events" >events.json
jq -c '{name, live, strategy, unique_key, inputs, readers}' events.json
jq -c '.checks[] | {check, severity, failures, sample}' events.json
jq -c '.checked | {in, window}' events.json
jq -c '[.runs[] | select(.status == "failed")][0] | {run_type, status, rows, message}' events.json
echo "the command got: $(jq -c '{alert, model, error}' alerts.sent)"

note "the runs and the alerts sent"
get "$url/api/runs" >runs.json
jq -c '.runs[] | {run_type, env, status, models: [.models[] | {model, status, rows}], when: (.started_at <= .finished_at)}' runs.json
jq -c '.alerts[] | {alert, model, error, delivery, at: (.at != null)}' runs.json
jq -c '{before, live: (.live | type)}' runs.json
echo "keys: $(jq -c 'keys' runs.json)"
first=$(jq '.runs[-1].run_id' runs.json)
get "$url/api/runs?runs=1" | jq -c '{runs: (.runs | length), older: (.before != null)}'
get "$url/api/runs?before=$first" | jq -c '{runs: (.runs | length), before}'
get "$url/api/runs?alerts=0&live=0" | jq -c '{alerts, live}'
echo "the log in the folder: $(wc -l <.sluice/alerts.jsonl) line, $(jq -r .delivery .sluice/alerts.jsonl)"

note "a query read page by page"
get --data-binary 'SELECT sku FROM silver.prices ORDER BY sku' "$url/api/sql?max_rows=1"
echo
get --data-binary 'SELECT sku FROM silver.prices ORDER BY sku' "$url/api/sql?max_rows=1&offset=1"
echo
get --data-binary 'SELECT sku FROM silver.prices ORDER BY sku' "$url/api/sql?max_rows=1&offset=2"
echo
get -w ' %{http_code}\n' --data-binary 'SELECT 1' "$url/api/sql?offset=-1"

note "refusals"
get -w ' %{http_code}\n' "$url/api/models/silver.price"
get -w ' %{http_code}\n' "$url/api/models/prices"
get -w ' %{http_code}\n' "$url/api/models/$(printf 'x%.0s' $(seq 300))"
get -w ' %{http_code}\n' -X POST "$url/api/models/silver.prices"
curl -s -w ' %{http_code}\n' "$url/api/models/silver.prices"
get -w ' %{http_code}\n' "$url/api/runs?runs=0"
get -w ' %{http_code}\n' "$url/api/runs?runs=201"
get -w ' %{http_code}\n' "$url/api/runs?before=x"
get -w ' %{http_code}\n' "$url/api/runs?alerts=1001"
get -w ' %{http_code}\n' -X POST "$url/api/runs"
get -w ' %{http_code}\n' "$url/api/models/silver.prices/more"

kill -TERM "$serve_pid"
wait "$serve_pid"
echo "server exit $?"
