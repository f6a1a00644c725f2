SELECT id FROM landing.events
