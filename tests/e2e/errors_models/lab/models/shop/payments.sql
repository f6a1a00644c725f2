@config materialized=table
SELECT * FROM (VALUES (1, 10.0, true), (2, 5.5, false)) t(id, amount, paid)
