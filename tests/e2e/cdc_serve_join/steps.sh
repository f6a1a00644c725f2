# One source transaction that changes two tables of one slot lands in one
# warehouse transaction, with one sequence across both landing tables, so
# a live model joining the two never sees half of it. Under `sluice serve`
# a generator commits transactions that each add an order and its lines,
# raise a line of the order before and the order's total alike, and drop
# a line of the one before that and lower its total alike: an order's
# total always equals the sum of its lines. gold.order_check joins the two
# live CDC models; gold.order_history appends every version of an order it
# held. No version may break the rule: the landing gate keeps each
# runner's cycle from reading a transaction one silver model has and the
# other has not.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
# the run on a PostgreSQL warehouse has a slot and a source database of its own
! is_postgres || sed -i 's/e2e_cdc_serve_join/e2e_cdc_serve_join_pg/g' sluice.yml
slot=e2e_cdc_serve_join$(is_postgres && echo _pg)
cdc_source "${slot}_src" "$slot"
src -c "CREATE TABLE orders (id integer PRIMARY KEY, total integer NOT NULL)" \
	-c "CREATE TABLE order_items (order_id integer, line integer, amount integer NOT NULL, PRIMARY KEY (order_id, line))"
retry "$SLUICE_BIN" run >/dev/null
status() { curl -s "http://127.0.0.1:$serve_port/api/live/status"; }
# waits until the consumer landed $1 transactions and every live model
# covers all that landed
wait_caught_up() {
	wait_until 60 status_is --argjson n "$1" \
		'([.sources[].watermark] | max) as $w | .cdc[0].transactions >= $n and $w > 0 and all(.models[]; .covered >= $w)' &&
		return 0
	echo "the live models did not catch up"
	status | jq -c '{sources: [.sources[] | {source, watermark}], models: [.models[] | {model, covered}]}'
}

serve_start
wait_until 10 status_is '.cdc[0].state == "streaming"'

note a generator commits 400 transactions across both tables while the server lands and refreshes
gen=400
(
	for ((k = 1; k <= gen; k++)); do
		echo "BEGIN;"
		echo "INSERT INTO orders VALUES ($k, 6);"
		echo "INSERT INTO order_items VALUES ($k, 1, 1), ($k, 2, 2), ($k, 3, 3);"
		echo "UPDATE order_items SET amount = amount + 10 WHERE order_id = $((k - 1)) AND line = 1;"
		echo "UPDATE orders SET total = total + 10 WHERE id = $((k - 1));"
		echo "DELETE FROM order_items WHERE order_id = $((k - 2)) AND line = 2;"
		echo "UPDATE orders SET total = total - 2 WHERE id = $((k - 2));"
		echo "COMMIT;"
		[ $((k % 4)) -ne 0 ] || echo "SELECT pg_sleep(0.01);"
	done
) | src >/dev/null
wait_caught_up $gen
status | jq -c '.cdc[] | {state, failures, transactions, changes}'
status | jq -r '.models[] | select(.failures > 0) | "\(.model) failed \(.failures) times"'
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"

note one sequence per source transaction across both landing tables
q "SELECT count(*) AS transactions, count(*) FILTER (WHERE tables = 2) AS in_both, max(seqs) AS sequences_per_transaction FROM (SELECT lsn, count(DISTINCT t) AS tables, count(DISTINCT _sluice_seq) AS seqs FROM (SELECT 'o' AS t, _sluice_seq, lsn FROM landing.orders UNION ALL SELECT 'i', _sluice_seq, lsn FROM landing.items) AS u GROUP BY lsn) AS g"

note no version of an order gold.order_check held breaks the rule
q "SELECT count(*) > $gen AS versions_beyond_one_per_order, count(DISTINCT _sluice_seq) > 1 AS refreshed_many_times, count(*) FILTER (WHERE total <> lines_total) AS broken FROM gold.order_history"
q "SELECT id, total, lines_total, _sluice_seq FROM gold.order_history WHERE total <> lines_total ORDER BY _sluice_seq, id LIMIT 5"

note the live models equal the source tables
src -c "SELECT o.id || ',' || o.total || ',' || coalesce(sum(i.amount), 0) FROM orders o LEFT JOIN order_items i ON i.order_id = o.id GROUP BY o.id, o.total ORDER BY o.id" >source.txt
"$SLUICE_BIN" sql --json "SELECT id, total, lines_total FROM gold.order_check ORDER BY id" | jq -r '.[] | "\(.id),\(.total),\(.lines_total)"' >model.txt
diff source.txt model.txt >/dev/null && echo "gold.order_check equals the source tables ($(wc -l <source.txt) orders)" || diff source.txt model.txt | head
src -c "SELECT order_id || ',' || line || ',' || amount FROM order_items ORDER BY order_id, line" >source.txt
"$SLUICE_BIN" sql --json "SELECT order_id, line, amount FROM silver.items WHERE NOT _sluice_deleted ORDER BY order_id, line" | jq -r '.[] | "\(.order_id),\(.line),\(.amount)"' >model.txt
diff source.txt model.txt >/dev/null && echo "silver.items equals the source table ($(wc -l <source.txt) lines)" || diff source.txt model.txt | head
