SELECT count(*) AS n FROM landing.events
