/*
 * This file implements a files source's look at its folder (lander.h):
 * the listing, the settle rule, the hash, the ledger's verdict, the file
 * landed through the writer, then archived. It must never move a file
 * before its landing committed, nor land a file its ledger has.
 */
#include "files/lander.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "files/archive.h"
#include "files/digest.h"
#include "files/ledger.h"
#include "files/reader.h"
#include "files/scan.h"
#include "files/settle.h"
#include "ingest/writer.h"
#include "project/config.h"
#include "state/files.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct files_lander {
	struct arena *a; /* the memory's and the ledger's */
	const struct source_cfg *src;
	const char *root, *fqn, *dir, *pattern;
	struct files_memory mem;
	struct files_ledger ledger;
	bool ledger_read;
	atomic_bool cancel;
};

int files_lander_new(struct arena *parent, const struct source_cfg *src, const char *root,
		     struct files_lander **out, struct sl_err *err)
{
	struct files_lander *l = xcalloc(1, sizeof(*l));

	if (!src->path) {
		free(l);
		return sl_err_set(err, SL_E_CONFIG, "source %s has no path", src->name);
	}
	l->a = arena_new(parent);
	l->src = src;
	l->root = arena_strdup(l->a, root);
	l->fqn = arena_sprintf(l->a, "landing.%s", src->name);
	files_path_split(l->a, root, src->path, &l->dir, &l->pattern);
	l->mem.a = l->a;
	l->ledger.a = l->a;
	atomic_init(&l->cancel, false);
	*out = l;
	return 0;
}

void files_lander_free(struct files_lander *l)
{
	if (!l)
		return;
	arena_free(l->a);
	free(l);
}

void files_lander_cancel(struct files_lander *l)
{
	atomic_store(&l->cancel, true);
}

static struct files_event *event(struct arena *a, struct files_result *res,
				 enum files_outcome what, const char *name, const char *detail)
{
	struct files_event *ev = ARENA_PUSH(a, &res->events, &res->n, &res->cap);

	*ev = (struct files_event){ .what = what, .name = name, .detail = detail };
	res->failed += what == FILES_OUT_FAILED;
	return ev;
}

static int ledger_read(struct files_lander *l, struct wh *r, struct sl_err *err)
{
	struct arena *a = arena_new(l->a);
	struct state_landed_file *rows;
	size_t n = 0;
	int rc = state_files_read(r, a, l->fqn, &rows, &n, err);

	for (size_t i = 0; !rc && i < n; i++)
		files_ledger_add(&l->ledger, rows[i].path, rows[i].sha256);
	arena_free(a);
	l->ledger_read = !rc;
	return rc;
}

/* Whether err stops the look rather than fail one file. */
static bool stops(int code)
{
	return code == SL_E_CONN || code == SL_E_BUSY || code == SL_E_SUSPECT;
}

/* e landed (or had): moved when the source archives. */
static void archive(struct files_lander *l, struct arena *a, const struct files_entry *e,
		    struct files_seen *seen, struct files_result *res, struct files_event *ev)
{
	struct sl_err err = SL_ERR_INIT;
	const char *to = NULL;

	if (!l->src->archive_folder)
		return;
	if (files_archive(a, l->root, l->src->archive_folder, e, seen->sha256, &to, &err)) {
		event(a, res, FILES_OUT_FAILED, e->name, arena_strdup(a, err.msg));
		seen->failed = true;
		return;
	}
	if (!ev)
		ev = event(a, res, FILES_OUT_MOVED, e->name, NULL);
	ev->detail = to;
}

/* One file through the writer, in a transaction of its own. */
static int land_one(struct files_lander *l, struct arena *a, struct ingest_writer *wr,
		    const struct files_entry *e, struct files_seen *seen, enum files_verdict v,
		    struct files_result *res, struct sl_err *err)
{
	struct wh_file_read rd;
	struct ingest_file f = { &rd, e->name, seen->sha256, e->size };
	struct ingest_batch b = { .source = l->fqn, .file = &f };
	struct ingest_result out = { 0 };
	struct files_event *ev;
	struct sl_err own = SL_ERR_INIT;

