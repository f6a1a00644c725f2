@config materialized=table, description='one row per customer'
@assert not_null(id)
@assert unique(id)
SELECT * FROM (VALUES (1, 'ada', 'uk'), (2, 'bob', 'us'), (3, 'cy', 'uk')) AS v(id, name, country)
