@config materialized=table
SELECT id, name, note FROM landing.people
