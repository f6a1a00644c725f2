-- Inlined into every reader as a CTE; never stored.
@config materialized=ephemeral
SELECT * FROM silver.orders WHERE status = 'paid'
