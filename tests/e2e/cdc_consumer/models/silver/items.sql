@config materialized=incremental, incremental_strategy=merge, unique_key=[order_id, line],
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'order_id' AS INTEGER) AS order_id, CAST(payload->>'line' AS INTEGER) AS line,
       payload->>'sku' AS sku, op, lsn, _sluice_seq
FROM landing.items
