-- Each event once; a negative amount fails the check, and the model.
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        incremental_filter=WHERE _sluice_seq > {watermark}
@assert amount >= 0
SELECT id, kind, amount, _sluice_seq FROM landing.events
