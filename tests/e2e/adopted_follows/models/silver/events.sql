@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE id > {watermark}
SELECT id, kind, amount FROM raw.events
