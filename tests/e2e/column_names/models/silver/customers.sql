@config materialized=table
@assert unique(Id)
SELECT "Id", name, "select" FROM raw.customers
