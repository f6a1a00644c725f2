/*
 * The replication stream's framing and pgoutput's messages of protocol
 * version 1 (PostgreSQL's src/backend/replication/logical/proto.c), and
 * the relation cache. It only reads the bytes it is given: every length
 * and count is checked against what is left of the message before it is
 * used, and nothing is kept (in out or in the cache) until the whole
 * message decoded. Values are not looked at here (pgoutput_json.c).
 */
#include "pgcdc/pgoutput.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/utf8.h"
#include "core/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading a message ---- */

/* A cursor over one message. The first failure is kept: later reads give
 * zeros, so a decoder checks once, at the end, before it uses what it
 * read to allocate (every count is checked against rd_left first). */
struct rd {
	const uint8_t *p;
	size_t len, pos;
	const char *what; /* "Insert message" */
	struct sl_err *err;
	int rc;
};

/* Keeps the first failure, SL_E_PARSE: "<problem> <what>: <fmt...>", as
 * in "truncated Insert message: a value at byte 27 is cut short". */
static int rd_fail(struct rd *r, const char *problem, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rd_fail(struct rd *r, const char *problem, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	if (r->rc)
		return r->rc;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	r->rc = sl_err_set(r->err, SL_E_PARSE, "%s %s: %s", problem, r->what, detail);
	return r->rc;
}

static size_t rd_left(const struct rd *r)
{
	return r->rc ? 0 : r->len - r->pos;
}

static const uint8_t *rd_take(struct rd *r, size_t n, const char *field)
{
	const uint8_t *at;

	if (r->rc)
		return NULL;
	if (n > r->len - r->pos) {
		rd_fail(r, "truncated", "%s at byte %zu is cut short", field, r->pos);
		return NULL;
	}
	at = r->p + r->pos;
	r->pos += n;
	return at;
}

static uint64_t rd_be(struct rd *r, size_t n, const char *field)
{
	const uint8_t *at = rd_take(r, n, field);
	uint64_t v = 0;

	for (size_t i = 0; at && i < n; i++)
		v = v << 8 | at[i];
	return v;
}

#define rd_u8(r, f) ((uint8_t)rd_be((r), 1, (f)))
#define rd_u16(r, f) ((uint16_t)rd_be((r), 2, (f)))
#define rd_u32(r, f) ((uint32_t)rd_be((r), 4, (f)))
#define rd_u64(r, f) rd_be((r), 8, (f))

/* A NUL-terminated string, pointing into the message. */
static const char *rd_str(struct rd *r, const char *field)
{
	const uint8_t *nul;
	const char *s;

	if (r->rc)
		return "";
	nul = memchr(r->p + r->pos, '\0', r->len - r->pos);
	if (!nul) {
		rd_fail(r, "truncated", "%s at byte %zu has no end", field, r->pos);
		return "";
	}
	s = (const char *)r->p + r->pos;
	if (!utf8_valid(s, (size_t)(nul - r->p) - r->pos)) {
		rd_fail(r, "malformed", "%s at byte %zu is not UTF-8", field, r->pos);
		return "";
	}
	r->pos = (size_t)(nul - r->p) + 1;
	return s;
}

/* Fails unless count items of at least min bytes each can still follow. */
static void rd_count(struct rd *r, uint64_t count, size_t min, uint64_t max, const char *field,
		     size_t at)
{
	if (r->rc)
		return;
	if (count > max)
		rd_fail(r, "oversized", "%s %llu at byte %zu is more than %llu", field,
			(unsigned long long)count, at, (unsigned long long)max);
	else if (count * min > r->len - r->pos)
		rd_fail(r, "truncated", "%s %llu at byte %zu is more than the %zu bytes left hold",
			field, (unsigned long long)count, at, r->len - r->pos);
}

static int rd_end(struct rd *r)
{
	if (!r->rc && r->pos != r->len)
		rd_fail(r, "malformed", "%zu unexpected bytes after byte %zu", r->len - r->pos, r->pos);
	return r->rc;
}

/* ---- the stream ---- */

int pgoutput_copy_decode(const void *msg, size_t len, struct pgoutput_copy *out,
			 struct sl_err *err)
{
	struct rd r = { msg, len, 0, "replication message", err, 0 };
	struct pgoutput_copy c = { 0 };

	c.kind = (char)rd_u8(&r, "the kind");
	switch (c.kind) {
	case 'w':
		r.what = "XLogData message";
		c.start_lsn = rd_u64(&r, "the start LSN");
		c.wal_end = rd_u64(&r, "the WAL end");
		c.send_time = (int64_t)rd_u64(&r, "the send time");
		c.data = msg ? (const uint8_t *)msg + r.pos : NULL;
		c.len = rd_left(&r);
		if (!r.rc && !c.len)
			rd_fail(&r, "truncated", "no pgoutput message at byte %zu", r.pos);
		r.pos = r.len;
		break;
	case 'k':
		r.what = "keepalive message";
		c.wal_end = rd_u64(&r, "the WAL end");
		c.send_time = (int64_t)rd_u64(&r, "the send time");
		c.reply_requested = rd_u8(&r, "the reply flag") != 0;
		break;
	default:
		if (!r.rc)
			return sl_err_set(err, SL_E_PARSE,
					  "unknown replication message kind 0x%02x at byte 0 "
					  "(XLogData 'w' or keepalive 'k' expected)",
					  (unsigned char)c.kind);
	}
	if (rd_end(&r))
		return r.rc;
	*out = c;
	return 0;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

void pgoutput_status_encode(uint8_t out[PGOUTPUT_STATUS_LEN], uint64_t written, uint64_t flushed,
			    uint64_t applied, int64_t now, bool reply_requested)
{
	out[0] = 'r';
	put_be(out + 1, written, 8);
	put_be(out + 9, flushed, 8);
	put_be(out + 17, applied, 8);
	put_be(out + 25, (uint64_t)now, 8);
	out[33] = reply_requested ? 1 : 0;
}

static char *copy_str(char **at, const char *s)
{
	size_t n = strlen(s) + 1;
	char *out = memcpy(*at, s, n);

	*at += n;
	return out;
}

/* ---- types, as the catalog describes them ---- */

/* Each type in one allocation: the struct, its field OIDs, the name
 * pointers, then the names. */
struct pgoutput_types {
	struct pgoutput_type **all;
	size_t n, cap;
};

struct pgoutput_types *pgoutput_types_new(void)
{
	struct pgoutput_types *t = xcalloc(1, sizeof(*t));

	return t;
}

void pgoutput_types_free(struct pgoutput_types *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->all[i]);
	free(t->all);
	free(t);
}

static struct pgoutput_type **types_slot(const struct pgoutput_types *t, uint32_t oid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->all[i]->oid == oid)
			return &t->all[i];
	return NULL;
}

