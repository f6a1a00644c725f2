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

# win ARGS...: `sluice windows ARGS` as printed, times and all: a case
# fixes the clock with SLUICE_NOW, so window bounds and applied_at are the
# same on every run.
win() {
	echo "\$ sluice windows $*"
	"$SLUICE_BIN" windows "$@" 2>&1
	echo "[exit $?]"
}

# note TEXT: a heading in the output, so expected files read like a story.
note() {
	echo
	echo "## $*"
}

# own_warehouse NAME: from here on in this shell the project has a new,
# empty warehouse of its own. A copy of a DuckDB project has one already
# (its file); on PostgreSQL it is a new database NAME of the case's.
own_warehouse() {
	is_postgres || return 0
	PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt \
		-c "DROP DATABASE IF EXISTS ${SLUICE_E2E_DB}_$1" \
		-c "CREATE DATABASE ${SLUICE_E2E_DB}_$1" >/dev/null || return 1
	use_warehouse "$1"
}

# use_warehouse NAME: from here on in this shell the project's warehouse
# is the one own_warehouse NAME made (on DuckDB its file already is).
use_warehouse() {
	! is_postgres || export SLUICE_E2E_PG="$SLUICE_TEST_PG dbname=${SLUICE_E2E_DB}_$1"
}

# rows_of RELATION [SLUICE ARGS...]: every row of the relation as one line
# of text (its values' text joined by tabs, <null> for NULL), sorted, so
# that two relations hold the same rows when their lines are the same;
# fails, printing why, when the relation cannot be read.
rows_of() {
	local rel=$1 cols out
	shift
	cols=$("$SLUICE_BIN" sql "SELECT column_name FROM information_schema.columns
		WHERE table_schema = '${rel%%.*}' AND table_name = '${rel#*.}' ORDER BY ordinal_position" "$@" |
		tail -n +2 | sed "s/.*/coalesce(CAST(\"&\" AS VARCHAR), '<null>')/" | paste -sd'\t' |
		sed 's/\t/ || chr(9) || /g')
	if [ -z "$cols" ]; then
		echo "$rel has no columns"
		return 1
	fi
	out=$("$SLUICE_BIN" sql "SELECT $cols AS r FROM $rel" "$@" 2>&1) || { echo "$out"; return 1; }
	printf '%s\n' "$out" | tail -n +2 | LC_ALL=C sort
}

# load_ids TABLE FILE: makes TABLE (id BIGINT) hold the numbers of FILE,
# one a line, sent in INSERTs of 5,000 that both warehouses read.
load_ids() {
	local chunk
	"$SLUICE_BIN" sql "CREATE TABLE $1 (id BIGINT)" >/dev/null || return 1
	rm -f ids.chunk.*
	sed 's/.*/(&)/' "$2" | split -l 5000 - ids.chunk.
	for chunk in ids.chunk.*; do
		[ -f "$chunk" ] || continue
		"$SLUICE_BIN" sql "INSERT INTO $1 (id) VALUES $(paste -sd, "$chunk")" >/dev/null || return 1
	done
	rm -f ids.chunk.*
}

# same_as_rebuild MODEL...: builds a copy of the case's project from scratch
# (sluice run --full-refresh over the same landing data: a copy of the
# DuckDB file, or a database made from the case's on PostgreSQL) and says,
# per model, whether the live-maintained table holds exactly the same rows.
same_as_rebuild() {
	local copy m n db=
	copy=$(mktemp -d)
	cp -r . "$copy/p"
	for m in "$@"; do
		rows_of "$m" >"$copy/$m.live" || touch "$copy/$m.failed"
	done
	if is_postgres; then
		db=${SLUICE_E2E_PG##*dbname=}_rebuilt
		PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt \
			-c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db TEMPLATE ${SLUICE_E2E_PG##*dbname=}" \
			>/dev/null || echo "cannot copy the database"
	fi
	(
		[ -z "$db" ] || export SLUICE_E2E_PG="$SLUICE_TEST_PG dbname=$db"
		"$SLUICE_BIN" run --full-refresh --project "$copy/p" >/dev/null 2>&1 || echo "rebuild failed"
		for m in "$@"; do
			if [ -f "$copy/$m.failed" ]; then
				cat "$copy/$m.live"
			elif rows_of "$m" --project "$copy/p" >"$copy/$m.rebuilt"; then
				n=$(LC_ALL=C comm -3 "$copy/$m.live" "$copy/$m.rebuilt" | wc -l)
				echo "$m differs from a rebuild in $n rows"
			else
				cat "$copy/$m.rebuilt"
			fi
		done
	)
	[ -z "$db" ] || psql "$SLUICE_TEST_PG" -qAt -c "DROP DATABASE IF EXISTS $db" >/dev/null
	rm -rf "$copy"
}

# retry CMD...: runs a command until it stops failing for a locked
# warehouse (another process holds the DuckDB file), at most 200 times.
retry() {
	local i out
	for i in $(seq 200); do
		if out=$("$@" 2>&1); then
			printf '%s\n' "$out"
			return 0
		fi
		case "$out" in
		*"locked by another process"*) sleep 0.05 ;;
		*) printf '%s\n' "$out"; return 1 ;;
		esac
	done
	echo "still locked after 200 tries: $*"
	return 1
}

