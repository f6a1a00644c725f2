@config materialized=incremental, unique_key=id
SELECT h.id, k.label FROM hist.hourly AS h JOIN seeds.kinds AS k ON k.kind = h.id % 2
