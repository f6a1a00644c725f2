/*
 * This file implements adopted sources: the places of their cursor, the
 * literals a build renders for them, the aggregates that find their
 * highest cursor and count their rows, and the late-row books. Every
 * statement on an adopted table here only reads it; it must never write
 * to one, alter it, or lock it.
 */
#include "live/adopted.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/civil.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "project/inputs.h"
#include "project/project.h"
#include "state/live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define US_PER_DAY INT64_C(86400000000)

void live_adopted_text(enum wh_cursor_kind kind, int64_t place, char *out, size_t n)
{
	int64_t v = place - ADOPTED_ORIGIN, days, us, y;
	int m, d, frac, len;

	if (!place) {
		snprintf(out, n, "%s", "");
		return;
	}
	if (kind == WH_CURSOR_INT) {
		snprintf(out, n, "%lld", (long long)v);
		return;
	}
	days = v / US_PER_DAY - (v % US_PER_DAY < 0);
	us = v - days * US_PER_DAY;
	civil_date(days, &y, &m, &d);
	frac = (int)(us % 1000000);
	len = snprintf(out, n, "%04lld-%02d-%02d %02d:%02d:%02d", (long long)y, m, d,
		       (int)(us / 3600000000), (int)(us / 60000000 % 60), (int)(us / 1000000 % 60));
	if (frac && len > 0 && (size_t)len < n) {
		char f[8];
		int k = 6;

		snprintf(f, sizeof(f), "%06d", frac);
		while (f[k - 1] == '0')
			f[--k] = '\0';
		len += snprintf(out + len, n - (size_t)len, ".%s", f);
	}
	if (kind == WH_CURSOR_TIMESTAMPTZ && len > 0 && (size_t)len < n)
		snprintf(out + len, n - (size_t)len, "+00");
}

void live_adopted_literal(enum wh_cursor_kind kind, int64_t place, struct buf *out)
{
	const char *type = kind == WH_CURSOR_TIMESTAMPTZ ? "TIMESTAMPTZ" : "TIMESTAMP";
	char text[48];

	if (kind == WH_CURSOR_INT && !place) {
		/* the least BIGINT, written so that no warehouse reads a wider
		 * type into it */
		buf_adds(out, "(-9223372036854775807 - 1)");
	} else if (kind == WH_CURSOR_INT) {
		buf_addf(out, "%lld", (long long)(place - ADOPTED_ORIGIN));
	} else if (!place) {
		buf_addf(out, "%s '-infinity'", type);
	} else {
		live_adopted_text(kind, place, text, sizeof(text));
		buf_addf(out, "%s '%s'", type, text);
	}
}

void live_adopted_take(struct ledger_adopted *a, int64_t from, int64_t target, int64_t above)
{
	/* counted from a boundary taken since: the count says nothing of
	 * this one, and the next recount finds what it missed */
	if (from != a->boundary || target <= a->boundary)
		return;
	a->boundary = target;
	a->rows += above;
	a->dirty = true;
}

int64_t live_adopted_recount(struct ledger_adopted *a, int64_t counted)
{
	int64_t late = counted > a->rows ? counted - a->rows : 0;

	if (counted == a->rows)
		return 0;
	a->late += late;
	a->rows = counted;
	a->dirty = true;
	return late;
}

static void table_of(const struct source_cfg *s, char *out, size_t n)
{
	inputs_source_table(s, out, n);
}

/* Appends the table, each part quoted. */
static void add_table(struct buf *sql, const char *table)
{
	char schema[128];
	const char *name;

	if (wh_split_qualified(table, schema, sizeof(schema), &name))
		wh_sql_qualified(sql, schema, name);
	else
		wh_sql_ident(sql, table);
}

static int lookup_kind(struct wh *w, struct arena *parent, const struct source_cfg *s,
		       enum wh_cursor_kind *kind, struct sl_err *err)
{
	struct arena *a = arena_new(parent);
	struct wh_column *cols = NULL;
	char table[256], schema[128];
	const char *name = NULL, *type = NULL;
	size_t n = 0;
	int rc = 0;

