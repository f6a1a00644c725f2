@config materialized=ephemeral
@assert accepted_values(country, [GB, US, FI])
@assert warn: not_null(customer_id)
SELECT customer_id, country FROM seeds.customers
