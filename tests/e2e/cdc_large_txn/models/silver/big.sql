@config materialized=incremental, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, payload->>'v' AS v, op, lsn, _sluice_seq, _sluice_pos
FROM landing.big
