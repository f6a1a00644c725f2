# Helpers for end-to-end steps.sh scripts; sourced by tests/e2e/run.sh.
# Outputs are normalized so they do not depend on timing or the clock.

normalize() {
	sed -E \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?/<ts>/g' \
		-e 's/\b[0-9]+(\.[0-9]+)?(ms|s)\b/<dur>/g' \
		-e 's/\b[0-9]+m[0-9]{2}s\b/<dur>/g' \
		-e 's/"(duration_ms|run_id)": [0-9]+/"\1": <n>/g' \
		-e 's/DuckDB v[0-9.]+/DuckDB <v>/'
}

# sl ARGS...: runs sluice, prints its normalized output and exit code.
sl() {
	echo "\$ sluice $*"
	"$SLUICE_BIN" "$@" 2>&1 | normalize
	echo "[exit ${PIPESTATUS[0]}]"
}

# q SQL: prints a query's rows from the case's warehouse.
q() {
	echo "\$ sql: $1"
	"$SLUICE_BIN" sql "$1" 2>&1 | normalize
}

# note TEXT: a heading in the output, so expected files read like a story.
note() {
	echo
	echo "## $*"
}
