@config materialized=table
SELECT count(*) AS events FROM raw.events
