-- the source table, each column read from the payload as a model would
@config materialized=incremental, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS INTEGER) AS id,
       CAST(payload->>'i2' AS SMALLINT) AS i2, CAST(payload->>'i4' AS INTEGER) AS i4,
       CAST(payload->>'i8' AS BIGINT) AS i8, CAST(payload->>'o' AS BIGINT) AS o,
       payload->>'n' AS n, payload->>'ns' AS ns,
       CAST(payload->>'f4' AS REAL) AS f4, CAST(payload->>'f8' AS DOUBLE PRECISION) AS f8,
       CAST(payload->>'b' AS BOOLEAN) AS b,
       payload->'j' AS j, payload->'jb' AS jb,
       payload->'ai' AS ai, payload->'at' AS at, payload->'af' AS af,
       payload->>'by' AS by,
       CAST(payload->>'ts' AS TIMESTAMP) AS ts, CAST(payload->>'tz' AS TIMESTAMPTZ) AS tz,
       CAST(payload->>'d' AS DATE) AS d, CAST(payload->>'u' AS UUID) AS u,
       payload->>'m' AS m, CAST(payload->>'p' AS INTEGER) AS p, payload->'ma' AS ma,
       payload->>'t' AS t, payload->>'dt' AS dt, payload->'di' AS di, payload->'pc' AS pc,
       payload->'pa' AS pa, payload->'pp' AS pp,
       op, lsn, _sluice_seq
FROM landing.vals
