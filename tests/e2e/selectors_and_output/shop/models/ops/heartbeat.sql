SELECT 1 AS alive