const struct pgoutput_type *pgoutput_types_get(const struct pgoutput_types *t, uint32_t oid)
{
	struct pgoutput_type **at = types_slot(t, oid);

	return at ? *at : NULL;
}

void pgoutput_types_put(struct pgoutput_types *t, const struct pgoutput_type *type)
{
	uint16_t nf = type->kind == 'c' ? type->nfields : 0;
	size_t size = sizeof(*type) + nf * (sizeof(uint32_t) + sizeof(char *));
	struct pgoutput_type **at = types_slot(t, type->oid), *copy;
	uint32_t *fields;
	const char **names;
	char *strings;

	for (uint16_t i = 0; i < nf; i++)
		size += strlen(type->names[i]) + 1;
	copy = xcalloc(1, size);
	*copy = *type;
	copy->nfields = nf;
	names = (const char **)(copy + 1);
	fields = (uint32_t *)(names + nf);
	strings = (char *)(fields + nf);
	for (uint16_t i = 0; i < nf; i++) {
		fields[i] = type->fields[i];
		names[i] = copy_str(&strings, type->names[i]);
	}
	copy->names = names;
	copy->fields = fields;
	if (at) {
		free(*at);
		*at = copy;
		return;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		t->all = xreallocarray(t->all, t->cap, sizeof(*t->all));
	}
	t->all[t->n++] = copy;
}

