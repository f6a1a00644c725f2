-- recompute only the accounts that changed
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=account
SELECT account, count(*) AS events, sum(amount) AS amount
FROM silver.events
WHERE account IN (SELECT account FROM silver.events WHERE _sluice_seq > {watermark})
GROUP BY account
