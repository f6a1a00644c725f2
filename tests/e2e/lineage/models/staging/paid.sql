@config materialized=ephemeral
SELECT * FROM landing.orders WHERE status = 'paid'
