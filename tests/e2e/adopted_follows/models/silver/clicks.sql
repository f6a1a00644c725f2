@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE id > {watermark}
SELECT part, pos, id, page FROM raw.clicks
