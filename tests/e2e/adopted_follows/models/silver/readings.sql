@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=sensor,
        incremental_filter=WHERE taken_at > {watermark:readings}
SELECT sensor, taken_at, value FROM raw.readings
