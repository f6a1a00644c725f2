@config materialized=table
SELECT region, name FROM seeds.regions
