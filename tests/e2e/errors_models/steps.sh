# Mistakes in model files: each is reported with the file and line (and
# column where it is known) and a hint, `sluice validate` lists every
# problem of a project at once, and `sluice run` refuses to start.
show() {
	echo "--- $1"
	cat -n "$1"
}
cd lab
m=models/shop/orders.sql

note an unknown @config key, on a continuation line
cat >$m <<'SQL'
-- orders, merged by id
@config materialized=incremental, incremental_strategy=merge,
        uniqe_key=id
SELECT id, amount FROM shop.payments
SQL
show $m
sl validate

note an invalid materialized value
cat >$m <<'SQL'
@config materialized=tabel
SELECT id, amount FROM shop.payments
SQL
show $m
sl validate

note merge without unique_key
cat >$m <<'SQL'
@config materialized=incremental, incremental_strategy=merge
SELECT id, amount FROM shop.payments
SQL
show $m
sl validate

note incremental_strategy on a table
cat >$m <<'SQL'
@config materialized=table, incremental_strategy=append
SELECT id, amount FROM shop.payments
SQL
show $m
sl validate

note a live table
cat >$m <<'SQL'
@config materialized=table,
        live=true
SELECT id, amount FROM shop.payments
SQL
show $m
sl validate

note a SQL syntax error on the third line of the query
cat >$m <<'SQL'
-- paid orders
@config materialized=table,
        description='paid orders only'
SELECT id,
       amount
  FROM shop.payments WHERE WHERE paid
SQL
show $m
sl validate
sl run

note two statements in one file
cat >$m <<'SQL'
@config materialized=table
SELECT id FROM shop.payments;
SELECT amount FROM shop.payments;
SQL
show $m
sl validate

note a model with no query
cat >$m <<'SQL'
@config materialized=table
-- to do
SQL
show $m
sl validate

note a misspelt placeholder
cat >$m <<'SQL'
@config materialized=incremental, unique_key=id
SELECT id, amount
  FROM shop.payments
 WHERE id > {wtermark}
SQL
show $m
sl validate

note an unknown directive
cat >$m <<'SQL'
@asert not_null(id)
SELECT id, amount FROM shop.payments
SQL
show $m
sl validate

note a .sql file directly in models/ has no schema
rm $m
echo "SELECT 1 AS id" >models/orders.sql
sl validate
rm models/orders.sql

note an @upstream name that is a model and a source, or two models
cp sluice.yml sluice.yml.saved
cat >>sluice.yml <<'YML'
sources:
  payments: {kind: webhook, columns: {id: BIGINT}}
YML
cat >$m <<'SQL'
@upstream payments
@upstream shop.payments
@upstream landing.payments
SELECT id, amount FROM shop.payments
SQL
show $m
sl validate
mkdir -p models/raw
echo "SELECT 1 AS id, 2.5 AS amount" >models/raw/payments.sql
sl validate
rm -r models/raw $m
mv sluice.yml.saved sluice.yml

note the lab is fine again, and nothing was ever built
sl validate
ls

note several problems in one project, all reported by one validate
cd ../many
for f in models/*/*.sql; do show $f; done
sl validate
sl run
ls
