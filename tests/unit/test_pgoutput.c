/*
 * The replication stream decoder (src/pgcdc/pgoutput.c, pgoutput_json.c)
 * against a stream captured from PostgreSQL 15 (tests/unit/pgoutput/:
 * schema.sql, workload.sql, capture.sh): every message of it decodes, and
 * every row of t_all it carries gives the JSON PostgreSQL's own
 * row_to_json() gave for that row when it was written, the oracle. Then
 * values by type, and malformed input: every truncation of every captured
 * message, and random mutations of them (SLUICE_SLOW=1 for many more),
 * give an error or a valid decode, never a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "pgcdc/pgoutput.h"

#include "pgoutput/stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSTREAM (sizeof(pgoutput_stream) / sizeof(pgoutput_stream[0]))
#define NORACLE (sizeof(pgoutput_oracle) / sizeof(pgoutput_oracle[0]))

struct bytes {
	uint8_t *p;
	size_t len;
};

static struct bytes unhex(const char *hex)
{
	struct bytes b = { malloc(strlen(hex) / 2 + 1), strlen(hex) / 2 };

	assert_non_null(b.p);
	for (size_t i = 0; i < b.len; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		b.p[i] = (uint8_t)v;
	}
	return b;
}

/* The captured stream, decoded once for the tests that need its bytes. */
static struct bytes stream[NSTREAM];

static int group_setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSTREAM; i++)
		stream[i] = unhex(pgoutput_stream[i]);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSTREAM; i++)
		free(stream[i].p);
	return 0;
}

/* JSON text without the white space between tokens (the oracle keeps a
 * json value's as it was typed). */
static char *compact(const char *json)
{
	struct buf b = BUF_INIT;
	struct sl_err err = SL_ERR_INIT;

	if (pgoutput_value_json(&b, 114, json, strlen(json), &err))
		fail_msg("oracle is not JSON: %s", err.msg);
	return buf_detach(&b, NULL);
}

/* ---- the unchanged TOAST values of t_all, from the rows landed before ---- */

#define MAX_ROWS 16

struct landed {
	char *payload[MAX_ROWS]; /* by id */
};

static int id_of(const char *payload)
{
	const char *v;
	size_t n;

	if (pgoutput_json_member(payload, strlen(payload), "id", &v, &n, NULL))
		return -1;
	return atoi(v);
}

struct fill_ctx {
	struct landed *landed;
	int id;
	int calls;
};

static int fill_from_landed(void *ctx, const struct pgoutput_relation *rel, uint16_t col,
			    struct buf *out, struct sl_err *err)
{
	struct fill_ctx *f = ctx;
	const char *prev = f->landed->payload[f->id], *v;
	size_t n;
	int rc;

	f->calls++;
	if (!prev)
		return sl_err_set(err, SL_E_NOTFOUND, "no row %d landed", f->id);
	rc = pgoutput_json_member(prev, strlen(prev), rel->cols[col].name, &v, &n, err);
	return rc ? rc : buf_add(out, v, n);
}

/* ---- the captured stream, message by message ---- */

struct seen {
	int copies[256], msgs[256];
	int keepalive_reply;
	int oracle_rows, fills;
	uint32_t xid;
	uint64_t final_lsn;
	int in_txn;
};

static void check_t_all(const struct pgoutput_msg *m, struct seen *s, struct landed *landed)
{
	const struct pgoutput_tuple *t = &m->change.new;
	struct buf b = BUF_INIT;
	struct sl_err err = SL_ERR_INIT;
	struct fill_ctx f = { landed, 0, 0 };
	const char *v;
	size_t n;
	char *want;

	assert_true(s->oracle_rows < (int)NORACLE);
	/* the id is the first column, never unchanged */
	assert_int_equal(t->values[0].kind, PGOUTPUT_TEXT);
	f.id = atoi(t->values[0].text);
	assert_in_range(f.id, 1, MAX_ROWS - 1);
	if (pgoutput_tuple_json(&b, m->change.rel, t, fill_from_landed, &f, &err))
		fail_msg("row %d: %s", f.id, err.msg);
	want = compact(pgoutput_oracle[s->oracle_rows]);
	assert_string_equal(b.buf, want);
	assert_int_equal(id_of(b.buf), f.id);
	assert_int_equal(pgoutput_json_member(b.buf, b.len, "id", &v, &n, NULL), 0);
	s->fills += f.calls;
	s->oracle_rows++;
	free(landed->payload[f.id]);
	landed->payload[f.id] = buf_detach(&b, NULL);
	free(want);
}

static void check_payload(const struct pgoutput_relation *rel, const struct pgoutput_tuple *t,
			  const char *want)
{
	struct buf b = BUF_INIT;
	struct sl_err err = SL_ERR_INIT;

	if (pgoutput_tuple_json(&b, rel, t, NULL, NULL, &err))
		fail_msg("%s: %s", rel->relname, err.msg);
	assert_string_equal(b.buf, want);
	buf_release(&b);
}

