SELECT e.id, e.region FROM silver.big_events e ORDER BY e.id
