@config materialized=view, description='Customers as loaded, one row each'
SELECT customer_id, name FROM seeds.raw_customers
