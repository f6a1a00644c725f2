@config materialized=table
SELECT 1 AS id
