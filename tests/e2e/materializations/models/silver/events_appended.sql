@config materialized=incremental, incremental_strategy=append,
        incremental_filter=WHERE id > (SELECT coalesce(max(id), 0) FROM {this})
SELECT id, account, region, amount FROM raw.events
