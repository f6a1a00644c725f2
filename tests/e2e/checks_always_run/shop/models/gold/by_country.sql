@config materialized=table
@assert n > 0
SELECT country, count(*) AS n FROM staging.countries GROUP BY country