/* ---- the relation cache ---- */

/* One version of a relation, in one allocation: the struct, its columns,
 * then its strings. */
struct rel_entry {
	struct pgoutput_relation rel;
	struct rel_entry *replaced; /* older versions, kept until forget */
};

struct type_entry {
	uint32_t oid;
	char *name;
};

struct pgoutput_cache {
	struct rel_entry **slots; /* open addressing by OID, a power of two */
	size_t nslots, nrels;
	struct type_entry *types;
	size_t ntypes, types_cap;
	struct pgoutput_types *described; /* what the catalog says of types */
};

struct pgoutput_cache *pgoutput_cache_new(void)
{
	struct pgoutput_cache *c = xcalloc(1, sizeof(*c));

	c->described = pgoutput_types_new();
	return c;
}

struct pgoutput_types *pgoutput_cache_types(struct pgoutput_cache *c)
{
	return c->described;
}

static void rel_entry_free(struct rel_entry *e)
{
	while (e) {
		struct rel_entry *older = e->replaced;

		free(e);
		e = older;
	}
}

void pgoutput_cache_free(struct pgoutput_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nslots; i++)
		rel_entry_free(c->slots[i]);
	for (size_t i = 0; i < c->ntypes; i++)
		free(c->types[i].name);
	free(c->types);
	free(c->slots);
	pgoutput_types_free(c->described);
	free(c);
}

void pgoutput_cache_forget(struct pgoutput_cache *c)
{
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i]) {
			rel_entry_free(c->slots[i]->replaced);
			c->slots[i]->replaced = NULL;
		}
}

static size_t slot_of(const struct pgoutput_cache *c, uint32_t oid)
{
	size_t i = (size_t)(oid * 2654435761u) & (c->nslots - 1);

	while (c->slots[i] && c->slots[i]->rel.oid != oid)
		i = (i + 1) & (c->nslots - 1);
	return i;
}

const struct pgoutput_relation *pgoutput_cache_relation(const struct pgoutput_cache *c,
							 uint32_t oid)
{
	struct rel_entry *e;

	if (!c->nslots)
		return NULL;
	e = c->slots[slot_of(c, oid)];
	return e ? &e->rel : NULL;
}

const char *pgoutput_cache_type(const struct pgoutput_cache *c, uint32_t oid)
{
	for (size_t i = 0; i < c->ntypes; i++)
		if (c->types[i].oid == oid)
			return c->types[i].name;
	return NULL;
}

static void cache_grow(struct pgoutput_cache *c)
{
	struct pgoutput_cache bigger = *c;

	bigger.nslots = c->nslots ? c->nslots * 2 : 16;
	bigger.slots = xcalloc(bigger.nslots, sizeof(*bigger.slots));
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i])
			bigger.slots[slot_of(&bigger, c->slots[i]->rel.oid)] = c->slots[i];
	free(c->slots);
	*c = bigger;
}

static void cache_put_relation(struct pgoutput_cache *c, const struct pgoutput_relation *rel)
{
	size_t size = sizeof(struct rel_entry) + rel->ncols * sizeof(struct pgoutput_column) +
		      strlen(rel->nspname) + strlen(rel->relname) + 2;
	struct rel_entry *e;
	char *strings;
	size_t i;

	for (uint16_t k = 0; k < rel->ncols; k++)
		size += strlen(rel->cols[k].name) + 1;
	e = xcalloc(1, size);
	e->rel = *rel;
	e->rel.cols = (struct pgoutput_column *)(e + 1);
	strings = (char *)(e->rel.cols + rel->ncols);
	e->rel.nspname = copy_str(&strings, rel->nspname);
	e->rel.relname = copy_str(&strings, rel->relname);
	for (uint16_t k = 0; k < rel->ncols; k++) {
		e->rel.cols[k] = rel->cols[k];
		e->rel.cols[k].name = copy_str(&strings, rel->cols[k].name);
	}
	if ((c->nrels + 1) * 2 > c->nslots)
		cache_grow(c);
	i = slot_of(c, rel->oid);
	if (c->slots[i])
		e->replaced = c->slots[i];
	else
		c->nrels++;
	c->slots[i] = e;
}

