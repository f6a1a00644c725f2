-- Live: recompute only the regions that received new checkouts.
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=region
SELECT region, count(*) AS checkouts, sum(amount) AS revenue
FROM silver.checkouts
WHERE region IN (SELECT region FROM silver.checkouts WHERE _sluice_seq > {watermark})
GROUP BY region
