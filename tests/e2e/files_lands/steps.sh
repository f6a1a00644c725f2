# A files source lands each file dropped in its folder once, read by
# DuckDB's own readers: typed columns by the header's names, the whole row
# in payload, the file's name in _sluice_file. Its name and content hash
# are recorded in the transaction that lands its rows, and it moves to the
# archive only after that commit, so that a lander killed at any point and
# started again lands every file once. A changed file lands as a new
# version, a file the reader refuses is said with its name and line while
# the others land, a file still being written waits, and sluice serve
# watches the folder on a thread of its own.
mkdir -p incoming drops
# drop NAME ROWS...: a CSV file of orders as an export writes it, a title
# line above the header, moved into the folder whole
drop() {
	local name=$1
	shift
	{
		echo "Orders export"
		echo "order_id;Amount;day;note"
		printf '%s\n' "$@"
	} >"$name.tmp"
	mv "$name.tmp" "incoming/$name"
}
land() {
	sl files orders --once
}
ledger() {
	q "SELECT path, rows FROM _sluice.landed_files WHERE source = 'landing.orders' ORDER BY path, seq"
}

note two files land once each and move to the archive after their commit
drop day1.csv "1;10.50;03/01/2026;first" "2;4.25;03/01/2026;"
drop day2.csv "3;7.00;04/01/2026;rush"
land
q "SELECT order_id, amount, day, payload, _sluice_file FROM landing.orders ORDER BY order_id"
ls incoming archive
ledger

note nothing new lands nothing
land

note a live model downstream refreshes
sl live --once
q "SELECT day, lines, amount FROM silver.order_days ORDER BY day"

note a changed file under a landed name lands as a new version
drop day1.csv "1;11.00;03/01/2026;corrected" "2;4.25;03/01/2026;"
land
ls archive
ledger

note a file the reader refuses lands nothing and is said with its name and line while the others land
drop bad.csv "4;1.00;05/01/2026;" "5;lots;05/01/2026;"
drop day3.csv "6;2.00;05/01/2026;"
land
q "SELECT count(*) AS bad_rows FROM landing.orders WHERE _sluice_file = 'incoming/bad.csv'"
ls incoming

note a link that leads out of the folder is not read
rm incoming/bad.csv
echo "order_id;Amount;day;note" >secret.csv
ln -s ../secret.csv incoming/secret.csv
land
rm incoming/secret.csv

note a file still being written waits until it settled
(
	drop slow.csv "7;1.00;06/01/2026;"
	for i in $(seq 8 40); do
		echo "$i;1.00;06/01/2026;" >>incoming/slow.csv
		sleep 0.1
	done
) &
writer=$!
wait_until 10 test -f incoming/slow.csv
land
wait $writer
land

note JSON lines and Parquet files of a folder land too, every value in payload
printf '%s\n' '{"user_id": 3, "page": "home"}' '{"user_id": 4, "page": "pay", "coupon": true}' >drops/a.ndjson
echo '[{"user_id": 5, "page": "help"}]' >drops/b.json
cp data/clicks.parquet drops/
echo "not json" >drops/c.json
sl files events --once
q "SELECT _sluice_file, payload FROM landing.events ORDER BY _sluice_file, payload::VARCHAR"

note sluice serve watches the folder, lists the source in its status and refreshes the live model
serve_start
drop day4.csv "50;5.00;07/01/2026;"
files_landed() { curl -s "http://127.0.0.1:$serve_port/api/live/status" | jq -e '.files[0].files == 1' >/dev/null; }
wait_until 20 files_landed
curl -s "http://127.0.0.1:$serve_port/api/live/status" | jq -c '.files[0] | {source, path, state, files, rows, last_file}'
refreshed() { "$SLUICE_BIN" sql "SELECT lines FROM silver.order_days WHERE day = DATE '2026-01-07'" | grep -qx 1; }
wait_until 20 refreshed
kill -TERM $serve_pid
wait $serve_pid
echo "serve exit $?"
q "SELECT day, lines, amount FROM silver.order_days WHERE day = DATE '2026-01-07'"

note killed with kill -9 at random points and started again: every file once
for round in 1 2 3 4 5 6; do
	for f in 1 2 3 4 5; do
		rows=()
		for r in $(seq 1 20); do
			rows+=("$((round * 1000 + f * 100 + r));1.00;08/01/2026;")
		done
		drop "k$round-$f.csv" "${rows[@]}"
	done
	"$SLUICE_BIN" files orders >lander.log 2>&1 &
	pid=$!
	sleep 0.$((RANDOM % 9 + 1))
	kill -9 $pid
	wait $pid 2>/dev/null
done
"$SLUICE_BIN" files orders --once >/dev/null 2>&1
echo "files left in incoming: $(ls incoming | wc -l)"
echo "files in the archive: $(ls archive | grep -c '^k')"
q "SELECT count(*) AS rows, count(DISTINCT order_id) AS orders, count(DISTINCT _sluice_file) AS files FROM landing.orders WHERE _sluice_file LIKE 'incoming/k%'"
q "SELECT count(*) AS ledger_rows, sum(rows) AS rows FROM _sluice.landed_files WHERE path LIKE 'incoming/k%'"
