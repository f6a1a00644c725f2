@config materialized=tabel, uniqe_key=id
SELECT 1 AS id, 'ann' AS name
