/*
 * `sluice docs --out DIR`: the web UI as a folder of static files, for a
 * CI artifact or any web server: index.html, the UI's files with its
 * modules bundled into one script (server/webstatic.h), and the
 * project's snapshot (server/snapshot.h), which the pages read instead of
 * the API. Opened from the folder, the Models and DAG pages show the
 * project; the live pages say they need a server. The warehouse is read,
 * when it can be, only for the columns its builds recorded: never
 * written, and not needed.
 */
#include "cli/commands.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "project/dag.h"
#include "project/lineage_graph.h"
#include "server/assets.h"
#include "server/snapshot.h"
#include "server/webstatic.h"
#include "state/columns.h"
#include "state/state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Writes len bytes of data to DIR/name, making its folders. */
static int write_file(struct cli_session *s, const char *dir, const char *name, const char *data,
		      size_t len, size_t *files, struct sl_err *err)
{
	char *path = arena_sprintf(s->arena, "%s/%s", dir, name);
	FILE *f;
	int rc = 0;

	if (cli_make_parents(path))
		return sl_err_set(err, SL_E_IO, "cannot make the folders of '%s': %s", path,
				  strerror(errno));
	f = fopen(path, "wb");
	if (!f)
		return sl_err_set(err, SL_E_IO, "cannot write '%s': %s", path, strerror(errno));
	if (fwrite(data, 1, len, f) != len)
		rc = sl_err_set(err, SL_E_IO, "cannot write '%s': %s", path, strerror(errno));
	if (fclose(f) && !rc)
		rc = sl_err_set(err, SL_E_IO, "cannot write '%s': %s", path, strerror(errno));
	*files += !rc;
	return rc;
}

/* The columns the warehouse recorded for the models, when it can be
 * read; a warehouse that cannot be (locked by a server, not reachable,
 * never built) leaves the columns to the project's descriptions. */
static void recorded_columns(struct cli_session *s, struct snapshot_input *in)
{
	struct sl_err err = SL_ERR_INIT;
	struct state_model_columns *cols;
	size_t n;

	if (cli_session_open_warehouse(s, CLI_OPEN_READ, &err)) {
		fprintf(stderr, "sluice docs: the warehouse cannot be read, the columns go without "
				"their types: %s\n",
			err.msg);
		return;
	}
	if (!s->wh || !dag_relation_exists(s->relations, s->nrelations, STATE_COLUMNS_TABLE))
		return;
	if (state_columns_read(s->wh, s->arena, "", &cols, &n, &err)) {
		fprintf(stderr, "sluice docs: the recorded columns cannot be read: %s\n", err.msg);
		return;
	}
	in->columns = cols;
	in->ncolumns = n;
}

/* Every file of the site into dir: the shell, the UI's files but its
 * modules, the bundle, the snapshot twice. */
static int write_site(struct cli_session *s, const char *dir, const struct buf *snap,
		      size_t *files, struct sl_err *err)
{
	struct buf index = BUF_INIT, bundle = BUF_INIT, js = BUF_INIT;
	const struct web_asset *shell = web_asset_find("index.html");
	int rc = shell ? web_static_index(shell, &index, err)
		       : sl_err_set(err, SL_E_INTERNAL, "the UI has no index.html");

	if (!rc)
		rc = web_static_bundle(web_assets, web_nassets, "js/app.js", &bundle, err);
	if (!rc)
		rc = write_file(s, dir, "index.html", index.buf, index.len, files, err);
	for (size_t i = 0; !rc && i < web_nassets; i++) {
		const struct web_asset *a = &web_assets[i];

		if (a == shell || strncmp(a->path, "js/", 3) == 0)
			continue;
		rc = write_file(s, dir, arena_sprintf(s->arena, "ui/%s", a->path),
				(const char *)a->data, a->len, files, err);
	}
	if (!rc)
		rc = write_file(s, dir, WEB_STATIC_BUNDLE, bundle.buf, bundle.len, files, err);
	if (!rc)
		rc = write_file(s, dir, "snapshot.json", snap->buf, snap->len, files, err);
	buf_adds(&js, "window.SLUICE_SNAPSHOT = ");
	buf_add(&js, snap->buf, snap->len);
	buf_adds(&js, ";\n");
	if (!rc)
		rc = write_file(s, dir, WEB_STATIC_SNAPSHOT, js.buf, js.len, files, err);
	buf_release(&index);
	buf_release(&bundle);
	buf_release(&js);
	return rc;
}

int cli_docs(struct cli_args *args)
{
	struct snapshot_input in = { .now_ms = units_now_ms() };
	struct sl_err err = SL_ERR_INIT;
	struct buf snap = BUF_INIT;
	struct lineage_graph g;
	struct cli_session s;
	size_t files = 0;
	int rc;

	if (!args->out_dir || !*args->out_dir || args->npos) {
		fprintf(stderr, "usage: sluice docs --out DIR\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args, CLI_OPEN_NONE, true);
	if (rc)
		return rc;
	recorded_columns(&s, &in);
	lineage_graph_build(s.arena, s.project, s.parser, cli_warehouse_columns, &s, &g);
	in.lineage = &g;
	rc = snapshot_write(s.arena, s.project, &in, &snap, &err);
	if (!rc)
		rc = write_site(&s, args->out_dir, &snap, &files, &err);
	if (rc) {
		cli_print_err(&err);
		rc = CLI_FAILED;
	} else {
		printf("wrote %zu files to %s: %zu models; open %s/index.html\n", files, args->out_dir,
		       s.project->nmodels, args->out_dir);
	}
	buf_release(&snap);
	cli_session_close(&s);
	return rc;
}
