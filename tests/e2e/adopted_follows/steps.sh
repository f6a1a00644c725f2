# An adopted source is a table someone else writes, followed by its
# cursor column: live models read it by the cursor, in `sluice live` and
# `sluice serve`, with no advance and without sluice adding a column to
# it or writing to it; a row committed below what the live models read is
# counted and reported as late; a timestamp cursor works the same; a
# runner killed with SIGKILL while the writer inserts leaves every live
# model equal to a rebuild; and a replay of a table whose writer repeated
# Kafka messages reads each partition and offset once.
cols() { q "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'raw' ORDER BY table_name, ordinal_position"; }
sources() {
	echo '$ sluice live status --json: the sources'
	"$SLUICE_BIN" live status --json | jq -c '.sources[] | {source, adopted, cursor, rows, late_rows}' | normalize
}
sources_text() {
	echo '$ sluice live status: the sources'
	"$SLUICE_BIN" live status | sed -n '/^SOURCE/,$p' | normalize
}

note an external writer makes and fills tables sluice did not make
"$SLUICE_BIN" sql "CREATE SCHEMA raw;
  CREATE TABLE raw.events (id BIGINT, kind VARCHAR, amount BIGINT);
  INSERT INTO raw.events VALUES (1, 'a', 10), (2, 'b', 20), (3, 'a', 30);
  CREATE TABLE raw.readings (sensor VARCHAR, taken_at TIMESTAMP, value INTEGER);
  INSERT INTO raw.readings VALUES ('s1', '2026-03-01 10:00:00.25', 1), ('s2', '2026-03-01 10:00:01', 2);
  CREATE TABLE raw.orders (id BIGINT, region VARCHAR, amount BIGINT);
  CREATE TABLE raw.clicks (part INTEGER, pos BIGINT, id BIGINT, page VARCHAR)" >/dev/null
cols
sl validate

note the first refresh reads every row, and each model consumed the highest cursor it read
sl live --once
q "SELECT id, kind, amount FROM silver.events ORDER BY id"
q "SELECT model, input FROM _sluice.live_consumed ORDER BY model, input"
sources

note rows the writer adds are found by the cursor, with no advance
"$SLUICE_BIN" sql "INSERT INTO raw.events VALUES (4, 'b', 40), (5, 'a', 50)" >/dev/null
sl live --once
q "SELECT id FROM silver.events ORDER BY id"

note the adopted tables got no column of sluice
cols

note a row committed below what was read is skipped by the live models, counted and reported as late
"$SLUICE_BIN" sql "INSERT INTO raw.events VALUES (2, 'late', 99), (6, 'b', 60)" >/dev/null
sl live --once
q "SELECT id, kind FROM silver.events ORDER BY id"
sources_text
sources

note a timestamp cursor, rendered as a timestamp literal
"$SLUICE_BIN" sql "INSERT INTO raw.readings VALUES ('s1', '2026-03-01 10:05:00', 3), ('s3', '2026-03-01 09:00:00', 9)" >/dev/null
sl live --once
q "SELECT sensor, CAST(taken_at AS VARCHAR) AS taken_at, value FROM silver.readings ORDER BY sensor"
sources
note compile renders the cursor as a build would: a literal of its type
"$SLUICE_BIN" compile silver.readings

note an advance of an adopted source reads its highest cursor and writes nothing
sl live advance events
sl live advance raw.readings
cols

note sluice serve picks up new rows by itself
# a DuckDB file is the server's while it runs: its writer wrote before
more_events() { "$SLUICE_BIN" sql "INSERT INTO raw.events VALUES (7, 'a', 70), (8, 'a', 80)" >/dev/null; }
is_postgres || more_events
serve_start
status() { curl -s "http://127.0.0.1:$serve_port/api/live/status"; }
events() { "$SLUICE_BIN" sql "SELECT count(*) AS n FROM silver.events" | tail -1; }
! is_postgres || more_events
wait_until 20 prints 8 events
echo "rows in silver.events: $(events)"
curl -s -X POST "http://127.0.0.1:$serve_port/api/live/sources/events/advance"
echo
# the runner writes its books of the source every poll_interval
wait_until 20 status_is '.sources[] | select(.adopted == "events") | .late_rows == 1' ||
	echo "the late row was not counted"
status | jq -c '.sources[] | select(.adopted == "events") | {source, late_rows}'
kill -TERM $serve_pid
wait $serve_pid
echo "serve exit $?"

note killed with kill -9 at random moments while the writer inserts, every live model equals a rebuild
(
	for i in $(seq 1 15); do
		region=eu
		[ $((i % 3)) -eq 0 ] && region=us
		retry "$SLUICE_BIN" sql "INSERT INTO raw.orders VALUES ($((2 * i)), '$region', $i), ($((2 * i + 1)), 'apac', 1)" >/dev/null
	done
	touch writer.done
) &
kills=0
while [ ! -f writer.done ] || [ $kills -lt 20 ]; do
	"$SLUICE_BIN" live >>runner.log 2>&1 &
	pid=$!
	sleep 0.$((RANDOM % 6 + 1))
	# count only the kills that found the runner still running
	kill -9 $pid 2>/dev/null && kills=$((kills + 1))
	wait $pid 2>/dev/null
done
wait
[ $kills -ge 20 ] && echo "runner killed with SIGKILL as often as asked"
retry "$SLUICE_BIN" live --once >/dev/null
sl live --once
q "SELECT count(*) AS orders, count(DISTINCT id) AS ids FROM silver.orders"
same_as_rebuild silver.orders gold.revenue

note a replay reads each repeated partition and offset of an adopted table once
"$SLUICE_BIN" sql "INSERT INTO raw.clicks VALUES (0, 1, 1, 'home'), (0, 2, 2, 'cart'), (1, 1, 3, 'home'), (0, 2, 4, 'cart'), (1, 1, 5, 'home'), (1, 2, 6, 'pay')" >/dev/null
sl live --once
q "SELECT count(*) AS clicks FROM silver.clicks"
sl replay silver.clicks | sed -E 's/\(run [0-9]+\)/(run <n>)/'
q "SELECT part, pos, count(*) AS copies FROM silver.clicks GROUP BY part, pos ORDER BY part, pos"
q "SELECT model, source, mode, part, low, high FROM _sluice.replay_boundaries ORDER BY part, model"
note and live goes on from the replay
"$SLUICE_BIN" sql "INSERT INTO raw.clicks VALUES (1, 3, 7, 'done')" >/dev/null
sl live --once
q "SELECT count(*) AS clicks FROM silver.clicks"
