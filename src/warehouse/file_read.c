/*
 * This file implements the SQL that reads a data file with DuckDB's own
 * readers (file_read.h): the reader's call, the SELECT of the landing rows,
 * the typed columns a file has, the readers' errors reworded. It opens no
 * database and must never read a file any other way: a file lands the same
 * on every warehouse.
 */
#include "warehouse/file_read.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The reader's rows in the SELECT: a name no file is likely to give a
 * column, since a column of the alias's name would hide the row. */
#define ROW "_sluice_r"

int file_columns_find(struct wh *w, struct arena *a, const struct wh_file_read *rd,
		      const char ***found, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int rc;

	*found = arena_alloc(a, (rd->ncolumns + 1) * sizeof(**found));
	if (rd->format == WH_FILE_JSON || rd->format == WH_FILE_NDJSON) {
		for (size_t i = 0; i < rd->ncolumns; i++)
			(*found)[i] = rd->columns[i].name;
		return 0;
	}
	buf_adds(&sql, "DESCRIBE SELECT * FROM ");
	file_sql_reader(&sql, rd, NULL);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return file_error(rd->path, rd->shown, rc, err);
	for (size_t i = 0; i < rd->ncolumns; i++) {
		(*found)[i] = NULL;
		for (size_t k = 0; !(*found)[i] && k < wh_result_nrows(r); k++)
			if (!strcasecmp(wh_result_value(r, k, 0), rd->columns[i].name))
				(*found)[i] = arena_strdup(a, wh_result_value(r, k, 0));
	}
	wh_result_free(r);
	return 0;
}

void file_sql_columns(struct buf *sql, const struct wh_file_read *rd)
{
	for (size_t i = 0; i < rd->ncolumns; i++) {
		wh_sql_ident(sql, rd->columns[i].name);
		buf_adds(sql, ", ");
	}
	wh_sql_ident(sql, rd->payload);
	for (size_t i = 0; i < rd->nvalues; i++) {
		buf_adds(sql, ", ");
		wh_sql_ident(sql, rd->values[i].column);
	}
}

/* Whether a DuckDB type name is a date or a timestamp, which dateformat
 * reads from a JSON string. */
static bool is_dated(const char *type)
{
	return !strncasecmp(type, "DATE", 4) || !strncasecmp(type, "TIMESTAMP", 9);
}

/* A typed column of a JSON object: its key's text (a nested value as its
 * JSON), through dateformat for a date. */
static void json_column(struct buf *sql, const struct wh_file_read *rd, size_t i)
{
	bool dated = rd->dateformat && is_dated(rd->columns[i].type);

	buf_adds(sql, dated ? "strptime(" ROW ".json ->> " : ROW ".json ->> ");
	buf_add_sql_str(sql, rd->columns[i].name);
	if (dated) {
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, rd->dateformat);
		buf_adds(sql, ")");
	}
}

void file_sql_select(struct buf *sql, const struct wh_file_read *rd, const char *const *found)
{
	bool json = rd->format == WH_FILE_JSON || rd->format == WH_FILE_NDJSON;

	buf_adds(sql, "SELECT ");
	for (size_t i = 0; i < rd->ncolumns; i++) {
		buf_adds(sql, "CAST(");
		if (json) {
			json_column(sql, rd, i);
		} else if (found[i]) {
			buf_adds(sql, ROW ".");
			wh_sql_ident(sql, found[i]);
		} else {
			buf_adds(sql, "NULL");
		}
		buf_addf(sql, " AS %s) AS ", rd->columns[i].type);
		wh_sql_ident(sql, rd->columns[i].name);
		buf_adds(sql, ", ");
	}
	buf_adds(sql, json ? ROW ".json AS " : "to_json(" ROW ") AS ");
	wh_sql_ident(sql, rd->payload);
	for (size_t i = 0; i < rd->nvalues; i++) {
		buf_adds(sql, ", ");
		buf_add_sql_str(sql, rd->values[i].value);
		buf_adds(sql, " AS ");
		wh_sql_ident(sql, rd->values[i].column);
	}
	buf_adds(sql, " FROM ");
	file_sql_reader(sql, rd, found);
	buf_adds(sql, " AS " ROW);
}

/* read_csv's options: the header row after skip lines, every column text
 * but the typed ones the file has. */
