-- a table of REPLICA IDENTITY FULL: its old rows come whole
@config materialized=incremental, incremental_strategy=merge, unique_key=[a, b],
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'a' AS INTEGER) AS a, payload->>'b' AS b, CAST(payload->>'v' AS INTEGER) AS v,
       op, lsn, _sluice_seq, _sluice_pos
FROM landing.fullrow
