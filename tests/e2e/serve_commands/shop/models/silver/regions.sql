@config materialized=table
@assert not_null(id)
SELECT id, name FROM seeds.regions
