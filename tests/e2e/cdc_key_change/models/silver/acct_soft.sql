-- the same events, deletes soft: a key moved away from stays, flagged
@config materialized=incremental, incremental_strategy=delete+insert, unique_key=id,
        cdc_op=op, cdc_seq=lsn, cdc_deletes=soft, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, CAST(payload->>'v' AS INTEGER) AS v,
       payload->>'note' AS note, op, lsn, _sluice_seq, _sluice_pos
FROM landing.acct
