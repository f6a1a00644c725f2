@config materialized=ephemeral
SELECT ts, v FROM raw.events
