# A COMMIT of the landing writer that the warehouse made while the answer
# never reached sluice serve: with a synchronous standby named that never
# comes, PostgreSQL commits locally and waits; its session ended in that
# wait keeps the commit, and the writer sees the connection lost. The
# writer waits for a new session (the warehouse refuses connections for a
# while), asks it whether the batch landed and answers 202: the event is
# in landing once without a retry, and the next one lands after it. Only
# PostgreSQL has a COMMIT whose answer can be lost so.
own_pg_server || return
# the warehouse is a database of its own, so that the server's own one
# stays open to the steps while the warehouse refuses connections
psql "$pg_dsn" -qAtX -c "CREATE DATABASE wh" >/dev/null
export INDOUBT_PG="$pg_dsn dbname=wh" SERVE_TOKEN=t0ken
# psql on the server's own database and on the warehouse; the steps' own
# commits wait for no standby
pg() {
	PGOPTIONS="-c client_min_messages=warning -c synchronous_commit=local" psql "$1" -qAtX \
		-v ON_ERROR_STOP=1 "${@:2}"
}
admin() { pg "$pg_dsn" "$@"; }
wh() { pg "$INDOUBT_PG" "$@"; }
# standby NAMES: the synchronous standbys every COMMIT waits for, in force
standby() {
	admin -c "ALTER SYSTEM SET synchronous_standby_names = '$1'" -c "SELECT pg_reload_conf()" >/dev/null
}
# a step that fails leaves no sluice serve behind, and no standby waited
# for: a server whose sessions wait for one cannot stop, as they wait on
# their way out too
trap '[ -z "${serve_pid:-}" ] || kill $serve_pid 2>/dev/null; standby ""; own_pg_server_gone' EXIT
# waiting WHAT: the pid of the session whose statement WHAT (a LIKE
# pattern) waits for a synchronous standby; fails while there is none
waiting() {
	local pid
	pid=$(admin -c "SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'
		AND query LIKE '$1' AND pid <> pg_backend_pid()")
	[ -n "$pid" ] && echo "$pid"
}
# post ID: the answer to a webhook event, status first
post() {
	curl -s --max-time 60 -X POST -H "Authorization: Bearer $SERVE_TOKEN" --data-binary "{\"id\": $1}" \
		-w '\n%{http_code}\n' "$url/api/ingest/webhook/events" | awk '{ l[NR] = $0 } END { print l[NR] " " l[1] }'
}
health() { curl -s -H "Authorization: Bearer $SERVE_TOKEN" -o health.json -w '%{http_code}' "$url/api/health"; }
sl run >/dev/null
serve_start
url=http://127.0.0.1:$serve_port

note an event lands
post 1

note every COMMIT now commits locally, then waits for a standby that never comes
standby nobody
# the setting is in force once a commit waits; ending that session keeps it
psql "$pg_dsn" -qAtX -c "CREATE TABLE probe ()" >probe.log 2>&1 &
probe=$!
pid=$(wait_until 10 waiting 'CREATE TABLE probe%') || echo "no probe waits for the standby"
admin -c "SELECT pg_terminate_backend($pid)" >/dev/null
wait $probe
echo "probe: exit $?, table kept: $(admin -c "SELECT count(*) FROM pg_tables WHERE tablename = 'probe'")"
grep -o 'already committed locally' probe.log

note the COMMIT of the writer waits, its session is ended: the commit is kept, the answer lost
post 2 >answer.txt &
poster=$!
pid=$(wait_until 10 waiting 'COMMIT') || echo "the writer's COMMIT does not wait for the standby"
admin -c "SELECT pg_terminate_backend($pid)" >/dev/null
# the ended session, on its way out, drops its temporary function in a
# commit that waits for the standby too: the writer sees the loss only when
# the standby is no longer waited for
# (sets $landed)
landed_once() {
	landed=$(wh -c "SELECT count(*) FROM landing.events WHERE id = 2")
	[ "$landed" = 1 ]
}
wait_until 10 landed_once
echo "landed meanwhile: $landed"
echo "answered meanwhile: $([ -s answer.txt ] && echo yes || echo no)"

note the writer sees the loss, and asks only once a new session opens
admin -c "ALTER DATABASE wh ALLOW_CONNECTIONS false"
standby ''
wait_until 10 prints 503 health
echo "health $(health) $(jq -c '{status, components: (.components | map_values(.status))}' health.json)"
echo "answered meanwhile: $([ -s answer.txt ] && echo yes || echo no)"
admin -c "ALTER DATABASE wh ALLOW_CONNECTIONS true"
wait $poster
cat answer.txt

note the event is in landing once, without a retry, and the next one lands after it
post 3
wh -c "SELECT id, _sluice_seq FROM landing.events ORDER BY id"
echo "health $(health) $(jq -c '{status, components: (.components | map_values(.status))}' health.json)"
curl -s -H "Authorization: Bearer $SERVE_TOKEN" "$url/api/live/status" |
	jq -c '.sources[] | select(.source == "landing.events") | {watermark}'
kill -TERM $serve_pid
wait $serve_pid
echo "server exit $?"
serve_pid=
grep -q "sluice serve: stopped" serve.log && echo "stopped cleanly"
