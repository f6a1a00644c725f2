@config materialized=table, grain=1d
@upstream silver.hourly contract=through
SELECT count(*) AS n FROM silver.hourly
