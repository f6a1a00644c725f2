@config materialized=table
SELECT CAST(p.sku AS VARCHAR) AS sku, CAST(2 AS INTEGER) AS qty, CAST(p.price AS DECIMAL(10,2)) AS price,
       CAST('2026-01-01' AS DATE) AS "Ordered On"
FROM seeds.prices AS p
