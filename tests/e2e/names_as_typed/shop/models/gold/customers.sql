@config materialized=table, description='Every customer, with what they are called'
SELECT customer_id, upper(name) AS name FROM staging.stg_customers
