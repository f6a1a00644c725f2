@config materialized=incremental, incremental_strategy=merge, unique_key=order_id,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT order_id, customer_id, amount * 100 AS amount, _sluice_seq FROM staging.paid