	if (!files_reader(a, l->src, e, &rd, &own)) {
		int rc = ingest_submit_wait(wr, &b, &out, err);

		if (!rc && stops(out.code))
			rc = sl_err_set(err, out.code, "%s: %s", e->name, out.error);
		if (rc)
			return rc;
	}
	if (own.code || out.code) {
		event(a, res, FILES_OUT_FAILED, e->name,
		      arena_strdup(a, own.code ? own.msg : out.error));
		seen->failed = true;
		return 0;
	}
	files_ledger_add(&l->ledger, e->name, seen->sha256);
	/* landed meanwhile by another process sharing the warehouse */
	ev = out.duplicate ? NULL
			   : event(a, res, v == FILES_NEW ? FILES_OUT_LANDED : FILES_OUT_NEW_VERSION,
				   e->name, NULL);
	if (ev) {
		ev->rows = out.rows;
		res->files++;
		res->rows += out.rows;
		res->seq = out.seq;
		res->last = e->name;
	}
	archive(l, a, e, seen, res, ev);
	return 0;
}

/* One entry of the listing: waits, fails, lands or is moved. */
static int take(struct files_lander *l, struct arena *a, struct ingest_writer *wr,
		const struct files_entry *e, int64_t now, struct files_result *res,
		struct sl_err *err)
{
	struct files_seen *seen = files_memory_see(&l->mem, e, now);
	struct sl_err own = SL_ERR_INIT;
	enum files_verdict v;
	int64_t wait = 0;

	if (seen->failed)
		return 0;
	if (e->refused) {
		event(a, res, FILES_OUT_FAILED, e->name,
		      arena_sprintf(a, "%s: %s", e->name, e->refused));
		seen->failed = true;
		return 0;
	}
	if (!files_settled(seen, now, l->src->settle_ms, &wait) ||
	    (!seen->sha256[0] && files_digest(e, seen->sha256, &own) == SL_E_BUSY)) {
		event(a, res, FILES_OUT_WAITING, e->name, NULL);
		res->waiting++;
		wait = wait ? wait : l->src->settle_ms;
		if (!res->wait_ms || wait < res->wait_ms)
			res->wait_ms = wait;
		if (wait > res->wait_all_ms)
			res->wait_all_ms = wait;
		seen->sha256[0] = '\0';
		return 0;
	}
	if (own.code) {
		event(a, res, FILES_OUT_FAILED, e->name, arena_strdup(a, own.msg));
		seen->failed = true;
		seen->sha256[0] = '\0';
		return 0;
	}
	v = files_ledger_judge(&l->ledger, e->name, seen->sha256);
	if (v == FILES_LANDED) {
		archive(l, a, e, seen, res, NULL);
		return 0;
	}
	return land_one(l, a, wr, e, seen, v, res, err);
}

int files_land(struct files_lander *l, struct arena *a, struct wh *r, struct ingest_writer *wr,
	       struct files_result *res, struct sl_err *err)
{
	struct files_listing list;
	int64_t now = units_now_ms();
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (atomic_load(&l->cancel))
		return sl_err_set(err, SL_E_BUSY, "source %s: stopped", l->src->name);
	if (!l->ledger_read)
		rc = ledger_read(l, r, err);
	if (!rc)
		rc = files_scan(a, l->root, l->dir, l->pattern, l->src->max_file_size, &list, err);
	if (rc)
		return rc;
	files_memory_look(&l->mem);
	for (size_t i = 0; !rc && i < list.n && !atomic_load(&l->cancel); i++)
		rc = take(l, a, wr, &list.items[i], now, res, err);
	/* a look cut short saw only some: the rest stay remembered */
	if (!rc && !atomic_load(&l->cancel))
		files_memory_sweep(&l->mem);
	return rc;
}

const char *files_event_text(struct arena *a, const char *source, const struct files_event *ev)
{
	const char *moved = ev->detail ? arena_sprintf(a, "; moved to %s", ev->detail) : "";

	switch (ev->what) {
	case FILES_OUT_LANDED:
		return arena_sprintf(a, "files %s: %s landed: %lld row%s%s", source, ev->name,
				     (long long)ev->rows, ev->rows == 1 ? "" : "s", moved);
	case FILES_OUT_NEW_VERSION:
		return arena_sprintf(a, "files %s: a new version of %s landed: %lld row%s%s", source,
				     ev->name, (long long)ev->rows, ev->rows == 1 ? "" : "s", moved);
	case FILES_OUT_MOVED:
		return arena_sprintf(a, "files %s: %s had landed%s", source, ev->name, moved);
	case FILES_OUT_FAILED:
		return arena_sprintf(a, "files %s: not landed: %s", source, ev->detail);
	case FILES_OUT_WAITING:
		break;
	}
	return arena_sprintf(a, "files %s: %s is still being written: it waits", source, ev->name);
}
