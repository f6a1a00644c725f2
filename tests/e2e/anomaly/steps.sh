# Model profiles and their anomalies: each batch build of a model that
# asks for it profiles its new data (rows; per column NULLs, extremes and
# distinct values) and judges it against the model's earlier profiles, a
# band of median +- 3 scaled MADs over the last 14 once 5 are there. A
# steady seed is rebuilt five times, then its row count jumps and its
# amounts go NULL: the warn model says so and alerts, the error model
# fails and keeps its previous data, the model set off says nothing. The
# live runner profiles a live model at most every live.profile_interval.

# orders N [null]: the seed with N orders, their amounts NULL with null
orders() {
	{
		echo "id,amount,note"
		for i in $(seq "$1"); do
			if [ "${2:-}" = null ]; then
				echo "$i,,"
			else
				echo "$i,$((i * 3)),n$((i % 4))"
			fi
		done
	} >seeds/orders.csv
}
profiles() {
	q "SELECT model, count(DISTINCT profile_id) AS profiles, min(row_count) AS least, max(row_count) AS most FROM _sluice.profiles GROUP BY model ORDER BY model"
}
mkdir -p seeds

note five builds of a steady seed: profiles, no judgment until five are there
for n in 100 102 101 100 103; do
	orders $n
	sl run -s seeds.orders+
done
profiles
sl profile shop.warned

note the row count jumps and amount goes NULL
orders 1000 null
sl run
note the alert command got each anomaly as JSON
jq -c 'del(.at)' alerts.log
note the error model kept its data, and its rejected profile is on record
q "SELECT count(*) AS rows FROM shop.strict"
sl profile shop.strict
sluice_profile_json() {
	echo "\$ sluice profile shop.warned --json | jq first"
	"$SLUICE_BIN" profile shop.warned --json | jq -c '.[0] | {status, rows, run_id, anomalies, columns: [.columns[] | {name, nulls, null_rate, min, max}]}'
}
sluice_profile_json
note the model set off took no profile and says nothing
sl profile shop.quiet
q "SELECT count(*) AS anomalies FROM _sluice.profile_anomalies"

note a run as JSON lists the anomalies of each model
"$SLUICE_BIN" run --json --full-refresh -s shop.warned | jq -c '.models[] | {model, status, anomalies: [.anomalies[] | {metric, column, value, level}]}'

note a level that does not exist is said at its file and line
cp models/shop/quiet.sql quiet.sql.keep
sed -i 's/anomaly=off/anomaly=of/' models/shop/quiet.sql
sl validate
cp quiet.sql.keep models/shop/quiet.sql

note the live runner profiles a live model at most every profile_interval
sl sql "INSERT INTO landing.events (id) VALUES (1), (2)" >/dev/null
"$SLUICE_BIN" live advance events >/dev/null
"$SLUICE_BIN" live --once >/dev/null
sl sql "INSERT INTO landing.events (id) VALUES (3)" >/dev/null
"$SLUICE_BIN" live advance events >/dev/null
"$SLUICE_BIN" live --once >/dev/null
q "SELECT kind, refresh_count, row_count, column_name, nulls FROM _sluice.profiles WHERE model = 'live.ev' ORDER BY profile_id, column_position"
