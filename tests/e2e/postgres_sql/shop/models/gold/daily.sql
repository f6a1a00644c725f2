-- every day of a calendar from generate_series, counted with FILTER
@config materialized=table
SELECT d::date AS day,
       count(o.id) AS orders,
       count(o.id) FILTER (WHERE o.status = 'paid') AS paid,
       coalesce(sum(o.amount) FILTER (WHERE o.status = 'paid'), 0) AS paid_amount
FROM generate_series('2024-01-01'::date, '2024-01-04'::date, interval '1 day') AS d
LEFT JOIN silver.orders AS o ON o.day = d::date
GROUP BY d
