@config materialized=ephemeral
SELECT sku, 2 * price AS total FROM seeds.prices
