@config materialized=view
SELECT page, count(*) AS clicks FROM landing.clicks GROUP BY page
