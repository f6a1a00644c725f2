@config materialized=view
SELECT label, count(*) AS events FROM silver.events GROUP BY label
