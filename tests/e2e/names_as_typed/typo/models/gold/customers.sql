SELECT customer_id
FROM stg_customers
