-- the source table, kept by applying its change events, deletes hard
@config materialized=incremental, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id, CAST(payload->>'v' AS INTEGER) AS v,
       payload->>'note' AS note, op, lsn, _sluice_seq, _sluice_pos
FROM landing.acct
