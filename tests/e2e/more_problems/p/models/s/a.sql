@config materialized=table, tags=[own]
@assert not_nul(id)
@assert amount >= >= 0
SELECT 1 AS id
