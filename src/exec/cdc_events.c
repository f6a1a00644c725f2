/*
 * This file implements what a change event is in SQL (its key, its op, its
 * sequence, read from text when cdc_seq is text) and the check of a batch
 * of them (step 1 of cdc.c): a NULL key, an unknown op, a NULL, unreadable
 * or mixed sequence fails the build before anything is written. It must
 * never write: cdc.c applies the events.
 */
#include "exec/cdc_events.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An integer sequence written as text, and an ISO-8601 time with a UTC
 * offset (a time without one is read as UTC), each matched as a whole.
 * SPACE is RE2's \\s spelt so that POSIX expressions read it too; (.|\n)
 * because RE2's dot leaves out newlines and POSIX's does not. */
#define SPACE "[ \t\n\f\r]"
#define INT_RE SPACE "*[+-]?[0-9]+" SPACE "*"
#define OFFSET_RE                                                                           \
	"(.|\n)*[0-9]:[0-9]{2}(:[0-9]{2}(\\.[0-9]*)?)?" SPACE "*([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)" \
	SPACE "*"

#define OP_HINT                                                                             \
	"\n  hint: an op is I/U/D, insert/update/delete or Debezium's c/r/u/d; anything "  \
	"starting with d is a delete"

/* alias.column, or the column alone when alias is NULL. */
void cdc_sql_col(struct buf *sql, const char *alias, const char *col)
{
	if (alias)
		buf_addf(sql, "%s.", alias);
	wh_sql_ident(sql, col);
}

void cdc_sql_keys(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		if (i)
			buf_adds(sql, ", ");
		cdc_sql_col(sql, alias, c->keys[i]);
	}
}

/* The events' columns. */
void cdc_sql_columns(const struct cdc_run *c, struct buf *sql)
{
	for (size_t i = 0; i < c->ncols; i++) {
		buf_adds(sql, i ? ", " : "");
		wh_sql_ident(sql, c->cols[i].name);
	}
}

void cdc_sql_key_match(const struct cdc_run *c, struct buf *sql, const char *l, const char *r)
{
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		if (i)
			buf_adds(sql, " AND ");
		cdc_sql_col(sql, l, c->keys[i]);
		buf_adds(sql, " = ");
		cdc_sql_col(sql, r, c->keys[i]);
	}
}

/* "id=42, region=eu", for messages. */
void cdc_sql_key_text(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	buf_adds(sql, "concat_ws(', '");
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		char label[300];

		snprintf(label, sizeof(label), "%s=", c->keys[i]);
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, label);
		buf_adds(sql, " || coalesce(CAST(");
		cdc_sql_col(sql, alias, c->keys[i]);
		buf_adds(sql, " AS VARCHAR), 'NULL')");
	}
	buf_adds(sql, ")");
}

static void add_lower_op(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	buf_adds(sql, "lower(CAST(");
	cdc_sql_col(sql, alias, c->op);
	buf_adds(sql, " AS VARCHAR))");
}

/* Whether an event is a truncate of the whole table. */
void cdc_sql_is_truncate(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	add_lower_op(c, sql, alias);
	buf_adds(sql, " IN ('t', 'truncate')");
}

/* Whether an event is a delete, once check_events has found every op to be
 * one of the known ones. A truncate is a delete of every key (see
 * expand_truncates). */
void cdc_sql_is_delete(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	buf_adds(sql, "(starts_with(");
	add_lower_op(c, sql, alias);
	buf_adds(sql, ", 'd') OR ");
	cdc_sql_is_truncate(c, sql, alias);
	buf_adds(sql, ")");
}

/* true for a delete or truncate, false for an upsert, NULL for anything
 * else. */
static void add_op_kind(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	buf_adds(sql, "CASE WHEN ");
	cdc_sql_is_delete(c, sql, alias);
	buf_adds(sql, " THEN true WHEN ");
	add_lower_op(c, sql, alias);
	buf_adds(sql, " IN ('i', 'u', 'c', 'r', 'insert', 'update', 'create', 'read') "
		      "THEN false END");
}

/* The column as text. */
static void add_text(struct buf *sql, const char *alias, const char *col)
{
	buf_adds(sql, "CAST(");
	cdc_sql_col(sql, alias, col);
	buf_adds(sql, " AS VARCHAR)");
}

