@config materialized=view
SELECT count(*) AS n FROM silver.regions
