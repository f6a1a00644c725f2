#!/usr/bin/env bash
# No function in src/ runs over 120 lines, from its opening brace to its
# closing one (each alone at column 0, as the style writes them). Prints
# each longer function with its file, line and length, and fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
limit=120
cd "$root" || exit 1
awk -v limit="$limit" '
	FNR == 1 { start = 0; sig = "" }
	/^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
	/^\{[[:space:]]*$/ { start = FNR; name = sig; at = sigline; next }
	/^\}/ && start {
		n = FNR - start + 1
		if (n > limit) {
			if (match(name, /[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(/))
				name = substr(name, RSTART, RLENGTH - 1)
			sub(/[[:space:]]+$/, "", name)
			printf "%s:%d: %s() is %d lines, over %d\n", FILENAME, at, name, n, limit
			bad = 1
		}
		start = 0
	}
	END { exit bad }' src/*.[ch] src/*/*.[ch]