static void check_change(const struct pgoutput_msg *m, struct seen *s, struct landed *landed)
{
	const struct pgoutput_relation *rel = m->change.rel;
	struct pgoutput_tuple filled;

	assert_non_null(rel);
	assert_true(s->in_txn);
	if (!strcmp(rel->relname, "t_all")) {
		assert_int_equal(rel->replident, 'd');
		assert_true(rel->cols[0].key);
		if (m->kind == PGOUTPUT_DELETE) {
			assert_int_equal(m->change.old.kind, 'K');
			check_payload(rel, &m->change.old, "{\"id\":7}");
		} else {
			if (m->kind == PGOUTPUT_UPDATE)
				assert_int_equal(m->change.old.kind, 0);
			check_t_all(m, s, landed);
		}
	} else if (!strcmp(rel->relname, "t_full")) {
		assert_int_equal(rel->replident, 'f');
		if (m->kind == PGOUTPUT_UPDATE) {
			/* the old row is whole; the new one leaves the large value out */
			assert_int_equal(m->change.old.kind, 'O');
			assert_int_equal(m->change.new.values[2].kind, PGOUTPUT_UNCHANGED);
			assert_int_equal(m->change.old.values[2].kind, PGOUTPUT_TEXT);
			assert_int_equal(m->change.old.values[2].len, 2800);
			filled = m->change.new;
			filled.values = malloc(3 * sizeof(*filled.values));
			memcpy(filled.values, m->change.new.values, 3 * sizeof(*filled.values));
			assert_int_equal(pgoutput_tuple_fill(&filled, &m->change.old), 0);
			assert_int_equal(filled.values[2].len, 2800);
			assert_memory_equal(filled.values[1].text, "uno", 3);
			free(filled.values);
			s->fills++;
		} else if (m->kind == PGOUTPUT_DELETE) {
			assert_int_equal(m->change.old.kind, 'O');
			check_payload(rel, &m->change.old, "{\"id\":2,\"v\":\"two\",\"big\":null}");
		}
	} else if (!strcmp(rel->relname, "t_key")) {
		if (m->kind == PGOUTPUT_UPDATE && m->change.old.kind) {
			/* the key changed: the old one comes along */
			assert_int_equal(m->change.old.kind, 'K');
			check_payload(rel, &m->change.old, "{\"k1\":1,\"k2\":\"a\"}");
			check_payload(rel, &m->change.new, "{\"k1\":1,\"k2\":\"b\",\"v\":10}");
		}
	} else if (!strcmp(rel->relname, "t_misc")) {
		if (m->change.new.values[0].text[0] == '1')
			check_payload(rel, &m->change.new,
				      "{\"id\":1,\"o\":4294967295,\"p\":\"(1,\\\"x y\\\")\",\"dm\":\"5\","
				      "\"am\":\"{sad,happy}\"}");
		else
			check_payload(rel, &m->change.new,
				      "{\"id\":2,\"o\":0,\"p\":null,\"dm\":null,\"am\":\"{}\"}");
	} else {
		fail_msg("a change of %s", rel->relname);
	}
}

static void check_msg(const struct pgoutput_msg *m, struct pgoutput_cache *c, struct seen *s,
		      struct landed *landed)
{
	switch (m->kind) {
	case PGOUTPUT_BEGIN:
		assert_false(s->in_txn);
		assert_true(m->begin.xid > 0);
		s->in_txn = 1;
		s->xid = m->begin.xid;
		s->final_lsn = m->begin.final_lsn;
		break;
	case PGOUTPUT_COMMIT:
		assert_true(s->in_txn);
		assert_int_equal(m->commit.commit_lsn, s->final_lsn);
		assert_true(m->commit.end_lsn > m->commit.commit_lsn);
		s->in_txn = 0;
		break;
	case PGOUTPUT_ORIGIN:
		assert_string_equal(m->origin.name, "upstream");
		assert_int_equal(m->origin.lsn, 0xABCDEF);
		break;
	case PGOUTPUT_RELATION:
		assert_string_equal(m->relation.nspname, "public");
		assert_ptr_not_equal(pgoutput_cache_relation(c, m->relation.oid), &m->relation);
		assert_string_equal(pgoutput_cache_relation(c, m->relation.oid)->relname,
				    m->relation.relname);
		break;
	case PGOUTPUT_TYPE:
		/* a domain is described by its base type: pg_catalog's int4 for posint */
		if (!*m->type.nspname)
			assert_string_equal(m->type.name, "int4");
		else
			assert_string_equal(m->type.nspname, "public");
		assert_non_null(pgoutput_cache_type(c, m->type.oid));
		break;
	case PGOUTPUT_INSERT:
	case PGOUTPUT_UPDATE:
	case PGOUTPUT_DELETE:
		check_change(m, s, landed);
		break;
	case PGOUTPUT_TRUNCATE:
		if (m->truncate.nrels == 1) {
			assert_int_equal(m->truncate.options, 0);
			assert_string_equal(m->truncate.rels[0]->relname, "t_full");
		} else {
			assert_int_equal(m->truncate.nrels, 2);
			assert_int_equal(m->truncate.options, PGOUTPUT_TRUNCATE_CASCADE |
								      PGOUTPUT_TRUNCATE_RESTART_IDENTITY);
		}
		break;
	case PGOUTPUT_MESSAGE:
		assert_string_equal(m->message.prefix, "sluice");
		if (m->message.transactional) {
			assert_true(s->in_txn);
			assert_int_equal(m->message.len, 16);
			assert_memory_equal(m->message.content, "in a transaction", 16);
		} else {
			assert_int_equal(m->message.len, 2);
			assert_memory_equal(m->message.content, "\x00\xff", 2);
		}
		break;
	default:
		fail_msg("message kind %c", m->kind);
	}
}

