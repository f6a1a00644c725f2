@config materialized=table
SELECT t.region, r.label, t.amount FROM silver.region_totals t JOIN seeds.regions r ON r.region = t.region
