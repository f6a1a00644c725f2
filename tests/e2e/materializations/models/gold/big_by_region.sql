@config materialized=table
WITH t AS (SELECT region, amount FROM silver.big_events)
SELECT region, count(*) AS n, sum(amount) AS amount FROM t GROUP BY region ORDER BY region
