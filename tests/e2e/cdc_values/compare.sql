-- :'rows' (a JSON array of objects, one per row) against the source table,
-- value by value, each read back as its column's type: the payloads
-- (:mode payload: each object's "payload" member, JSON values) or a
-- model's rows (:mode model: every value as text, JSON columns as JSON text).
-- A JSON null and an SQL NULL are the same value in a JSON column. The
-- columns :'skip' names (a comma-separated list, or empty) are left out.
SET TimeZone = 'UTC';
CREATE TEMP TABLE got AS
	SELECT (c->>'id')::integer AS id, c
	FROM (SELECT CASE WHEN :'mode' = 'payload' THEN (e->>'payload')::jsonb ELSE e END AS c
	      FROM jsonb_array_elements(:'rows'::jsonb) e) r;
CREATE FUNCTION pg_temp.js(c jsonb, col text, json_values boolean) RETURNS jsonb LANGUAGE sql AS $$
	SELECT coalesce(CASE WHEN json_values THEN c->col ELSE (c->>col)::jsonb END, 'null')
$$;
CREATE TEMP TABLE cmp AS
SELECT g.id, x.col, x.same
FROM got g JOIN vals v USING (id), LATERAL (VALUES
	('i2', (c->>'i2')::smallint IS NOT DISTINCT FROM v.i2),
	('i4', (c->>'i4')::integer IS NOT DISTINCT FROM v.i4),
	('i8', (c->>'i8')::bigint IS NOT DISTINCT FROM v.i8),
	('o', (c->>'o')::oid IS NOT DISTINCT FROM v.o),
	('n', c->>'n' IS NOT DISTINCT FROM v.n::text),
	('ns', c->>'ns' IS NOT DISTINCT FROM v.ns::text),
	('f4', (c->>'f4')::real IS NOT DISTINCT FROM v.f4),
	('f8', (c->>'f8')::double precision IS NOT DISTINCT FROM v.f8),
	('b', (c->>'b')::boolean IS NOT DISTINCT FROM v.b),
	('j', pg_temp.js(c, 'j', :'mode' = 'payload') = coalesce(v.j::jsonb, 'null')),
	('jb', pg_temp.js(c, 'jb', :'mode' = 'payload') = coalesce(v.jb, 'null')),
	('ai', pg_temp.js(c, 'ai', :'mode' = 'payload') = coalesce(to_jsonb(v.ai), 'null')),
	('at', pg_temp.js(c, 'at', :'mode' = 'payload') = coalesce(to_jsonb(v.at), 'null')),
	('af', pg_temp.js(c, 'af', :'mode' = 'payload') = coalesce(to_jsonb(v.af), 'null')),
	('by', (c->>'by')::bytea IS NOT DISTINCT FROM v.by),
	('ts', (c->>'ts')::timestamp IS NOT DISTINCT FROM v.ts),
	('tz', (c->>'tz')::timestamptz IS NOT DISTINCT FROM v.tz),
	('d', (c->>'d')::date IS NOT DISTINCT FROM v.d),
	('u', (c->>'u')::uuid IS NOT DISTINCT FROM v.u),
	('m', (c->>'m')::mood IS NOT DISTINCT FROM v.m),
	('p', pg_temp.js(c, 'p', :'mode' = 'payload') = coalesce(to_jsonb(v.p), 'null')),
	('ma', pg_temp.js(c, 'ma', :'mode' = 'payload') = coalesce(to_jsonb(v.ma), 'null')),
	('t', c->>'t' IS NOT DISTINCT FROM v.t),
	('dt', c->>'dt' IS NOT DISTINCT FROM v.dt::text),
	('di', pg_temp.js(c, 'di', :'mode' = 'payload') = coalesce(to_jsonb(v.di), 'null')),
	('pc', pg_temp.js(c, 'pc', :'mode' = 'payload') = coalesce(to_jsonb(v.pc), 'null')),
	('pa', pg_temp.js(c, 'pa', :'mode' = 'payload') = coalesce(to_jsonb(v.pa), 'null')),
	('pp', pg_temp.js(c, 'pp', :'mode' = 'payload') = coalesce(to_jsonb(v.pp), 'null'))
) x(col, same)
WHERE x.col <> ALL (string_to_array(:'skip', ','));
SELECT count(DISTINCT id) || ' rows, ' || count(DISTINCT col) || ' columns compared'
	|| CASE WHEN :'skip' = '' THEN '' ELSE ' (not ' || replace(:'skip', ',', ', ') || ')' END FROM cmp;
SELECT 'row ' || id || ' column ' || col || ' differs: ' || coalesce(c->>col, '<null>') || ' (source '
	|| coalesce((SELECT to_jsonb(v)->>col FROM vals v WHERE v.id = cmp.id), '<null>') || ')'
FROM cmp JOIN got USING (id) WHERE NOT same ORDER BY id, col;
SELECT 'source row ' || id || ' not found' FROM vals WHERE id NOT IN (SELECT id FROM got) ORDER BY id;
SELECT 'row ' || id || ' not in the source' FROM got WHERE id NOT IN (SELECT id FROM vals) ORDER BY id;
