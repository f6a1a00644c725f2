#!/usr/bin/env bash
# A PostgreSQL server of the tests' own, in a temporary folder, reachable
# only through a unix socket in that folder: no port, no password, nothing
# another program on the machine can reach by accident. Logical decoding is
# on: the tests replicate from it as an application database too. Asked
# for tcp (to be reached as a server on another machine is), it listens on
# a free port of 127.0.0.1 too, where it asks a password.
#
#   tests/pg_server.sh start DIR    initdb in DIR, start; prints the DSN
#   tests/pg_server.sh start DIR tcp  the same, and listening on a free
#                                   port of 127.0.0.1 too, where a password
#                                   is asked (DIR/pgpass holds it); prints
#                                   the unix socket's DSN, then the TCP one
#   tests/pg_server.sh stop DIR     stop it (DIR is left for the caller)
#   tests/pg_server.sh restart DIR  stop it if it runs, start it again on
#                                   the same data (a source database that
#                                   restarts under its clients)
#
# PostgreSQL refuses to run as root, so under root the server runs as the
# postgres user the Debian package creates, in a folder it owns.
set -euo pipefail

cmd=${1:?usage: tests/pg_server.sh start|stop|restart DIR [tcp]}
dir=${2:?usage: tests/pg_server.sh start|stop|restart DIR [tcp]}
tcp=${3:-}

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

# try_start [LISTEN]: the server started, listening on LISTEN's
# addresses and port too when given; fails when pg_ctl does
try_start() {
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses='' ${1:-} -k $dir -c fsync=off -c max_connections=100 -c wal_level=logical -c max_wal_senders=20 -c max_replication_slots=64" start \
		>/dev/null 2>&1
}

# on_port PORT: the settings that listen on 127.0.0.1:PORT
on_port() { echo "-c listen_addresses=127.0.0.1 -c port=$1"; }

pg_start() {
	local listen=
	# a TCP port, once taken, is kept across restarts
	[[ ! -f $dir/tcp_port ]] || listen=$(on_port "$(cat "$dir/tcp_port")")
	try_start "$listen" || { cat "$dir/server.log" >&2; exit 1; }
}

# tcp_start: the server started on the first port from 25432 on that it
# can bind on 127.0.0.1 (below the kernel's range for outgoing ports, so
# no client's connection holds it), kept in DIR/tcp_port
tcp_start() {
	local port
	for ((port = 25432; port < 25532; port++)); do
		(: </dev/tcp/127.0.0.1/$port) 2>/dev/null && continue
		if try_start "$(on_port "$port")"; then
			echo "$port" >"$dir/tcp_port"
			return 0
		fi
		# taken in between: the next one
		grep -q "could not bind\|Address already in use" "$dir/server.log" || { cat "$dir/server.log" >&2; exit 1; }
	done
	echo "pg_server: no free TCP port in 25432-25531 on 127.0.0.1" >&2
	exit 1
}

pg_stop() {
	as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

case $cmd in
start)
	mkdir -p "$dir/data"
	auth=(-A trust)
	if [[ -n $tcp ]]; then
		[[ $tcp == tcp ]] || { echo "usage: tests/pg_server.sh start DIR [tcp]" >&2; exit 2; }
		# only the folder's owner reaches the socket; over TCP any user
		# of the machine could connect, so there a password is asked
		password=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
		trap 'rm -f "$dir/password"' EXIT
		(umask 077 && echo "$password" >"$dir/password" &&
			echo "127.0.0.1:*:*:sluice:$password" >"$dir/pgpass")
		auth=(--auth-local=trust --auth-host=scram-sha-256 --pwfile="$dir/password")
	fi
	if [[ $(id -u) -eq 0 ]]; then
		chown -R postgres: "$dir"
		# read by the clients, who run as the caller
		[[ -z $tcp ]] || chown root: "$dir/pgpass"
	fi
	as_owner "$bindir/initdb" -D "$dir/data" -U sluice "${auth[@]}" -E UTF8 --locale=C.UTF-8 \
		>"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
	port=5432
	if [[ -z $tcp ]]; then
		pg_start
	else
		tcp_start
		port=$(cat "$dir/tcp_port")
	fi
	echo "host=$dir port=$port user=sluice dbname=postgres"
	[[ -z $tcp ]] || echo "host=127.0.0.1 port=$port user=sluice passfile=$dir/pgpass dbname=postgres"
	;;
stop)
	pg_stop
	;;
restart)
	pg_stop
	pg_start
	;;
*)
	echo "usage: tests/pg_server.sh start|stop|restart DIR [tcp]" >&2
	exit 2
	;;
esac
