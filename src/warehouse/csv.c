/*
 * A small CSV reader and DuckDB's type inference for it. A seed is a file
 * of a few thousand rows at most, read whole into memory.
 */
#include "warehouse/csv.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Seeds are small; a file past this is not one. */
#define CSV_MAX_BYTES (64L * 1024 * 1024)

struct reader {
	const char *s, *end;
	int line;
};

/* One field into out; *last says whether it ended its row. */
static int field(struct reader *r, struct buf *out, bool *last, bool *empty, struct sl_err *err)
{
	int start = r->line;

	buf_reset(out);
	*empty = true;
	if (r->s < r->end && *r->s == '"') {
		r->s++;
		*empty = false;
		for (;;) {
			if (r->s >= r->end)
				return sl_err_set(err, SL_E_PARSE,
						  "line %d: a quoted field is never closed", start);
			if (*r->s == '"' && r->s + 1 < r->end && r->s[1] == '"') {
				buf_addch(out, '"');
				r->s += 2;
			} else if (*r->s == '"') {
				r->s++;
				break;
			} else {
				r->line += *r->s == '\n';
				buf_addch(out, *r->s++);
			}
		}
	}
	while (r->s < r->end && *r->s != ',' && *r->s != '\n' && *r->s != '\r') {
		buf_addch(out, *r->s++);
		*empty = false;
	}
	if (r->s < r->end && *r->s == '\r')
		r->s++;
	*last = r->s >= r->end || *r->s == '\n';
	if (r->s < r->end) {
		r->line += *r->s == '\n';
		r->s++;
	}
	return 0;
}

static bool is_int(const char *v)
{
	char *end;

	errno = 0;
	strtoll(v, &end, 10);
	return *v && !isspace((unsigned char)*v) && !*end && !errno;
}

static bool is_double(const char *v)
{
	char *end;

	strtod(v, &end);
	return *v && !isspace((unsigned char)*v) && !*end && strcasecmp(v, "nan") != 0 &&
	       strncasecmp(v, "inf", 3) != 0 && strncasecmp(v + (*v == '-'), "inf", 3) != 0 &&
	       !strpbrk(v, "xX");
}

/* YYYY-MM-DD, then for a timestamp " HH:MM:SS" or "THH:MM:SS" with an
 * optional fraction. */
static bool is_date_at(const char *v, size_t *len)
{
	int y, m, d, n = 0;

	if (sscanf(v, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10 || m < 1 || m > 12 ||
	    d < 1 || d > 31)
		return false;
	*len = (size_t)n;
	return true;
}

static bool is_date(const char *v)
{
	size_t n;

	return is_date_at(v, &n) && !v[n];
}

static bool is_timestamp(const char *v)
{
	size_t n;
	int h, mi, s, k = 0;

	if (!is_date_at(v, &n) || (v[n] != ' ' && v[n] != 'T'))
		return false;
	v += n + 1;
	if (sscanf(v, "%2d:%2d:%2d%n", &h, &mi, &s, &k) != 3 || k != 8 || h > 23 || mi > 59 ||
	    s > 59)
		return false;
	v += k;
	if (*v == '.')
		for (v++; isdigit((unsigned char)*v); v++)
			;
	return !*v;
}

static bool is_bool(const char *v)
{
	return strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0;
}

/* The narrowest type every value of the column reads as. */
static enum wh_type infer(const struct csv_table *t, size_t c)
{
	bool b = true, i = true, d = true, day = true, ts = true, any = false;

	for (size_t r = 0; r < t->nrows; r++) {
		const char *v = t->cells[r * t->ncols + c];

		if (!v)
			continue;
		any = true;
		b = b && is_bool(v);
		i = i && is_int(v);
		d = d && is_double(v);
		day = day && is_date(v);
		ts = ts && is_timestamp(v);
	}
	if (!any)
		return WH_TYPE_TEXT;
	return b ? WH_TYPE_BOOLEAN
	       : i ? WH_TYPE_BIGINT
	       : d ? WH_TYPE_DOUBLE
	       : day ? WH_TYPE_DATE
	       : ts ? WH_TYPE_TIMESTAMP
		    : WH_TYPE_TEXT;
}

static int slurp(const char *path, struct buf *text, struct sl_err *err)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t n;

	if (!f)
		return sl_err_set(err, SL_E_IO, "cannot read %s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && text->len <= CSV_MAX_BYTES)
		buf_add(text, chunk, n);
	fclose(f);
	if (text->len > CSV_MAX_BYTES)
		return sl_err_set(err, SL_E_TOOBIG, "%s is larger than a seed may be (64 MiB)",
				  path);
	return 0;
}

int csv_read(struct arena *a, const char *path, struct csv_table *t, struct sl_err *err)
{
	struct buf text = BUF_INIT, f = BUF_INIT;
	struct reader r;
	size_t cap = 64, n = 0;
	bool last = false, empty;
	int rc = slurp(path, &text, err);
	const char **names = NULL, **cells = NULL;

	memset(t, 0, sizeof(*t));
	r = (struct reader){ .s = text.buf, .end = text.buf + text.len, .line = 1 };
	/* the header: its fields are the column names */
	while (!rc && !last && r.s < r.end) {
		rc = field(&r, &f, &last, &empty, err);
		if (rc)
			break;
		names = realloc(names, (t->ncols + 1) * sizeof(*names));
		if (!names)
			abort();
		names[t->ncols++] = arena_strndup(a, f.buf, f.len);
	}
	if (!rc && !t->ncols)
		rc = sl_err_set(err, SL_E_PARSE, "%s has no header row", path);
	cells = rc ? NULL : malloc(cap * sizeof(*cells));
	while (!rc && r.s < r.end) {
		int line = r.line;
		size_t k = 0;

		/* an empty line is no row */
		if (*r.s == '\n' || (*r.s == '\r' && r.s + 1 < r.end && r.s[1] == '\n')) {
			r.s += *r.s == '\r' ? 2 : 1;
			r.line++;
			continue;
		}
		for (last = false; !rc && !last; k++) {
			rc = field(&r, &f, &last, &empty, err);
			if (rc || k >= t->ncols)
				continue;
			if (n == cap) {
				cap *= 2;
				cells = realloc(cells, cap * sizeof(*cells));
				if (!cells)
					abort();
			}
			cells[n++] = empty ? NULL : arena_strndup(a, f.buf, f.len);
		}
		if (!rc && k != t->ncols)
			rc = sl_err_set(err, SL_E_PARSE, "%s:%d: %zu fields, the header has %zu",
					path, line, k, t->ncols);
		t->nrows += !rc;
	}
	if (!rc) {
		t->names = arena_alloc(a, (t->ncols + 1) * sizeof(char *));
		memcpy(t->names, names, t->ncols * sizeof(char *));
		t->cells = arena_alloc(a, (n + 1) * sizeof(char *));
		memcpy(t->cells, cells, n * sizeof(char *));
		t->types = arena_alloc(a, (t->ncols + 1) * sizeof(*t->types));
		for (size_t c = 0; c < t->ncols; c++)
			t->types[c] = infer(t, c);
	}
	free(names);
	free(cells);
	buf_release(&f);
	buf_release(&text);
	return rc;
}
