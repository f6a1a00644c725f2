-- the source table, from its change events
@config materialized=incremental, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, payload->>'v' AS v, op, lsn, _sluice_seq
FROM landing.events
