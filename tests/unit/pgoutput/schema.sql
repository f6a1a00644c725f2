-- The tables, publication and slot the captured stream comes from
-- (see capture.sh). Run once, before workload.sql.
SET client_min_messages = warning;
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE pair AS (a int, b text);
CREATE DOMAIN posint AS int CHECK (VALUE > 0);

-- every type whose JSON the decoder writes as row_to_json() does
CREATE TABLE t_all (
	id int PRIMARY KEY,
	i2 smallint, i4 int, i8 bigint, n numeric, n2 numeric(40, 20),
	f4 real, f8 double precision, b bool, j json, jb jsonb,
	tx text, vc varchar(10), ch char(3), nm name, c1 "char", u uuid,
	d date, tm time, ttz timetz, ts timestamp, tstz timestamptz, iv interval,
	by bytea, ai int[], at text[], a2 int[], an numeric[], ab bool[], aj jsonb[],
	ats timestamptz[], aby bytea[], m mood, ip inet,
	big text
);
ALTER TABLE t_all ALTER COLUMN big SET STORAGE EXTERNAL;

-- types whose JSON differs from row_to_json(): oid is a number, a
-- composite, a domain and an array of an enum land as their text
CREATE TABLE t_misc (id int PRIMARY KEY, o oid, p pair, dm posint, am mood[]);

-- REPLICA IDENTITY FULL: updates and deletes carry the whole old row
CREATE TABLE t_full (id int, v text, big text);
ALTER TABLE t_full REPLICA IDENTITY FULL;
ALTER TABLE t_full ALTER COLUMN big SET STORAGE EXTERNAL;

-- a key that changes: the update carries the old key
CREATE TABLE t_key (k1 int, k2 text, v int, PRIMARY KEY (k1, k2));

-- the row as PostgreSQL writes it as JSON, after each insert and update
-- of t_all, in order (not published)
CREATE TABLE oracle (seq serial PRIMARY KEY, js text);
CREATE FUNCTION oracle_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO oracle (js) VALUES (row_to_json(NEW)::text);
	RETURN NEW;
END $$;
CREATE TRIGGER t_all_oracle AFTER INSERT OR UPDATE ON t_all
	FOR EACH ROW EXECUTE FUNCTION oracle_note();

CREATE PUBLICATION pub FOR TABLE t_all, t_misc, t_full, t_key;
SELECT pg_create_logical_replication_slot('slot', 'pgoutput');
SELECT pg_replication_origin_create('upstream');
