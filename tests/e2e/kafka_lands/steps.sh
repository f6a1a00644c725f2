# A kafka source lands each message of its topic once: typed columns from
# JSON values, key, headers, partition and offset; the offsets kept in the
# warehouse in the landing transaction, so that a consumer killed at any
# point and started again lands nothing twice and loses nothing; sluice
# serve runs the consumer on a thread of its own. What would lose
# messages in silence is an error that names them.
kafka_start
sed -i "s/KAFKA_BROKERS/$kafka_brokers/" sluice.yml
# land NAME: sluice kafka NAME --once, how the messages were cut into
# batches (what came within 100 ms of each other) left out
land() {
	sl kafka "$1" --once | sed -E 's/in [0-9]+ batch(es)?, last at sequence [0-9]+/in <n> batches/'
}
kafka topic clicks 3
kafka send clicks 0 k1 %7B%22user_id%22%3A1%2C%22url%22%3A%22%2Fa%22%7D 1767225600000 trace=t1
kafka send clicks 0 - plain%20text
kafka send clicks 0 k3 -
kafka sendmany clicks 1 40 u
kafka sendmany clicks 2 25 v
land clicks
q "SELECT _sluice_partition, count(*), min(_sluice_offset), max(_sluice_offset) FROM landing.clicks GROUP BY 1 ORDER BY 1"
q "SELECT user_id, url, payload, _sluice_key, _sluice_headers, _sluice_event_ts FROM landing.clicks WHERE _sluice_partition = 0 ORDER BY _sluice_offset"
note nothing new lands nothing
land clicks
note sluice serve runs a consumer per kafka source and lists it in the status
serve_start
kafka sendmany clicks 2 5 s
kafka_landed() { curl -s "http://127.0.0.1:$serve_port/api/live/status" | jq -e '.kafka[0].messages == 5' >/dev/null; }
wait_until 20 kafka_landed
curl -s "http://127.0.0.1:$serve_port/api/live/status" | jq -c '.kafka[0] | {source, topic, state, messages, failures, offsets}'
kill -TERM $serve_pid
wait $serve_pid
echo "serve exit $?"
note killed with kill -9 while messages keep coming, started again each time: every message once
for round in 1 2 3 4 5 6; do
	kafka sendmany clicks $((round % 3)) 300 r$round
	"$SLUICE_BIN" kafka clicks >kafka.log 2>&1 &
	pid=$!
	sleep 0.$((RANDOM % 6 + 1))
	kill -9 $pid
	wait $pid 2>/dev/null
done
sl kafka clicks --once >/dev/null
q "SELECT count(*), count(DISTINCT (_sluice_partition, _sluice_offset)) FROM landing.clicks"
sl run
q "SELECT sum(clicks), sum(messages) FROM silver.clicks_by_user"
note offsets stored past a partition end: the topic was made again
q "UPDATE _sluice.live_sources SET cursor = '0:3,1:9999,2:2' WHERE source = 'landing.clicks'"
land clicks
note the deliberate way on: offsets reset, the bad ones refused first
sl kafka clicks --reset 1:99999
sl kafka clicks --reset 7:0
sl kafka clicks --reset soon
sl kafka clicks --reset 0:1,2:4
land clicks
q "SELECT count(*), count(DISTINCT (_sluice_partition, _sluice_offset)) FROM landing.clicks"
sl kafka clicks --reset latest
land clicks
note Debezium change events through Kafka, applied by a CDC model
kafka topic dbserver.public.customers 1
kafka send dbserver.public.customers 0 %7B%22id%22%3A1%7D %7B%22before%22%3Anull%2C%22after%22%3A%7B%22id%22%3A1%2C%22name%22%3A%22Ann%22%7D%2C%22op%22%3A%22c%22%7D
kafka send dbserver.public.customers 0 %7B%22id%22%3A2%7D %7B%22before%22%3Anull%2C%22after%22%3A%7B%22id%22%3A2%2C%22name%22%3A%22Bob%22%7D%2C%22op%22%3A%22r%22%7D
kafka send dbserver.public.customers 0 %7B%22id%22%3A1%7D %7B%22schema%22%3A%7B%7D%2C%22payload%22%3A%7B%22before%22%3A%7B%22id%22%3A1%7D%2C%22after%22%3A%7B%22id%22%3A1%2C%22name%22%3A%22Anna%22%7D%2C%22op%22%3A%22u%22%7D%7D
kafka send dbserver.public.customers 0 %7B%22id%22%3A2%7D %7B%22before%22%3A%7B%22id%22%3A2%7D%2C%22after%22%3Anull%2C%22op%22%3A%22d%22%7D
kafka send dbserver.public.customers 0 %7B%22id%22%3A2%7D -
land customers
q "SELECT id, _sluice_op, _sluice_offset FROM landing.customers ORDER BY _sluice_offset"
sl run -s silver.customers
q "SELECT id, name FROM silver.customers ORDER BY id"
note a value that is no change event stops the landing with its place
kafka send dbserver.public.customers 0 %7B%22id%22%3A3%7D %7B%22id%22%3A3%7D
land customers
