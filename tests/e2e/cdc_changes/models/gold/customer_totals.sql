-- recompute the customers whose orders changed; a deleted order still names its customer
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=customer
SELECT customer, count(*) FILTER (WHERE NOT _sluice_deleted) AS orders,
       coalesce(sum(amount) FILTER (WHERE NOT _sluice_deleted), 0) AS amount
FROM silver.orders_soft
WHERE customer IN (SELECT customer FROM silver.orders_soft WHERE _sluice_seq > {watermark})
GROUP BY customer
