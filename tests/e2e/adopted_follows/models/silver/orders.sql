@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE id > {watermark:raw.orders}
SELECT id, region, amount FROM raw.orders