static void add_text_int(const struct cdc_run *c, struct buf *sql, const char *alias,
			 const char *col)
{
	struct buf text = BUF_INIT, trimmed = BUF_INIT;

	add_text(&text, alias, col);
	buf_addf(&trimmed, "trim(%s)", text.buf);
	buf_adds(sql, "CASE WHEN ");
	wh_sql_matches(c->w, sql, text.buf, INT_RE);
	buf_adds(sql, " THEN ");
	wh_sql_try_cast(c->w, sql, trimmed.buf, wh_sql_type(c->w, WH_TYPE_INT128));
	buf_adds(sql, " END");
	buf_release(&trimmed);
	buf_release(&text);
}

/* Microseconds since the epoch of text read as a time of type t. */
static void add_epoch_of(const struct cdc_run *c, struct buf *sql, const char *text,
			 enum wh_type t)
{
	struct buf time = BUF_INIT;

	wh_sql_try_cast(c->w, &time, text, wh_sql_type(c->w, t));
	wh_sql_epoch_us(c->w, sql, time.buf);
	buf_release(&time);
}

/* Microseconds since the epoch, UTC. */
static void add_text_time(const struct cdc_run *c, struct buf *sql, const char *alias,
			  const char *col)
{
	struct buf text = BUF_INIT;

	add_text(&text, alias, col);
	buf_adds(sql, "CASE WHEN ");
	wh_sql_matches(c->w, sql, text.buf, OFFSET_RE);
	buf_adds(sql, " THEN ");
	add_epoch_of(c, sql, text.buf, WH_TYPE_TIMESTAMPTZ);
	buf_adds(sql, " ELSE ");
	add_epoch_of(c, sql, text.buf, WH_TYPE_TIMESTAMP);
	buf_adds(sql, " END");
	buf_release(&text);
}

/* 'integer', 'timestamp', or NULL for a text sequence neither can read. */
static void add_text_kind(const struct cdc_run *c, struct buf *sql, const char *alias,
			  const char *col)
{
	buf_adds(sql, "CASE WHEN (");
	add_text_int(c, sql, alias, col);
	buf_adds(sql, ") IS NOT NULL THEN 'integer' WHEN (");
	add_text_time(c, sql, alias, col);
	buf_adds(sql, ") IS NOT NULL THEN 'timestamp' END");
}

/* A value of cdc_seq (or of a column of its type) as it compares: as is,
 * or read from text as this batch's kind (NULL when it is of another). */
void cdc_sql_seq_value(const struct cdc_run *c, struct buf *sql, const char *alias, const char *col)
{
	if (!c->text_seq)
		cdc_sql_col(sql, alias, col);
	else if (strcmp(c->kind, "timestamp") == 0)
		add_text_time(c, sql, alias, col);
	else
		add_text_int(c, sql, alias, col);
}

const char *cdc_quoted(struct arena *a, const char *v)
{
	return v ? arena_sprintf(a, "'%s'", v) : "NULL";
}

/* The name of the events' column `name`, or NULL. */
const char *cdc_event_column(const struct cdc_run *c, const char *name, const char **type)
{
	for (size_t i = 0; i < c->ncols; i++) {
		if (strcasecmp(c->cols[i].name, name) == 0) {
			if (type)
				*type = c->cols[i].type;
			return c->cols[i].name;
		}
	}
	return NULL;
}

static int missing_column(const struct cdc_run *c, const char *what, const char *name,
			  struct sl_err *err)
{
	struct buf list = BUF_INIT;
	int rc;

	for (size_t i = 0; i < c->ncols; i++)
		buf_addf(&list, "%s%s", i ? ", " : "", c->cols[i].name);
	rc = sl_err_set(err, SL_E_INVALID,
			"model %s: %s column '%s' is not in the query's output\n"
			"  hint: the query returns %s",
			c->m->fqn, what, name, list.buf);
	buf_release(&list);
	return rc;
}

/* Finds the configured columns among those of the events (the rows of
 * the subquery from) and how cdc_seq compares. */
