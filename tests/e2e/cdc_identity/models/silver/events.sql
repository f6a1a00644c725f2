-- the events as they landed
SELECT op, payload->>'what' AS what, _sluice_seq FROM landing.events