# wait_until SECONDS CMD...: runs CMD until it succeeds, every 0.05 s
# (`wait_every=0.01 wait_until ...` sets another pace); fails once it has
# slept SECONDS (a whole number) and CMD failed once more. The time CMD
# takes comes on top, so a loaded machine stretches the wait rather than
# cutting it short. CMD's output is not hidden; a function of the case's
# own or `prints` makes a condition out of a pipeline.
wait_until() {
	local _wait_every=${wait_every:-0.05} _wait_tries
	_wait_tries=$(awk -v s="$1" -v e="$_wait_every" 'BEGIN { n = s / e; print (n > int(n)) ? int(n) + 1 : n }')
	shift
	until "$@"; do
		[ "$_wait_tries" -gt 0 ] || return 1
		_wait_tries=$((_wait_tries - 1))
		sleep "$_wait_every"
	done
}

# prints TEXT CMD...: whether CMD prints exactly TEXT (a condition for
# wait_until, whose CMD would else expand a $(...) once at the call).
prints() {
	local _prints_want=$1
	shift
	[ "$("$@")" = "$_prints_want" ]
}

# status_is JQ-ARGS...: whether the document the case's own `status`
# prints (its server's /api/live/status) meets a jq condition.
status_is() {
	status | jq -e "$@" >/dev/null
}

# gone PID: whether the process PID has ended (for wait_until).
gone() {
	! kill -0 "$1" 2>/dev/null
}

# serve_start [NAME=VALUE...]: starts `sluice serve` on a free loopback port
# (with those variables in its environment, its output appended to
# serve.log) and waits until .sluice/server.json names it; sets $serve_pid
# and $serve_port.
serve_start() {
	local i
	env "$@" "$SLUICE_BIN" serve --listen 127.0.0.1:0 >>serve.log 2>&1 &
	serve_pid=$!
	for i in $(seq 400); do
		if grep -qs "\"pid\": $serve_pid," .sluice/server.json; then
			serve_port=$(sed -E 's/.*"port": ([0-9]+).*/\1/' .sluice/server.json)
			return 0
		fi
		kill -0 $serve_pid 2>/dev/null || break
		sleep 0.025
	done
	echo "server $serve_pid did not start"
	tail -5 serve.log
	return 1
}

# is_postgres: whether the case runs on PostgreSQL (tests/run.sh's second
# run of a case whose folder holds a file `postgres`), for the few steps
# that look at the warehouse from outside sluice.
is_postgres() {
	[ -n "${SLUICE_E2E_POSTGRES:-}" ]
}

# warehouse_dsn: the connection string of the PostgreSQL warehouse the
# project in the current folder names.
warehouse_dsn() {
	local var
	var=$(sed -n 's/^warehouse: {type: postgres, dsn_env: \([A-Za-z0-9_]*\)}$/\1/p' sluice.yml)
	printf '%s' "${!var}"
}

# warehouse_saved FILE: writes what the project's warehouse holds to FILE
# (the DuckDB file's checksum; on PostgreSQL, a dump of the database);
# warehouse_unchanged FILE says whether it still holds exactly that.
warehouse_dump() {
	# less the key pg_dump makes up for each dump
	pg_dump --no-owner "$(warehouse_dsn)" | grep -Ev '^\\(un)?restrict '
}
warehouse_saved() {
	if is_postgres; then
		warehouse_dump >"$1"
	else
		sha256sum warehouse.duckdb >"$1"
	fi
}
warehouse_unchanged() {
	local now
	if is_postgres; then
		now=$(mktemp)
		warehouse_dump >"$now"
		cmp -s "$1" "$now" && echo "the warehouse is unchanged" || diff "$1" "$now" | head -20
		rm -f "$now"
	else
		sha256sum -c --quiet "$1" && echo "the warehouse is unchanged"
	fi
}

# cdc_source DB [SLOT...]: for a postgres_cdc case, a new, empty source
# database DB on the test server (SRC_PG, exported, reaches it) and none
# of the replication slots named left from a run before.
cdc_source() {
	local db=$1 slot
	shift
	for slot in "$@"; do
		PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt -c \
			"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '$slot'" \
			>/dev/null 2>&1
	done
	PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt \
		-c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
	export SRC_PG="$SLUICE_TEST_PG dbname=$db"
}

