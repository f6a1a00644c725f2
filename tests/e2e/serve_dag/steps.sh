# GET /api/dag: the models and their edges as before, and the graph drawn
# in layers: every source, seed and model a node with its kind and box,
# each edge a polyline through a bend per layer it crosses, the size and
# the hash, which is the ETag too. The drawing is the same on every run
# and both warehouses: its coordinates are printed.
export SERVE_TOKEN=t0ken
serve_start
url=http://127.0.0.1:$serve_port
get() { curl -s -H "Authorization: Bearer $SERVE_TOKEN" "$@"; }
get "$url/api/dag" >dag.json

note "the models and edges, as before"
jq -c '{models, edges}' dag.json

note "every node: name, kind, materialized, live, layer, x, y, width, height"
jq -r '.nodes[] | [.name, .kind, (.materialized // "-"), .live, .layer, .x, .y, .width, .height] | @tsv' dag.json

note "every edge, its points from the bottom of one box to the top of the other"
jq -r '.layout.edges[] | "\(.from) -> \(.to): \([.points[] | "\(.[0]),\(.[1])"] | join(" "))"' dag.json

note "the size, the layers and the hash"
jq -c '.layout | {width, height, layers, hash}' dag.json
echo "keys: $(jq -c 'keys' dag.json)"

note "the hash is the ETag: asked again with it, nothing changed"
get -D headers.txt -o again.json "$url/api/dag"
tr -d '\r' <headers.txt | grep -iE '^(etag|cache-control|content-type):' | sort
etag=$(tr -d '\r' <headers.txt | sed -n 's/^[Ee][Tt]ag: //p')
[ "$etag" = "\"$(jq -r .layout.hash dag.json)\"" ] && echo "ETag is the hash"
cmp -s dag.json again.json && echo "the same answer twice"
echo "> GET /api/dag with If-None-Match: the ETag"
get -o /dev/null -w '%{http_code} %{size_download} bytes\n' -H "If-None-Match: $etag" "$url/api/dag"
echo "> GET /api/dag with If-None-Match: another"
get -o /dev/null -w '%{http_code}\n' -H 'If-None-Match: "0000000000000000"' "$url/api/dag"

note "refusals"
echo "> POST /api/dag"
get -X POST -w ' %{http_code}\n' "$url/api/dag"
echo "> GET /api/dag without a token"
curl -s -o /dev/null -w '%{http_code}\n' "$url/api/dag"

note "GET /api/models is unchanged"
get "$url/api/models"
echo

kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
