@config materialized=ephemeral
SELECT id, amount FROM seeds.orders WHERE amount >= 10
