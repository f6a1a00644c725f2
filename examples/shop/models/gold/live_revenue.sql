-- Live: checkouts and revenue per region, maintained by sluice from the
-- change log of silver.checkouts: counted, so a refresh adds the batch's
-- new rows and takes its old ones away, group by group.
@config materialized=incremental, live=true
SELECT region, count(*) AS checkouts, coalesce(sum(amount), 0) AS revenue
FROM silver.checkouts
GROUP BY region
