/*
 * `sluice sql QUERY`: run one query against the project's warehouse and
 * print the rows, as a table or JSON. The quick way to look at what a run
 * built.
 */
#include "cli/commands.h"

#include "core/err.h"
#include "warehouse/wh.h"

#include <jansson.h>

/* Each value whole: a NUL byte a VARCHAR holds is written \u0000, where
 * the table (a C string per value) stops at it. */
static void print_json(const struct wh_result *r)
{
	json_t *rows = json_array();

	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		json_t *o = json_object();

		for (size_t c = 0; c < wh_result_ncols(r); c++) {
			const char *v = wh_result_value(r, i, c);

			json_object_set_new(o, wh_result_colname(r, c),
					    v ? json_stringn(v, wh_result_value_len(r, i, c))
					      : json_null());
		}
		json_array_append_new(rows, o);
	}
	json_dumpf(rows, stdout, JSON_INDENT(2));
	printf("\n");
	json_decref(rows);
}

int cli_sql(struct cli_args *args)
{
	struct cli_session s;
	struct sl_err err = SL_ERR_INIT;
	struct wh_result *r;
	int rc;

	if (args->npos != 1) {
		fprintf(stderr, "usage: sluice sql QUERY\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_WRITE, false);
	if (rc)
		return rc;
	rc = wh_query(s.wh, args->pos[0], &r, &err);
	if (rc) {
		cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (args->json)
		print_json(r);
	else
		cli_print_table(stdout, r, "");
	wh_result_free(r);
	cli_session_close(&s);
	return CLI_OK;
}
