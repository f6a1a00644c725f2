@config materialized=table
SELECT 1 AS id, 10 AS amount
