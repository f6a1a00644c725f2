#!/usr/bin/env bash
# docs/cli.md documents every command of the command table, and each flag
# of it: a command has a row in the table of commands whose first cell
# starts with `sluice NAME`, and each flag `sluice help NAME` lists is
# named (--long, or -x) in one of its rows, or in the text above the table
# for a flag every command takes. The commands and flags come from the
# built binary's help, which is printed from the tables themselves.
#   tests/checks/cli_docs.sh [BUILD_DIR]     default build/release
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/release}
bin=$build/sluice
doc=$root/docs/cli.md
[[ -x $bin ]] || { echo "$bin: not built (make $bin)"; exit 1; }

commands=$("$bin" help | awk '/^commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
[[ -n $commands ]] || { echo "$bin help: lists no commands"; exit 1; }
# the text before the first table: flags every command takes
intro=$(awk '/^\|/ { exit } { print }' "$doc")
bad=0
for c in $commands; do
	rows=$(grep -E "^\| \`sluice $c[\` ]" "$doc")
	if [[ -z $rows ]]; then
		echo "docs/cli.md: command '$c' has no row (| \`sluice $c ...\` | ...) in the table of commands"
		bad=1
		continue
	fi
	# "  -s, --select SEL  help" or "      --json  help": the short name
	# ("none" if it has none) and the long one
	while read -r short long; do
		found=0
		for text in "$rows" "$intro"; do
			if grep -qE -- "(^|[^a-z-])$long([^a-z-]|\$)" <<<"$text" ||
				{ [[ $short != none ]] && grep -qE -- "(^|[^a-z-])$short([^a-z-]|\$)" <<<"$text"; }; then
				found=1
				break
			fi
		done
		if ((!found)); then
			echo "docs/cli.md: the row of 'sluice $c' does not name its flag $long"
			bad=1
		fi
	done < <("$bin" help "$c" |
		sed -nE 's/^  (-[a-zA-Z]),? (--[a-z-]+).*/\1 \2/p; s/^      (--[a-z-]+).*/none \1/p')
done
exit $bad
