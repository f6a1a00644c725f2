@config materialized=table
SELECT o.region, sum(o.amount) AS amount, max(r.rate) AS rate
  FROM silver.order o
  LEFT JOIN raw.rates r USING (region)
 GROUP BY o.region
