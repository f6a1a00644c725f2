-- every order line of every file once, whatever the lander went through
@config materialized=incremental, live=true
SELECT day, count(*) AS lines, sum(amount) AS amount
FROM landing.orders
GROUP BY day
