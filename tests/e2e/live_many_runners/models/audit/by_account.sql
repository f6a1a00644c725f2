-- a live model of its own group: it reads landing directly, no live model
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=account
SELECT account, count(*) AS events, max(_sluice_seq) AS last_seq
FROM landing.events
WHERE account IN (SELECT account FROM landing.events WHERE _sluice_seq > {watermark})
GROUP BY account
