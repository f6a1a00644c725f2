@upstream ref.flags type=hardcoded sql='SELECT * FROM (VALUES (1, true), (2, false)) AS t(id, active)'
@upstream terms type=file path=data/terms.txt
@config materialized=table
SELECT o.id, f.active FROM seeds.orders AS o LEFT JOIN ref.flags AS f USING (id)
