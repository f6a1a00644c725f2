SELECT 1 AS id, 'main' AS built_by
