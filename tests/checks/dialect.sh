#!/usr/bin/env bash
# Only src/warehouse/ writes SQL one warehouse reads and another does not
# (DESIGN.md §9): prints each C string literal outside it that holds a
# construct of DuckDB's own, and fails. Comments do not count.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
constructs='QUALIFY|BY NAME|CREATE OR REPLACE|INSERT OR REPLACE|\bepoch_(ms|us|ns)\(|\bstrftime\(|INTERVAL [0-9]|\bDESCRIBE\b|\bTRY_CAST\b|\bregexp_(full_match|matches)\b|\bU?HUGEINT\b|\bDOUBLE\b( [^P]|[^ ]|$)|EXCLUDE \('
cd "$root" || exit 1
files=$(ls src/*/*.[ch] | grep -v '^src/warehouse/')
hits=$(grep -nHE '"' $files |
	grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/\*|\*|//)' |
	grep -oE '^[^:]+:[0-9]+:|"([^"\\]|\\.)*"' |
	awk '/^[^"]/ { where = $0; next } { print where " " $0 }' |
	grep -E "$constructs")
[[ -z $hits ]] && exit 0
printf '%s\n' "$hits"
exit 1
