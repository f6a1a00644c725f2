@config materialized=table
SELECT 1 AS id, 9.5 AS amount
