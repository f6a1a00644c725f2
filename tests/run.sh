#!/usr/bin/env bash
# Runs every test: the cmocka unit test binaries, the source checks in
# tests/checks/, the end-to-end cases, then the browser cases of tests/ui
# (chromium driven by playwright-core), and ends with one line
# "N passed, N failed". It starts a PostgreSQL server of its own for them
# (tests/pg_server.sh; SLUICE_TEST_PG holds its connection string).
#   tests/run.sh BUILD_DIR        BUILD_DIR holds sluice and tests/test_*
#   SLUICE_SLOW=1                 also run the slow cases (crash loops, fuzzing)
set -uo pipefail

build=${1:?usage: tests/run.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
passed=0
failed=0
failures=()

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# one PostgreSQL server for the suite, stopped however it ends
pg_dir=$(mktemp -d /tmp/sluice-test-pg-XXXXXX)
stop_pg() {
	"$root/tests/pg_server.sh" stop "$pg_dir"
	rm -rf "$pg_dir"
}
trap stop_pg EXIT
if ! SLUICE_TEST_PG=$("$root/tests/pg_server.sh" start "$pg_dir"); then
	echo "cannot start the PostgreSQL test server"
	failed=$((failed + 1))
	failures+=("postgres server")
fi
export SLUICE_TEST_PG

echo "== unit tests"
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	out=$("$t" 2>&1)
	rc=$?
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	p=${p:-0}
	f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1 # crashed or failed outside a test
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		failures+=("unit:$name")
		printf '%s\n' "$out" | grep -E '^\[  (FAILED|ERROR)|ERROR|error|Assertion|Sanitizer' | head -20
	fi
	printf '  %-28s %3d passed, %d failed\n' "$name" "$p" "$f"
done

echo "== source checks"
# each is given the build, for those that read its binary or object files
for c in "$root"/tests/checks/*.sh; do
	name=$(basename "$c" .sh)
	if out=$("$c" "$build" 2>&1); then
		passed=$((passed + 1))
		printf '  %-28s passed\n' "$name"
	else
		failed=$((failed + 1))
		failures+=("check:$name")
		printf '%s\n' "$out" | head -40
		printf '  %-28s FAILED\n' "$name"
	fi
done

echo "== end-to-end cases"
export SLUICE_TOOLS="$build/tools"
e2e_out=$(mktemp)
SLUICE_BIN="$build/sluice" "$root/tests/e2e/run.sh" >"$e2e_out" 2>&1
cat "$e2e_out"
p=$(sed -n 's/^e2e: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$e2e_out")
f=$(sed -n 's/^e2e: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$e2e_out")
if [ -z "$p" ]; then
	p=0
	f=1
	failures+=("e2e runner")
fi
rm -f "$e2e_out"
passed=$((passed + p))
failed=$((failed + f))

echo "== browser cases"
ui_out=$(mktemp)
node "$root/tests/ui/run.mjs" "$build" >"$ui_out" 2>&1
cat "$ui_out"
p=$(sed -n 's/^ui: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$ui_out")
f=$(sed -n 's/^ui: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$ui_out")
if [ -z "$p" ]; then
	p=0
	f=1
	failures+=("ui runner")
elif [ "$f" -ne 0 ]; then
	failures+=("ui")
fi
rm -f "$ui_out"
passed=$((passed + p))
failed=$((failed + f))

[ ${#failures[@]} -gt 0 ] && echo "failing: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
