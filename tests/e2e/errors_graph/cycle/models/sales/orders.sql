@config materialized=table
SELECT id, amount FROM sales.refunds
