-- the same events; deletes keep the row, flagged, so that models downstream see them
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=id,
        cdc_op=op, cdc_seq=lsn, cdc_deletes=soft,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, payload->>'customer' AS customer,
       payload->>'status' AS status, CAST(payload->>'amount' AS INTEGER) AS amount,
       op, lsn, _sluice_seq
FROM landing.orders
