# kill -9 the runner at random moments while another process lands and
# announces batches; after a restart everything equals a rebuild from
# scratch and no row was applied twice, and the models sluice maintains
# (counted and regroup) equal their queries. It is killed at least 20 times
# over 15 batches (SLUICE_SLOW=1: 50 times over 100 batches).
if [ -n "${SLUICE_SLOW:-}" ]; then
	commits=100 want=50
else
	commits=15 want=20
fi
retry "$SLUICE_BIN" run >/dev/null
(
	for i in $(seq 1 $commits); do
		region=eu
		[ $((i % 3)) -eq 0 ] && region=us
		retry "$SLUICE_BIN" sql "INSERT INTO landing.orders (order_id, amount, region) VALUES ($((i % 50)), $i, '$region'), ($((i % 50 + 100)), 1, 'apac')" >/dev/null
		retry "$SLUICE_BIN" live advance orders >/dev/null
	done
	touch writer.done
) &
kills=0
while [ ! -f writer.done ] || [ $kills -lt $want ]; do
	"$SLUICE_BIN" live >>runner.log 2>&1 &
	pid=$!
	sleep 0.$((RANDOM % 6 + 1))
	# count only the kills that found the runner still running
	kill -9 $pid 2>/dev/null && kills=$((kills + 1))
	wait $pid 2>/dev/null
done
wait
[ $kills -ge $want ] && echo "runner killed with SIGKILL as often as asked"
retry "$SLUICE_BIN" live --once >/dev/null
sl live --once
"$SLUICE_BIN" sql "SELECT count(*) = 2 * $commits AS all_landed, count(DISTINCT _sluice_seq) = $commits AS one_sequence_per_batch FROM landing.orders"
"$SLUICE_BIN" sql "SELECT count(*) = (SELECT count(*) FROM landing.orders) AS each_row_logged_once, count(*) = count(DISTINCT (order_id, _sluice_seq)) AS none_twice FROM silver.log"
same_as_rebuild silver.orders silver.log gold.revenue gold.kept gold.spread
"$SLUICE_BIN" sql "SELECT count(*) AS negative_counts FROM _sluice.groups__gold__kept WHERE _sluice_n < 0"
