-- reads a seed: bound from the first validate
SELECT r.manager, count(*) AS orders
FROM seeds.regions AS r
GROUP BY r.managr