static void cache_put_type(struct pgoutput_cache *c, uint32_t oid, const char *nsp,
			   const char *name)
{
	size_t n = strlen(nsp) + strlen(name) + 2;
	struct type_entry *t = NULL;
	char *qualified = xmalloc(n);

	snprintf(qualified, n, "%s%s%s", nsp, *nsp ? "." : "", name);
	for (size_t i = 0; i < c->ntypes; i++)
		if (c->types[i].oid == oid)
			t = &c->types[i];
	if (!t) {
		if (c->ntypes == c->types_cap) {
			c->types_cap = c->types_cap ? c->types_cap * 2 : 8;
			c->types = xreallocarray(c->types, c->types_cap, sizeof(*c->types));
		}
		t = &c->types[c->ntypes++];
		t->oid = oid;
		t->name = NULL;
	}
	free(t->name);
	t->name = qualified;
}

/* ---- pgoutput messages ---- */

static const char *kind_name(char kind)
{
	switch (kind) {
	case 'B':
		return "Begin message";
	case 'C':
		return "Commit message";
	case 'O':
		return "Origin message";
	case 'R':
		return "Relation message";
	case 'Y':
		return "Type message";
	case 'I':
		return "Insert message";
	case 'U':
		return "Update message";
	case 'D':
		return "Delete message";
	case 'T':
		return "Truncate message";
	case 'M':
		return "logical decoding message";
	}
	return NULL;
}

static const struct pgoutput_relation *find_relation(struct rd *r, const struct pgoutput_cache *c,
						     uint32_t oid, size_t at)
{
	const struct pgoutput_relation *rel = pgoutput_cache_relation(c, oid);

	if (!rel && !r->rc)
		rd_fail(r, "malformed", "relation %u at byte %zu came in no Relation message", oid, at);
	return rel;
}

/* TupleData: a column count, then per column its kind and, for text, a
 * length and the bytes. */
static void read_tuple(struct rd *r, struct arena *a, char kind,
		       const struct pgoutput_relation *rel, struct pgoutput_tuple *t)
{
	size_t at = r->pos;
	uint16_t n = rd_u16(r, "the column count");

	rd_count(r, n, 1, PGOUTPUT_MAX_COLUMNS, "the column count", at);
	if (!r->rc && rel && n != rel->ncols) {
		rd_fail(r, "malformed", "the tuple at byte %zu has %u columns, relation %s.%s has %u",
			at, n, rel->nspname, rel->relname, rel->ncols);
	}
	if (r->rc)
		return;
	t->kind = kind;
	t->ncols = n;
	t->values = arena_alloc(a, (n ? n : 1) * sizeof(*t->values));
	for (uint16_t i = 0; i < n && !r->rc; i++) {
		struct pgoutput_value *v = &t->values[i];
		size_t vat = r->pos;

		v->kind = (char)rd_u8(r, "a column's kind");
		switch (v->kind) {
		case 'n':
		case 'u':
			break;
		case 't':
			v->len = rd_u32(r, "a value's length");
			if (!r->rc && v->len > INT32_MAX)
				rd_fail(r, "malformed", "a value's length at byte %zu is negative", vat + 1);
			v->text = (const char *)rd_take(r, v->len, "a value");
			break;
		case 'b':
			rd_fail(r, "unsupported", "a binary value at byte %zu (the \"binary\" option)", vat);
			break;
		default:
			rd_fail(r, "malformed", "unknown value kind 0x%02x at byte %zu",
				(unsigned char)v->kind, vat);
		}
	}
}

