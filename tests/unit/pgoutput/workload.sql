-- The changes of the captured stream (see capture.sh): every message type
-- and every value shape the decoder handles.
SET timezone = 'UTC';

INSERT INTO t_all VALUES (
	1, -32768, 2147483647, -9223372036854775808,
	123456789012345678901234567890.123456789012345678901234567890,
	-0.00000000000000000001, 3.4028235e38, 2.2250738585072014e-308, true,
	'{"a" : [1, 2.50, {"b": null}], "c": "\u00e9\"x"}', '{"k": [true, false], "n": 1.000000000000000000001}',
	E'tab\there "quoted" back\\slash\nnewline \u00e9 \U0001F600', 'varchar', 'ab', 'a name', 'z',
	'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
	'2024-02-29', '23:59:59.999999', '12:00:00+05:30', '2024-01-02 03:04:05.678901',
	'2024-06-30 22:15:00+02', '1 year 2 mons 3 days 04:05:06.7',
	'\x00ff10', '{1,2,3}', '{"a b",NULL,"NULL","",x,"q\"uote","back\\slash"}',
	'{{1,2},{3,4}}', '{1.5,NaN,Infinity,-Infinity,NULL}', '{t,f}',
	ARRAY['{"x": 1}'::jsonb, '[1, "two"]'], ARRAY['2024-01-01 00:00:00+00'::timestamptz, 'infinity'],
	ARRAY['\x0102'::bytea, '\x'], 'happy', '192.168.0.1/24',
	'small');
INSERT INTO t_all (id, n, n2, f4, f8, b, d, ts, tstz, jb, j, ai)
	VALUES (2, 'NaN', 0, 'NaN', '-Infinity', false, '-infinity', 'infinity', '-infinity',
		'"just a string"', '42', '[0:2]={7,8,9}');
INSERT INTO t_all (id, n, f4, f8, d, ts, tstz, a2)
	VALUES (3, 'Infinity', '-0', 'Infinity', '0044-03-15 BC', '0044-03-15 12:00:00 BC',
		'10000-01-01 00:00:00+00', '{}');
INSERT INTO t_all (id, n, f8, big) VALUES (4, '-Infinity', 1e100, repeat('0123456789', 300));
INSERT INTO t_all (id) VALUES (5);

-- the large value is unchanged and left out of the update
UPDATE t_all SET i4 = 44 WHERE id = 4;
UPDATE t_all SET big = repeat('abcdefghij', 250) WHERE id = 4;
UPDATE t_all SET tx = NULL, n = 0.1 WHERE id = 1;

-- a schema change in the middle of the stream
ALTER TABLE t_all ADD COLUMN added numeric DEFAULT 7;
INSERT INTO t_all (id, added) VALUES (6, 1.25);
UPDATE t_all SET i2 = 2 WHERE id = 5;
ALTER TABLE t_all DROP COLUMN vc;
INSERT INTO t_all (id, i2) VALUES (7, 7);
DELETE FROM t_all WHERE id = 7;

INSERT INTO t_misc VALUES (1, 4294967295, '(1,"x y")', 5, '{sad,happy}');
INSERT INTO t_misc VALUES (2, 0, NULL, NULL, '{}');

INSERT INTO t_full VALUES (1, 'one', repeat('full', 700)), (2, 'two', NULL);
UPDATE t_full SET v = 'uno' WHERE id = 1;
DELETE FROM t_full WHERE id = 2;

INSERT INTO t_key VALUES (1, 'a', 10);
UPDATE t_key SET k2 = 'b' WHERE k1 = 1;
UPDATE t_key SET v = 11 WHERE k1 = 1;
DELETE FROM t_key WHERE k1 = 1;

-- a transaction with an origin (as a subscriber applying another's changes)
SELECT pg_replication_origin_session_setup('upstream');
BEGIN;
SELECT pg_replication_origin_xact_setup('0/ABCDEF', '2024-01-01 00:00:00+00');
INSERT INTO t_key VALUES (2, 'origin', 1);
COMMIT;
SELECT pg_replication_origin_session_reset();

-- a logical decoding message, transactional and not
BEGIN;
SELECT pg_logical_emit_message(true, 'sluice', 'in a transaction');
INSERT INTO t_key VALUES (3, 'm', 3);
COMMIT;
SELECT pg_logical_emit_message(false, 'sluice', E'\\x00ff'::bytea);

TRUNCATE t_full;
TRUNCATE t_key, t_misc RESTART IDENTITY CASCADE;