static void test_stream(void **state)
{
	struct pgoutput_cache *c = pgoutput_cache_new();
	struct arena *a = arena_new(NULL);
	struct landed landed = { { 0 } };
	struct seen s;
	const struct pgoutput_relation *first_t_all = NULL;
	uint32_t t_all_oid;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < NSTREAM; i++) {
		struct pgoutput_copy cp;
		struct pgoutput_msg m;
		struct sl_err err = SL_ERR_INIT;

		if (pgoutput_copy_decode(stream[i].p, stream[i].len, &cp, &err))
			fail_msg("stream message %zu: %s", i, err.msg);
		s.copies[(unsigned char)cp.kind]++;
		if (cp.kind == 'k') {
			s.keepalive_reply += cp.reply_requested;
			assert_true(cp.wal_end > 0);
			continue;
		}
		assert_int_equal(cp.kind, 'w');
		assert_true(cp.send_time > 0);
		if (pgoutput_decode(c, cp.data, cp.len, a, &m, &err))
			fail_msg("stream message %zu: %s", i, err.msg);
		s.msgs[(unsigned char)m.kind]++;
		if (m.kind == PGOUTPUT_RELATION && !strcmp(m.relation.relname, "t_all") && !first_t_all)
			first_t_all = pgoutput_cache_relation(c, m.relation.oid);
		check_msg(&m, c, &s, &landed);
		arena_reset(a);
	}
	/* every kind came, and every oracle row was met */
	for (const char *k = "BCORYIUDTM"; *k; k++)
		assert_true(s.msgs[(unsigned char)*k] > 0);
	assert_true(s.copies['k'] > 0);
	assert_true(s.keepalive_reply > 0);
	assert_int_equal(s.oracle_rows, NORACLE);
	assert_true(s.fills >= 2); /* t_all's large value, t_full's */
	assert_false(s.in_txn);
	/* the ALTER TABLEs replaced t_all twice; the first is kept until forget */
	assert_non_null(first_t_all);
	assert_int_equal(first_t_all->ncols, 35);
	assert_string_equal(first_t_all->cols[12].name, "vc");
	t_all_oid = first_t_all->oid;
	assert_ptr_not_equal(pgoutput_cache_relation(c, t_all_oid), first_t_all);
	assert_string_equal(pgoutput_cache_relation(c, t_all_oid)->cols[12].name, "ch");
	pgoutput_cache_forget(c);
	assert_string_equal(pgoutput_cache_relation(c, t_all_oid)->cols[34].name, "added");
	for (int i = 0; i < MAX_ROWS; i++)
		free(landed.payload[i]);
	arena_free(a);
	pgoutput_cache_free(c);
}

/* ---- the stream's framing ---- */

