-- the filter names the model itself instead of {this}
@config materialized=incremental,
        incremental_filter=WHERE id > (SELECT coalesce(max(id), 0) FROM silver.events_self)
SELECT id, amount FROM raw.events
