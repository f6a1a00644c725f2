@config materialized=table
SELECT CAST(ts AS DATE) AS day, count(*) AS events FROM hist.hourly GROUP BY 1
