@config materialized=table
@assert not_null(customer)
@assert warn: amount < 100
SELECT id, customer, amount FROM raw.orders
