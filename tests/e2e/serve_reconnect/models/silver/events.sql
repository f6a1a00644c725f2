@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT id, account, amount * 2 AS amount, _sluice_seq FROM bronze.events
