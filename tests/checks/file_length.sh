#!/usr/bin/env bash
# No file in src/ runs over 900 lines, unless its folder's README.md names
# it with a reason, in a section of its own:
#   ## Long files
#   - `duckdb.c`: why it stays whole
# Prints each file over the limit without one, and fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
limit=900
cd "$root" || exit 1
bad=0
for f in src/*.[ch] src/*/*.[ch]; do
	n=$(wc -l <"$f")
	((n > limit)) || continue
	readme=$(dirname "$f")/README.md
	name=$(basename "$f")
	if [[ -f $readme ]] && awk -v name="$name" '
		/^#+ / { on = ($0 ~ /^#+ Long files[[:space:]]*$/); next }
		on && index($0, "- `" name "`: ") == 1 && length($0) > length(name) + 6 { found = 1 }
		END { exit !found }' "$readme"; then
		continue
	fi
	echo "$f: $n lines, over $limit (split it, or give the reason in $readme under '## Long files' as '- \`$name\`: reason')"
	bad=1
done
exit $bad