static void test_keepalive_and_status(void **state)
{
	static const uint8_t k[] = { 'k', 0, 0, 0, 1, 0x55, 0x16, 0, 0, 0, 3, 4, 0x92, 0xa6, 0x3b,
				     0x82, 0x78, 1 };
	static const uint8_t want[PGOUTPUT_STATUS_LEN] = {
		'r', 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 1,
	};
	struct pgoutput_copy cp;
	struct sl_err err = SL_ERR_INIT;
	uint8_t out[PGOUTPUT_STATUS_LEN];

	(void)state;
	assert_int_equal(pgoutput_copy_decode(k, sizeof(k), &cp, &err), 0);
	assert_int_equal(cp.kind, 'k');
	assert_int_equal(cp.wal_end, 0x155160000ULL);
	assert_int_equal(cp.send_time, 0x30492a63b8278LL);
	assert_true(cp.reply_requested);
	assert_int_equal(pgoutput_copy_decode(k, sizeof(k) - 1, &cp, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "truncated keepalive message: the reply flag at byte 17 is cut short");
	assert_int_equal(pgoutput_copy_decode("x", 1, &cp, &err), SL_E_PARSE);
	assert_non_null(strstr(err.msg, "unknown replication message kind 0x78 at byte 0"));
	assert_int_equal(pgoutput_copy_decode("w12345678", 9, &cp, &err), SL_E_PARSE);
	assert_int_equal(pgoutput_copy_decode("", 0, &cp, &err), SL_E_PARSE);

	pgoutput_status_encode(out, 0x100000002ULL, 0x100000001ULL, 0x100000000ULL, -2, true);
	assert_memory_equal(out, want, sizeof(want));
	pgoutput_status_encode(out, 0, 0, 0, 0, false);
	assert_int_equal(out[0], 'r');
	assert_int_equal(out[33], 0);
}

/* ---- values by type ---- */

static void value(uint32_t oid, const char *text, const char *want)
{
	struct buf b = BUF_INIT;
	struct sl_err err = SL_ERR_INIT;

	if (pgoutput_value_json(&b, oid, text, strlen(text), &err))
		fail_msg("%u '%s': %s", oid, text, err.msg);
	if (strcmp(b.buf, want))
		fail_msg("%u '%s': got %s, want %s", oid, text, b.buf, want);
	buf_release(&b);
}

static void bad_value(uint32_t oid, const char *text, size_t len, const char *want)
{
	struct buf b = BUF_INIT;
	struct sl_err err = SL_ERR_INIT;

	buf_adds(&b, "kept");
	assert_int_equal(pgoutput_value_json(&b, oid, text, len, &err), SL_E_PARSE);
	if (!strstr(err.msg, want))
		fail_msg("%u '%s': got '%s', want '%s'", oid, text, err.msg, want);
	assert_string_equal(b.buf, "kept");
	buf_release(&b);
}

static void test_values(void **state)
{
	static const struct {
		uint32_t oid;
		const char *text, *want;
	} cases[] = {
		/* numbers exact, whatever their size; what JSON has no number for as strings */
		{ 1700, "-123456789012345678901234567890.000000000000000000001",
		  "-123456789012345678901234567890.000000000000000000001" },
		{ 1700, "NaN", "\"NaN\"" },
		{ 701, "-Infinity", "\"-Infinity\"" },
		{ 701, "1e-300", "1e-300" },
		{ 20, "9223372036854775807", "9223372036854775807" },
		{ 26, "4294967295", "4294967295" },
		{ 23, "12abc", "\"12abc\"" },
		{ 16, "t", "true" },
		{ 16, "f", "false" },
		/* timestamps: 'T', offsets with minutes, the rest kept */
		{ 1184, "2024-01-02 03:04:05+00", "\"2024-01-02T03:04:05+00:00\"" },
		{ 1184, "2024-01-02 03:04:05.5+05:30", "\"2024-01-02T03:04:05.5+05:30\"" },
		{ 1184, "1850-01-01 00:00:00+00:09:21", "\"1850-01-01T00:00:00+00:09:21\"" },
		{ 1184, "0044-03-15 12:00:00-01 BC", "\"0044-03-15T12:00:00-01:00 BC\"" },
		{ 1114, "12345-01-01 00:00:00", "\"12345-01-01T00:00:00\"" },
		{ 1114, "infinity", "\"infinity\"" },
		{ 1114, "Tue Jan 02 03:04:05 2024", "\"Tue Jan 02 03:04:05 2024\"" },
		{ 1266, "03:04:05-08", "\"03:04:05-08:00\"" },
		{ 1082, "2024-01-02", "\"2024-01-02\"" },
		/* bytea in either output form */
		{ 17, "\\x00ff", "\"\\\\x00ff\"" },
		{ 17, "a\\\\b\\000\\377", "\"\\\\x615c6200ff\"" },
		{ 17, "a\\9", "\"a\\\\9\"" },
		/* json and jsonb embedded, without white space */
		{ 114, " { \"a\" : [ 1 , 2.5e3 , { } , [ ] ] , \"b\\u00e9\" : null } ",
		  "{\"a\":[1,2.5e3,{},[]],\"b\\u00e9\":null}" },
		{ 3802, "\"s\"", "\"s\"" },
		{ 3802, "1.000000000000000000000000001", "1.000000000000000000000000001" },
		/* arrays, nested, with bounds, quoting and NULL */
		{ 1007, "{1,2,NULL}", "[1,2,null]" },
		{ 1007, "[0:1]={7,8}", "[7,8]" },
		{ 1007, "{{1,2},{3,4}}", "[[1,2],[3,4]]" },
		{ 1007, "{{{{{{1}}}}}}", "[[[[[[1]]]]]]" },
		{ 1009, "{ \"a b\" , NULL,\"NULL\", c\\,d ,\"\\\\\"}",
		  "[\"a b\",null,\"NULL\",\"c,d\",\"\\\\\"]" },
		{ 1009, "{}", "[]" },
		{ 1000, "{t,f}", "[true,false]" },
		{ 3807, "{\"{\\\"a\\\": 1}\",null}", "[{\"a\":1},null]" },
		{ 1185, "{\"2024-01-01 00:00:00+00\",infinity}",
		  "[\"2024-01-01T00:00:00+00:00\",\"infinity\"]" },
		{ 1231, "{1.5,NaN}", "[1.5,\"NaN\"]" },
		/* types this module does not know: their text */
		{ 869, "10.0.0.1", "\"10.0.0.1\"" },
		{ 16385, "(1,\"a\")", "\"(1,\\\"a\\\")\"" },
		{ 1041, "{10.0.0.1}", "\"{10.0.0.1}\"" },
		{ 25, "tab\there\x01\"\\", "\"tab\\there\\u0001\\\"\\\\\"" },
	};
	static const struct {
		uint32_t oid;
		const char *text;
		size_t len;
		const char *want;
	} bad[] = {
		{ 114, "{\"a\":}", 6, "invalid json value: unexpected text at byte 5" },
		{ 114, "[1,", 3, "unexpected end at byte 3" },
		{ 114, "[1] x", 5, "at byte 4" },
		{ 3802, "01", 2, "at byte 1" },
		{ 3802, "\"\\x\"", 4, "at byte 0" },
		{ 1007, "{1,2", 4, "invalid array text: an unclosed element at byte 4" },
		{ 1007, "{1,\"2\"", 6, "invalid array text: no '}' at byte 6" },
		{ 1007, "{{{{{{{1}}}}}}}", 15, "more than 6 dimensions" },
		{ 1007, "{1}x", 4, "text after the end" },
		{ 1007, "{1,,2}", 6, "an empty element" },
		{ 1009, "{\"a}", 4, "an unclosed quote" },
		{ 3807, "{\"{]\"}", 6, "invalid json value" },
		{ 25, "a\0b", 3, "invalid UTF-8 or a NUL byte" },
		{ 25, "\xff", 1, "invalid UTF-8" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		value(cases[i].oid, cases[i].text, cases[i].want);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad_value(bad[i].oid, bad[i].text, bad[i].len, bad[i].want);
}

/* Types that are not built in, as the catalog describes them: a domain
 * as its base type, arrays of any type as JSON arrays, composites as
 * objects, nested; a type not described, as its text. */
enum {
	POSINT = 16400, /* domain over int4 */
	MOOD,		/* enum */
	MOODS,		/* mood[] */
	PAIR,		/* (a int4, b text, m mood, t int4[]) */
	PAIRS,		/* pair[] */
	INTS,		/* domain over int4[] */
	PAIRS_D,	/* domain over pair[] */
	POSINTS,	/* posint[] */
	NEST,		/* (p pair, n posint, ps pair[]) */
	TEXT_D,		/* domain over text */
	EMPTY,		/* a composite of no fields */
};

static struct pgoutput_types *user_types(void)
{
	static const char *const pair_names[] = { "a", "b", "m", "t" };
	static const uint32_t pair_fields[] = { 23, 25, MOOD, 1007 };
	static const char *const nest_names[] = { "p", "n", "ps" };
	static const uint32_t nest_fields[] = { PAIR, POSINT, PAIRS };
	const struct pgoutput_type all[] = {
		{ POSINT, 'd', 23 },
		{ MOOD, 'o' },
		{ MOODS, 'a', MOOD },
		{ PAIR, 'c', 0, 4, pair_names, pair_fields },
		{ PAIRS, 'a', PAIR },
		{ INTS, 'd', 1007 },
		{ PAIRS_D, 'd', PAIRS },
		{ POSINTS, 'a', POSINT },
		{ NEST, 'c', 0, 3, nest_names, nest_fields },
		{ TEXT_D, 'd', 25 },
		{ EMPTY, 'c' },
	};
	struct pgoutput_types *t = pgoutput_types_new();

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		pgoutput_types_put(t, &all[i]);
	/* a type described again replaces what was said of it */
	pgoutput_types_put(t, &(struct pgoutput_type){ POSINT, 'd', 23 });
	return t;
}

/* The payload of a one-column row of type oid with the value text, with
 * the types given; want NULL: an error containing bad. */
static void typed(const struct pgoutput_types *types, uint32_t oid, const char *text,
		  const char *want, const char *bad)
{
	struct pgoutput_column col = { false, "c", oid, -1 };
	struct pgoutput_relation rel = { 1, "public", "t", 'd', 1, &col, types };
	struct pgoutput_value v = { 't', (uint32_t)strlen(text), text };
	struct pgoutput_tuple t = { 'N', 1, &v };
	struct buf b = BUF_INIT;
	struct sl_err err = SL_ERR_INIT;
	int rc = pgoutput_tuple_json(&b, &rel, &t, NULL, NULL, &err);

	if (want && rc)
		fail_msg("%u '%s': %s", oid, text, err.msg);
	if (want && strcmp(b.buf, want))
		fail_msg("%u '%s': got %s, want %s", oid, text, b.buf, want);
	if (!want && (!rc || !strstr(err.msg, bad)))
		fail_msg("%u '%s': got %s (%s), want an error with '%s'", oid, text, b.buf,
			 rc ? err.msg : "no error", bad);
	buf_release(&b);
}

static void test_user_types(void **state)
{
	struct pgoutput_types *t = user_types();

	(void)state;
	typed(t, POSINT, "42", "{\"c\":42}", NULL);
	typed(t, TEXT_D, "42", "{\"c\":\"42\"}", NULL);
	typed(t, MOOD, "happy", "{\"c\":\"happy\"}", NULL);
	typed(t, MOODS, "{sad,happy,NULL,\"NULL\"}", "{\"c\":[\"sad\",\"happy\",null,\"NULL\"]}",
	      NULL);
	typed(t, MOODS, "{{sad},{ok}}", "{\"c\":[[\"sad\"],[\"ok\"]]}", NULL);
	typed(t, INTS, "{1,-2}", "{\"c\":[1,-2]}", NULL);
	typed(t, POSINTS, "[0:1]={7,8}", "{\"c\":[7,8]}", NULL);
	typed(t, PAIR, "(1,\"a \"\"q\"\" \\\\ b\",ok,\"{3,4}\")",
	      "{\"c\":{\"a\":1,\"b\":\"a \\\"q\\\" \\\\ b\",\"m\":\"ok\",\"t\":[3,4]}}", NULL);
	typed(t, PAIR, "(,\"\",,)", "{\"c\":{\"a\":null,\"b\":\"\",\"m\":null,\"t\":null}}", NULL);
	typed(t, PAIRS, "{\"(1,x,sad,{})\",NULL}",
	      "{\"c\":[{\"a\":1,\"b\":\"x\",\"m\":\"sad\",\"t\":[]},null]}", NULL);
	typed(t, PAIRS_D, "{\"(2,\\\"y z\\\",ok,)\"}",
	      "{\"c\":[{\"a\":2,\"b\":\"y z\",\"m\":\"ok\",\"t\":null}]}", NULL);
	typed(t, NEST, "(\"(1,x,sad,{5})\",9,\"{\"\"(2,y,ok,)\"\"}\")",
	      "{\"c\":{\"p\":{\"a\":1,\"b\":\"x\",\"m\":\"sad\",\"t\":[5]},\"n\":9,"
	      "\"ps\":[{\"a\":2,\"b\":\"y\",\"m\":\"ok\",\"t\":null}]}}",
	      NULL);
	typed(t, EMPTY, "()", "{\"c\":{}}", NULL);
	/* not described: the text, as before */
	typed(t, 16499, "(1,2)", "{\"c\":\"(1,2)\"}", NULL);
	typed(NULL, POSINT, "42", "{\"c\":\"42\"}", NULL);
	/* text that is not what the type writes */
	typed(t, PAIR, "1,x", NULL, "invalid composite text: no '('");
	typed(t, PAIR, "(1,x,ok", NULL, "no ')'");
	typed(t, PAIR, "(1,\"x,ok,)", NULL, "an unclosed quote");
	typed(t, PAIR, "(1,x)", NULL, "fewer fields than the type has");
	typed(t, PAIR, "(1,x,ok,,5)", NULL, "more fields than the type has");
	typed(t, PAIR, "(1,x,ok,)z", NULL, "text after the end");
	typed(t, PAIR, "(abc,x,ok,)", "{\"c\":{\"a\":\"abc\",\"b\":\"x\",\"m\":\"ok\",\"t\":null}}",
	      NULL);
	typed(t, EMPTY, "(1)", NULL, "fields in a type of none");
	typed(t, PAIRS, "{\"(1,x)\"}", NULL, "fewer fields");
	/* a domain over itself never ends: the bound says so */
	pgoutput_types_put(t, &(struct pgoutput_type){ POSINT, 'd', POSINT });
	typed(t, POSINT, "1", NULL, "types nested more than");
	pgoutput_types_free(t);
}

static void test_json_member(void **state)
{
	const char *doc = " {\"a\" : [1, {\"x\": 2}] , \"b\\\"c\":\"v\", \"d\":{}} ";
	const char *v;
	size_t n;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	assert_int_equal(pgoutput_json_member(doc, strlen(doc), "a", &v, &n, &err), 0);
	assert_int_equal(n, strlen("[1, {\"x\": 2}]"));
	assert_memory_equal(v, "[1, {\"x\": 2}]", n);
	assert_int_equal(pgoutput_json_member(doc, strlen(doc), "b\"c", &v, &n, &err), 0);
	assert_memory_equal(v, "\"v\"", n);
	assert_int_equal(pgoutput_json_member(doc, strlen(doc), "d", &v, &n, &err), 0);
	assert_memory_equal(v, "{}", n);
	assert_int_equal(pgoutput_json_member(doc, strlen(doc), "x", &v, &n, &err), SL_E_NOTFOUND);
	assert_int_equal(pgoutput_json_member("{}", 2, "x", &v, &n, &err), SL_E_NOTFOUND);
	assert_int_equal(pgoutput_json_member("[1]", 3, "x", &v, &n, &err), SL_E_PARSE);
	assert_int_equal(pgoutput_json_member("{\"a\":1,", 7, "x", &v, &n, &err), SL_E_PARSE);
}

static void test_unchanged_needs_filling(void **state)
{
	struct pgoutput_column cols[] = { { true, "id", 23, -1 }, { false, "big", 25, -1 } };
	struct pgoutput_relation rel = { 1, "public", "t", 'd', 2, cols };
	struct pgoutput_value vals[] = { { 't', 1, "1" }, { 'u', 0, NULL } };
	struct pgoutput_tuple t = { 'N', 2, vals };
	struct buf b = BUF_INIT;
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	buf_adds(&b, "[");
	assert_int_equal(pgoutput_tuple_json(&b, &rel, &t, NULL, NULL, &err), SL_E_INVALID);
	assert_non_null(strstr(err.msg, "column 'big' is an unchanged TOAST value"));
	assert_non_null(strstr(err.msg, "in column 'big' of public.t"));
	assert_string_equal(b.buf, "[");
	/* a key tuple fills nothing */
	assert_int_equal(pgoutput_tuple_fill(&t, &(struct pgoutput_tuple){ 'K', 2, vals }), 1);
	/* a cap on the payload */
	b.cap = 8;
	vals[1] = (struct pgoutput_value){ 't', 5, "large" };
	assert_int_equal(pgoutput_tuple_json(&b, &rel, &t, NULL, NULL, &err), SL_E_TOOBIG);
	assert_string_equal(b.buf, "[");
	buf_release(&b);
}

/* An update moved its row when its old key ('K', or a whole old row
 * 'O') differs from the new row in a key column: the relation's marks, or
 * the columns given (the primary key of a REPLICA IDENTITY FULL table). */
static void test_key_changed(void **state)
{
	struct pgoutput_column cols[] = { { true, "a", 23, -1 },
					  { true, "b", 25, -1 },
					  { false, "v", 25, -1 } };
	struct pgoutput_relation rel = { 1, "public", "t", 'd', 3, cols };
	struct pgoutput_value nv[] = { { 't', 1, "1" }, { 't', 1, "x" }, { 't', 2, "v2" } };
	struct pgoutput_value ov[] = { { 't', 1, "1" }, { 't', 1, "x" }, { 'n', 0, NULL } };
	struct pgoutput_tuple nt = { 'N', 3, nv }, ot = { 'K', 3, ov };
	const bool pk_a[] = { true, false, false };

	(void)state;
	/* the same key, sent because a key value is TOASTed */
	assert_false(pgoutput_key_changed(&rel, NULL, &ot, &nt));
	/* no old tuple: the key did not change */
	assert_false(pgoutput_key_changed(&rel, NULL, &(struct pgoutput_tuple){ 0 }, &nt));
	ov[0] = (struct pgoutput_value){ 't', 2, "10" };
	assert_true(pgoutput_key_changed(&rel, NULL, &ot, &nt));
	ov[0] = (struct pgoutput_value){ 't', 1, "2" };
	assert_true(pgoutput_key_changed(&rel, NULL, &ot, &nt));
	/* a second key column, to or from NULL */
	ov[0] = nv[0];
	ov[1] = (struct pgoutput_value){ 'n', 0, NULL };
	assert_true(pgoutput_key_changed(&rel, NULL, &ot, &nt));
	/* a key value the new row did not send is unchanged */
	nv[1] = (struct pgoutput_value){ 'u', 0, NULL };
	assert_false(pgoutput_key_changed(&rel, NULL, &ot, &nt));
	/* a whole old row: only the given key columns count */
	ot.kind = 'O';
	ov[1] = nv[1] = (struct pgoutput_value){ 't', 1, "y" };
	ov[2] = (struct pgoutput_value){ 't', 2, "v1" };
	assert_false(pgoutput_key_changed(&rel, pk_a, &ot, &nt));
	assert_true(pgoutput_key_changed(&rel, (const bool[]){ false, false, true }, &ot, &nt));
	ov[0] = (struct pgoutput_value){ 't', 1, "3" };
	assert_true(pgoutput_key_changed(&rel, pk_a, &ot, &nt));
}

/* ---- malformed messages ---- */

/* Every captured message cut short anywhere fails, says where, and
 * leaves out and the cache as they were. */
static void test_truncated(void **state)
{
	struct pgoutput_cache *c = pgoutput_cache_new();
	struct arena *a = arena_new(NULL);

	(void)state;
	for (size_t i = 0; i < NSTREAM; i++) {
		struct pgoutput_copy cp;
		struct pgoutput_msg m, untouched;
		struct sl_err err = SL_ERR_INIT;

		for (size_t len = 0; len < stream[i].len; len++) {
			int rc = pgoutput_copy_decode(stream[i].p, len, &cp, &err);

			if (!rc) {
				const struct pgoutput_relation *before;
				uint32_t oid;

				assert_int_equal(cp.kind, 'w');
				memset(&m, 0x5a, sizeof(m));
				untouched = m;
				oid = cp.len >= 5 && cp.data[0] == 'R'
					      ? (uint32_t)cp.data[1] << 24 | cp.data[2] << 16 |
							cp.data[3] << 8 | cp.data[4]
					      : 0;
				before = pgoutput_cache_relation(c, oid);
				rc = pgoutput_decode(c, cp.data, cp.len, a, &m, &err);
				assert_memory_equal(&m, &untouched, sizeof(m));
				assert_ptr_equal(pgoutput_cache_relation(c, oid), before);
			}
			assert_int_equal(rc, SL_E_PARSE);
			assert_non_null(strstr(err.msg, "byte"));
		}
		assert_int_equal(pgoutput_copy_decode(stream[i].p, stream[i].len, &cp, &err), 0);
		if (cp.kind == 'w') {
			struct pgoutput_msg m2;
			uint8_t *longer = malloc(cp.len + 1);

			memcpy(longer, cp.data, cp.len);
			longer[cp.len] = 0;
			assert_int_equal(pgoutput_decode(c, longer, cp.len + 1, a, &m2, &err),
					 SL_E_PARSE);
			assert_non_null(strstr(err.msg, "1 unexpected bytes after byte"));
			free(longer);
			assert_int_equal(pgoutput_decode(c, cp.data, cp.len, a, &m2, &err), 0);
		}
		arena_reset(a);
	}
	arena_free(a);
	pgoutput_cache_free(c);
}

static void test_errors(void **state)
{
	struct pgoutput_cache *c = pgoutput_cache_new();
	struct arena *a = arena_new(NULL);
	struct pgoutput_msg m;
	struct sl_err err = SL_ERR_INIT;
	/* Relation 7 "s"."r", identity d, 1 column: key, "id", int4, -1 */
	uint8_t rel[] = { 'R', 0, 0, 0, 7, 's', 0, 'r', 0, 'd', 0, 1, 1, 'i', 'd', 0,
			  0, 0, 0, 23, 0xff, 0xff, 0xff, 0xff };
	uint8_t ins[] = { 'I', 0, 0, 0, 7, 'N', 0, 1, 't', 0, 0, 0, 1, '5' };

	(void)state;
	assert_int_equal(pgoutput_decode(c, ins, sizeof(ins), a, &m, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "malformed Insert message: relation 7 at byte 1 came in no "
				     "Relation message");
	assert_int_equal(pgoutput_decode(c, rel, sizeof(rel), a, &m, &err), 0);
	assert_int_equal(pgoutput_decode(c, ins, sizeof(ins), a, &m, &err), 0);
	assert_int_equal(m.change.new.values[0].len, 1);

	ins[7] = 2; /* two columns */
	assert_int_equal(pgoutput_decode(c, ins, sizeof(ins), a, &m, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "malformed Insert message: the tuple at byte 6 has 2 columns, "
				     "relation s.r has 1");
	ins[7] = 1;
	ins[9] = 0x80; /* a negative length */
	assert_int_equal(pgoutput_decode(c, ins, sizeof(ins), a, &m, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "malformed Insert message: a value's length at byte 9 is negative");
	ins[9] = 0x10;
	assert_int_equal(pgoutput_decode(c, ins, sizeof(ins), a, &m, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "truncated Insert message: a value at byte 13 is cut short");
	ins[9] = 0;
	ins[8] = 'b';
	assert_int_equal(pgoutput_decode(c, ins, sizeof(ins), a, &m, &err), SL_E_PARSE);
	assert_non_null(strstr(err.msg, "binary value at byte 8"));
	ins[8] = 't';
	ins[5] = 'K';
	assert_int_equal(pgoutput_decode(c, ins, sizeof(ins), a, &m, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "malformed Insert message: tuple tag 0x4b at byte 5 (one of 'N' "
				     "expected)");

	rel[10] = rel[11] = 0xff; /* 65535 columns */
	assert_int_equal(pgoutput_decode(c, rel, sizeof(rel), a, &m, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "oversized Relation message: the column count 65535 at byte 10 "
				     "is more than 1600");
	rel[10] = 0;
	rel[11] = 9;
	assert_int_equal(pgoutput_decode(c, rel, sizeof(rel), a, &m, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "truncated Relation message: the column count 9 at byte 10 is "
				     "more than the 12 bytes left hold");
	rel[11] = 1;
	rel[5] = 0xc3; /* not UTF-8 */
	assert_int_equal(pgoutput_decode(c, rel, sizeof(rel), a, &m, &err), SL_E_PARSE);
	assert_string_equal(err.msg, "malformed Relation message: the namespace at byte 5 is not UTF-8");
	assert_string_equal(pgoutput_cache_relation(c, 7)->nspname, "s");

	assert_int_equal(pgoutput_decode(c, "S", 1, a, &m, &err), SL_E_PARSE);
	assert_non_null(strstr(err.msg, "unknown pgoutput message kind 0x53 at byte 0"));
	assert_int_equal(pgoutput_decode(c, "", 0, a, &m, &err), SL_E_PARSE);
	assert_int_equal(pgoutput_decode(c, "T\0\0\0\xff\0", 6, a, &m, &err), SL_E_PARSE);
	assert_non_null(strstr(err.msg, "truncated Truncate message: the relation count 255"));
	arena_free(a);
	pgoutput_cache_free(c);
}

/* ---- fuzzing ---- */

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

static int fill_null(void *ctx, const struct pgoutput_relation *rel, uint16_t col,
		     struct buf *out, struct sl_err *err)
{
	(void)ctx;
	(void)rel;
	(void)col;
	(void)err;
	return buf_adds(out, "null");
}

/* A copy of msg with a few random changes: bytes set, flipped, cut,
 * repeated or dropped, and lengths pushed to their edges. */
static size_t mutate(uint8_t *out, size_t cap, const struct bytes *msg, uint64_t *seed)
{
	size_t len = msg->len < cap ? msg->len : cap;
	int edits = 1 + (int)(rnd(seed) % 4);

	memcpy(out, msg->p, len);
	for (int e = 0; e < edits && len; e++) {
		size_t at = rnd(seed) % len;

		switch (rnd(seed) % 6) {
		case 0:
			out[at] = (uint8_t)rnd(seed);
			break;
		case 1:
			out[at] ^= (uint8_t)(1u << (rnd(seed) % 8));
			break;
		case 2:
			len = at;
			break;
		case 3: /* a length or count at its edge */
			out[at] = (uint8_t[]){ 0, 0xff, 0x7f, 0x80, 1 }[rnd(seed) % 5];
			break;
		case 4:
			if (len < cap) {
				memmove(out + at + 1, out + at, len - at);
				len++;
			}
			break;
		case 5:
			memmove(out + at, out + at + 1, len - at - 1);
			len--;
			break;
		}
	}
	return len;
}

static void test_fuzz(void **state)
{
	const char *slow = getenv("SLUICE_SLOW");
	long rounds = slow && *slow && strcmp(slow, "0") ? 2000000 : 100000;
	struct pgoutput_cache *c = pgoutput_cache_new();
	struct arena *a = arena_new(NULL);
	size_t cap = 0;
	uint8_t *buf;
	uint64_t seed = 20240601;
	long ok = 0;

	(void)state;
	for (size_t i = 0; i < NSTREAM; i++)
		cap = stream[i].len > cap ? stream[i].len : cap;
	cap += 8;
	buf = malloc(cap);
	for (long r = 0; r < rounds; r++) {
		const struct bytes *msg = &stream[rnd(&seed) % NSTREAM];
		size_t len = mutate(buf, cap, msg, &seed);
		struct pgoutput_copy cp;
		struct pgoutput_msg m;
		struct sl_err err = SL_ERR_INIT;
		struct buf json = BUF_INIT;
		int rc;

		/* the stream's messages in order now and then, so that changes
		 * find their relations */
		if (r % 8 == 0) {
			msg = &stream[(size_t)(r / 8) % NSTREAM];
			if (!pgoutput_copy_decode(msg->p, msg->len, &cp, NULL) && cp.kind == 'w')
				pgoutput_decode(c, cp.data, cp.len, a, &m, NULL);
		}
		rc = pgoutput_copy_decode(buf, len, &cp, &err);
		if (!rc && cp.kind == 'w')
			rc = pgoutput_decode(c, cp.data, cp.len, a, &m, &err);
		if (rc) {
			assert_int_equal(rc, SL_E_PARSE);
			assert_true(err.msg[0]);
		} else if (cp.kind == 'w' && (m.kind == 'I' || m.kind == 'U' || m.kind == 'D')) {
			const struct pgoutput_tuple *t = m.kind == 'D' ? &m.change.old : &m.change.new;

			rc = pgoutput_tuple_json(&json, m.change.rel, t, fill_null, NULL, &err);
			assert_true(rc == 0 || rc == SL_E_PARSE);
			if (!rc) {
				struct buf again = BUF_INIT;

				/* what it wrote is JSON */
				assert_int_equal(pgoutput_value_json(&again, 114, json.buf, json.len, NULL),
						 0);
				buf_release(&again);
			}
			ok++;
		}
		buf_release(&json);
		if (r % 64 == 0) {
			arena_reset(a);
			pgoutput_cache_forget(c);
		}
	}
	assert_true(ok > 0);
	free(buf);
	arena_free(a);
	pgoutput_cache_free(c);
}

/* Values of types not built in, cut and changed at random: every result
 * is a payload or SL_E_PARSE, and a failure leaves the buffer as it was
 * (the sanitizers find what a read past the end would do). */
static void test_user_types_fuzz(void **state)
{
	static const struct {
		uint32_t oid;
		const char *text;
	} seeds[] = {
		{ NEST, "(\"(1,x,sad,{5})\",9,\"{\"\"(2,y,ok,)\"\",NULL}\")" },
		{ PAIRS_D, "{\"(2,\\\"y z\\\",ok,\\\"{1,2}\\\")\",\"(,,,)\"}" },
		{ PAIR, "(1,\"a \"\"q\"\" \\\\ b\",ok,\"{3,4}\")" },
		{ POSINTS, "[0:1]={7,8}" },
		{ MOODS, "{{sad},{\"ok\"}}" },
	};
	static const char alphabet[] = "(),\"\\{}[]:=NUL 1xa";
	struct pgoutput_types *t = user_types();
	uint64_t seed = 0x5eed;

	(void)state;
	for (int n = 0; n < 20000; n++) {
		const char *from = seeds[n % 5].text;
		size_t len = strlen(from), cut = rnd(&seed) % (len + 1);
		char text[128];
		struct pgoutput_column col = { false, "c", seeds[n % 5].oid, -1 };
		struct pgoutput_relation rel = { 1, "public", "t", 'd', 1, &col, t };
		struct pgoutput_value v = { 't', 0, text };
		struct pgoutput_tuple tup = { 'N', 1, &v };
		struct buf b = BUF_INIT;
		struct sl_err err = SL_ERR_INIT;
		int rc;

		memcpy(text, from, cut);
		for (int k = (int)(rnd(&seed) % 4); k > 0 && cut; k--)
			text[rnd(&seed) % cut] = alphabet[rnd(&seed) % (sizeof(alphabet) - 1)];
		v.len = (uint32_t)cut;
		buf_adds(&b, "kept");
		rc = pgoutput_tuple_json(&b, &rel, &tup, NULL, NULL, &err);
		if (rc && rc != SL_E_PARSE)
			fail_msg("'%.*s': code %d: %s", (int)cut, text, rc, err.msg);
		if (rc)
			assert_string_equal(b.buf, "kept");
		buf_release(&b);
	}
	pgoutput_types_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_keepalive_and_status),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_user_types),
		cmocka_unit_test(test_user_types_fuzz),
		cmocka_unit_test(test_json_member),
		cmocka_unit_test(test_unchanged_needs_filling),
		cmocka_unit_test(test_key_changed),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
