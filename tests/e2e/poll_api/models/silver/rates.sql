SELECT id, price, updated_at FROM landing.rates
