-- Prices, one per sku.
@config materialized=table, description='the price of each sku', tags=[catalog]
@column sku   the stock-keeping unit,
              one per product
@column price in euros
@column discount what a sale takes off
@assert not_null(sku)
@assert warn: price < 100
SELECT sku, CAST(price AS DECIMAL(10, 2)) AS price FROM seeds.prices
