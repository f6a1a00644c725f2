# The disk fills up (ENOSPC) or fails (EIO) under `sluice run` and
# `sluice live --once`: the faultfs shim lets N bytes reach the warehouse's
# files (the database, its WAL or both), then fails the writes, syncs and
# allocations on them (or only the syncs) for good. Each loop lands 5,000
# more events, then runs one of the two commands with the fault: it exits
# with status 3 and says why (or DuckDB aborts, status 134, when it cannot
# undo a failed WAL write), and every model is as it was before or as a
# rebuild from scratch makes it, never in between. The same command
# without the fault then succeeds, and what it refreshed equals the
# rebuild. 8 loops, one line each (SLUICE_SLOW=1: then 40 more drawn at
# random, which print a line only when something is wrong; those may end
# with status 0, when the fault is not reached or meets only the
# checkpoint as the warehouse closes, which DuckDB does not report).
#
# DuckDB only: the shim fails the file calls of the sluice process, and a
# PostgreSQL warehouse's files are written by the server's own processes,
# which it cannot reach (a full or failing disk there is the server's to
# survive, and reaches sluice as a failed statement or a broken
# connection).
faultfs="$SLUICE_TOOLS/faultfs.so"
# the shim is loaded ahead of the sanitizer runtime of a SAN build
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
batch_models="batch.accounts batch.wide live.bronze live.gold"
live_models="live.bronze live.gold"

# COMMAND FILES N ERRNO CALLS per loop: FILES is wal, db or both, CALLS all or sync
plan=(
	"run db 0 ENOSPC all" "run db 2000000 EIO all" "run wal 9000 ENOSPC all"
	"run both 1000000 EIO sync" "live wal 0 ENOSPC all" "live db 0 EIO all"
	"live wal 500 EIO sync" "live both 3000000 EIO all"
)
fixed=${#plan[@]}
if [ -n "${SLUICE_SLOW:-}" ]; then
	for i in $(seq 40); do
		[ $((RANDOM % 2)) -eq 0 ] && cmd=run || cmd=live
		files=$(printf 'wal\ndb\nboth\n' | shuf -n 1)
		if [ $((RANDOM % 2)) -eq 0 ]; then
			e=ENOSPC calls=all n=$((RANDOM * 10))
		else
			e=EIO n=$((RANDOM * 300))
			[ $((RANDOM % 3)) -eq 0 ] && calls=sync || calls=all
		fi
		[ "$files" = wal ] && n=$((n / 100))
		plan+=("$cmd $files $n $e $calls")
	done
fi

# rows TABLE: the table's rows, counted and summed up by their hashes:
# equal for equal multisets of rows
rows() {
	echo "(SELECT count(*) || ':' || sum(hash(t)) FROM $1 t)"
}

# check CONDITION MODEL...: whether CONDITION ("before or rebuilt", or
# "rebuilt") holds for every model, against a.duckdb (the warehouse before
# the faulted command) and b/ (a rebuild from scratch)
check() {
	local what=$1 sql="" m
	shift
	for m in "$@"; do
		if [ "$what" = rebuilt ]; then
			sql="$sql AND $(rows $m) = $(rows b.$m)"
		else
			sql="$sql AND $(rows $m) IN ($(rows a.$m), $(rows b.$m))"
		fi
	done
	"$SLUICE_BIN" sql "ATTACH 'a.duckdb' AS a (READ_ONLY); ATTACH 'b/warehouse.duckdb' AS b (READ_ONLY);
		SELECT true $sql AS ok" | tail -1
}

retry "$SLUICE_BIN" run >/dev/null
"$SLUICE_BIN" sql "INSERT INTO landing.events (id, account, amount)
	SELECT range, range % 500, range % 997 FROM range(1, 150001)" >/dev/null
"$SLUICE_BIN" live advance events >/dev/null
"$SLUICE_BIN" run >/dev/null

loop=0
for step in "${plan[@]}"; do
	read -r cmd files n e calls <<<"$step"
	loop=$((loop + 1))
	case $files in
	wal) match=warehouse.duckdb.wal ;;
	db) match='warehouse.duckdb$' ;;
	*) match=warehouse.duckdb ;;
	esac
	first=$((150000 + (loop - 1) * 5000 + 1))
	"$SLUICE_BIN" sql "INSERT INTO landing.events (id, account, amount)
		SELECT range, range % 500, range % 997 FROM range($first, $((first + 5000)))" >/dev/null
	"$SLUICE_BIN" live advance events >/dev/null
	rm -f a.duckdb a.duckdb.wal
	cp warehouse.duckdb a.duckdb
	[ -f warehouse.duckdb.wal ] && cp warehouse.duckdb.wal a.duckdb.wal
	rm -rf b
	mkdir b
	cp -r sluice.yml models b/
	cp a.duckdb b/warehouse.duckdb
	[ -f a.duckdb.wal ] && cp a.duckdb.wal b/warehouse.duckdb.wal
	"$SLUICE_BIN" run --full-refresh --project b >/dev/null 2>&1 || echo "rebuild failed"
	if [ "$cmd" = run ]; then
		args=(run)
		models=$batch_models
	else
		args=(live --once)
		models=$live_models
	fi
	# (bash reports a command that DuckDB aborted on its standard error)
	{ env LD_PRELOAD="$faultfs" FAULTFS_MATCH="$match" FAULTFS_AFTER=$n FAULTFS_ERRNO=$e \
		FAULTFS_CALLS=$calls FAULTFS_CHECKPOINT=256KB FAULTFS_LOG="$PWD/faults.log" \
		"$SLUICE_BIN" "${args[@]}" >faulted.log 2>&1; } 2>/dev/null
	status=$?
	[ -s faults.log ] && failed=yes || failed=no
	case $status in
	3) grep -q "^sluice $cmd: the warehouse failed a write (" faulted.log ;;
	134) grep -q "^terminate called after throwing an instance of 'duckdb::IOException'" faulted.log ;;
	*) false ;;
	esac && said=yes || said=no
	[ $status = 3 ] || [ $status = 134 ] && status="3 or DuckDB's abort"
	as_before=$(check "before or rebuilt" $batch_models)
	"$SLUICE_BIN" "${args[@]}" >clean.log 2>&1
	again=$?
	rebuilt=$(check rebuilt $models)
	line="loop $loop ($cmd, $files $e $calls at $n): a write failed: $failed, exit $status,"
	line="$line said why: $said; each model as before or as rebuilt: $as_before;"
	line="$line again: exit $again, as rebuilt: $rebuilt"
	outcome="$as_before $again $rebuilt"
	if [ $loop -le $fixed ] || { [ "$said $outcome" != "yes true 0 true" ] &&
		[ "$status $outcome" != "0 true 0 true" ]; }; then
		echo "$line"
	fi
	[ "$again" -eq 0 ] || tail -5 clean.log
	rm -f faults.log
done
