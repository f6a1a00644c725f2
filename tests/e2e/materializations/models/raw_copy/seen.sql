@config materialized=table
SELECT max(id) AS id FROM raw.events WHERE id <= 1
