/*
 * `sluice sql`: run one query against the project's warehouse and print
 * the rows, as a table, JSON, CSV or NDJSON. The quick way to look at what
 * a run built. The query comes as an argument, from -f FILE or from
 * standard input. While `sluice serve` holds the warehouse it is asked
 * instead (POST /api/sql): read-only, bounded in rows and time. Either way
 * the rows go through the same formatter (src/server/sqlout.c), so the
 * output is the same bytes.
 */
#include "cli/commands.h"

#include "core/buf.h"
#include "core/err.h"
#include "project/project.h"
#include "server/client.h"
#include "server/read.h"
#include "server/sqlout.h"
#include "warehouse/wh.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The largest query read from a file or standard input. */
#define SQL_MAX_INPUT (16 * 1024 * 1024)

enum show { SHOW_TABLE, SHOW_JSON, SHOW_CSV, SHOW_NDJSON };

struct sql_ask {
	enum show show;
	enum sql_format format; /* what is asked of the server or the formatter */
	size_t max_rows;        /* 0: the server's default, or every row */
	struct buf text;
};

/* Reads f whole into b, up to SQL_MAX_INPUT bytes. */
static int read_all(FILE *f, const char *name, struct buf *b)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b->len + n > SQL_MAX_INPUT) {
			fprintf(stderr, "sluice sql: %s is over %d MiB\n", name,
				SQL_MAX_INPUT / (1024 * 1024));
			return CLI_USAGE;
		}
		buf_add(b, chunk, n);
	}
	if (ferror(f)) {
		fprintf(stderr, "sluice sql: cannot read %s: %s\n", name, strerror(errno));
		return CLI_FAILED;
	}
	return CLI_OK;
}

static int read_file(const char *path, struct buf *b)
{
	FILE *f;
	int rc;

	if (strcmp(path, "-") == 0)
		return read_all(stdin, "standard input", b);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "sluice sql: cannot open '%s': %s\n", path, strerror(errno));
		return CLI_FAILED;
	}
	rc = read_all(f, path, b);
	fclose(f);
	return rc;
}

/* The query: the argument, -f FILE, "-" or a pipe for standard input. */
static int query_text(const struct cli_args *args, struct buf *b)
{
	if (args->file && args->npos) {
		fprintf(stderr, "sluice sql: give the query or -f FILE, not both\n");
		return CLI_USAGE;
	}
	if (args->file)
		return read_file(args->file, b);
	if (args->npos == 1)
		return strcmp(args->pos[0], "-") == 0 ? read_file("-", b)
						      : buf_adds(b, args->pos[0]) ? CLI_FAILED : CLI_OK;
	if (!isatty(STDIN_FILENO))
		return read_file("-", b);
	fprintf(stderr, "usage: sluice sql QUERY | -f FILE | -\n");
	return CLI_USAGE;
}

static int parse_ask(const struct cli_args *args, struct sql_ask *ask)
{
	static const char *const shows[] = { "table", "json", "csv", "ndjson" };
	const char *f = args->format ? args->format : args->json ? "json" : "table";
	char *end;
	long long n;

	ask->show = SHOW_TABLE;
	for (size_t i = 0; i < sizeof(shows) / sizeof(*shows); i++)
		if (strcmp(f, shows[i]) == 0)
			ask->show = (enum show)i;
	if (strcmp(f, shows[ask->show]) != 0 || (args->json && args->format && ask->show != SHOW_JSON)) {
		fprintf(stderr, "sluice sql: invalid --format '%s'\n"
				"  hint: table, json, csv or ndjson (--json is --format json)\n", f);
		return CLI_USAGE;
	}
	ask->format = ask->show == SHOW_CSV ? SQL_FORMAT_CSV
		      : ask->show == SHOW_NDJSON ? SQL_FORMAT_NDJSON
						 : SQL_FORMAT_JSON;
	if (args->max_rows) {
		n = strtoll(args->max_rows, &end, 10);
		if (end == args->max_rows || *end || n < 1 || n > SQL_MAX_ROWS) {
			fprintf(stderr, "sluice sql: invalid --max-rows '%s'\n"
					"  hint: a whole number from 1 to %d\n", args->max_rows, SQL_MAX_ROWS);
			return CLI_USAGE;
		}
		ask->max_rows = (size_t)n;
	}
	return CLI_OK;
}

static const char *answer_cell(const void *src, size_t row, size_t c, size_t *len)
{
	const json_t *doc = src;
	json_t *v = row == 0 ? json_array_get(json_object_get(doc, "columns"), c)
			     : json_array_get(json_array_get(json_object_get(doc, "rows"), row - 1), c);

	if (!json_is_string(v))
		return NULL;
	*len = json_string_length(v);
	return json_string_value(v);
}

