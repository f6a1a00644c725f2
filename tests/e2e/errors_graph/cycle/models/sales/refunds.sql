@config materialized=table
SELECT id, amount FROM sales.totals
