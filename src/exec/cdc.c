/*
 * This file implements change-event apply for incremental merge and
 * delete+insert models with cdc_op and cdc_seq. Each row the model's query
 * returns for a build is an event: an upsert or a delete of its unique_key,
 * ordered among the events of that key by cdc_seq. Per build:
 *
 *   1. the events are checked: a NULL key, an unknown op, a NULL,
 *      unreadable or mixed sequence fails the build before anything is
 *      written;
 *   2. a truncate becomes a delete of every key known, at its sequence;
 *   3. per key the newest event wins (by cdc_seq, then _sluice_pos when the
 *      events have it; a delete wins a tie), and it is joined with what
 *      the table and the tombstones hold for the key;
 *   4. a winner applies when nothing is stored for its key, when it is
 *      newer than what is stored, or when it is a delete at the sequence of
 *      a live row (an insert and a delete in one source transaction share
 *      their commit LSN); anything else is a replay or a duplicate;
 *   5. the rows of the keys that apply are deleted and the new ones
 *      inserted; the tombstones follow.
 *
 * The events go to a temporary table for steps 1 and 2, except in the
 * usual case: an increment with integer or time sequences and hard
 * deletes, whose events a quick look at the model's query finds to be
 * plain upserts and deletes, picks its winners straight from the query.
 *
 * Step 3 joins the batch with the whole table. When every event of a batch
 * is newer than anything stored (a stream applied in order, the usual
 * case) every winner applies, so hard-delete models skip that join and the
 * table is scanned only by the delete.
 *
 * Hard deletes remove the row and keep (key, cdc_seq) in the tombstones
 * table, so that an older insert arriving later stays out. Soft deletes keep
 * the row with _sluice_deleted = true: its key, cdc_op, cdc_seq and
 * _sluice_* columns come from the delete, every other column from the
 * newest insert or update of the key (the delete's own values when there
 * was none). The tombstones table of a soft model records, per deleted key,
 * the cdc_seq of those values (_sluice_values_seq), so that an older update
 * arriving after the delete still refreshes them exactly as it would have
 * before the delete. With these rules the result never depends on how the
 * events were split into builds. A first (full) build applies every event
 * to a new, empty table.
 *
 * Everything is set-based SQL over the batch; nothing here loops over rows.
 * Must never begin, commit or roll back a transaction.
 */
#include "exec/cdc.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "state/tombstones.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EVENTS "_sluice_cdc_events"
#define WINNERS "_sluice_cdc_winners"
#define UPSERTS "_sluice_cdc_upserts"
#define APPLY "_sluice_cdc_apply"
#define ROWS "_sluice_cdc_rows"
#define TRUNCATES "_sluice_cdc_truncates"

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
#define SEQ_HINT                                                                            \
	"\n  hint: cdc_seq orders the changes of a key: an integer (an LSN, a sequence) or " \
	"an ISO-8601 timestamp, one kind for every event"

/* One apply: the model, where it goes, and what the events look like. */
struct cdc_run {
	struct wh *w;
	const struct model *m;
	struct arena *a;
	const char *table; /* in m->schema */
	bool full;
	struct wh_column *cols; /* the events' columns */
	size_t ncols;
	const char *op, *seq; /* the events' columns named by cdc_op, cdc_seq */
	const char **keys;    /* ... and by unique_key */
	bool text_seq;        /* cdc_seq is text, read as integers or timestamps */
	const char *kind;     /* for text: "integer" or "timestamp", this batch's */
	bool landing_seq;     /* the events have _sluice_seq, their landing order */
	/* the events' _sluice_pos, the order of the changes of one source
	 * transaction (which share their commit LSN), or NULL */
	const char *pos;
	bool truncates; /* some event is a truncate */
	/* the apply table says per key whether it applies and whether a row
	 * is stored (else every winner applies, replacing a row or not) */
	bool decided;
	const char *apply; /* the apply table: APPLY, or WINNERS when not decided */
	const char *temps[6]; /* the temporary tables made, to drop at the end */
	size_t ntemps;
};

/* What the table WINNERS holds: how many, and the oldest one's cdc_seq as
 * text (NULL when none). */
struct cdc_winners {
	int64_t n;
	const char *oldest;
};

bool cdc_model(const struct model *m)
{
	return m->cdc_op && m->cdc_seq;
}

/* The name of m's tombstones table (src/state/tombstones.c). */
static void add_tombstones(const struct cdc_run *c, struct buf *sql)
{
	state_sql_tombstones(sql, c->m->schema, c->m->name);
}

/* Runs the statements in sql and frees it. */
static int run(struct cdc_run *c, struct buf *sql, struct sl_err *err)
{
	int rc = wh_exec(c->w, sql->buf, err);

	buf_release(sql);
	return rc;
}

