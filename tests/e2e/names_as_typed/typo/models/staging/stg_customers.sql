SELECT 1 AS customer_id
