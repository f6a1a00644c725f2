-- one check of each kind
@config materialized=table
@assert not_null(customer_id)
@assert unique(customer_id, day)
@assert accepted_values(status, [placed, shipped, 'in transit'])
@assert relationships(customer_id, shop.customers(id))
@assert amount > 0
@assert rows: SELECT day FROM {this} GROUP BY day HAVING sum(amount) > 100
SELECT id, customer_id, day, status, amount FROM raw.orders