/* Makes the temporary table `name` hold the rows of query, and frees it. */
static int run_temp(struct cdc_run *c, const char *name, struct buf *query, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	size_t i = 0;

	while (i < c->ntemps && strcmp(c->temps[i], name) != 0)
		i++;
	if (i == c->ntemps && i < sizeof(c->temps) / sizeof(c->temps[0]))
		c->temps[c->ntemps++] = name;

	wh_sql_replace_as(c->w, &sql, WH_TEMP_TABLE, NULL, name, query->buf);
	buf_release(query);
	return run(c, &sql, err);
}

static void add_target(const struct cdc_run *c, struct buf *sql)
{
	wh_sql_qualified(sql, c->m->schema, c->table);
}

/* alias.column, or the column alone when alias is NULL. */
static void add_col(struct buf *sql, const char *alias, const char *col)
{
	if (alias)
		buf_addf(sql, "%s.", alias);
	wh_sql_ident(sql, col);
}

static void add_keys(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		if (i)
			buf_adds(sql, ", ");
		add_col(sql, alias, c->keys[i]);
	}
}

/* The events' columns. */
static void add_columns(const struct cdc_run *c, struct buf *sql)
{
	for (size_t i = 0; i < c->ncols; i++) {
		buf_adds(sql, i ? ", " : "");
		wh_sql_ident(sql, c->cols[i].name);
	}
}

static void add_key_match(const struct cdc_run *c, struct buf *sql, const char *l, const char *r)
{
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		if (i)
			buf_adds(sql, " AND ");
		add_col(sql, l, c->keys[i]);
		buf_adds(sql, " = ");
		add_col(sql, r, c->keys[i]);
	}
}

/* "id=42, region=eu", for messages. */
static void add_key_text(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	buf_adds(sql, "concat_ws(', '");
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		char label[300];

		snprintf(label, sizeof(label), "%s=", c->keys[i]);
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, label);
		buf_adds(sql, " || coalesce(CAST(");
		add_col(sql, alias, c->keys[i]);
		buf_adds(sql, " AS VARCHAR), 'NULL')");
	}
	buf_adds(sql, ")");
}

static void add_lower_op(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	buf_adds(sql, "lower(CAST(");
	add_col(sql, alias, c->op);
	buf_adds(sql, " AS VARCHAR))");
}

/* Whether an event is a truncate of the whole table. */
static void add_is_truncate(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	add_lower_op(c, sql, alias);
	buf_adds(sql, " IN ('t', 'truncate')");
}

/* Whether an event is a delete, once check_events has found every op to be
 * one of the known ones. A truncate is a delete of every key (see
 * expand_truncates). */
static void add_is_delete(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	buf_adds(sql, "(starts_with(");
	add_lower_op(c, sql, alias);
	buf_adds(sql, ", 'd') OR ");
	add_is_truncate(c, sql, alias);
	buf_adds(sql, ")");
}

/* true for a delete or truncate, false for an upsert, NULL for anything
 * else. */
static void add_op_kind(const struct cdc_run *c, struct buf *sql, const char *alias)
{
	buf_adds(sql, "CASE WHEN ");
	add_is_delete(c, sql, alias);
	buf_adds(sql, " THEN true WHEN ");
	add_lower_op(c, sql, alias);
	buf_adds(sql, " IN ('i', 'u', 'c', 'r', 'insert', 'update', 'create', 'read') "
		      "THEN false END");
}

/* The column as text. */
static void add_text(struct buf *sql, const char *alias, const char *col)
{
	buf_adds(sql, "CAST(");
	add_col(sql, alias, col);
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
static void add_seq_value(const struct cdc_run *c, struct buf *sql, const char *alias,
			  const char *col)
{
	if (!c->text_seq)
		add_col(sql, alias, col);
	else if (strcmp(c->kind, "timestamp") == 0)
		add_text_time(c, sql, alias, col);
	else
		add_text_int(c, sql, alias, col);
}

static const char *quoted(struct arena *a, const char *v)
{
	return v ? arena_sprintf(a, "'%s'", v) : "NULL";
}

/* The name of the events' column `name`, or NULL. */
static const char *event_column(const struct cdc_run *c, const char *name, const char **type)
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
static int read_columns(struct cdc_run *c, const char *from, struct sl_err *err)
{
	const char *type = NULL;
	enum wh_seq_kind kind;
	int rc = wh_query_columns(c->w, c->a, arena_sprintf(c->a, "SELECT * FROM %s", from),
				  &c->cols, &c->ncols, err);

	if (rc)
		return rc;
	c->keys = arena_alloc(c->a, (c->m->nunique_key + 1) * sizeof(char *));
	for (size_t i = 0; i < c->m->nunique_key; i++) {
		c->keys[i] = event_column(c, c->m->unique_key[i], NULL);
		if (!c->keys[i])
			return missing_column(c, "unique_key", c->m->unique_key[i], err);
	}
	c->op = event_column(c, c->m->cdc_op, NULL);
	if (!c->op)
		return missing_column(c, "cdc_op", c->m->cdc_op, err);
	c->seq = event_column(c, c->m->cdc_seq, &type);
	if (!c->seq)
		return missing_column(c, "cdc_seq", c->m->cdc_seq, err);
	if (c->m->cdc_soft && event_column(c, "_sluice_deleted", NULL))
		return sl_err_set(err, SL_E_INVALID,
				  "model %s: the query returns a column '_sluice_deleted', which "
				  "cdc_deletes=soft adds itself\n"
				  "  hint: leave it out of the columns the query selects",
				  c->m->fqn);
	c->landing_seq = event_column(c, "_sluice_seq", NULL) != NULL;
	c->pos = event_column(c, "_sluice_pos", NULL);
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
		add_col(sql, NULL, c->keys[i]);
		buf_adds(sql, " IS NULL");
	}
	buf_adds(sql, ") AND NOT coalesce(");
	add_is_truncate(c, sql, NULL);
	buf_adds(sql, ", false))");
}

