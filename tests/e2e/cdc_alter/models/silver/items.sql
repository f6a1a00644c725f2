-- the source table as it stands: its columns read from every shape of payload
@config materialized=incremental, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, payload->>'name' AS name,
       payload->>'qty' AS qty, payload->>'note' AS note,
       payload->>'tag' AS tag, op, lsn, _sluice_seq
FROM landing.items
