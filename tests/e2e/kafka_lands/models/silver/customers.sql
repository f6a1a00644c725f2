-- Debezium's change events applied: the newest event of each key wins
@config materialized=incremental, incremental_strategy=merge, unique_key=id,
        cdc_op=_sluice_op, cdc_seq=_sluice_offset
SELECT id, payload->>'name' AS name, _sluice_op, _sluice_offset
FROM landing.customers
