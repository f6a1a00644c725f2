-- the source's orders, kept live by applying their change events
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, CAST(payload->>'total' AS INTEGER) AS total,
       op, lsn, _sluice_seq
FROM landing.orders
