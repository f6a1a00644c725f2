# A project that built fine is edited into a broken state: the run fails
# before it touches anything, and the warehouse stays exactly as it was.
state() {
	q "SELECT name, build_count FROM _sluice.models ORDER BY name"
	q "SELECT count(*) AS runs FROM _sluice.run_log"
	q "SELECT * FROM gold.by_country ORDER BY country"
}
cd shop
sl run
state >../before
warehouse_saved ../before.wh
cat ../before

note a syntax error in one model, a bad key in another, a new seed row
cat >models/gold/by_country.sql <<'SQL'
@config materialized=table
SELECT country, count(*) AS customers
  FROM silver.customers
 GROUP BY BY country
SQL
cat >models/silver/customers.sql <<'SQL'
@config materialized=table, uniqe_key=id
SELECT id, lower(name) AS name, country FROM seeds.customers
SQL
echo "4,dan,SE" >>seeds/customers.csv
sl run
note selecting only an untouched model does not get around it
sl run -s gold.names

note the warehouse is exactly as before
warehouse_unchanged ../before.wh
state >../after
diff ../before ../after && echo "same state, same rows"

note fixed keys, but now a reference nobody produces
sed -i 's/, uniqe_key=id//' models/silver/customers.sql
cat >models/gold/by_country.sql <<'SQL'
@config materialized=table
SELECT country, count(*) AS customers
  FROM silver.customer
 GROUP BY country
SQL
sl run
warehouse_unchanged ../before.wh

note with the mistakes fixed the edits are built
sed -i 's/silver.customer$/silver.customers/' models/gold/by_country.sql
sl run
q "SELECT name, build_count FROM _sluice.models ORDER BY name"
q "SELECT * FROM gold.names ORDER BY name"