/* 'K', 'O' or 'N', then a tuple; which ones may come where is the caller's. */
static char read_tuple_tag(struct rd *r, const char *allowed)
{
	size_t at = r->pos;
	char tag = (char)rd_u8(r, "a tuple's tag");

	if (!r->rc && !strchr(allowed, tag))
		rd_fail(r, "malformed", "tuple tag 0x%02x at byte %zu (one of '%s' expected)",
			(unsigned char)tag, at, allowed);
	return tag;
}

static void read_relation(struct rd *r, struct arena *a, struct pgoutput_relation *rel)
{
	size_t at;

	rel->oid = rd_u32(r, "the relation OID");
	rel->nspname = rd_str(r, "the namespace");
	rel->relname = rd_str(r, "the relation name");
	at = r->pos;
	rel->replident = (char)rd_u8(r, "the replica identity");
	if (!r->rc && !strchr("dnfi", rel->replident))
		rd_fail(r, "malformed", "unknown replica identity 0x%02x at byte %zu",
			(unsigned char)rel->replident, at);
	at = r->pos;
	rel->ncols = rd_u16(r, "the column count");
	/* a column: flags, a name of at least its NUL, type OID and typmod */
	rd_count(r, rel->ncols, 1 + 1 + 4 + 4, PGOUTPUT_MAX_COLUMNS, "the column count", at);
	if (r->rc)
		return;
	rel->cols = arena_alloc(a, (rel->ncols ? rel->ncols : 1) * sizeof(*rel->cols));
	for (uint16_t i = 0; i < rel->ncols && !r->rc; i++) {
		struct pgoutput_column *col = &rel->cols[i];

		at = r->pos;
		uint8_t flags = rd_u8(r, "a column's flags");

		if (!r->rc && flags > 1)
			rd_fail(r, "malformed", "unknown column flags 0x%02x at byte %zu", flags, at);
		col->key = flags & 1;
		col->name = rd_str(r, "a column name");
		col->type_oid = rd_u32(r, "a column's type OID");
		col->typmod = (int32_t)rd_u32(r, "a column's type modifier");
	}
}

static void read_change(struct rd *r, struct pgoutput_cache *c, struct arena *a, char kind,
			struct pgoutput_msg *m)
{
	size_t at = r->pos;
	uint32_t oid = rd_u32(r, "the relation OID");
	const struct pgoutput_relation *rel;
	char tag;

	if (r->rc)
		return;
	rel = find_relation(r, c, oid, at);
	m->change.rel = rel;
	switch (kind) {
	case 'I':
		read_tuple_tag(r, "N");
		read_tuple(r, a, 'N', rel, &m->change.new);
		break;
	case 'U':
		tag = read_tuple_tag(r, "KON");
		if (tag != 'N') {
			read_tuple(r, a, tag, rel, &m->change.old);
			read_tuple_tag(r, "N");
		}
		read_tuple(r, a, 'N', rel, &m->change.new);
		break;
	case 'D':
		tag = read_tuple_tag(r, "KO");
		read_tuple(r, a, tag, rel, &m->change.old);
		break;
	}
}

static void read_truncate(struct rd *r, struct pgoutput_cache *c, struct arena *a,
			  struct pgoutput_msg *m)
{
	size_t at = r->pos;
	uint32_t n = rd_u32(r, "the relation count");
	size_t oat;

	m->truncate.options = rd_u8(r, "the options");
	if (!r->rc && m->truncate.options & ~3)
		rd_fail(r, "malformed", "unknown truncate options 0x%02x at byte %zu",
			m->truncate.options, at + 4);
	rd_count(r, n, 4, UINT32_MAX, "the relation count", at);
	if (r->rc)
		return;
	m->truncate.nrels = n;
	m->truncate.rels = arena_alloc(a, (n ? n : 1) * sizeof(*m->truncate.rels));
	for (uint32_t i = 0; i < n && !r->rc; i++) {
		oat = r->pos;
		m->truncate.rels[i] = find_relation(r, c, rd_u32(r, "a relation OID"), oat);
	}
}