/* The rows as objects, column names as keys, each value whole. */
static void print_objects(json_t *doc)
{
	json_t *cols = json_object_get(doc, "columns"), *rows = json_array(), *row;
	size_t i;

	json_array_foreach(json_object_get(doc, "rows"), i, row) {
		json_t *o = json_object(), *v;
		size_t c;

		json_array_foreach(row, c, v)
			json_object_set(o, json_string_value(json_array_get(cols, c)), v);
		json_array_append_new(rows, o);
	}
	json_dumpf(rows, stdout, JSON_INDENT(2));
	printf("\n");
	json_decref(rows);
}

/* Prints the formatter's bytes as asked. */
static int show(const struct sql_ask *ask, const char *body, size_t len, bool truncated)
{
	json_t *doc;

	if (ask->show == SHOW_CSV || ask->show == SHOW_NDJSON) {
		fwrite(body, 1, len, stdout);
	} else {
		doc = json_loadb(body, len, JSON_ALLOW_NUL, NULL);
		if (!doc) {
			fprintf(stderr, "sluice: the rows came as something that is not JSON\n");
			return CLI_FAILED;
		}
		truncated |= json_is_true(json_object_get(doc, "truncated"));
		if (ask->show == SHOW_JSON) {
			print_objects(doc);
		} else {
			struct cli_rows t = {
				.ncols = json_array_size(json_object_get(doc, "columns")),
				.nrows = json_array_size(json_object_get(doc, "rows")),
				.cell = answer_cell,
				.src = doc,
			};

			cli_print_rows(stdout, &t, "");
		}
		json_decref(doc);
	}
	if (truncated)
		fprintf(stderr, "sluice: more rows than shown; the first %zu only\n"
				"  hint: --max-rows N for more, up to %d through the server\n",
			ask->max_rows ? ask->max_rows : (size_t)SQL_DEFAULT_ROWS, SQL_MAX_ROWS);
	return CLI_OK;
}

static int through_server(struct cli_session *s, int port, struct sql_ask *ask)
{
	static const char *const formats[] = { "json", "csv", "ndjson" };
	const char *env = s->project->cfg.server.token_env;
	char query[96];
	struct server_ask req = {
		.method = "POST",
		.path = "/api/sql",
		.query = query,
		.token = env ? getenv(env) : NULL,
		.body = ask->text.buf,
		.body_len = ask->text.len,
		.content_type = "application/sql",
		.timeout_ms = SQL_TIMEOUT_MAX_MS + 5000,
	};
	struct server_answer ans;
	struct sl_err err = SL_ERR_INIT;
	int rc;

	snprintf(query, sizeof(query), "format=%s", formats[ask->format]);
	if (ask->max_rows)
		snprintf(query + strlen(query), sizeof(query) - strlen(query), "&max_rows=%zu",
			 ask->max_rows);
	if (server_call(port, &req, &ans, &err)) {
		cli_print_err(&err);
		return CLI_FAILED;
	}
	if (ans.status == 200) {
		rc = show(ask, ans.body, ans.len, ans.truncated);
	} else {
		cli_print_refusal(ans.status, ans.body, ans.len);
		if (ans.status == 403)
			fprintf(stderr, "  hint: `sluice serve` holds the warehouse and reads only "
					"through it; stop it to write with sluice sql\n");
		rc = CLI_FAILED;
	}
	free(ans.body);
	return rc;
}

static int local(struct cli_session *s, struct sql_ask *ask)
{
	struct sl_err err = SL_ERR_INIT;
	struct buf out = BUF_INIT;
	struct wh_result *r;
	int rc = cli_session_open_warehouse(s, CLI_OPEN_WRITE, &err);

	if (!rc)
		rc = wh_query(s->wh, ask->text.buf, &r, &err);
	if (rc) {
		cli_print_err(&err);
		return CLI_FAILED;
	}
	sql_format_write(r, ask->max_rows ? ask->max_rows : wh_result_nrows(r), ask->format, false,
			 &out);
	rc = show(ask, out.buf, out.len, ask->max_rows && wh_result_nrows(r) > ask->max_rows);
	wh_result_free(r);
	buf_release(&out);
	return rc;
}

int cli_sql(struct cli_args *args)
{
	struct sql_ask ask = { .text = BUF_INIT };
	struct cli_session s;
	int port, rc = parse_ask(args, &ask);

	if (!rc)
		rc = query_text(args, &ask.text);
	if (!rc)
		rc = cli_session_open(&s, args, CLI_OPEN_NONE, false);
	if (rc) {
		buf_release(&ask.text);
		return rc;
	}
	rc = cli_session_served(&s, &port) ? through_server(&s, port, &ask) : local(&s, &ask);
	buf_release(&ask.text);
	cli_session_close(&s);
	return rc;
}