/* The winners' count and the oldest winner's sequence, as two columns. */
static void add_winners_read(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, "(SELECT count(*) FROM " WINNERS "), (SELECT CAST(min(");
	add_col(sql, NULL, c->seq);
	buf_adds(sql, ") AS VARCHAR) FROM " WINNERS ")");
}

/* The two columns of add_winners_read from column col of r: the count,
 * and the sequence (NULL when there is no winner). */
static void take_winners(struct cdc_run *c, struct wh_result *r, size_t col,
			 struct cdc_winners *wn)
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
static int maybe_bad(struct cdc_run *c, const char *rel, bool *bad, struct cdc_winners *wn,
		     struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	const char *bad_v, *truncates_v;
	int rc;

	buf_addf(&sql, "SELECT CAST(EXISTS (SELECT 1 FROM %s WHERE ", rel);
	add_null_key(c, &sql);
	buf_adds(&sql, " OR ");
	add_col(&sql, NULL, c->seq);
	buf_adds(&sql, " IS NULL) OR bool_or((");
	add_op_kind(c, &sql, NULL);
	buf_adds(&sql, ") IS NULL) AS INTEGER), CAST(bool_or(coalesce(");
	add_is_truncate(c, &sql, NULL);
	buf_adds(&sql, ", false)) AS INTEGER)");
	if (wn) {
		buf_adds(&sql, ", ");
		add_winners_read(c, &sql);
	}
	buf_adds(&sql, " FROM (SELECT ");
	add_col(&sql, NULL, c->op);
	buf_addf(&sql, " FROM %s GROUP BY ", rel);
	add_col(&sql, NULL, c->op);
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
		take_winners(c, r, 2, wn);
	wh_result_free(r);
	return 0;
}

