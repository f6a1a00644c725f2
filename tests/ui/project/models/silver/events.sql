-- Each event once, seconds after it lands.
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        description='<img src=x onerror=window.__xss=1>',
        incremental_filter=WHERE _sluice_seq > {watermark}
@assert amount >= 0
@column "<img src=x onerror=window.__xss=1>" <img src=x onerror=window.__xss=1>
SELECT id, kind, amount, _sluice_seq, "<img src=x onerror=window.__xss=1>" FROM landing.events
