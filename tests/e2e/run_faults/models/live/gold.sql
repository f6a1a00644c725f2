-- recompute only the accounts that changed
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=account
SELECT account, count(*) AS events, sum(amount) AS amount
FROM live.bronze
WHERE account IN (SELECT account FROM live.bronze WHERE _sluice_seq > {watermark})
GROUP BY account
