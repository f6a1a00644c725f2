# Mistakes in the shape of the project: a dependency cycle, a reference
# to a table nobody produces, two models with one name, a project with
# no models, and a selector that matches nothing.
cd cycle
note a cycle of three models, shown as a path
sl validate
sl ls
sl dag

cd ../near
note references to tables that neither exist nor are produced
sl validate
ls
note once raw.rates exists in the warehouse only the misspelt model is left
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.rates (region VARCHAR, rate DOUBLE PRECISION)" >/dev/null
sl validate
sed -i 's/silver.order o/silver.orders o/' models/gold/revenue.sql
sl validate

cd ../dup
note a model and a seed with the same name
sl validate

cd ../empty
note a project with sluice.yml and nothing else
sl validate
sl run
ls

cd ../shop
note an unknown selector builds nothing
sl run
sl run -s silver.ordrs
sl ls -s +gold.revenu
sl ls -s 'silvr.*'
sl ls -s tag:nightly
q "SELECT count(*) AS runs FROM _sluice.run_log"
