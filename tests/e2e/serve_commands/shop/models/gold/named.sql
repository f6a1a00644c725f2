@config materialized=table
@assert not_null(name)
SELECT id, name FROM silver.regions
