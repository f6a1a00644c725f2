SELECT order_id, amount, region FROM landing.orders