/* The first bad event, as an error; 0 when every event can be applied. */
static int check_events(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r = NULL;
	const char *m = c->m->fqn, *key, *op, *seq;
	bool bad;
	int rc = maybe_bad(c, EVENTS, &bad, NULL, err);

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
	add_col(&sql, NULL, c->seq);
	buf_adds(&sql, " IS NULL THEN 3");
	if (c->text_seq) {
		buf_adds(&sql, " WHEN (");
		add_text_kind(c, &sql, NULL, c->seq);
		buf_adds(&sql, ") IS NULL THEN 4 WHEN (");
		add_text_kind(c, &sql, NULL, c->seq);
		buf_addf(&sql, ") <> '%s' THEN 5", c->kind);
	}
	buf_adds(&sql, " END AS problem, ");
	add_key_text(c, &sql, NULL);
	buf_adds(&sql, " AS key, CAST(");
	add_col(&sql, NULL, c->op);
	buf_adds(&sql, " AS VARCHAR) AS op, CAST(");
	add_col(&sql, NULL, c->seq);
	buf_adds(&sql, " AS VARCHAR) AS seq FROM " EVENTS ") AS e WHERE problem IS NOT NULL "
		       "ORDER BY problem, key, seq LIMIT 1");
	rc = wh_query(c->w, sql.buf, &r, err);
	if (rc || wh_result_nrows(r) == 0)
		goto out;
	key = wh_result_value(r, 0, 1);
	op = quoted(c->a, wh_result_value(r, 0, 2));
	seq = quoted(c->a, wh_result_value(r, 0, 3));
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

/* A full build starts from an empty table and no tombstones, both with the
 * events' column types. */
static int create_tables(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT, stones = BUF_INIT;

	buf_adds(&stones, "SELECT ");
	add_keys(c, &stones, NULL);
	buf_adds(&stones, ", ");
	add_col(&stones, NULL, c->seq);
	if (c->m->cdc_soft) {
		buf_adds(&stones, ", ");
		add_col(&stones, NULL, c->seq);
		buf_adds(&stones, " AS _sluice_values_seq");
	}
	buf_adds(&stones, " FROM " EVENTS " LIMIT 0");
	buf_adds(&sql, "CREATE TABLE ");
	add_target(c, &sql);
	buf_addf(&sql, " AS SELECT *%s FROM " EVENTS " LIMIT 0;\n",
		 c->m->cdc_soft ? ", false AS _sluice_deleted" : "");
	state_sql_tombstones_create(c->w, &sql, c->m->schema, c->m->name, stones.buf);
	buf_release(&stones);
	return run(c, &sql, err);
}

/* The events of rel (with the alias r) whose key has one event among
 * them (cmp "=") or several (">"), as _sluice_cdc_k counted them. */
static void add_by_count(const struct cdc_run *c, struct buf *sql, const char *rel,
			 const char *cmp)
{
	buf_addf(sql, "SELECT r.* FROM %s JOIN _sluice_cdc_k AS k ON ", rel);
	add_key_match(c, sql, "r", "k");
	buf_addf(sql, " WHERE k._sluice_cdc_n %s 1", cmp);
}

/*
 * The newest event of each key among the events rel (a relation with the
 * alias r): the highest sequence, then the latest change of its source
 * transaction (_sluice_pos), then (deletes_first) a delete before an
 * upsert, then the one that landed first, as it would have when applied
 * alone. Most keys of a batch have one event, which is their newest as it
 * is: only the events of keys with several are sorted, a fraction of
 * sorting the batch. The events per key are counted once, in a common
 * table expression that both sides read. The sorted part is a subquery of
 * its own, so that no warehouse's way of taking the first row reaches the
 * other side of the UNION.
 */
static void add_newest(const struct cdc_run *c, struct buf *sql, const char *rel,
		       bool deletes_first)
{
	struct buf keys = BUF_INIT, order = BUF_INIT, several = BUF_INIT;

	add_keys(c, &keys, NULL);
	add_seq_value(c, &order, NULL, c->seq);
	buf_adds(&order, " DESC");
	if (c->pos) {
		buf_adds(&order, ", ");
		add_col(&order, NULL, c->pos);
		buf_adds(&order, " DESC NULLS LAST");
	}
	if (deletes_first) {
		buf_adds(&order, ", ");
		add_is_delete(c, &order, NULL);
		buf_adds(&order, " DESC");
	}
	if (c->landing_seq)
		buf_adds(&order, ", _sluice_seq");
	buf_addf(sql,
		 "WITH _sluice_cdc_k AS (SELECT %s, count(*) AS _sluice_cdc_n FROM %s GROUP BY %s)\n",
		 keys.buf, rel, keys.buf);
	add_by_count(c, sql, rel, "=");
	buf_adds(&several, "(");
	add_by_count(c, &several, rel, ">");
	buf_adds(&several, ") AS several");
	buf_adds(sql, "\nUNION ALL\nSELECT * FROM (");
	wh_sql_first_per_key(c->w, sql, several.buf, keys.buf, order.buf);
	buf_adds(sql, ") AS newest");
	buf_release(&several);
	buf_release(&order);
	buf_release(&keys);
}

/* Soft deletes take their values from the newest upsert of the key. */
static int write_upserts(struct cdc_run *c, struct sl_err *err)
{
	struct buf query = BUF_INIT, rel = BUF_INIT;

	buf_adds(&rel, "(SELECT * FROM " EVENTS " WHERE NOT ");
	add_is_delete(c, &rel, NULL);
	buf_adds(&rel, ") AS r");
	buf_adds(&query, "SELECT *, ");
	add_seq_value(c, &query, NULL, c->seq);
	buf_adds(&query, " AS _sluice_cdc_seq FROM (\n");
	add_newest(c, &query, rel.buf, false);
	buf_adds(&query, ") AS e");
	buf_release(&rel);
	return run_temp(c, UPSERTS, &query, err);
}

/* A CASE branch giving a stored sequence as text when this batch's kind
 * cannot read it. */
static void add_unreadable(const struct cdc_run *c, struct buf *sql, const char *alias,
			   const char *col)
{
	buf_adds(sql, " WHEN ");
	add_col(sql, alias, col);
	buf_adds(sql, " IS NOT NULL AND (");
	add_seq_value(c, sql, alias, col);
	buf_adds(sql, ") IS NULL THEN CAST(");
	add_col(sql, alias, col);
	buf_adds(sql, " AS VARCHAR)");
}

/* What a winner carries beside the event's columns: whether it is a
 * delete and, for a text sequence, the sequence as it compares. */
static void add_winner_columns(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, ", ");
	add_is_delete(c, sql, NULL);
	buf_adds(sql, " AS _sluice_cdc_del");
	if (c->text_seq) {
		buf_adds(sql, ", ");
		add_seq_value(c, sql, NULL, c->seq);
		buf_adds(sql, " AS _sluice_cdc_seq");
	}
}

/* A winner's sequence as it compares with what is stored. */
static void add_winner_seq(const struct cdc_run *c, struct buf *sql)
{
	if (c->text_seq)
		buf_adds(sql, "_sluice_cdc_seq");
	else
		add_col(sql, NULL, c->seq);
}