	*kind = WH_CURSOR_NONE;
	table_of(s, table, sizeof(table));
	if (wh_split_qualified(table, schema, sizeof(schema), &name))
		rc = wh_table_columns(w, a, schema, name, &cols, &n, err);
	for (size_t i = 0; !rc && i < n && !type; i++)
		if (strcasecmp(cols[i].name, s->cursor) == 0)
			type = cols[i].type;
	if (!rc && !n)
		rc = sl_err_set(err, SL_E_CONFIG,
				"adopted source '%s' follows table '%s', which is not in the "
				"warehouse\n  hint: create it, or correct the source's table",
				s->name, table);
	else if (!rc && !type)
		rc = sl_err_set(err, SL_E_CONFIG,
				"adopted source '%s': table '%s' has no column '%s' to follow\n"
				"  hint: set cursor: to a column of the table",
				s->name, table, s->cursor);
	else if (!rc && (*kind = wh_sql_cursor_kind(w, type)) == WH_CURSOR_NONE)
		rc = sl_err_set(err, SL_E_CONFIG,
				"adopted source '%s': its cursor '%s' is of type %s\n"
				"  hint: follow the table by an integer or timestamp column that "
				"grows in commit order",
				s->name, s->cursor, type);
	arena_free(a);
	return rc;
}

int live_adopted_kind(struct live_ledger *l, struct wh *w, struct arena *a,
		      const struct source_cfg *s, enum wh_cursor_kind *kind, struct sl_err *err)
{
	char table[256];
	struct ledger_adopted books;
	int rc;

	table_of(s, table, sizeof(table));
	books = live_ledger_adopted(l, table, NULL, NULL);
	if (books.kind >= 0) {
		*kind = (enum wh_cursor_kind)books.kind;
		return 0;
	}
	/* only a usable kind is kept: a table made later is looked up again */
	rc = lookup_kind(w, a, s, kind, err);
	if (!rc) {
		books = live_ledger_adopted(l, table, NULL, NULL);
		books.kind = (int)*kind;
		live_ledger_adopted_set(l, table, &books);
	}
	return rc;
}

/* The place of the table's highest cursor, 0 when it has none, as a
 * scalar subquery. */
static void place_of_max(struct wh *w, struct buf *sql, const struct source_cfg *s,
			 const char *table, enum wh_cursor_kind kind)
{
	struct buf top = BUF_INIT;

	buf_adds(&top, "max(");
	wh_sql_ident(&top, s->cursor);
	buf_adds(&top, ")");
	buf_adds(sql, "(SELECT coalesce(");
	if (kind == WH_CURSOR_INT)
		buf_addf(sql, "CAST(%s AS BIGINT)", top.buf);
	else
		wh_sql_epoch_us(w, sql, top.buf);
	buf_addf(sql, " + %lld, 0) FROM ", (long long)ADOPTED_ORIGIN);
	add_table(sql, table);
	buf_adds(sql, ")");
	buf_release(&top);
}

/* How many rows' cursor stands to place as op says ("<=", ">"), as a
 * scalar subquery. */
static void count_of(struct buf *sql, const struct source_cfg *s, const char *table,
		     enum wh_cursor_kind kind, const char *op, int64_t place)
{
	buf_adds(sql, "(SELECT count(*) FROM ");
	add_table(sql, table);
	buf_adds(sql, " WHERE ");
	wh_sql_ident(sql, s->cursor);
	buf_addf(sql, " %s ", op);
	live_adopted_literal(kind, place, sql);
	buf_adds(sql, ")");
}

void live_adopted_sql_mark(struct wh *w, struct buf *sql, const struct source_cfg *s,
			   enum wh_cursor_kind kind, int64_t boundary)
{
	char table[256];

	table_of(s, table, sizeof(table));
	buf_adds(sql, "SELECT 'd', ");
	buf_add_sql_str(sql, table);
	buf_adds(sql, ", ");
	place_of_max(w, sql, s, table, kind);
	buf_adds(sql, ", ");
	count_of(sql, s, table, kind, ">", boundary);
}

const struct source_cfg *live_adopted_source(const struct project *p, const char *fqn)
{
	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];
		char table[256];

		if (!s->kind || strcmp(s->kind, "adopted") != 0)
			continue;
		table_of(s, table, sizeof(table));
		if (strcmp(table, fqn) == 0)
			return s;
	}
	return NULL;
}

/* Whether a model that keeps watermarks reads s's table: only those are
 * polled and counted. */
static bool followed(struct live_ledger *l, const struct project *p, const struct source_cfg *s)
{
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct ledger_model *lm = live_ledger_model(l, p->models[i]);

		for (size_t k = 0; lm && k < lm->in.n; k++)
			if (lm->in.items[k].adopted == s)
				return true;
	}
	return false;
}

/* One source's poll: its highest place and, when asked, its rows at or
 * below its boundary. */
static int poll_one(struct live_ledger *l, struct wh *w, struct arena *scratch,
		    const struct source_cfg *s, bool count, FILE *log, bool *moved,
		    struct sl_err *err)
{
	enum wh_cursor_kind kind;
	struct ledger_adopted a;
	struct buf sql = BUF_INIT;
	char table[256];
	int64_t top, got[2];
	int rc;

