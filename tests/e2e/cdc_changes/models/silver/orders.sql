-- change events from a PostgreSQL table: deletes remove the row
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, payload->>'customer' AS customer,
       payload->>'status' AS status, CAST(payload->>'amount' AS INTEGER) AS amount,
       op, lsn, _sluice_seq
FROM landing.orders