# own_pg_server [tcp]: a PostgreSQL server of the case's own, for a case
# that changes the server's settings or restarts it, which would disturb
# the cases sharing the suite's server. In a folder of /tmp (under root the
# server's user must reach it), stopped and removed when the case's shell
# exits (own_pg_server_gone, which a case's own EXIT trap calls last).
# Sets $pg_server (tests/pg_server.sh), $pg_dir and $pg_dsn; with tcp,
# $pg_tcp_dsn too (loopback, a password from a passfile).
own_pg_server() {
	local dsns
	pg_server=$(dirname "$SLUICE_E2E_LIB")/../pg_server.sh
	pg_dir=$(mktemp -d /tmp/sluice-e2e-pg-XXXXXX)
	trap own_pg_server_gone EXIT
	if ! dsns=$("$pg_server" start "$pg_dir" "$@" 2>pg_start.log); then
		echo "cannot start a PostgreSQL server of the case's own"
		cat pg_start.log
		return 1
	fi
	pg_dsn=$(sed -n 1p <<<"$dsns")
	pg_tcp_dsn=$(sed -n 2p <<<"$dsns")
}
own_pg_server_gone() {
	"$pg_server" stop "$pg_dir"
	rm -rf "$pg_dir"
}

# src PSQL-ARGS...: psql on the source database, quiet and unaligned,
# stopping at the first error.
src() {
	PGOPTIONS="-c client_min_messages=warning" psql "$SRC_PG" -qAt -v ON_ERROR_STOP=1 "$@"
}

# asan_build: whether sluice was built with the address sanitizer, which
# reserves more address space than any `ulimit -v` would leave it.
asan_build() {
	ldd "$SLUICE_BIN" 2>/dev/null | grep -q libasan
}

# mem_limited MB CMD...: runs CMD with its memory limited to MB megabytes:
# its address space; under the address sanitizer its resident memory
# (which the sanitizer checks itself), with room for the sanitizer's own.
mem_limited() {
	local mb=$1
	shift
	if asan_build; then
		(export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$((mb * 3))" && "$@")
	else
		(ulimit -v $((mb * 1000)) && "$@")
	fi
}

# hold_warehouse FILE: another process (tests/tools/holdlock) holds the
# DuckDB file FILE until release_warehouse, or 20 s; prints what it says
# once it holds it. Its stdin is a fifo that fd 7 keeps open (read-write,
# so no open ever blocks); closing fd 7 lets it go.
hold_warehouse() {
	mkfifo holder.in
	exec 7<>holder.in
	"$SLUICE_TOOLS/holdlock" "$1" 20 <holder.in >holder.out 2>&1 7>&- &
	holder=$!
	wait_until 5 grep -q locked holder.out
	cat holder.out
}

# release_warehouse: the holder of hold_warehouse lets go and ends.
release_warehouse() {
	exec 7>&-
	wait $holder
	echo "holder exited with $?"
	rm -f holder.in
}

# kill_consumers SOURCE SLOT ROUNDS [EVERY]: ROUNDS times starts
# `sluice cdc SOURCE` and kills it with SIGKILL after 0.3-0.7 s, then waits
# for the server to let go of SLOT; every EVERY rounds a `sluice run`
# builds between landings (to run.log). Counts the kills in $kills.
kill_consumers() {
	local source=$1 slot=$2 rounds=$3 every=${4:-0} k consumer
	kills=0
	for k in $(seq "$rounds"); do
		"$SLUICE_BIN" cdc "$source" >>consumer.log 2>&1 &
		consumer=$!
		sleep 0.$((RANDOM % 5 + 3))
		kill -9 $consumer 2>/dev/null && kills=$((kills + 1))
		wait $consumer 2>/dev/null
		wait_until 5 prints f src -c "SELECT active FROM pg_replication_slots WHERE slot_name = '$slot'"
		if [ "$every" -gt 0 ] && [ $((k % every)) -eq 0 ]; then
			"$SLUICE_BIN" run >>run.log 2>&1
		fi
	done
}

# cdc ARGS...: sl cdc, the LSNs it prints left out.
cdc() {
	sl cdc "$@" | sed -E 's#\b[0-9A-F]+/[0-9A-F]+\b#<lsn>#g'
}

# own_source_server: own_pg_server, and a new database src on it as the
# source: SRC_PG, exported, reaches it.
own_source_server() {
	own_pg_server || return 1
	psql "$pg_dsn" -qAt -c "CREATE DATABASE src" >/dev/null
	export SRC_PG="$pg_dsn dbname=src"
}

# kafka_start: a mock Kafka cluster of the case's own (the kafka_mock
# tool, librdkafka's mock brokers in a process of their own), its
# bootstrap address in $kafka_brokers. kafka CMD...: one of the tool's
# commands (topic, send, sendmany, watermarks, down, up, ...); says
# nothing unless it failed, and leaves the answer in $kafka_out. The tool
# ends with the case's shell.
kafka_start() {
	local line
	coproc KAFKA { exec "$SLUICE_TOOLS/kafka_mock" 2>kafka_mock.log; }
	if ! read -r -t 10 line <&"${KAFKA[0]}" || [[ $line != bootstrap\ * ]]; then
		echo "kafka_mock did not start: $line"
		cat kafka_mock.log
		return 1
	fi
	kafka_brokers=${line#bootstrap }
}
kafka() {
	echo "$*" >&"${KAFKA[1]}"
	if ! read -r -t 60 kafka_out <&"${KAFKA[0]}"; then
		echo "kafka_mock did not answer: $*"
		return 1
	fi
	[[ $kafka_out == ok* ]] || echo "kafka_mock: $*: $kafka_out"
}
