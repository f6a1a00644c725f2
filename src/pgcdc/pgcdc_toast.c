/*
 * The postgres_cdc consumer's unchanged TOAST values: an update that left
 * a large value alone, with no old row to take it from (REPLICA IDENTITY
 * DEFAULT), gets it from the latest earlier row of its key: a change of
 * the same transaction still held, else the landing table's latest row of
 * it (by sequence, then position in its transaction, which finds the
 * changes of this transaction already appended too). Never writes a value
 * it could not find exactly: that is an error naming the table, the key
 * and the column.
 */
#include "pgcdc/pgcdc.h"
#include "pgcdc/pgcdc_pg.h"

#include "core/buf.h"
#include "core/err.h"
#include "ingest/jsontext.h"
#include "pgcdc/pgoutput.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

/* rows that may be of the key read from the landing table, newest first */
#define TOAST_CANDIDATES 256

struct toast {
	struct wh *w;
	const struct pgcdc_cfg *c;
	size_t table;
	const struct pgcdc_txn *txn;
	const struct pgoutput_relation *rel;
	struct buf key; /* the key's members as JSON: {"id":1} */
	bool looked;
	/* the row found, one of txn's or of r; NULL when none was */
	const char *row;
	size_t len;
	struct wh_result *r;
};

static bool member_is(const char *json, size_t len, const char *name, const char *val,
		      size_t vlen)
{
	const char *v;
	size_t n;

	return pgoutput_json_member(json, len, name, &v, &n, NULL) == 0 && n == vlen &&
	       memcmp(v, val, n) == 0;
}

/* Whether payload is a row of the key: every key member the same text. */
static bool same_key(const struct toast *k, const char *payload, size_t len)
{
	for (uint16_t i = 0; i < k->rel->ncols; i++) {
		const char *name = k->rel->cols[i].name, *v;
		size_t n;

		if (!k->rel->cols[i].key)
			continue;
		if (pgoutput_json_member(k->key.buf, k->key.len, name, &v, &n, NULL) ||
		    !member_is(payload, len, name, v, n))
			return false;
	}
	return true;
}

/* The landing table's rows whose text holds each key member as this
 * module's payloads write it ("id":1 then , or }), newest first; the
 * first that same_key finds exactly is the row. */
static int look_landed(struct toast *k, struct sl_err *err)
{
	struct buf sql = BUF_INIT, pat = BUF_INIT;
	const char *table;
	char schema[128];
	bool first = true;
	int rc = pgcdc_split_landing(k->c->tables[k->table].landing, schema, sizeof(schema),
				     &table, err);

	if (rc)
		return rc;
	buf_adds(&sql, "SELECT CAST(payload AS VARCHAR) FROM ");
	wh_sql_qualified(&sql, schema, table);
	for (uint16_t i = 0; i < k->rel->ncols; i++) {
		const char *name = k->rel->cols[i].name, *v;
		size_t n;

		if (!k->rel->cols[i].key ||
		    pgoutput_json_member(k->key.buf, k->key.len, name, &v, &n, NULL))
			continue;
		for (int end = 0; end < 2; end++) {
			buf_reset(&pat);
			buf_addch(&pat, '"');
			jsontext_escape(&pat, name, strlen(name));
			buf_adds(&pat, "\":");
			buf_add(&pat, v, n);
			buf_addch(&pat, end ? '}' : ',');
			buf_adds(&sql, end ? " OR " : first ? " WHERE (" : ") AND (");
			buf_adds(&sql, "position(");
			buf_add_sql_str(&sql, pat.buf);
			buf_adds(&sql, " IN CAST(payload AS VARCHAR)) > 0");
		}
		first = false;
	}
	buf_addf(&sql, "%s ORDER BY _sluice_seq DESC, _sluice_pos DESC NULLS LAST LIMIT %d", first ? "" : ")",
		 TOAST_CANDIDATES);
	rc = wh_query(k->w, sql.buf, &k->r, err);
	buf_release(&sql);
	buf_release(&pat);
	if (rc)
		return rc;
	for (size_t i = 0; i < wh_result_nrows(k->r) && !k->row; i++) {
		const char *p = wh_result_value(k->r, i, 0);
		size_t len = wh_result_value_len(k->r, i, 0);

		if (p && same_key(k, p, len)) {
			k->row = p;
			k->len = len;
		}
	}
	return 0;
}

static int no_copy(const struct toast *k, const char *col, const char *why, struct sl_err *err)
{
	return sl_err_set(err, SL_E_INVALID,
			  "update of %s.%s key %s: column '%s' is an unchanged TOAST value the "
			  "server did not send, and %s\n"
			  "  hint: ALTER TABLE %s.%s REPLICA IDENTITY FULL sends the old row with "
			  "every update; sluice cdc %s --resnapshot lands the table anew",
			  k->rel->nspname, k->rel->relname, k->key.buf, col, why, k->rel->nspname,
			  k->rel->relname, k->c->name ? k->c->name : k->c->slot);
}

static int fill(void *ctx, const struct pgoutput_relation *rel, uint16_t col, struct buf *out,
		struct sl_err *err)
{
	struct toast *k = ctx;
	const char *name = rel->cols[col].name, *v;
	size_t n;
	bool held = false;

	if (!k->looked) {
		k->looked = true;
		for (size_t i = k->txn ? k->txn->nrows : 0; i-- > 0 && !k->row;) {
			const struct pgcdc_row *row = &k->txn->rows[i];

			if (row->table == k->table && row->op != 't' &&
			    same_key(k, row->payload, strlen(row->payload))) {
				k->row = row->payload;
				k->len = strlen(row->payload);
			}
		}
		held = k->row != NULL;
		if (!k->row) {
			int rc = look_landed(k, err);

			if (rc)
				return rc;
		}
	}
	if (!k->row)
		return no_copy(k, name, "no row of the key landed before", err);
	if (pgoutput_json_member(k->row, k->len, name, &v, &n, NULL))
		return no_copy(k, name,
			       held ? "the change before it in its transaction has none"
				    : "the row of the key landed last has none",
			       err);
	return buf_add(out, v, n);
}

int pgcdc_toast_json(struct wh *w, const struct pgcdc_cfg *c, size_t table,
		     const struct pgcdc_txn *txn, const struct pgoutput_relation *rel,
		     const struct pgoutput_tuple *key_of, const struct pgoutput_tuple *t,
		     struct buf *out, struct sl_err *err)
{
	struct toast k = { .w = w, .c = c, .table = table, .txn = txn, .rel = rel,
			   .key = BUF_INIT };
	struct pgoutput_tuple key = *key_of;
	int rc;

	key.kind = 'K';
	rc = pgoutput_tuple_json(&k.key, rel, &key, NULL, NULL, err);
	if (rc) {
		buf_release(&k.key);
		return sl_err_set(err, SL_E_INVALID,
				  "update of %s.%s: a key column is an unchanged TOAST value, so "
				  "the row before cannot be found",
				  rel->nspname, rel->relname);
	}
	rc = pgoutput_tuple_json(out, rel, t, fill, &k, err);
	if (k.r)
		wh_result_free(k.r);
	buf_release(&k.key);
	return rc;
}