/* The newest event of each key, as the table WINNERS: from the events'
 * table or, given the model's query, straight from it, read once as a
 * common table expression (which the warehouse materializes, as it is read
 * several times). */
static int write_winners(struct cdc_run *c, const char *query, struct sl_err *err)
{
	struct buf sql = BUF_INIT;

	if (query)
		buf_addf(&sql, "WITH _sluice_cdc_q AS (\n%s\n)\n", query);
	buf_adds(&sql, "SELECT *");
	add_winner_columns(c, &sql);
	buf_adds(&sql, " FROM (\n");
	add_newest(c, &sql, query ? "_sluice_cdc_q AS r" : EVENTS " AS r", true);
	buf_adds(&sql, ") AS e");
	return run_temp(c, WINNERS, &sql, err);
}

/* What WINNERS holds. */
static int read_winners(struct cdc_run *c, struct cdc_winners *wn, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT ");
	add_winners_read(c, &sql);
	rc = wh_query(c->w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	take_winners(c, r, 0, wn);
	wh_result_free(r);
	return 0;
}

/*
 * The winners straight from the model's query, without the events' own
 * table, when the batch allows (*plain): an increment with an integer or
 * time sequence and hard deletes whose events, at a quick look, are all
 * upserts and deletes of a key with a sequence. Anything else (a bad
 * event, whose error the search over the table names, or a truncate, which
 * expand_truncates needs the table for) takes the table.
 */
static int winners_from_query(struct cdc_run *c, const char *query, const char *from,
			      bool *plain, struct cdc_winners *wn, struct sl_err *err)
{
	bool bad;
	int rc;

	*plain = false;
	if (c->full || c->m->cdc_soft || c->text_seq)
		return 0;
	rc = write_winners(c, query, err);
	if (!rc)
		rc = maybe_bad(c, from, &bad, wn, err);
	*plain = !rc && !bad && !c->truncates;
	return rc;
}

/* The column of a soft model's stored row, beside the event's own. */
static const char *old_column(const struct cdc_run *c, const char *col)
{
	return arena_sprintf(c->a, "_sluice_cdc_old_%s", col);
}

/*
 * The newest event of each key beside what is stored for it (one join with
 * the table, the only scan of it besides the delete), and whether it
 * applies. Soft models also take the stored row's values, and decide
 * whether a deleted row takes those of an upsert older than the delete but
 * newer than the values it shows.
 */
static int write_apply(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	bool soft = c->m->cdc_soft;

	buf_adds(&sql, "SELECT *");
	if (soft)
		buf_adds(&sql, ", NOT _sluice_cdc_apply AND _sluice_cdc_was_deleted AND "
			       "_sluice_cdc_useq IS NOT NULL AND (_sluice_cdc_vseq IS NULL OR "
			       "_sluice_cdc_useq > _sluice_cdc_vseq) AS _sluice_cdc_values");
	buf_adds(&sql, " FROM (SELECT *, _sluice_cdc_stored IS NULL OR ");
	add_winner_seq(c, &sql);
	buf_adds(&sql, " > _sluice_cdc_stored OR (_sluice_cdc_del AND ");
	add_winner_seq(c, &sql);
	buf_adds(&sql, " = _sluice_cdc_stored AND _sluice_cdc_live) AS _sluice_cdc_apply FROM (\n"
		       "SELECT w.*, ");
	add_col(&sql, "t", c->keys[0]);
	buf_adds(&sql, " IS NOT NULL AS _sluice_cdc_row, ");
	if (soft) {
		for (size_t i = 0; i < c->ncols; i++) {
			add_col(&sql, "t", c->cols[i].name);
			buf_adds(&sql, " AS ");
			wh_sql_ident(&sql, old_column(c, c->cols[i].name));
			buf_adds(&sql, ", ");
		}
		add_seq_value(c, &sql, "t", c->seq);
		buf_adds(&sql, " AS _sluice_cdc_stored, coalesce(NOT t._sluice_deleted, false) AS "
			       "_sluice_cdc_live, coalesce(t._sluice_deleted, false) AS "
			       "_sluice_cdc_was_deleted, CASE WHEN t._sluice_deleted THEN ");
		add_seq_value(c, &sql, "tb", "_sluice_values_seq");
		buf_adds(&sql, " ELSE ");
		add_seq_value(c, &sql, "t", c->seq);
		buf_adds(&sql, " END AS _sluice_cdc_vseq, tb._sluice_values_seq AS "
			       "_sluice_cdc_vseq_raw, u._sluice_cdc_seq AS _sluice_cdc_useq");
	} else {
		buf_adds(&sql, "coalesce(");
		add_seq_value(c, &sql, "t", c->seq);
		buf_adds(&sql, ", ");
		add_seq_value(c, &sql, "tb", c->seq);
		buf_adds(&sql, ") AS _sluice_cdc_stored, ");
		add_col(&sql, "t", c->keys[0]);
		buf_adds(&sql, " IS NOT NULL AS _sluice_cdc_live");
	}
	if (c->text_seq) {
		/* a stored sequence of the other kind cannot be compared */
		buf_adds(&sql, ", CASE");
		add_unreadable(c, &sql, "t", c->seq);
		add_unreadable(c, &sql, "tb", c->seq);
		if (soft)
			add_unreadable(c, &sql, "tb", "_sluice_values_seq");
		buf_adds(&sql, " END AS _sluice_cdc_bad");
	}
	buf_adds(&sql, "\nFROM " WINNERS " AS w LEFT JOIN ");
	add_target(c, &sql);
	buf_adds(&sql, " AS t ON ");
	add_key_match(c, &sql, "w", "t");
	buf_adds(&sql, " LEFT JOIN ");
	add_tombstones(c, &sql);
	buf_adds(&sql, " AS tb ON ");
	add_key_match(c, &sql, "w", "tb");
	if (soft) {
		buf_adds(&sql, " LEFT JOIN " UPSERTS " AS u ON ");
		add_key_match(c, &sql, "w", "u");
	}
	buf_adds(&sql, ") AS s) AS d");
	return run_temp(c, APPLY, &sql, err);
}

/*
 * Whether every winner is newer than anything the table and the tombstones
 * hold, as when a stream is applied in order: then every winner applies
 * and what is stored need not be looked up, which saves a join with the
 * whole table. Hard deletes with a sequence that compares as it is only;
 * anything else, or a replay, takes the general path. The oldest winner's
 * sequence goes into the question as a constant, so that DuckDB answers it
 * from each row group's min/max without reading the rows.
 */
static int all_newer(struct cdc_run *c, const char *oldest, bool *newer, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	const char *type = NULL;
	int64_t stored = 1;
	int rc;

	*newer = false;
	if (c->full || c->text_seq || c->m->cdc_soft || !oldest)
		return 0;
	event_column(c, c->seq, &type);
	buf_adds(&sql, "SELECT CAST(EXISTS (SELECT 1 FROM ");
	add_target(c, &sql);
	buf_adds(&sql, " WHERE ");
	add_col(&sql, NULL, c->seq);
	buf_adds(&sql, " >= CAST(");
	buf_add_sql_str(&sql, oldest);
	buf_addf(&sql, " AS %s)) OR EXISTS (SELECT 1 FROM ", type);
	add_tombstones(c, &sql);
	buf_adds(&sql, " WHERE ");
	add_col(&sql, NULL, c->seq);
	buf_adds(&sql, " >= CAST(");
	buf_add_sql_str(&sql, oldest);
	buf_addf(&sql, " AS %s)) AS INTEGER)", type);
	rc = wh_query_int(c->w, sql.buf, &stored, err);
	*newer = !rc && stored == 0;
	buf_release(&sql);
	return rc;
}

static int check_stored(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	buf_adds(&sql, "SELECT ");
	add_key_text(c, &sql, NULL);
	buf_adds(&sql, " AS key, CAST(");
	add_col(&sql, NULL, c->seq);
	buf_adds(&sql, " AS VARCHAR), _sluice_cdc_bad FROM " APPLY
		       " WHERE _sluice_cdc_bad IS NOT NULL ORDER BY key LIMIT 1");
	rc = wh_query(c->w, sql.buf, &r, err);
	if (!rc && wh_result_nrows(r))
		rc = sl_err_set(err, SL_E_INVALID,
				"model %s: mixed cdc_seq values for key %s: %s in this batch, %s "
				"stored" SEQ_HINT,
				c->m->fqn, wh_result_value(r, 0, 0),
				quoted(c->a, wh_result_value(r, 0, 1)),
				quoted(c->a, wh_result_value(r, 0, 2)));
	wh_result_free(r);
	buf_release(&sql);
	return rc;
}

/* Whether a soft-deleted row takes the column from the delete itself. */
static bool own_column(const struct cdc_run *c, const char *col)
{
	if (strcmp(col, c->op) == 0 || strcmp(col, c->seq) == 0 ||
	    strncasecmp(col, "_sluice_", 8) == 0)
		return true;
	for (size_t i = 0; i < c->m->nunique_key; i++)
		if (strcmp(col, c->keys[i]) == 0)
			return true;
	return false;
}

/*
 * The rows a soft model writes for the keys that change: upserts as they
 * are; deletes with the values of the newest upsert, stored or in the batch
 * (the stored one wins a tie: it came first); deleted rows that take the
 * values of a late upsert keep everything else.
 */
static int write_soft_rows(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;

	buf_adds(&sql, "SELECT ");
	for (size_t i = 0; i < c->ncols; i++) {
		const char *col = c->cols[i].name, *old = old_column(c, col);

		if (own_column(c, col)) {
			buf_adds(&sql, "CASE WHEN a._sluice_cdc_values THEN ");
			add_col(&sql, "a", old);
			buf_adds(&sql, " ELSE ");
		} else {
			buf_adds(&sql, "CASE a._sluice_cdc_src WHEN 'upsert' THEN ");
			add_col(&sql, "u", col);
			buf_adds(&sql, " WHEN 'stored' THEN ");
			add_col(&sql, "a", old);
			buf_adds(&sql, " ELSE ");
		}
		add_col(&sql, "a", col);
		buf_adds(&sql, " END AS ");
		wh_sql_ident(&sql, col);
		buf_adds(&sql, ", ");
	}
	buf_adds(&sql, "a._sluice_cdc_del OR a._sluice_cdc_values AS _sluice_deleted, "
		       "CASE a._sluice_cdc_src WHEN 'upsert' THEN ");
	add_col(&sql, "u", c->seq);
	buf_adds(&sql, " WHEN 'stored' THEN CASE WHEN a._sluice_cdc_was_deleted THEN "
		       "a._sluice_cdc_vseq_raw ELSE ");
	add_col(&sql, "a", old_column(c, c->seq));
	buf_adds(&sql, " END END AS _sluice_values_seq\n"
		       "FROM (SELECT *, CASE WHEN _sluice_cdc_values THEN 'upsert' WHEN NOT "
		       "_sluice_cdc_del THEN NULL WHEN _sluice_cdc_vseq IS NOT NULL AND "
		       "(_sluice_cdc_useq IS NULL OR _sluice_cdc_vseq >= _sluice_cdc_useq) THEN "
		       "'stored' WHEN _sluice_cdc_useq IS NOT NULL THEN 'upsert' END AS "
		       "_sluice_cdc_src FROM " APPLY
		       " WHERE _sluice_cdc_apply OR _sluice_cdc_values) AS a LEFT JOIN " UPSERTS
		       " AS u ON ");
	add_key_match(c, &sql, "a", "u");
	return run_temp(c, ROWS, &sql, err);
}

/* Whether the key's newest event applies. */
static void add_applies(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, c->decided ? "_sluice_cdc_apply" : "true");
}

