-- a new version when the tier (a column named select) changes, not the name
@config materialized=snapshot, unique_key=CustomerId, check_cols=[select]
@assert not_null(select)
SELECT "Id" AS "CustomerId", name, "select" FROM raw.customers
