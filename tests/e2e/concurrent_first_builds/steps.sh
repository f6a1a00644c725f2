# Several `sluice run` and live runners start at once on a new warehouse,
# whose first build makes every schema, table and state row: a temporal append model of 480
# windows, a table, an incremental model, a live model and a seed. Every
# process finishes, each window is applied by one of them and once, none
# is marked failed, and every table equals a build by one process alone.
# A DuckDB file is held by one process: there, the others are refused with
# a clear error and change nothing.
if is_postgres; then
	hours="generate_series(0, 479) AS t(i)" hour="i * INTERVAL '1 hour'"
else
	hours="range(0, 480) t(i)" hour="INTERVAL (i) HOUR"
fi
export SLUICE_NOW='2026-11-01 00:00'

# new_warehouse NAME: an empty warehouse with the raw events in it
new_warehouse() {
	if is_postgres; then
		own_warehouse "$1"
	else
		rm -f warehouse.duckdb warehouse.duckdb.wal
	fi
	"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events AS
		SELECT TIMESTAMP '2026-10-01' + $hour AS ts, i AS id FROM $hours" >/dev/null
}

# race N: N runs at once, on PostgreSQL with two `sluice live --once` and
# a `sluice live` that start with them (stopped once the others are done;
# a DuckDB file is held by one process, and runners waiting for it could
# leave every run refused); what each came to, and the state they left
race() {
	local n=$1 i pids=() ok=0 refused=0 other=0 built=0
	for i in $(seq "$n"); do
		"$SLUICE_BIN" run >"race${#pids[@]}.log" 2>&1 &
		pids+=($!)
	done
	if is_postgres; then
		for i in 1 2; do
			"$SLUICE_BIN" live --once >"race${#pids[@]}.log" 2>&1 &
			pids+=($!)
		done
		"$SLUICE_BIN" live >"race${#pids[@]}.log" 2>&1 &
		pids+=($!)
	fi
	n=${#pids[@]}
	for i in $(seq 0 $((n - 1))); do
		# the runner that keeps running is the last, stopped once the others are done
		[ $i = $((n - 1)) ] && is_postgres && kill -TERM "${pids[$i]}"
		if wait "${pids[$i]}"; then
			ok=$((ok + 1))
		elif grep -q "is locked by another process" "race$i.log"; then
			refused=$((refused + 1))
		else
			other=$((other + 1))
			cat "race$i.log"
		fi
	done
	# on PostgreSQL every process finishes; on DuckDB one at least
	if is_postgres; then
		echo "every process exited 0: $([ $ok = "$n" ] && echo yes || echo "no, $ok of $n")"
	else
		echo "one process or more exited 0, the others were refused the locked file:" \
			"$([ $ok -ge 1 ] && [ $((ok + refused)) = "$n" ] && echo yes || echo no)"
	fi
	echo "errors in the output: $(cat race*.log | grep -v "Could not set lock" |
		grep -ciE 'error|already exists|duplicate key|^ +[0-9]+/[0-9]+ +FAIL|[1-9][0-9]* failed')"
	for i in $(seq 0 $((n - 1))); do
		built=$((built + $(sed -nE 's/.*hist\.hourly .* ([0-9]+) windows? .*/\1/p' "race$i.log" |
			head -1 | grep . || echo 0)))
	done
	echo "windows built, all processes together: $built"
	rm -f race*.log
	q "SELECT status, count(*) AS windows FROM _sluice.windows WHERE model = 'hist.hourly' GROUP BY status"
	q "SELECT count(*) AS rows, count(DISTINCT id) AS ids FROM hist.hourly"
	same_as_rebuild hist.hourly silver.daily silver.labelled lv.bronze seeds.kinds
}

# a DuckDB file admits one process: two rounds show the others refused
rounds="2 3 4 4"
is_postgres || rounds="2 4"
round=0
for n in $rounds; do
	round=$((round + 1))
	note round $round: $n runs at once on a new warehouse$(is_postgres && echo ", and three live runners")
	new_warehouse "r$round"
	race "$n"
done

note a run after them finds nothing left to do
sl run

if ! is_postgres; then
	note a run while another process holds the DuckDB file is refused, and changes nothing
	warehouse_saved before.sum
	hold_warehouse warehouse.duckdb
	sl run 2>&1 | sed -E 's/held in [^ ]+ \(PID [0-9]+\)/held in <holder>/; s#/[^ ]*/(warehouse\.duckdb)#.../\1#g'
	release_warehouse
	warehouse_unchanged before.sum
fi
