@config materialized=table, tags=[core]
SELECT id, name, country FROM seeds.customers
