# The disk fills up (ENOSPC) or fails (EIO) under `sluice serve` while a
# load generator posts webhook events over 16 connections: the faultfs
# shim lets N bytes reach the warehouse's files, then fails the writes,
# syncs and allocations on them (or only the syncs) for a second, and the
# disk works again. Each loop picks the files (the database, its WAL, or
# both), N and the calls, so that the failure meets the writer's commits,
# their syncs, the checkpoints that DuckDB runs every 256 KB of WAL here,
# and the runner's refreshes.
#
# The server must stop at once, with status 3 and its message (or DuckDB's
# own abort, status 134, when DuckDB cannot undo a failed WAL write), and
# write nothing once the disk works again (the shim notes it if it does);
# started again without the fault, as a supervisor would, it takes the
# load generator's retries (same delivery ids). After each loop: every
# acknowledged event is in landing exactly once, nothing else is, no
# request answered 5xx had landed, every advance on record has exactly its
# rows. At the end the live chain equals a rebuild from scratch. 10 loops
# of 1,500 events, one line each (SLUICE_SLOW=1: then 40 more drawn at
# random, which print a line only when something is wrong).
#
# DuckDB only: the shim fails the file calls of the sluice process, and a
# PostgreSQL warehouse's files are written by the server's own processes,
# which it cannot reach (a full or failing disk there is the server's to
# survive, and reaches sluice as a failed statement or a broken
# connection).
faultfs="$SLUICE_TOOLS/faultfs.so"
events=1500
export SERVE_TOKEN=t0ken
# the shim is loaded ahead of the sanitizer runtime of a SAN build
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# FILES N ERRNO CALLS per loop: FILES is wal, db or both, CALLS all or sync
# (a full disk counts only the space a file grows by, and once the
# database has free blocks it may not grow at all in a loop: its ENOSPC
# loop is the first, while the fresh database grows by megabytes)
plan=(
	"db 300007 ENOSPC all" "wal 9001 EIO all" "wal 60013 ENOSPC all" "wal 30011 EIO sync"
	"db 0 EIO all" "wal 0 ENOSPC all" "db 600011 EIO all" "db 1000003 EIO sync"
	"both 150011 ENOSPC all" "both 4100009 EIO all"
)
fixed=${#plan[@]}
if [ -n "${SLUICE_SLOW:-}" ]; then
	for i in $(seq 40); do
		files=$(printf 'wal\ndb\nboth\n' | shuf -n 1)
		if [ $((RANDOM % 2)) -eq 0 ]; then
			e=ENOSPC calls=all n=$((RANDOM * 30))
		else
			e=EIO n=$((RANDOM * 150))
			[ $((RANDOM % 3)) -eq 0 ] && calls=sync || calls=all
		fi
		[ "$files" = wal ] && n=$((n / 40))
		plan+=("$files $n $e $calls")
	done
fi

retry "$SLUICE_BIN" run >/dev/null

# serve_wait: waits for the server to exit, at most 10 s, or for the load
# to end (a server that answered all of it did not meet the fault); sets
# $serve_status (or "running": it is then killed)
serve_or_load_gone() { gone $serve_pid || gone $load; }
serve_wait() {
	wait_until 10 serve_or_load_gone
	if kill -0 $serve_pid 2>/dev/null; then
		serve_status=running
		kill -9 $serve_pid
		wait $serve_pid 2>/dev/null
	else
		wait $serve_pid 2>/dev/null
		serve_status=$?
	fi
}

# said_why: whether the server that stopped said why, in serve.log
said_why() {
	case $serve_status in
	3) grep -q "^sluice serve: the warehouse failed a write (.*); exiting so that it is reopened from what is on disk: every acknowledged batch is there$" serve.log ;;
	134) grep -q "^terminate called after throwing an instance of 'duckdb::IOException'" serve.log ;;
	*) false ;;
	esac
}