int cdc_events_columns(struct cdc_run *c, const char *from, struct sl_err *err)
{
	const char *type = NULL;
	enum wh_seq_kind kind;
	int rc = wh_query_columns(c->w, c->a, arena_sprintf(c->a, "SELECT * FROM %s", from),
				  &c->cols, &c->ncols, err);

	if (rc)
		return rc;
	c->keys = arena_alloc(c->a, (c->m->nunique_key + 1) * sizeof(char *));
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		c->keys[i] = cdc_event_column(c, c->m->unique_key[i], NULL);
		if (!c->keys[i])
			return missing_column(c, "unique_key", c->m->unique_key[i], err);
	}
	c->op = cdc_event_column(c, c->m->cdc_op, NULL);
	if (!c->op)
		return missing_column(c, "cdc_op", c->m->cdc_op, err);
	c->seq = cdc_event_column(c, c->m->cdc_seq, &type);
	if (!c->seq)
		return missing_column(c, "cdc_seq", c->m->cdc_seq, err);
	if (c->m->cdc_soft && cdc_event_column(c, "_sluice_deleted", NULL))
		return sl_err_set(err, SL_E_INVALID,
				  "model %s: the query returns a column '_sluice_deleted', which "
				  "cdc_deletes=soft adds itself\n"
				  "  hint: leave it out of the columns the query selects",
				  c->m->fqn);
	c->landing_seq = cdc_event_column(c, "_sluice_seq", NULL) != NULL;
	c->pos = cdc_event_column(c, "_sluice_pos", NULL);
	kind = wh_sql_seq_kind(c->w, type);
	c->text_seq = kind == WH_SEQ_TEXT;
	if (kind == WH_SEQ_NONE)
		return sl_err_set(err, SL_E_INVALID,
				  "model %s: cdc_seq column '%s' is of type %s" SEQ_HINT, c->m->fqn,
				  c->seq, type);
	c->kind = "integer";
	return 0;
}

/* Whether an event other than a truncate (which names no key) has a NULL
 * key column. */
static void add_null_key(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, "((");
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		buf_adds(sql, i ? " OR " : "");
		cdc_sql_col(sql, NULL, c->keys[i]);
		buf_adds(sql, " IS NULL");
	}
	buf_adds(sql, ") AND NOT coalesce(");
	cdc_sql_is_truncate(c, sql, NULL);
	buf_adds(sql, ", false))");
}

/* The winners' count and the oldest winner's sequence, as two columns. */
void cdc_sql_winners_read(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, "(SELECT count(*) FROM " WINNERS "), (SELECT CAST(min(");
	cdc_sql_col(sql, NULL, c->seq);
	buf_adds(sql, ") AS VARCHAR) FROM " WINNERS ")");
}

/* The two columns of add_winners_read from column col of r: the count,
 * and the sequence (NULL when there is no winner). */
void cdc_winners_take(struct cdc_run *c, struct wh_result *r, size_t col, struct cdc_winners *wn)
{
	const char *oldest = wh_result_value(r, 0, col + 1);

	wn->n = strtoll(wh_result_value(r, 0, col), NULL, 10);
	wn->oldest = oldest ? arena_strdup(c->a, oldest) : NULL;
}

/*
 * Whether an event of rel (the events' table, or the model's query as a
 * relation) has a NULL key or sequence or an unknown op: a quick look
 * (each distinct op is judged once) before the search for the first bad
 * event, which judges every event. Text sequences are judged per event
 * anyway, so they take the search at once. The same look at the ops finds
 * whether any event is a truncate (c->truncates) and, given wn, reads
 * what read_winners does.
 */
