# `sluice serve` runs the consumer of each postgres_cdc slot beside its
# live runner: a change committed in the source database reaches a live
# CDC model without any command; the status shows the slot; when the
# source ends the replication connection the consumer comes back on its
# own and lands what was committed meanwhile, once. The slot's wal_status
# and safe_wal_size come from the source server (no limit on the test
# server's slots: safe_wal_size null).
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
slot=e2e_cdc_serve
src() { PGOPTIONS="-c client_min_messages=warning" psql "$SRC_PG" -qAtX -v ON_ERROR_STOP=1 "$@"; }
PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt \
	-c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '$slot'" \
	-c "DROP DATABASE IF EXISTS e2e_cdc_serve_src" -c "CREATE DATABASE e2e_cdc_serve_src" >/dev/null 2>&1
export SRC_PG="$SLUICE_TEST_PG dbname=e2e_cdc_serve_src"
src -c "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount NUMERIC(10,2))"
retry "$SLUICE_BIN" run >/dev/null
status() { curl -s "http://127.0.0.1:$serve_port/api/live/status"; }
# waits until n source transactions landed and silver.orders covers them
# (the server holds the DuckDB file: asked through its status)
wait_caught_up() {
	wait_until 20 status_is --argjson n "$1" '(.cdc[0].transactions >= $n) and
		([.models[] | select(.model == "silver.orders") | .covered] | first) >=
		([.sources[] | select(.source == "landing.orders") | .watermark] | first)' ||
		echo "silver.orders did not cover $1 transactions"
}

# wait_streaming: until the server's consumer streams, at most 10 s
wait_streaming() {
	wait_until 10 status_is '.cdc[0].state == "streaming"'
}

serve_start
note the server made the publication and the slot, and streams from it
wait_streaming
# the probe asks the source server of the slot as streaming starts
wait_until 10 status_is '.cdc[0].wal_status != null'
status | jq -c '.cdc[] | {slot, sources, state, failures, wal_status, safe_wal_size}'
"$SLUICE_BIN" live status | grep -A1 "^SLOT" | awk 'NR == 1 { print $1, $2, $7, $8, $9 } NR == 2 { print $1, $2, $6, $7 }'

note changes committed in the source reach the live model with no command, and the watchers hear of each landing
curl -sN --max-time 20 "http://127.0.0.1:$serve_port/api/live/events" >events.txt 2>/dev/null &
events_pid=$!
sleep 0.5
src -c "INSERT INTO orders VALUES (1, 'ann', 10.50), (2, 'bob', 20)"
src -c "UPDATE orders SET amount = 21.25 WHERE id = 2"
wait_caught_up 2
kill $events_pid 2>/dev/null
wait $events_pid 2>/dev/null
grep -A1 '^event: landed' events.txt | sed -n 's/^data: //p' | jq -s -c '{landings: (length > 0), transactions: (map(.transactions) | add), changes: (map(.changes) | add), slot: (.[0].slot)}'
# other cases write WAL on the shared server too, at any rate: between
# transactions the slot confirms past the server's WAL end as it was after
# the last commit, so its lag is bounded by what came after, not by others
server_end=$(src -c "SELECT pg_current_wal_flush_lsn()")
confirmed_past() {
	local c
	c=$(status | jq -r '.cdc[0].confirmed_lsn // empty')
	[ -n "$c" ] && [ "$(src -c "SELECT pg_lsn '$c' >= pg_lsn '$server_end'")" = t ]
}
wait_until 20 confirmed_past
caught_up=false
confirmed_past && caught_up=true
status | jq -c --argjson c $caught_up '.cdc[] | {state, transactions, changes, caught_up: $c}'
note the log file has the refreshes while the server runs
grep -q '^refreshed silver.orders' serve.log && echo "refreshes logged: yes" || echo "refreshes logged: no"

note the source ends the replication connection: the consumer comes back on its own
src -c "SELECT count(*) FROM (SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '$slot' AND active_pid IS NOT NULL) t" >/dev/null
src -c "INSERT INTO orders VALUES (3, 'cy', 30)"
src -c "DELETE FROM orders WHERE id = 1"
wait_caught_up 4
status | jq -c '.cdc[] | {state, failures, transactions}'
grep -c "slot $slot: .*attempt 1" serve.log | sed 's/^/failures logged: /'
grep -c "slot $slot: streaming again" serve.log | sed 's/^/recoveries logged: /'

note a clean stop, then every change landed once and the model equals the source table
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
q "SELECT op, payload FROM landing.orders ORDER BY _sluice_seq, _sluice_pos"
q "SELECT count(*) = count(DISTINCT (lsn, payload)) AS none_twice FROM landing.orders"
src -c "SELECT id, customer, amount FROM orders ORDER BY id" >source.txt
"$SLUICE_BIN" sql "SELECT id || '|' || customer || '|' || amount FROM silver.orders WHERE op <> 'd' ORDER BY id" | tail -n +2 >model.txt
cmp -s source.txt model.txt && echo "silver.orders equals the source table ($(wc -l <source.txt) rows)" || diff source.txt model.txt

note with nothing to land, the consumer the source cut off counts as recovered once it has streamed 5 s
serve_start
wait_streaming
logged=$(wc -l <serve.log)
src -c "SELECT count(*) FROM (SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '$slot' AND active_pid IS NOT NULL) t" >/dev/null
wait_until 5 status_is '.cdc[0].failures == 1'
status | jq -c '.cdc[] | {state, failures}'
# within 10 s (1 s before the attempt, 5 s up): well before the server's
# next keepalive on an idle source, half its wal_sender_timeout away
cut_at=$(date +%s%N)
while [ $(($(date +%s%N) - cut_at)) -lt 10000000000 ]; do
	[ "$(status | jq -r '.cdc[0] | .state + " " + (.failures | tostring)')" = "streaming 0" ] && break
	sleep 0.05
done
status | jq -c '.cdc[] | {state, failures}'
tail -n +$((logged + 1)) serve.log | grep -c "streaming again" | sed 's/^/recoveries logged: /'

note a publication dropped under the server: the consumer fails at the same change on each attempt, and waits longer each time
logged=$(wc -l <serve.log)
src -c "DROP PUBLICATION e2e_cdc_serve" -c "INSERT INTO orders VALUES (4, 'dee', 40)"
# 1 s, then 2 s: a keepalive before the error is no recovery
wait_until 10 grep -q "(attempt 2; again in 2000 ms)$" serve.log
tail -n +$((logged + 1)) serve.log >dropped.log
grep -c "again in" dropped.log | sed 's/^/failures logged: /'
grep -c "streaming again" dropped.log | sed 's/^/recoveries logged: /'
status | jq -c '.cdc[] | {state, failures, last_error: ((.last_error | test("publication \"e2e_cdc_serve\" does not exist")) and (.last_error | test("--resnapshot")))}'
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
