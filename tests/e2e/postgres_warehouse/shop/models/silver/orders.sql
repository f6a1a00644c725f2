@config materialized=incremental, unique_key=id, incremental_strategy=merge
SELECT * FROM (VALUES (1, 1, 10.5), (2, 3, 4.0)) AS v(id, customer_id, amount)