int cdc_events_maybe_bad(struct cdc_run *c, const char *rel, bool *bad, struct cdc_winners *wn,
			 struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	const char *bad_v, *truncates_v;
	int rc;

	buf_addf(&sql, "SELECT CAST(EXISTS (SELECT 1 FROM %s WHERE ", rel);
	add_null_key(c, &sql);
	buf_adds(&sql, " OR ");
	cdc_sql_col(&sql, NULL, c->seq);
	buf_adds(&sql, " IS NULL) OR bool_or((");
	add_op_kind(c, &sql, NULL);
	buf_adds(&sql, ") IS NULL) AS INTEGER), CAST(bool_or(coalesce(");
	cdc_sql_is_truncate(c, &sql, NULL);
	buf_adds(&sql, ", false)) AS INTEGER)");
	if (wn) {
		buf_adds(&sql, ", ");
		cdc_sql_winners_read(c, &sql);
	}
	buf_adds(&sql, " FROM (SELECT ");
	cdc_sql_col(&sql, NULL, c->op);
	buf_addf(&sql, " FROM %s GROUP BY ", rel);
	cdc_sql_col(&sql, NULL, c->op);
	buf_adds(&sql, ") AS o");
	rc = wh_query(c->w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	/* NULL: there are no events */
	bad_v = wh_result_value(r, 0, 0);
	truncates_v = wh_result_value(r, 0, 1);
	*bad = c->text_seq || (bad_v && strcmp(bad_v, "0") != 0);
	c->truncates = truncates_v && strcmp(truncates_v, "0") != 0;
	if (wn)
		cdc_winners_take(c, r, 2, wn);
	wh_result_free(r);
	return 0;
}

/* The first bad event, as an error; 0 when every event can be applied. */
int cdc_events_check(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r = NULL;
	const char *m = c->m->fqn, *key, *op, *seq;
	bool bad;
	int rc = cdc_events_maybe_bad(c, EVENTS, &bad, NULL, err);

	if (rc || !bad)
		return rc;
	if (c->text_seq) {
		/* the kind every event must have; one of another kind is
		 * reported below as mixed */
		buf_adds(&sql, "SELECT min(");
		add_text_kind(c, &sql, NULL, c->seq);
		buf_adds(&sql, ") FROM " EVENTS);
		rc = wh_query(c->w, sql.buf, &r, err);
		if (!rc && wh_result_value(r, 0, 0))
			c->kind = arena_strdup(c->a, wh_result_value(r, 0, 0));
		wh_result_free(r);
		buf_reset(&sql);
		if (rc)
			goto out;
	}
	buf_adds(&sql, "SELECT problem, key, op, seq FROM (SELECT CASE WHEN ");
	add_null_key(c, &sql);
	buf_adds(&sql, " THEN 1 WHEN (");
	add_op_kind(c, &sql, NULL);
	buf_adds(&sql, ") IS NULL THEN 2 WHEN ");
	cdc_sql_col(&sql, NULL, c->seq);
	buf_adds(&sql, " IS NULL THEN 3");
	if (c->text_seq) {
		buf_adds(&sql, " WHEN (");
		add_text_kind(c, &sql, NULL, c->seq);
		buf_adds(&sql, ") IS NULL THEN 4 WHEN (");
		add_text_kind(c, &sql, NULL, c->seq);
		buf_addf(&sql, ") <> '%s' THEN 5", c->kind);
	}
	buf_adds(&sql, " END AS problem, ");
	cdc_sql_key_text(c, &sql, NULL);
	buf_adds(&sql, " AS key, CAST(");
	cdc_sql_col(&sql, NULL, c->op);
	buf_adds(&sql, " AS VARCHAR) AS op, CAST(");
	cdc_sql_col(&sql, NULL, c->seq);
	buf_adds(&sql, " AS VARCHAR) AS seq FROM " EVENTS ") AS e WHERE problem IS NOT NULL "
		       "ORDER BY problem, key, seq LIMIT 1");
	rc = wh_query(c->w, sql.buf, &r, err);
	if (rc || wh_result_nrows(r) == 0)
		goto out;
	key = wh_result_value(r, 0, 1);
	op = cdc_quoted(c->a, wh_result_value(r, 0, 2));
	seq = cdc_quoted(c->a, wh_result_value(r, 0, 3));
	switch (wh_result_value(r, 0, 0)[0]) {
	case '1':
		rc = sl_err_set(err, SL_E_INVALID,
				"model %s: a change event has a NULL unique_key (%s, cdc_op %s, "
				"cdc_seq %s)\n  hint: every event must name the key it changes",
				m, key, op, seq);
		break;
	case '2':
		rc = sl_err_set(err, SL_E_INVALID, "model %s: unknown cdc_op value %s for key %s" OP_HINT,
				m, op, key);
		break;
	case '3':
		rc = sl_err_set(err, SL_E_INVALID, "model %s: cdc_seq is NULL for key %s" SEQ_HINT, m,
				key);
		break;
	case '4':
		rc = sl_err_set(err, SL_E_INVALID,
				"model %s: cdc_seq value %s for key %s is neither an integer nor an "
				"ISO-8601 timestamp" SEQ_HINT,
				m, seq, key);
		break;
	default:
		rc = sl_err_set(err, SL_E_INVALID,
				"model %s: mixed cdc_seq values: %s for key %s is a timestamp, other "
				"events have integers" SEQ_HINT,
				m, seq, key);
	}
out:
	wh_result_free(r);
	buf_release(&sql);
	return rc;
}
