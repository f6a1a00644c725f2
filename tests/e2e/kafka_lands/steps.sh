# A kafka source lands each message of its topic once: typed columns from
# JSON values, key, headers, partition and offset; the offsets kept in the
# warehouse in the landing transaction, so that a consumer killed at any
# point and started again lands nothing twice and loses nothing; sluice
# serve runs the consumer on a thread of its own. What would lose
# messages in silence is an error that names them. A source of two topics
# keeps offsets per topic and partition, its client settings passed
# through. On PostgreSQL, two servers on one warehouse: one consumes, the
# other stands by and takes over when the first dies, every message once.
kafka_start
sed -i "s/KAFKA_BROKERS/$kafka_brokers/" sluice.yml
# land NAME: sluice kafka NAME --once, how the messages were cut into
# batches (what came within 100 ms of each other) left out
land() {
	sl kafka "$1" --once | sed -E 's/in [0-9]+ batch(es)?, last at sequence [0-9]+/in <n> batches/'
}
kafka topic clicks 3
kafka topic feed_a 2
kafka topic feed_b 3
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
curl -s "http://127.0.0.1:$serve_port/api/live/status" | jq -c '.kafka[0] | {source, topics, state, messages, failures, offsets}'
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
note a source of two topics, its client settings passed through, killed with kill -9 again and again: every message of both once
for round in 1 2 3 4; do
	kafka sendmany feed_a $((round % 2)) 200 a$round
	kafka sendmany feed_b $((round % 3)) 200 b$round
	"$SLUICE_BIN" kafka feed >kafka.log 2>&1 &
	pid=$!
	sleep 0.$((RANDOM % 6 + 1))
	kill -9 $pid
	wait $pid 2>/dev/null
done
sl kafka feed --once >/dev/null
q "SELECT _sluice_topic, count(*), count(DISTINCT (_sluice_partition, _sluice_offset)) FROM landing.feed GROUP BY 1 ORDER BY 1"
q "SELECT cursor FROM _sluice.live_sources WHERE source = 'landing.feed'"
note a client setting sluice makes itself, or one librdkafka refuses, is refused with its line
cp sluice.yml sluice.yml.keep
printf '  odd:\n    kind: kafka\n    brokers: "%s"\n    topic: feed_a\n    properties:\n      group.id: mine\n' "$kafka_brokers" >odd.yml
sed -i '/^sources:/r odd.yml' sluice.yml
sl kafka odd --once
sed -i 's/group.id: mine/fetch.wait.max.ms: soon/' sluice.yml
sl kafka odd --once
mv sluice.yml.keep sluice.yml
if is_postgres; then
	note two servers on one warehouse: one consumes each source, the other stands by
	mkdir ../second
	cp -r sluice.yml models ../second/
	serve_start
	first_pid=$serve_pid first_port=$serve_port
	cd ../second || exit 1
	serve_start
	second_pid=$serve_pid second_port=$serve_port
	cd - >/dev/null || exit 1
	feed_state() { curl -s "http://127.0.0.1:$1/api/live/status" | jq -r '.kafka[] | select(.source == "feed") | .state'; }
	both_settled() { [ "$( (feed_state $first_port; feed_state $second_port) | sort | tr '\n' ' ')" = "ok standby " ]; }
	wait_until 30 both_settled && echo "feed: one server ok, the other standby"
	if [ "$(feed_state $first_port)" = ok ]; then
		active_pid=$first_pid standby_port=$second_port standby_pid=$second_pid
	else
		active_pid=$second_pid standby_port=$first_port standby_pid=$first_pid
	fi
	curl -s "http://127.0.0.1:$standby_port/api/live/status" | jq -c '.kafka[] | select(.source == "feed") | {source, topics, state, standby, messages}'
	note sluice kafka in the foreground refuses while a server consumes the source
	sl kafka feed --once
	note the consuming server killed with kill -9 while messages come: the other takes over, every message once
	kafka sendmany feed_a 0 300 c1
	kill -9 $active_pid
	wait $active_pid 2>/dev/null
	kafka sendmany feed_b 2 300 c2
	feed_all_landed() { [ "$(psql "$(warehouse_dsn)" -qAtc 'SELECT count(*) FROM landing.feed')" = 2200 ]; }
	wait_until 60 feed_all_landed || echo "not all landed"
	q "SELECT _sluice_topic, count(*), count(DISTINCT (_sluice_partition, _sluice_offset)) FROM landing.feed GROUP BY 1 ORDER BY 1"
	feed_state $standby_port
	kill -TERM $standby_pid
	wait $standby_pid
	echo "serve exit $?"
fi
