@config materialized=table, tags=own
SELECT 2 AS id
