-- every version of an order that gold.order_check held, as it refreshed
@config materialized=incremental, live=true, incremental_strategy=append,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT id, total, lines_total, _sluice_seq FROM gold.order_check
