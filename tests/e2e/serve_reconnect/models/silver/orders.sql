-- the source table, kept live by applying its change events
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, payload->>'customer' AS customer,
       CAST(payload->>'amount' AS DECIMAL(10,2)) AS amount, op, lsn, _sluice_seq
FROM landing.orders
