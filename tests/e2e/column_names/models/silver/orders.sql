-- keys named like keywords and in mixed case, spelt as the source spells them
@config materialized=incremental, unique_key=[order, CustomerId],
        incremental_filter=WHERE _sluice_seq > (SELECT max(_sluice_seq) FROM {this})
@assert not_null(order)
@assert unique(order, CustomerId)
@assert warn: accepted_values(group, [x, y])
-- in lower case, a name still finds the column "Id"
@assert relationships(CustomerId, silver.customers(id))
SELECT "order", "CustomerId", "group", amount, _sluice_seq FROM raw.orders
