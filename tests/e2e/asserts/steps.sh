# @assert checks run after each build, before it is published. An error
# check that fails keeps the previous table and skips what reads it; a
# warn check only reports.
cd shop
"$SLUICE_BIN" sql "CREATE SCHEMA raw;
  CREATE TABLE raw.orders (id INTEGER, customer VARCHAR, amount INTEGER);
  INSERT INTO raw.orders VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'ann', 30);
  CREATE TABLE raw.events (id INTEGER);
  INSERT INTO raw.events VALUES (1)" >/dev/null
sl run

note a big order: the warn check reports it, the run succeeds
"$SLUICE_BIN" sql "INSERT INTO raw.orders VALUES (4, 'cid', 250)" >/dev/null
sl run

note orders without a customer: the error check fails
"$SLUICE_BIN" sql "INSERT INTO raw.orders VALUES (5, NULL, 5), (6, NULL, 6), (7, NULL, 7), (8, NULL, 8), (9, NULL, 9), (10, NULL, 10), (11, NULL, 11);
  INSERT INTO raw.events VALUES (2)" >/dev/null
sl run
note the old silver.orders is still there, and so is what was built from it
q "SELECT * FROM silver.orders ORDER BY id"
q "SELECT * FROM gold.by_customer ORDER BY customer"
q "SELECT model, status, message FROM _sluice.run_log WHERE run_id = 3 ORDER BY model"

cd ../kinds
note each kind of check, passing on the first build
"$SLUICE_BIN" sql "CREATE SCHEMA raw;
  CREATE TABLE raw.customers (id INTEGER, name VARCHAR);
  INSERT INTO raw.customers VALUES (1, 'ann'), (2, 'bob');
  CREATE TABLE raw.orders (id INTEGER, customer_id INTEGER, day DATE, status VARCHAR, amount INTEGER);
  INSERT INTO raw.orders VALUES (1, 1, '2024-01-01', 'placed', 10), (2, 2, '2024-01-01', 'in transit', 20)" >/dev/null
sl run
note then each one fails once
"$SLUICE_BIN" sql "INSERT INTO raw.orders VALUES
  (3, NULL, '2024-01-02', 'placed',  5),
  (4, 1,    '2024-01-01', 'shipped', 5),
  (5, 2,    '2024-01-03', 'lost',    5),
  (6, 7,    '2024-01-04', 'placed',  5),
  (7, 2,    '2024-01-05', 'placed',  0),
  (8, 1,    '2024-01-06', 'placed',  150)" >/dev/null
sl run
q "SELECT count(*) AS orders FROM shop.orders"