	if (live_adopted_kind(l, w, scratch, s, &kind, NULL))
		return 0;
	table_of(s, table, sizeof(table));
	a = live_ledger_adopted(l, table, &top, NULL);
	count = count && a.boundary;
	buf_adds(&sql, "SELECT ");
	place_of_max(w, &sql, s, table, kind);
	buf_adds(&sql, ", ");
	if (count)
		count_of(&sql, s, table, kind, "<=", a.boundary);
	else
		buf_adds(&sql, "0");
	rc = wh_query_ints(w, sql.buf, got, 2, err);
	buf_release(&sql);
	if (rc) {
		sl_err_context(err, "in adopted source %s", s->name);
		return rc;
	}
	if (got[0] > top) {
		live_ledger_note(l, table, &(struct live_advance){ .seq = got[0] }, units_now_ms());
		*moved = true;
	}
	if (count) {
		int64_t late = live_adopted_recount(&a, got[1]);
		char at[48];

		live_ledger_adopted_set(l, table, &a);
		live_adopted_text(kind, a.boundary, at, sizeof(at));
		if (late && log)
			fprintf(log,
				"sluice live: warning: adopted source %s: %lld row%s committed "
				"with a cursor at or below %s after live models read up to there, "
				"which they skip (%lld late in all)\n",
				s->name, (long long)late, late == 1 ? "" : "s", at,
				(long long)a.late);
	}
	return 0;
}

int live_adopted_poll(struct live_ledger *l, struct wh *w, struct arena *a,
		      const struct project *p, bool count, FILE *log, bool *moved,
		      struct sl_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];

		if (s->kind && strcmp(s->kind, "adopted") == 0 && followed(l, p, s))
			rc = poll_one(l, w, a, s, count, log, moved, err);
	}
	if (log)
		fflush(log);
	return rc;
}

/* The row of s as the ledger has it, into sql, when it changed since it
 * was written; *top gets the watermark written. */
static bool row_of(struct live_ledger *l, const struct source_cfg *s, struct buf *sql,
		   int64_t *top)
{
	struct state_adopted_row row = { 0 };
	struct ledger_adopted a;
	char table[256], text[48];

	table_of(s, table, sizeof(table));
	a = live_ledger_adopted(l, table, &row.top, &row.moved_ms);
	if (!a.dirty && a.written == row.top)
		return false;
	live_adopted_text(a.kind < 0 ? WH_CURSOR_INT : (enum wh_cursor_kind)a.kind, row.top, text,
			  sizeof(text));
	row.cursor = row.top ? text : NULL;
	row.boundary = a.boundary;
	row.rows = a.rows;
	row.late = a.late;
	state_live_sql_adopted(sql, table, &row);
	*top = row.top;
	return true;
}

int live_adopted_checkpoint(struct live_ledger *l, struct wh *w, const struct project *p,
			    struct sl_err *err)
{
	int64_t *tops = xcalloc(p->cfg.nsources + 1, sizeof(*tops));
	bool *wrote = xcalloc(p->cfg.nsources + 1, sizeof(*wrote));
	struct buf sql = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < p->cfg.nsources; i++) {
		const struct source_cfg *s = &p->cfg.sources[i];

		if (s->kind && strcmp(s->kind, "adopted") == 0 && followed(l, p, s))
			wrote[i] = row_of(l, s, &sql, &tops[i]);
	}
	if (sql.len)
		rc = wh_exec_atomic(w, sql.buf, err);
	/* what was written is current; a note since has moved the watermark
	 * past it, for the next checkpoint */
	for (size_t i = 0; !rc && i < p->cfg.nsources; i++) {
		char table[256];
		struct ledger_adopted a;

		if (!wrote[i])
			continue;
		table_of(&p->cfg.sources[i], table, sizeof(table));
		a = live_ledger_adopted(l, table, NULL, NULL);
		a.dirty = false;
		a.written = tops[i];
		live_ledger_adopted_set(l, table, &a);
	}
	buf_release(&sql);
	free(tops);
	free(wrote);
	return rc;
}

int live_adopted_advance(struct wh *w, struct arena *a, const struct source_cfg *s,
			 struct live_advance *out, struct sl_err *err)
{
	enum wh_cursor_kind kind;
	struct buf sql = BUF_INIT;
	char table[256];
	int rc = lookup_kind(w, a, s, &kind, err);

	*out = (struct live_advance){ 0 };
	if (rc)
		return rc;
	table_of(s, table, sizeof(table));
	buf_adds(&sql, "SELECT ");
	place_of_max(w, &sql, s, table, kind);
	rc = wh_query_int(w, sql.buf, &out->seq, err);
	buf_release(&sql);
	if (!rc)
		live_adopted_text(kind, out->seq, out->cursor, sizeof(out->cursor));
	return rc;
}
