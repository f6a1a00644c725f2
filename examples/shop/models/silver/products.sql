-- Live: the shop database's products, kept from its change events (inserts,
-- updates, deletes in commit-LSN order, and within one source transaction
-- in the order of its changes, _sluice_pos). A deleted product stays, flagged
-- _sluice_deleted, so that the catalog downstream sees it go.
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=product_id,
        cdc_op=op, cdc_seq=lsn, cdc_deletes=soft,
        incremental_filter=WHERE _sluice_seq > {watermark}
@assert not_null(product_id)
SELECT CAST(payload->>'product_id' AS BIGINT) AS product_id, payload->>'name' AS name,
       payload->>'category' AS category, CAST(payload->>'price' AS DECIMAL(10, 2)) AS price,
       op, lsn, _sluice_seq, _sluice_pos
FROM landing.pg_products
