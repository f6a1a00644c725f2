# Change events (cdc_op, cdc_seq) applied to a merge model with hard
# deletes, a delete+insert model with soft deletes, and a live aggregate
# that reads the soft one. events.sql holds 23 events in landing order: a
# duplicate, an update and a delete sharing a commit LSN, a replay of the
# whole history (which brings a delete's older insert again), late older
# updates, a delete followed by a newer insert, an insert and a delete in
# one source transaction. They are fed in several splits, through
# `sluice run` and `sluice live --once`: every split must end in the same
# tables. Then bad events and bad configurations.
n_events=$(wc -l <events.sql)

# land FROM TO: appends lines FROM..TO of events.sql to the landing table
land() {
	"$SLUICE_BIN" sql "INSERT INTO landing.orders (op, lsn, payload) VALUES
		$(sed -n "$1,$2p" events.sql | paste -sd,)" >/dev/null
}

state() {
	"$SLUICE_BIN" sql "SELECT id, customer, status, amount, op, lsn FROM silver.orders ORDER BY id"
	"$SLUICE_BIN" sql "SELECT * FROM _sluice.cdc_tombstones__silver__orders ORDER BY id"
	"$SLUICE_BIN" sql "SELECT id, customer, status, amount, op, lsn, _sluice_deleted
		FROM silver.orders_soft ORDER BY id"
	"$SLUICE_BIN" sql "SELECT * FROM _sluice.cdc_tombstones__silver__orders_soft ORDER BY id"
	"$SLUICE_BIN" sql "SELECT * FROM gold.customer_totals ORDER BY customer"
}

# play NAME run|live SIZE...: a fresh copy of the project fed the events in
# batches of the given sizes. run: each batch landed, announced and built
# with `sluice run`; live: each event landed and announced on its own, one
# `sluice live --once` per batch. Leaves the final tables in ../NAME.state.
play() {
	local name=$1 how=$2 from=1 size i
	shift 2
	rm -rf "../$name" && mkdir "../$name" && cp -r sluice.yml models events.sql "../$name/"
	(
		cd "../$name" || exit 1
		own_warehouse "$name"
		"$SLUICE_BIN" run >build.log || cat build.log
		for size in "$@"; do
			if [ "$how" = run ]; then
				land "$from" $((from + size - 1))
				"$SLUICE_BIN" live advance orders >/dev/null
				"$SLUICE_BIN" run >build.log || cat build.log
			else
				for ((i = from; i < from + size; i++)); do
					land "$i" "$i"
					"$SLUICE_BIN" live advance orders >/dev/null
				done
				"$SLUICE_BIN" live --once >build.log || cat build.log
			fi
			from=$((from + size))
		done
		[ $((from - 1)) -eq "$n_events" ] || echo "$name: played $((from - 1)) of $n_events events"
		state >"../$name.state"
	)
}

play whole run "$n_events"
play one run $(for ((i = 0; i < n_events; i++)); do printf '1 '; done)
play split live 3 1 4 1 5 9

note the final state, every event in one batch
cat ../whole.state
note every other split ends in the same state
for s in one split; do
	if diff ../whole.state "../$s.state" >/dev/null; then
		echo "$s: same as whole"
	else
		echo "$s: differs"
		diff ../whole.state "../$s.state"
	fi
done
note and the tables applied one event at a time are what a rebuild from all events makes
(cd ../one && use_warehouse one && same_as_rebuild silver.orders silver.orders_soft gold.customer_totals)

cd ../whole || exit 1
use_warehouse whole
state >../before
note an unknown op fails the build and changes nothing
"$SLUICE_BIN" sql "INSERT INTO landing.orders (op, lsn, payload) VALUES
	('u', 120, '{\"id\": 1, \"customer\": \"ann\", \"status\": \"refunded\", \"amount\": 0}'),
	('x', 121, '{\"id\": 7, \"customer\": \"eve\", \"status\": \"new\", \"amount\": 70}')" >/dev/null
sl live advance orders
sl run
state >../after
diff ../before ../after && echo "same tables"
note the model catches up once the event is corrected
"$SLUICE_BIN" sql "UPDATE landing.orders SET op = 'c' WHERE op = 'x'" >/dev/null
sl live --once
q "SELECT id, status, amount, op, lsn FROM silver.orders WHERE id IN (1, 7) ORDER BY id"
q "SELECT * FROM gold.customer_totals ORDER BY customer"

note an event without a sequence fails the same way
state >../before
"$SLUICE_BIN" sql "INSERT INTO landing.orders (op, lsn, payload) VALUES
	('d', NULL, '{\"id\": 3}')" >/dev/null
sl live advance orders
sl run -s silver.orders
state >../after
diff ../before ../after && echo "same tables"

note configuration mistakes are reported before anything runs
warehouse_saved ../wh.saved
cat >models/silver/orders.sql <<'SQL'
@config materialized=table, unique_key=id, cdc_op=op, cdc_seq=lsn
SELECT CAST(payload->>'id' AS INTEGER) AS id, op, lsn FROM landing.orders
SQL
cat >models/silver/orders_soft.sql <<'SQL'
@config materialized=incremental, live=true, unique_key=id,
        cdc_op=op, cdc_deletes=sotf, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, payload->>'customer' AS customer,
       CAST(payload->>'amount' AS INTEGER) AS amount, op, lsn, _sluice_seq
FROM landing.orders
SQL
cat >models/silver/appended.sql <<'SQL'
@config materialized=incremental, incremental_strategy=append, cdc_op=op, cdc_seq=lsn,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT op, lsn, payload, _sluice_seq FROM landing.orders
SQL
cat >models/silver/keyless.sql <<'SQL'
@config materialized=incremental, cdc_seq=lsn, cdc_op=op
SELECT op, lsn, payload FROM landing.orders
SQL
sl validate
sl run
warehouse_unchanged ../wh.saved
