-- Live: recompute the regions of the checkouts that changed, by their old
-- values and their new ones (the change log of silver.checkouts).
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=region
WITH changed AS (
    SELECT region FROM _sluice.changes__silver__checkouts WHERE _sluice_seq > {watermark}
    UNION
    SELECT region FROM silver.checkouts WHERE _sluice_seq > {watermark}
)
SELECT c.region, count(k.checkout_id) AS checkouts, coalesce(sum(k.amount), 0) AS revenue
FROM changed AS c LEFT JOIN silver.checkouts AS k ON k.region = c.region
GROUP BY c.region
