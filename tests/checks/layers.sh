#!/usr/bin/env bash
# Data flows one way (DESIGN.md §9): a folder of src/ includes only folders
# below it in this order. Prints each include that points up and fails.
# windows/ is the time grid, coverage algebra, contracts and schedule: pure
# modules on core alone, which the state rows, the project's checks, the
# plan and the executor all reason with, so it sits just above core.
# Folders in one quoted entry share a height and may include each other:
# ingest/ (webhook, poll, the writer, coerce, jsontext), pgcdc/ (the
# logical-replication client), kafka/ (the Kafka consumer) and files/ (the
# files dropped in a folder) turn outside rows into landing rows,
# and the server and the cli above start them.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
order=(core windows warehouse state project plan exec live replay "ingest pgcdc kafka files" server cli)
declare -A rank
for i in "${!order[@]}"; do
	for d in ${order[$i]}; do rank[$d]=$i; done
done
bad=0
for f in "$root"/src/*/*.[ch]; do
	dir=$(basename "$(dirname "$f")")
	[[ -n ${rank[$dir]:-} ]] || { echo "${f#"$root"/}: folder $dir has no place in the layer order"; bad=1; continue; }
	while IFS= read -r inc; do
		to=${inc%%/*}
		[[ $to == "$dir" || -z ${rank[$to]:-} ]] && continue
		if ((rank[$to] > rank[$dir])); then
			echo "${f#"$root"/}: includes $inc, a layer above $dir"
			bad=1
		fi
	done < <(sed -n 's/^#include "\([a-z_]*\/[a-z_]*\.h\)".*/\1/p' "$f")
done
exit $bad
