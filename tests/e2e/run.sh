#!/usr/bin/env bash
# End-to-end cases. Each folder tests/e2e/CASE/ holds `steps.sh` (a script
# of sluice commands, run with lib.sh's helpers in a private copy of the
# folder) and `expected` (its normalized output). A case passes when the
# output matches. Cases run in parallel, each in its own directory.
#   SLUICE_BIN=path/to/sluice tests/e2e/run.sh [CASE...]
#   SLUICE_ACCEPT=1   write the actual output over `expected` (review the diff!)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export SLUICE_BIN=${SLUICE_BIN:-$here/../../sluice}
export SLUICE_TOOLS=${SLUICE_TOOLS:-$here/../../build/release/tools}
SLUICE_BIN=$(cd "$(dirname "$SLUICE_BIN")" && pwd)/$(basename "$SLUICE_BIN")
jobs=${SLUICE_JOBS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ $# -gt 0 ]; then
	cases=("$@")
else
	cases=()
	for d in "$here"/*/; do
		[ -f "$d/steps.sh" ] || continue
		name=$(basename "$d")
		if [ -f "$d/slow" ] && [ -z "${SLUICE_SLOW:-}" ]; then
			continue
		fi
		cases+=("$name")
	done
fi

run_case() {
	local name=$1 dir="$work/$1"
	mkdir -p "$dir"
	cp -r "$here/$name/." "$dir/"
	(cd "$dir" && SLUICE_E2E_LIB="$here/lib.sh" bash -c 'source "$SLUICE_E2E_LIB"; source ./steps.sh' \
		>"$dir/actual" 2>&1)
	if [ -n "${SLUICE_ACCEPT:-}" ]; then
		cp "$dir/actual" "$here/$name/expected"
	fi
	if diff -u "$here/$name/expected" "$dir/actual" >"$dir/diff" 2>&1; then
		echo "ok   $name"
	else
		echo "FAIL $name"
		head -60 "$dir/diff" | sed 's/^/     /'
	fi
}
export -f run_case
export here work

printf '%s\n' "${cases[@]}" | xargs -P "$jobs" -I{} bash -c 'run_case "$@"' _ {} >"$work/results"
cat "$work/results"
p=$(grep -c '^ok ' "$work/results")
f=$(grep -c '^FAIL ' "$work/results")
echo "e2e: $p passed, $f failed"
[ "$f" -eq 0 ]