loop=0
for step in "${plan[@]}"; do
	read -r files n e calls <<<"$step"
	loop=$((loop + 1))
	case $files in
	wal) match=warehouse.duckdb.wal ;;
	db) match='warehouse.duckdb$' ;;
	*) match=warehouse.duckdb ;;
	esac
	rm -f faults.log
	: >serve.log
	serve_start LD_PRELOAD="$faultfs" FAULTFS_MATCH="$match" FAULTFS_AFTER=$n FAULTFS_ERRNO=$e \
		FAULTFS_CALLS=$calls FAULTFS_FOR_MS=1000 FAULTFS_CHECKPOINT=256KB FAULTFS_LOG="$PWD/faults.log"
	"$SLUICE_TOOLS/post_load" --server-file .sluice/server.json --source events \
		--token "$SERVE_TOKEN" --events $events --first-id $(((loop - 1) * events + 1)) \
		--batch 5 --conns 16 --rate 3000 --accounts 50 --deadline 30 --acked acked_$loop.txt \
		>load.log 2>&1 &
	load=$!
	# (bash reports a server that DuckDB aborted on its standard error)
	serve_wait 2>/dev/null
	said_why && said=yes || said=no
	[ -s faults.log ] && failed=yes || failed=no
	grep -q "after the fault" faults.log 2>/dev/null && went_on=yes || went_on=no
	[ "$serve_status" = 134 ] && serve_status="3 or DuckDB's abort"
	[ "$serve_status" = 3 ] && serve_status="3 or DuckDB's abort"
	serve_start
	wait $load
	load_status=$?
	kill -TERM $serve_pid
	wait $serve_pid
	restarted_status=$?
	cat acked_*.txt >acked.txt
	held=$("$SLUICE_BIN" sql "CREATE TEMP TABLE acked AS SELECT * FROM read_csv('acked.txt', header = false, columns = {'id': 'BIGINT'});
		SELECT 'every acknowledged event landed once: ' ||
		   ((SELECT count(*) = $((loop * events)) AND count(*) = count(DISTINCT id) FROM acked)
		   AND (SELECT count(*) FILTER (WHERE n <> 1) = 0 FROM (SELECT a.id, count(l.id) AS n FROM acked a LEFT JOIN landing.events l USING (id) GROUP BY a.id))
		   AND (SELECT count(*) = count(DISTINCT id) AND count(*) FILTER (WHERE id NOT IN (SELECT id FROM acked)) = 0 FROM landing.events)
		   AND (SELECT count(*) FILTER (WHERE _sluice_seq IS NULL) = 0 FROM landing.events)
		   AND (SELECT count(*) = $((loop * events / 5)) FROM _sluice.deliveries)) ||
		   ', every advance has its rows: ' ||
		 (SELECT count(*) = 0 FROM _sluice.live_advances a
		  WHERE rows <> (SELECT count(*) FROM landing.events l WHERE l._sluice_seq = a.seq)) AS held" |
		tail -1)
	line="loop $loop ($files $e $calls at $n): a write failed: $failed, server exit $serve_status,"
	line="$line said why: $said, went on after the fault: $went_on; load exit $load_status,"
	line="$line restarted server exit $restarted_status; $held"
	outcome="$failed $said $went_on $load_status $restarted_status $held"
	# a loop drawn at random may not reach its fault before the load ends
	good="0 0 every acknowledged event landed once: true, every advance has its rows: true"
	if [ $loop -le $fixed ] || { [ "$outcome" != "yes yes no $good" ] &&
		[ "$outcome $serve_status" != "no no no $good running" ]; }; then
		echo "$line"
	fi
	[ "$load_status" -eq 0 ] || tail -2 load.log
done

note "the live chain catches up and equals a rebuild"
retry "$SLUICE_BIN" live --once >/dev/null
sl live --once
"$SLUICE_BIN" sql "SELECT count(*) = (SELECT count(*) FROM landing.events) AS bronze_applied_each_once,
	count(*) = count(DISTINCT id) AS none_twice_in_bronze FROM bronze.events"
same_as_rebuild bronze.events silver.events gold.accounts
