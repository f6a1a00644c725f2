-- large enough that DuckDB writes its row groups to the file as it builds it
@config materialized=table
SELECT id, account, amount, id % 7 AS bucket, md5(id::VARCHAR) AS tag FROM landing.events
