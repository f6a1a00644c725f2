-- every click once, whatever the consumer went through
SELECT user_id, count(*) AS clicks, count(DISTINCT (_sluice_partition, _sluice_offset)) AS messages
FROM landing.clicks
GROUP BY user_id
