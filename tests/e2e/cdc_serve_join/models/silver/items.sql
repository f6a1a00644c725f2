-- the source's order lines, kept live by applying their change events;
-- a deleted line stays, flagged, so that gold.order_check sees it go
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=[order_id, line],
        cdc_op=op, cdc_seq=lsn, cdc_deletes=soft, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'order_id' AS INTEGER) AS order_id, CAST(payload->>'line' AS INTEGER) AS line,
       CAST(payload->>'amount' AS INTEGER) AS amount, op, lsn, _sluice_seq
FROM landing.items
