@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT i, p, _sluice_topic, _sluice_partition, _sluice_offset, _sluice_event_ts, _sluice_seq
FROM landing.clicks