/* Whether the key's row changes: its newest event applies, or (soft) the
 * deleted row takes newer values. */
static void add_changes(const struct cdc_run *c, struct buf *sql)
{
	buf_adds(sql, "(");
	add_applies(c, sql);
	if (c->m->cdc_soft)
		buf_adds(sql, " OR _sluice_cdc_values");
	buf_adds(sql, ")");
}

/* Replaces the rows and tombstones of every key that changes. */
static int write_changes(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT, cols = BUF_INIT, stones = BUF_INIT;

	if (!c->full) {
		buf_adds(&sql, "DELETE FROM ");
		add_target(c, &sql);
		buf_adds(&sql, " AS t USING (SELECT ");
		add_keys(c, &sql, NULL);
		buf_addf(&sql, " FROM %s WHERE ", c->apply);
		add_changes(c, &sql);
		if (c->decided)
			buf_adds(&sql, " AND _sluice_cdc_row");
		buf_adds(&sql, ") AS k WHERE ");
		add_key_match(c, &sql, "t", "k");
		buf_adds(&sql, ";\nDELETE FROM ");
		add_tombstones(c, &sql);
		buf_adds(&sql, " AS tb USING (SELECT ");
		add_keys(c, &sql, NULL);
		buf_addf(&sql, " FROM %s WHERE ", c->apply);
		add_changes(c, &sql);
		buf_adds(&sql, ") AS k WHERE ");
		add_key_match(c, &sql, "tb", "k");
		buf_adds(&sql, ";\n");
	}
	add_columns(c, &cols);
	add_keys(c, &stones, NULL);
	buf_adds(&stones, ", ");
	add_col(&stones, NULL, c->seq);
	if (c->m->cdc_soft) {
		buf_adds(&cols, ", _sluice_deleted");
		buf_adds(&stones, ", _sluice_values_seq");
	}
	buf_adds(&sql, "INSERT INTO ");
	add_target(c, &sql);
	buf_addf(&sql, " (%s) SELECT %s FROM ", cols.buf, cols.buf);
	if (c->m->cdc_soft) {
		buf_adds(&sql, ROWS);
	} else {
		buf_addf(&sql, "%s WHERE ", c->apply);
		add_applies(c, &sql);
		buf_adds(&sql, " AND NOT _sluice_cdc_del");
	}
	buf_adds(&sql, ";\nINSERT INTO ");
	add_tombstones(c, &sql);
	buf_addf(&sql, " (%s) SELECT %s FROM ", stones.buf, stones.buf);
	if (c->m->cdc_soft) {
		buf_adds(&sql, ROWS " WHERE _sluice_deleted");
	} else {
		buf_addf(&sql, "%s WHERE ", c->apply);
		add_applies(c, &sql);
		buf_adds(&sql, " AND _sluice_cdc_del");
	}
	buf_release(&stones);
	buf_release(&cols);
	return run(c, &sql, err);
}

