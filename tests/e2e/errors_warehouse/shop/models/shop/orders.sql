@config materialized=table
SELECT * FROM (VALUES (1, 10), (2, 20)) t(id, amount)
