@config materialized=view
@assert not_null(name)
SELECT customer_id, name, country FROM seeds.customers
