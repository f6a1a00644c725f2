@config materialized=view
SELECT id FROM landing.events
