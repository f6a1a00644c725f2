# Models are named as a dbt user types them: a bare name means the one
# model of that name, everywhere a command takes one; descriptions are
# listed and become the comments of the tables and views.
cd shop
note a bare name, wherever a model is named
sl compile stg_customers
sl run -s +customers
sl ls -s customers+
sl live pause orders
sl live resume ORDERS
note descriptions: listed, and the comment of the table or view
sl ls --json -s stg_customers
q "SELECT c.relname AS name, d.description AS comment FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace JOIN pg_catalog.pg_description d ON d.objoid = c.oid AND d.objsubid = 0 WHERE n.nspname IN ('gold', 'staging') ORDER BY 1"
note run --json gives no row count for a view
sl run --full-refresh -s +customers --json
note a bare name two schemas have is refused, with both named
mkdir -p models/silver && printf 'SELECT 1 AS customer_id\n' >models/silver/customers.sql
sl compile customers
sl run -s customers+
sl live pause customers
rm models/silver/customers.sql
note a bare name that is not a model gets the nearest
sl compile stg_customer

cd ../typo
note a query that reads a model without its schema gets a hint that names it
sl validate
