-- the source table, kept by applying its snapshot and change events
@config materialized=incremental, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, payload->>'status' AS status,
       payload->>'body' AS body, op, lsn, _sluice_seq
FROM landing.docs
