#!/usr/bin/env bash
# End-to-end cases. Each folder tests/e2e/CASE/ holds `steps.sh` (a script
# of sluice commands, run with lib.sh's helpers in a private copy of the
# folder) and `expected` (its normalized output). A case passes when the
# output matches. Cases run in parallel, each in its own directory.
#   SLUICE_BIN=path/to/sluice tests/e2e/run.sh [CASE...]
#   SLUICE_ACCEPT=1   write the actual output over `expected` (review the diff!)
#   SLUICE_TEST_PG=DSN  the cases whose folder holds a file `postgres` run a
#                     second time on that PostgreSQL server, each in a
#                     database of its own, compared with `expected.postgres`
#                     (steps.sh may ask lib.sh's is_postgres which run it is)
#   SLUICE_CASE_LIMIT=600  seconds a case may take before it fails as timed
#                     out (3600 with SLUICE_SLOW)
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
		[ -n "${SLUICE_TEST_PG:-}" ] && [ -f "$d/postgres" ] && cases+=("$name@postgres")
	done
fi

# on_postgres DIR NAME: points each project of the case copy in DIR at a
# new database of the test server, as each has a DuckDB file of its own:
# the case's only project, or the one in DIR itself, through
# $SLUICE_E2E_PG; one of several in the folder SUB through $SLUICE_E2E_PG_SUB
on_postgres() {
	local dir=$1 base=e2e_${2//[^a-z0-9]/_} f sub var db n
	n=$(find "$dir" -name sluice.yml | wc -l)
	while read -r f; do
		sub=$(dirname "${f#"$dir"/}")
		var=SLUICE_E2E_PG db=$base
		if [ "$sub" != . ] && [ "$n" -gt 1 ]; then
			sub=${sub//[^a-zA-Z0-9]/_}
			var=SLUICE_E2E_PG_$sub db=${base}__${sub,,}
		fi
		PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt \
			-c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || return 1
		export "$var=$SLUICE_TEST_PG dbname=$db"
		sed -i '/^warehouse:/d' "$f"
		printf 'warehouse: {type: postgres, dsn_env: %s}\n' "$var" >>"$f"
	done < <(find "$dir" -name sluice.yml)
	export SLUICE_E2E_POSTGRES=1 SLUICE_E2E_DB=$base
}

run_case() {
	# a folder of the case's own one level down: steps may use ../
	local id=$1 name=${1%@*} dir="$work/${1/@/_}/case" expected=expected
	mkdir -p "$dir"
	cp -r "$here/$name/." "$dir/"
	if [ "$id" != "$name" ]; then
		expected=expected.postgres
		on_postgres "$dir" "$name" || echo "cannot make the database of $id" >"$dir/actual"
	fi
	# a case that hangs fails alone instead of holding the suite
	(cd "$dir" && SLUICE_E2E_LIB="$here/lib.sh" timeout -k 10 "$case_limit" \
		bash -c 'source "$SLUICE_E2E_LIB"; source ./steps.sh' >>"$dir/actual" 2>&1)
	[ $? -ne 124 ] || echo "timed out after $case_limit s" >>"$dir/actual"
	if [ -n "${SLUICE_ACCEPT:-}" ]; then
		cp "$dir/actual" "$here/$name/$expected"
	fi
	if diff -u "$here/$name/$expected" "$dir/actual" >"$dir/diff" 2>&1; then
		echo "ok   $id"
	else
		echo "FAIL $id"
		head -60 "$dir/diff" | sed 's/^/     /'
	fi
}
export -f run_case on_postgres
# seconds a case may take (SLUICE_SLOW's long cases: more)
case_limit=${SLUICE_CASE_LIMIT:-600}
[ -z "${SLUICE_SLOW:-}" ] || case_limit=${SLUICE_CASE_LIMIT:-3600}
export here work case_limit

printf '%s\n' "${cases[@]}" | xargs -P "$jobs" -I{} bash -c 'run_case "$@"' _ {} >"$work/results"
cat "$work/results"
p=$(grep -c '^ok ' "$work/results")
f=$(grep -c '^FAIL ' "$work/results")
echo "e2e: $p passed, $f failed"
[ "$f" -eq 0 ]
