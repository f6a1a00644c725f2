@config materialized=table
SELECT 42 AS answer
