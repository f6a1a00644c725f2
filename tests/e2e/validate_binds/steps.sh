# sluice validate binds every query before anything runs: a column,
# function or type that does not exist is an error at its file:line:col
# with the binder's suggestion, and nothing is built. A model that reads
# a table not made yet (the landing table before the first ingest) is
# left to the run, then bound once the table is there.
sl validate
note the seed-based model fixed, and a run of what validates makes the landing table
sed -i 's/r.managr/r.manager/' models/gold/by_manager.sql
mv models/gold/revenue.sql revenue.sql.off
sl validate
sl run
mv revenue.sql.off models/gold/revenue.sql
note with the landing table there, its reader is bound too
sl validate
sed -i 's/summ(/sum(/' models/gold/revenue.sql
sl validate
note a column that is not there, in a model whose inputs are built, on either warehouse
sed -i 's/r.manager/r.managr/' models/gold/by_manager.sql
sl validate
sed -i 's/r.managr/r.manager/' models/gold/by_manager.sql
note the seed header changed: the model reading it is bound again over the new columns
sed -i '1s/manager/boss/' seeds/regions.csv
sl validate
sed -i '1s/boss/manager/' seeds/regions.csv
sl validate
note validate keeps what it bound in .sluice, and a change it reads through is not hidden by it
is_postgres || [ "$(head -c 18 .sluice/bind-cache)" = "sluice bind cache " ] || echo "no bind cache kept"
[ "$(head -c 21 .sluice/derived-cache)" = "sluice derived cache " ] || echo "no derived cache kept"
sed -i 's/SELECT r.manager/SELECT r.managr/' models/gold/by_manager.sql
sl validate
