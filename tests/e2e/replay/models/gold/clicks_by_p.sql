@config materialized=incremental, live=true
SELECT p, count(*) AS clicks, count(DISTINCT _sluice_offset) AS offsets
FROM silver.clicks
GROUP BY p