static void csv_options(struct buf *sql, const struct wh_file_read *rd, const char *const *found)
{
	bool any = false;

	buf_addf(sql, ", header = true, skip = %lld, all_varchar = true", (long long)rd->skip);
	if (rd->delim) {
		buf_adds(sql, ", delim = ");
		buf_add_sql_str(sql, rd->delim);
	}
	if (rd->encoding) {
		buf_adds(sql, ", encoding = ");
		buf_add_sql_str(sql, rd->encoding);
	}
	if (rd->dateformat) {
		buf_adds(sql, ", dateformat = ");
		buf_add_sql_str(sql, rd->dateformat);
	}
	for (size_t i = 0; found && i < rd->ncolumns; i++) {
		if (!found[i])
			continue;
		buf_adds(sql, any ? ", " : ", types = {");
		buf_add_sql_str(sql, found[i]);
		buf_adds(sql, ": ");
		buf_add_sql_str(sql, rd->columns[i].type);
		any = true;
	}
	if (any)
		buf_adds(sql, "}");
}

void file_sql_reader(struct buf *sql, const struct wh_file_read *rd, const char *const *found)
{
	static const char *const readers[] = {
		[WH_FILE_CSV] = "read_csv(",
		[WH_FILE_JSON] = "read_json_objects(",
		[WH_FILE_NDJSON] = "read_json_objects(",
		[WH_FILE_PARQUET] = "read_parquet(",
	};

	buf_adds(sql, readers[rd->format]);
	buf_add_sql_str(sql, rd->path);
	if (rd->format == WH_FILE_CSV)
		csv_options(sql, rd, found);
	else if (rd->format == WH_FILE_JSON)
		buf_adds(sql, ", format = 'auto'");
	else if (rd->format == WH_FILE_NDJSON)
		buf_adds(sql, ", format = 'newline_delimited'");
	buf_adds(sql, ")");
}

/* out gets s with every path in it written as shown. */
static void put_shown(char *out, size_t n, const char *s, size_t len, const char *path,
		      const char *shown)
{
	struct buf b = BUF_INIT;
	size_t plen = strlen(path);

	for (size_t i = 0; i < len;) {
		if (plen && i + plen <= len && !memcmp(s + i, path, plen)) {
			buf_adds(&b, shown);
			i += plen;
		} else {
			buf_addch(&b, s[i++]);
		}
	}
	snprintf(out, n, "%s", b.len ? b.buf : "");
	buf_release(&b);
}

int file_error(const char *path, const char *shown, int code, struct sl_err *err)
{
	static const char mark[] = "CSV Error on Line: ", json_mark[] = " in line ";
	char msg[SL_ERR_MSG_MAX], reason[SL_ERR_MSG_MAX];
	const char *at, *p, *prefix = "";
	char *end;
	long line = 0;
	size_t n;

	if (!err)
		return code;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	at = strstr(msg, mark);
	if (at) {
		line = strtol(at + strlen(mark), NULL, 10);
		p = strchr(at, '\n');
		/* DuckDB's "Original Line" may be another line than the one at fault */
		while (p && (p[1] == '\n' || strncmp(p + 1, "Original Line:", 14) == 0))
			p = strchr(p + 1, '\n');
		p = p ? p + 1 : "";
	} else if ((at = strstr(msg, json_mark)) && isdigit((unsigned char)at[strlen(json_mark)])) {
		/* "Malformed JSON in file "x", at byte 9 in line 3: unexpected ..." */
		line = strtol(at + strlen(json_mark), &end, 10);
		p = *end == ':' ? end + 1 + (end[1] == ' ') : end;
		prefix = strstr(msg, "Malformed JSON") ? "malformed JSON: " : "";
	} else {
		/* "Invalid Input Error: ...": the reason after the error's kind */
		p = strstr(msg, "Error: ");
		p = p ? p + strlen("Error: ") : msg;
	}
	n = strcspn(p, "\n");
	while (n && (p[n - 1] == '.' || p[n - 1] == ' '))
		n--;
	if (!n) {
		p = "not readable";
		n = strlen(p);
	}
	snprintf(msg, sizeof(msg), "%s%.*s", prefix, (int)n, p);
	put_shown(reason, sizeof(reason), msg, strlen(msg), path, shown);
	reason[0] = (char)tolower((unsigned char)reason[0]);
	if (line > 0)
		sl_err_set(err, code, "%s:%ld: %s", shown, line, reason);
	else
		sl_err_set(err, code, "%s: %s", shown, reason);
	return code;
}
