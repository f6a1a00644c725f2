-- Live: each checkout once, its latest version, seconds after it lands.
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=checkout_id,
        incremental_filter=WHERE _sluice_seq > {watermark}
@assert not_null(checkout_id)
SELECT checkout_id, customer_id, amount, region, _sluice_seq
FROM landing.checkouts
