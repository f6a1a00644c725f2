@config materialized=table
SELECT id, name FROM raw.customers
