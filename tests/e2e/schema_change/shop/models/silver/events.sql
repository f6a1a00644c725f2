@config materialized=incremental,
        incremental_filter=WHERE id > (SELECT coalesce(max(id), 0) FROM {this})
SELECT id, kind, amount FROM seeds.events
