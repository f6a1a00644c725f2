@config materialized=table
SELECT 1 AS id, 'eu' AS region, 10 AS amount
