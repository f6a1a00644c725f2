@config materialized=view
SELECT customer_id, upper(name) AS name, country FROM seeds.customers
