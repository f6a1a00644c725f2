-- composite key: (account, region)
@config materialized=incremental, unique_key=[account, region],
        incremental_filter=WHERE last_id > (SELECT coalesce(max(last_id), 0) FROM {this})
SELECT account, region, max(id) AS last_id, sum(amount) AS amount
FROM raw.events
GROUP BY account, region
