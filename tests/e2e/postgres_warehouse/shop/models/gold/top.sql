@config materialized=table
SELECT DISTINCT ON (country) country, name FROM silver.customers ORDER BY country, id DESC
