@config materialized=incremental, incremental_strategy=merge
SELECT 1 AS id, 10 AS amount
