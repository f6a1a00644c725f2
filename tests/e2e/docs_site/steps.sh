# sluice docs --out DIR: the web UI's pages as static files with a
# snapshot of the project, which need no server: what is written, what the
# snapshot holds before and after a run (the columns' types and the
# checks' results come from the run), a second run over the same folder,
# a server holding the warehouse, and what is refused.
export DOCS_TOKEN=t0ken

note "the command needs its folder"
sl docs
sl docs --out site extra

note "before any run: the project alone"
sl docs --out site
find site -type f | sort
cat site/index.html
jq -c '{sluice: (.sluice | type), project, generated_at: (.generated_at | type), keys: keys}' site/snapshot.json
jq -c '.dag | {models: [.models[].name], edges, nodes: [.nodes[] | "\(.name) \(.kind) \(.layer)"], hash: (.layout.hash | length)}' site/snapshot.json
jq -c '.models | keys_unsorted' site/snapshot.json
jq -c '.models["silver.events"] | {name, description, columns, checks, checked, inputs, readers}' site/snapshot.json
jq -c '.models["silver.events"].lineage' site/snapshot.json
jq -r '.models["gold.counts"].compiled' site/snapshot.json
jq -c '.models["gold.counts"] | {columns, lineage}' site/snapshot.json
echo "no server's history: $(jq -c '.models["silver.events"] | {runs, profiles, built}' site/snapshot.json)"

note "snapshot.js is snapshot.json for a page opened from a file"
head -c 25 site/snapshot.js; echo
sed '1s/^window.SLUICE_SNAPSHOT = //; $s/;$//' site/snapshot.js | cmp -s - site/snapshot.json && echo "the same document"
grep -c '^__sluice_defs\["js/pages/models.js"\]' site/ui/sluice.js
tail -2 site/ui/sluice.js

note "after a run: the columns as built, the checks with their results"
"$SLUICE_BIN" sql "CREATE SCHEMA IF NOT EXISTS landing" >/dev/null
"$SLUICE_BIN" sql "CREATE TABLE landing.events (id BIGINT, kind VARCHAR, _sluice_seq BIGINT)" >/dev/null
"$SLUICE_BIN" sql "INSERT INTO landing.events VALUES (1, 'a', 1), (2, 'c', 1)" >/dev/null
sl run
sl docs --out site
jq -c '.models["silver.events"] | {columns, checks, checked: (.checked | {run_id})}' site/snapshot.json
jq -c '.models["gold.counts"].columns' site/snapshot.json
find site -type f | wc -l

note "with a server on the warehouse: a DuckDB file is the server's alone"
serve_start
"$SLUICE_BIN" docs --out served 2>&1 | sed -E 's/: warehouse .* is locked by another process$/: the file is locked by another process/; /^  (hint|detail):/d'
jq -c '.models["silver.events"].columns' served/snapshot.json
kill -TERM "$serve_pid"
wait "$serve_pid"
echo "server exit $?"

note "a project with a problem writes nothing"
printf 'SELECT FROM nowhere WHERE\n' >models/gold/broken.sql
sl docs --out bad
[ -e bad ] || echo "nothing written"
rm models/gold/broken.sql

note "a folder that cannot be made"
sl docs --out /proc/sluice-docs