/*
 * A truncate deletes every key older than itself. It becomes a delete of
 * each key the batch, the table or the tombstones know, at the truncate's
 * sequence and position, and the rules above do the rest: a key changed
 * after it keeps its newer event, one stored newer than it stays, and a
 * replay older than it stays out. Keys that only the tombstones know get
 * theirs raised, so that the result does not depend on whether the key's
 * delete came in this batch or an earlier one.
 */
static int expand_truncates(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT, keys = BUF_INIT;
	int rc;

	if (!c->truncates)
		return 0;
	buf_adds(&sql, "SELECT * FROM " EVENTS " WHERE ");
	add_is_truncate(c, &sql, NULL);
	rc = run_temp(c, TRUNCATES, &sql, err);
	if (rc)
		return rc;
	add_keys(c, &keys, NULL);
	buf_adds(&sql, "DELETE FROM " EVENTS " WHERE ");
	add_is_truncate(c, &sql, NULL);
	buf_adds(&sql, ";\nINSERT INTO " EVENTS " (");
	add_columns(c, &sql);
	buf_adds(&sql, ") SELECT ");
	for (size_t i = 0; i < c->ncols; i++) {
		const char *col = c->cols[i].name;
		bool key = false;

		for (size_t k = 0; k < c->m->nunique_key && !key; k++)
			key = strcmp(col, c->keys[k]) == 0;
		buf_adds(&sql, i ? ", " : "");
		add_col(&sql, key ? "k" : "t", col);
	}
	buf_addf(&sql, " FROM " TRUNCATES " AS t CROSS JOIN (SELECT %s FROM " EVENTS
		       " UNION SELECT %s FROM ",
		 keys.buf, keys.buf);
	add_target(c, &sql);
	buf_addf(&sql, " UNION SELECT %s FROM ", keys.buf);
	add_tombstones(c, &sql);
	buf_adds(&sql, ") AS k");
	buf_release(&keys);
	return run(c, &sql, err);
}

