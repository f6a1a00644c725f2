@config materialized=table
SELECT count(*) AS n FROM silver.inline
