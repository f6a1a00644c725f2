#!/usr/bin/env bash
# A PostgreSQL server of the tests' own, in a temporary folder, reachable
# only through a unix socket in that folder: no port, no password, nothing
# another program on the machine can reach by accident. Logical decoding is
# on: the tests replicate from it as an application database too.
#
#   tests/pg_server.sh start DIR    initdb in DIR, start; prints the DSN
#   tests/pg_server.sh stop DIR     stop it (DIR is left for the caller)
#   tests/pg_server.sh restart DIR  stop it if it runs, start it again on
#                                   the same data (a source database that
#                                   restarts under its clients)
#
# PostgreSQL refuses to run as root, so under root the server runs as the
# postgres user the Debian package creates, in a folder it owns.
set -euo pipefail

cmd=${1:?usage: tests/pg_server.sh start|stop|restart DIR}
dir=${2:?usage: tests/pg_server.sh start|stop|restart DIR}

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x $bindir/pg_ctl ]] || { echo "pg_server: no PostgreSQL server installed (scripts/bootstrap.sh installs it)" >&2; exit 1; }
major=$(basename "$(dirname "$bindir")")
((major >= 15)) || { echo "pg_server: PostgreSQL $major is older than 15" >&2; exit 1; }

as_owner() {
	if [[ $(id -u) -eq 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

pg_start() {
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses='' -k $dir -c fsync=off -c max_connections=100 -c wal_level=logical -c max_wal_senders=20 -c max_replication_slots=20" start \
		>/dev/null || { cat "$dir/server.log" >&2; exit 1; }
}

pg_stop() {
	as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

case $cmd in
start)
	mkdir -p "$dir/data"
	[[ $(id -u) -eq 0 ]] && chown -R postgres: "$dir"
	as_owner "$bindir/initdb" -D "$dir/data" -U sluice -A trust -E UTF8 --locale=C.UTF-8 \
		>"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
	pg_start
	echo "host=$dir port=5432 user=sluice dbname=postgres"
	;;
stop)
	pg_stop
	;;
restart)
	pg_stop
	pg_start
	;;
*)
	echo "usage: tests/pg_server.sh start|stop|restart DIR" >&2
	exit 2
	;;
esac
