# Readers on PostgreSQL query a table model over and over while sluice
# rebuilds it 100 times: every read sees the old table or the new one,
# whole (1,000 rows of one version), never an error, and never a version
# older than one it saw before. Half of the rebuilds keep the columns
# (the new rows replace the old in place), half change them (the new
# table takes the old one's name). On DuckDB one process holds the file:
# no reader can be there while a build runs, so the case is PostgreSQL's.
cd swap
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
PGOPTIONS="-c client_min_messages=warning" psql "$SLUICE_TEST_PG" -qAt -c "DROP DATABASE IF EXISTS e2e_postgres_swap_readers" \
	-c "CREATE DATABASE e2e_postgres_swap_readers" 2>&1
export SWAP_PG="$SLUICE_TEST_PG dbname=e2e_postgres_swap_readers"

# model VERSION: gold.t as its VERSION-th text; the columns change every
# second version
model() {
	echo "@config materialized=table"
	if [ $(($1 % 4)) -lt 2 ]; then
		echo "SELECT k, $1 AS version FROM generate_series(1, 1000) AS g(k)"
	else
		echo "SELECT k, $1 AS version, 'wide' AS form FROM generate_series(1, 1000) AS g(k)"
	fi
}

# reader N: reads gold.t until the rebuilds are done, 50 reads per
# connection, one line per read in reads.N
reader() {
	local i
	for i in $(seq 50); do
		echo "SELECT count(*) || ' ' || min(version) || ' ' || max(version) FROM gold.t;"
	done >"reads.$1.sql"
	while [ ! -f rebuilt ]; do
		psql "$SWAP_PG" -qAtX -f "reads.$1.sql" >>"reads.$1" 2>&1
	done
}

note the first build
mkdir -p models/gold
model 0 >models/gold/t.sql
sl run

note two readers read gold.t while it is rebuilt 100 times
reader 1 &
r1=$!
reader 2 &
r2=$!
sleep 0.2
failed=0
for v in $(seq 1 100); do
	model "$v" >models/gold/t.sql
	"$SLUICE_BIN" run >run.log 2>&1 || { failed=$((failed + 1)); cat run.log; }
done
touch rebuilt
wait $r1 $r2
echo "rebuilds that failed: $failed"
"$SLUICE_BIN" sql "SELECT build_count FROM _sluice.models WHERE name = 'gold.t'"
for n in 1 2; do
	awk -v n="$n" '
		$0 !~ /^1000 [0-9]+ [0-9]+$/ { if (bad++ < 5) print "reader " n " read: " $0; next }
		$2 != $3 { if (bad++ < 5) print "reader " n " read a mix of versions: " $0; next }
		$2 < last { if (bad++ < 5) print "reader " n " went back from version " last " to " $2 }
		{ last = $2; reads++; if (!first) first = $2 }
		END {
			print "reader " n ": " (reads >= 100 ? "more than 100 reads" : "only " reads " reads") \
				", " (bad ? bad " bad" : "each of one whole version, never an older one") \
				", " (last - first >= 50 ? "across more than 50 versions" : "across " last - first " versions only")
		}' "reads.$n"
done
q "SELECT count(*) AS rows, min(version) AS version, max(version) AS newest FROM gold.t"
