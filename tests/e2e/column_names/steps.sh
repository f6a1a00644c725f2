# Column names in model headers that are keywords (order, group, select,
# From) or in mixed case (CustomerId) work wherever sluice writes them into
# SQL: merge keys, snapshot columns, a microbatch's time column, checks. A
# name that is not one is refused before anything runs.
# windows are decided at a fixed time, so that the output stays the same
export SLUICE_NOW='2026-11-15 12:00'
show() {
	echo "--- $1"
	cat -n "$1"
}
"$SLUICE_BIN" sql "CREATE SCHEMA raw;
  CREATE TABLE raw.customers (\"Id\" VARCHAR, name VARCHAR, \"select\" VARCHAR);
  INSERT INTO raw.customers VALUES ('A', 'ann', 'gold'), ('B', 'bob', 'silver');
  CREATE TABLE raw.orders (\"order\" INTEGER, \"CustomerId\" VARCHAR, \"group\" VARCHAR,
                           amount INTEGER, \"At\" TIMESTAMP, _sluice_seq BIGINT);
  INSERT INTO raw.orders VALUES (1, 'A', 'x', 10, '2026-09-03 10:00', 1),
    (2, 'B', 'y', 20, '2026-09-20 10:00', 2), (1, 'A', 'x', 11, '2026-10-01 00:00', 3)" >/dev/null
orders() {
	q "SELECT \"order\", \"CustomerId\", \"group\", amount FROM silver.orders ORDER BY 1, 2, 3, 4"
}
history() {
	q "SELECT \"CustomerId\", name, \"select\", valid_to IS NULL AS current FROM silver.history ORDER BY 1, 2, 3, 4"
}
monthly() {
	q "SELECT CAST(\"From\" AS DATE) AS month, orders FROM gold.monthly ORDER BY month"
}
sl validate
sl run
orders
history
monthly

note new orders merge on both keys and a group outside the list is reported, a new tier makes a new version and a new name alone does not
"$SLUICE_BIN" sql "INSERT INTO raw.orders VALUES (2, 'A', 'z', 5, '2026-10-02 08:00', 4),
    (1, 'A', 'x', 12, '2026-10-03 08:00', 5);
  UPDATE raw.customers SET \"select\" = 'gold' WHERE \"Id\" = 'B';
  UPDATE raw.customers SET name = 'annie' WHERE \"Id\" = 'A'" >/dev/null
sl run
orders
history
monthly

note an order for an unknown customer fails the relationships check: the table stays as it was
"$SLUICE_BIN" sql "INSERT INTO raw.orders VALUES (3, 'Z', 'x', 1, '2026-10-04 08:00', 6)" >/dev/null
sl run
orders

note names that are not column names are refused, and the warehouse is left alone
warehouse_saved ../before.wh
sed -i 's/unique_key=\[order, CustomerId\]/unique_key=[order, "CustomerId"]/' models/silver/orders.sql
sed -i 's/check_cols=\[select\]/check_cols=[select, '"'"'name; DROP TABLE raw.customers'"'"']/' models/silver/history.sql
sed -i 's/@assert unique(Id)/@assert unique(lower(name))/' models/silver/customers.sql
sed -i 's/time_column=From/time_column=o.From/' models/gold/monthly.sql
for f in models/silver/orders.sql models/silver/history.sql models/silver/customers.sql models/gold/monthly.sql; do show $f; done
sl validate
sl run
warehouse_unchanged ../before.wh