int pgoutput_decode(struct pgoutput_cache *c, const void *data, size_t len, struct arena *a,
		    struct pgoutput_msg *out, struct sl_err *err)
{
	struct rd r = { data, len, 0, "pgoutput message", err, 0 };
	struct pgoutput_msg m;
	size_t at;

	memset(&m, 0, sizeof(m));
	m.kind = (char)rd_u8(&r, "the kind");
	if (r.rc)
		return r.rc;
	r.what = kind_name(m.kind);
	switch (m.kind) {
	case 'B':
		m.begin.final_lsn = rd_u64(&r, "the final LSN");
		m.begin.commit_time = (int64_t)rd_u64(&r, "the commit time");
		m.begin.xid = rd_u32(&r, "the transaction id");
		break;
	case 'C':
		m.commit.flags = rd_u8(&r, "the flags");
		m.commit.commit_lsn = rd_u64(&r, "the commit LSN");
		m.commit.end_lsn = rd_u64(&r, "the end LSN");
		m.commit.commit_time = (int64_t)rd_u64(&r, "the commit time");
		break;
	case 'O':
		m.origin.lsn = rd_u64(&r, "the origin LSN");
		m.origin.name = rd_str(&r, "the origin name");
		break;
	case 'R':
		read_relation(&r, a, &m.relation);
		m.relation.types = c->described;
		break;
	case 'Y':
		m.type.oid = rd_u32(&r, "the type OID");
		m.type.nspname = rd_str(&r, "the namespace");
		m.type.name = rd_str(&r, "the type name");
		break;
	case 'I':
	case 'U':
	case 'D':
		read_change(&r, c, a, m.kind, &m);
		break;
	case 'T':
		read_truncate(&r, c, a, &m);
		break;
	case 'M':
		m.message.transactional = rd_u8(&r, "the flags") & 1;
		m.message.lsn = rd_u64(&r, "the LSN");
		m.message.prefix = rd_str(&r, "the prefix");
		at = r.pos;
		m.message.len = rd_u32(&r, "the content length");
		rd_count(&r, m.message.len, 1, INT32_MAX, "the content length", at);
		m.message.content = rd_take(&r, m.message.len, "the content");
		break;
	default:
		return sl_err_set(err, SL_E_PARSE,
				  "unknown pgoutput message kind 0x%02x at byte 0 (protocol version 1 "
				  "sends B, C, O, R, Y, I, U, D, T and M)",
				  (unsigned char)m.kind);
	}
	if (rd_end(&r))
		return r.rc;
	if (m.kind == 'R')
		cache_put_relation(c, &m.relation);
	else if (m.kind == 'Y')
		cache_put_type(c, m.type.oid, m.type.nspname, m.type.name);
	*out = m;
	return 0;
}

size_t pgoutput_tuple_fill(struct pgoutput_tuple *t, const struct pgoutput_tuple *old)
{
	size_t left = 0;

	for (uint16_t i = 0; i < t->ncols; i++) {
		if (t->values[i].kind != PGOUTPUT_UNCHANGED)
			continue;
		if (old->kind == 'O' && i < old->ncols && old->values[i].kind != PGOUTPUT_UNCHANGED)
			t->values[i] = old->values[i];
		else
			left++;
	}
	return left;
}

bool pgoutput_key_changed(const struct pgoutput_relation *rel, const bool *key,
			  const struct pgoutput_tuple *old, const struct pgoutput_tuple *new)
{
	if ((old->kind != 'K' && old->kind != 'O') || old->ncols != new->ncols)
		return false;
	for (uint16_t i = 0; i < new->ncols && i < rel->ncols; i++) {
		const struct pgoutput_value *o = &old->values[i], *n = &new->values[i];

		if (!(key ? key[i] : rel->cols[i].key) || n->kind == PGOUTPUT_UNCHANGED ||
		    o->kind == PGOUTPUT_UNCHANGED)
			continue;
		if (o->kind != n->kind ||
		    (n->kind == PGOUTPUT_TEXT && (o->len != n->len || memcmp(o->text, n->text, n->len))))
			return true;
	}
	return false;
}
