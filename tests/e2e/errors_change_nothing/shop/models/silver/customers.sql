@config materialized=table
SELECT id, upper(name) AS name, country FROM seeds.customers
