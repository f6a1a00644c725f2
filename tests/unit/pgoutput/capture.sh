#!/usr/bin/env bash
# Captures the pgoutput stream tests/unit/test_pgoutput.c decodes, from a
# PostgreSQL server of its own with wal_level=logical, into stream.h:
#   tests/unit/pgoutput/capture.sh
# The server is started like tests/pg_server.sh does (unix socket only,
# fsync off), with logical decoding on; it is stopped and removed at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d /tmp/pgoutput-capture-XXXXXX)
as_owner() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
	as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT
mkdir -p "$dir/data"
[[ $(id -u) -eq 0 ]] && chown -R postgres: "$dir"
as_owner "$bindir/initdb" -D "$dir/data" -U sluice -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
	-o "-c listen_addresses='' -k $dir -c fsync=off -c wal_level=logical" start >/dev/null
dsn="host=$dir port=5432 user=sluice dbname=postgres"
cc -std=c11 -O1 -Wall -Wextra -Werror -I/usr/include/postgresql -o "$dir/capture" \
	"$here/capture.c" -lpq
psql -X -q -v ON_ERROR_STOP=1 -d "$dsn" -f "$here/schema.sql" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$dsn" -f "$here/workload.sql" >/dev/null
"$dir/capture" "$dsn" >"$here/stream.h.new"
mv "$here/stream.h.new" "$here/stream.h"