static int apply_events(struct cdc_run *c, const struct cdc_winners *wn, int64_t *changed,
			struct sl_err *err)
{
	bool newer = false;
	int rc = c->m->cdc_soft ? write_upserts(c, err) : all_newer(c, wn->oldest, &newer, err);

	c->decided = !newer;
	c->apply = newer ? WINNERS : APPLY;
	if (!rc && c->decided)
		rc = write_apply(c, err);
	if (!rc && c->text_seq && !c->full)
		rc = check_stored(c, err);
	if (!rc && c->m->cdc_soft)
		rc = write_soft_rows(c, err);
	if (!rc)
		rc = write_changes(c, err);
	*changed = wn->n;
	if (!rc && c->decided)
		rc = wh_query_int(c->w,
				  c->m->cdc_soft ? "SELECT count(*) FROM " ROWS
						 : "SELECT count(*) FROM " APPLY " WHERE _sluice_cdc_apply",
				  changed, err);
	return rc;
}

/* The events of query in a table of their own, checked and their truncates
 * expanded, then their winners. */
static int stage_events(struct cdc_run *c, const char *query, struct cdc_winners *wn,
			struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int64_t n = 0;
	int rc;

	buf_adds(&sql, query);
	rc = run_temp(c, EVENTS, &sql, err);
	if (!rc)
		rc = wh_query_int(c->w, "SELECT count(*) FROM " EVENTS, &n, err);
	if (!rc && n)
		rc = check_events(c, err);
	if (!rc && c->full)
		rc = create_tables(c, err);
	if (!rc && n)
		rc = expand_truncates(c, err);
	if (!rc && n)
		rc = write_winners(c, NULL, err);
	if (!rc && n)
		rc = read_winners(c, wn, err);
	return rc;
}

/* Drops the temporary tables the apply made. */
static int drop_temps(struct cdc_run *c, struct sl_err *err)
{
	struct buf sql = BUF_INIT;

	for (size_t i = 0; i < c->ntemps; i++)
		buf_addf(&sql, "%sDROP TABLE IF EXISTS %s", i ? "; " : "", c->temps[i]);
	return c->ntemps ? run(c, &sql, err) : 0;
}

int cdc_apply(struct wh *w, struct arena *parent, const struct model *m, const char *events,
	      const char *table, bool full, int64_t *changed, struct sl_err *err)
{
	struct cdc_run c = { .w = w, .m = m, .a = arena_new(parent), .table = table, .full = full };
	struct cdc_winners wn = { 0 };
	bool plain = false;
	const char *from;
	int rc;

	*changed = 0;
	/* the model's query as a subquery, for the statements that read it
	 * once */
	from = arena_sprintf(c.a, "(\n%s\n) AS _sluice_cdc_q", events);
	rc = read_columns(&c, from, err);
	if (!rc)
		rc = winners_from_query(&c, events, from, &plain, &wn, err);
	if (!rc && !plain)
		rc = stage_events(&c, events, &wn, err);
	if (!rc && wn.n)
		rc = apply_events(&c, &wn, changed, err);
	if (!rc)
		rc = drop_temps(&c, err);
	arena_free(c.a);
	return rc;
}
