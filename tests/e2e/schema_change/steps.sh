# An incremental model keeps the rows it holds when its query changes: a
# column added is added to its table (NULL in the rows it has, filled for
# new ones); any other change is refused until the user asks for a
# rebuild, or says with on_schema_change how the table should follow.
cd shop
sl run

note a column added, non-breaking, the table gains it, the new rows have it
sed -i 's/SELECT id, kind, amount FROM/SELECT id, kind, amount, upper(kind) AS big FROM/' models/silver/events.sql
printf '3,buy,30\n' >>seeds/events.csv
sl plan
sl run
q "SELECT id, kind, amount, big FROM silver.events ORDER BY id"

note an expression changed, breaking, refused by default, the table as it was
sed -i 's/upper(kind) AS big/lower(kind) AS big/' models/silver/events.sql
sl run
q "SELECT count(*) AS n FROM silver.events"

note sync_all_columns keeps the old rows as they are and follows the query, a column dropped goes
sed -i 's/materialized=incremental,$/materialized=incremental, on_schema_change=sync_all_columns,/' models/silver/events.sql
sed -i 's/, amount, lower(kind) AS big/, lower(kind) AS big/' models/silver/events.sql
printf '4,view,40\n' >>seeds/events.csv
sl plan
sl run
q "SELECT * FROM silver.events ORDER BY id"

note what decides the rows changed, refused even so, then full_refresh builds it anew
sed -i 's/SELECT id, kind, lower(kind) AS big FROM seeds.events/SELECT id, kind, lower(kind) AS big FROM seeds.events WHERE id > 1/' models/silver/events.sql
sl run
sed -i 's/on_schema_change=sync_all_columns/on_schema_change=full_refresh/' models/silver/events.sql
sl plan
sl run
q "SELECT * FROM silver.events ORDER BY id"

note on_schema_change set on a table is an error
printf '@config materialized=table, on_schema_change=fail\nSELECT 1 AS one\n' >models/silver/t.sql
sl validate
rm models/silver/t.sql
