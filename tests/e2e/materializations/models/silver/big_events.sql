@config materialized=ephemeral
SELECT * FROM raw.events WHERE amount >= 10
