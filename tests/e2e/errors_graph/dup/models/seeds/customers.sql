SELECT 1 AS id, 'ann' AS name
