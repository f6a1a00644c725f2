/*
 * This file implements the reading of seed files with DuckDB's CSV reader,
 * for every warehouse: the options of the read, the reader's errors said
 * as sluice says them, and the reading of a file in a DuckDB in memory for
 * a warehouse that reads no CSV itself. It must never read a CSV file any
 * other way: a seed loads the same wherever it loads.
 */
#include "warehouse/csv.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "warehouse/wh.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void csv_sql_read(struct buf *sql, const char *path)
{
	buf_adds(sql, "read_csv(");
	buf_add_sql_str(sql, path);
	/* a seed's first line is its header: the sniffer may otherwise skip
	 * rows it finds out of shape and take a later one for the header */
	buf_adds(sql, ", header = true, skip = 0, auto_detect = true)");
}

int csv_check_readable(const char *path, struct sl_err *err)
{
	/* without O_NONBLOCK a FIFO put in a seed's place would block here */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	bool regular;

	if (fd < 0)
		return sl_err_set(err, SL_E_IO, "cannot read '%s': %s", path, strerror(errno));
	regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	close(fd);
	if (!regular)
		return sl_err_set(err, SL_E_IO, "cannot read '%s': not a regular file", path);
	return 0;
}

int csv_error(const char *path, int code, struct sl_err *err)
{
	static const char mark[] = "CSV Error on Line: ";
	char msg[SL_ERR_MSG_MAX], reason[SL_ERR_MSG_MAX];
	const char *at, *p;
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
	} else {
		/* "Invalid Input Error: ...": the reason after the error's kind */
		p = strstr(msg, "Error: ");
		p = p ? p + strlen("Error: ") : msg;
	}
	n = strcspn(p, "\n");
	while (n && (p[n - 1] == '.' || p[n - 1] == ' '))
		n--;
	snprintf(reason, sizeof(reason), "%.*s", (int)n, n ? p : "not readable as CSV");
	reason[0] = (char)tolower((unsigned char)reason[0]);
	if (line > 0)
		sl_err_set(err, code, "%s:%ld: %s", path, line, reason);
	else
		sl_err_set(err, code, "%s: %s", path, reason);
	sl_err_context(err, "hint: a seed is a CSV file in UTF-8 with a header row, read by "
			    "DuckDB's reader, which detects its delimiter, quoting and types");
	return code;
}

/* The seed's table in the reader's DuckDB. */
#define SEED_TABLE "seed"

static int read_columns(struct arena *a, struct csv_file *f, struct sl_err *err)
{
	struct wh_result *r;
	int rc = wh_query(f->duck,
			  "SELECT column_name, data_type FROM information_schema.columns "
			  "WHERE table_name = '" SEED_TABLE "' ORDER BY ordinal_position",
			  &r, err);

	if (rc)
		return rc;
	f->ncols = wh_result_nrows(r);
	f->names = arena_alloc(a, (f->ncols + 1) * sizeof(*f->names));
	f->types = arena_alloc(a, (f->ncols + 1) * sizeof(*f->types));
	for (size_t c = 0; c < f->ncols; c++) {
		f->names[c] = arena_strdup(a, wh_result_value(r, c, 0));
		f->types[c] = arena_strdup(a, wh_result_value(r, c, 1));
	}
	wh_result_free(r);
	return 0;
}

int csv_open(struct arena *a, const char *path, struct csv_file *f, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = csv_check_readable(path, err);

	memset(f, 0, sizeof(*f));
	if (!rc)
		rc = wh_open_duckdb(":memory:", false, &f->duck, err);
	if (rc)
		return rc;
	buf_adds(&sql, "CREATE TABLE " SEED_TABLE " AS SELECT * FROM ");
	csv_sql_read(&sql, path);
	rc = wh_exec(f->duck, sql.buf, err);
	buf_release(&sql);
	if (rc)
		csv_error(path, rc, err);
	if (!rc)
		rc = read_columns(a, f, err);
	if (!rc)
		rc = wh_query(f->duck, "SELECT * FROM " SEED_TABLE, &f->rows, err);
	if (rc) {
		csv_close(f);
		return rc;
	}
	f->nrows = wh_result_nrows(f->rows);
	return 0;
}

void csv_close(struct csv_file *f)
{
	if (f->rows)
		wh_result_free(f->rows);
	if (f->duck)
		wh_close(f->duck);
	f->rows = NULL;
	f->duck = NULL;
}

const char *csv_name_folded(struct arena *a, const char *name)
{
	bool plain = *name && !isdigit((unsigned char)*name), lower = true;
	char *out;

	for (const char *p = name; plain && *p; p++) {
		plain = isalnum((unsigned char)*p) || *p == '_';
		lower &= !isupper((unsigned char)*p);
	}
	if (!plain || lower)
		return name;
	out = arena_strdup(a, name);
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}
