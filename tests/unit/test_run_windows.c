/*
 * Unit tests for a run's window state (src/exec/windows.c): a flexible
 * model's islands coalesce as windows are applied and split when a range
 * is uncovered, keeping their applied times; a fixed model's rows stay one
 * per window, and one whose upstream was applied again after it is due
 * again, in a run of a million applied windows too; rows a crash left apart count as their island and join it;
 * gates name every upstream that is not met. A declared
 * source's coverage is read from its landing table (its event time a
 * column or a payload field, less its lateness; fresh as its newest
 * landing) and gates windows as a flexible upstream would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"
#include "core/err.h"
#include "exec/windows.h"
#include "project/model.h"
#include "warehouse/wh.h"

#include <stdlib.h>
#include <string.h>

#define H 3600
/* a long grid: a million hours, 114 years */
#define RUN_HOURS 1000000LL

struct fx {
	struct arena *a;
	struct model m[3];
	struct model *ptrs[3];
	struct project p;
	struct run_windows rw;
};

static int setup(void **state)
{
	static struct fx f;
	static const char *const names[] = { "s.flex", "s.fixed", "s.down" };

	memset(&f, 0, sizeof(f));
	f.a = arena_new(NULL);
	for (int i = 0; i < 3; i++) {
		f.m[i].fqn = names[i];
		f.m[i].order = (size_t)i;
		f.m[i].temporal = true;
		f.m[i].grain = WIN_HOUR;
		f.m[i].end = INT64_MAX;
		f.ptrs[i] = &f.m[i];
	}
	f.m[0].flex = true;
	f.p.models = f.ptrs;
	f.p.nmodels = 3;
	f.p.arena = f.a;
	if (run_windows_load(&f.rw, f.a, &f.p, NULL, "", NULL, NULL))
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	arena_free(((struct fx *)*state)->a);
	return 0;
}

static void apply(struct fx *f, int64_t since, int64_t until, int64_t at)
{
	struct state_window row = { .model = "s.flex", .since = since, .until = until,
				    .status = WINDOW_APPLIED, .applied_at = at };

	row = run_windows_island(&f->rw, &f->m[0], &row);
	run_windows_put_island(&f->rw, &f->m[0], &row);
}

static void islands(void **state)
{
	struct fx *f = *state;
	const struct model_rows *mr = &f->rw.by_model[0];
	struct state_window *pieces;
	size_t n;

	apply(f, 0, 2 * H, 100);
	apply(f, 5 * H, 6 * H, 200);
	assert_int_equal(mr->n, 2);
	/* a window that touches both joins them into one island */
	apply(f, 2 * H, 5 * H, 300);
	assert_int_equal(mr->n, 1);
	assert_int_equal(mr->rows[0].since, 0);
	assert_int_equal(mr->rows[0].until, 6 * H);
	assert_int_equal(mr->rows[0].applied_at, 300);
	assert_int_equal(mr->rows[0].oldest_at, 100);
	/* uncovering the middle leaves two pieces with the island's times */
	run_windows_uncover(&f->rw, &f->m[0], H, 3 * H, &pieces, &n);
	assert_int_equal(n, 2);
	assert_int_equal(mr->n, 2);
	assert_int_equal(mr->rows[0].until, H);
	assert_int_equal(mr->rows[1].since, 3 * H);
	assert_int_equal(mr->rows[1].oldest_at, 100);
	/* a failed chunk inside a gap stays apart, and goes once covered */
	run_windows_put(&f->rw, &f->m[0],
			&(struct state_window){ .model = "s.flex", .since = H, .until = 2 * H,
						.status = WINDOW_FAILED, .error = "x" });
	assert_int_equal(mr->n, 3);
	apply(f, H, 3 * H, 400);
	assert_int_equal(mr->n, 1);
	assert_int_equal(mr->rows[0].until, 6 * H);
}

/* A flexible window's own row, as its data's transaction writes it: a
 * crash before it joins its island leaves it apart, inside the island or
 * beside it, and the coverage is the same; the next run joins them. */
static void rows_left_apart(void **state)
{
	struct fx *f = *state;
	const struct model_rows *mr = &f->rw.by_model[0];
	struct model_upstream up = { .name = "s.flex", .level = WIN_THROUGH, .type = "model",
				     .target = &f->m[0] };
	const struct state_window *loose;
	struct state_window row;
	struct run_gates g;
	const char *reason;
	struct sl_err err = SL_ERR_INIT;

	f->m[2].upstreams = &up;
	f->m[2].nupstreams = 1;
	run_windows_clear(&f->rw, &f->m[0]);
	apply(f, 0, 4 * H, 100);
	assert_null(run_windows_loose(&f->rw, &f->m[0]));
	/* built again inside the island, then a window beside it */
	run_windows_add(&f->rw, &f->m[0],
			&(struct state_window){ .model = "s.flex", .since = H, .until = 2 * H,
						.status = WINDOW_APPLIED, .applied_at = 300 });
	run_windows_add(&f->rw, &f->m[0],
			&(struct state_window){ .model = "s.flex", .since = 4 * H, .until = 5 * H,
						.status = WINDOW_APPLIED, .applied_at = 300 });
	assert_int_equal(mr->n, 3);
	/* the gates see one coverage, whatever the rows */
	run_gates_open(&f->rw, &f->m[2], 400, &g);
	assert_int_equal(run_gates_check(&g, 4 * H, 5 * H, &reason, &err), 0);
	assert_int_equal(run_gates_check(&g, 5 * H, 6 * H, &reason, &err), SL_E_BLOCKED);
	run_gates_free(&g);
	loose = run_windows_loose(&f->rw, &f->m[0]);
	assert_non_null(loose);
	assert_int_equal(loose->since, 0);
	row = run_windows_island(&f->rw, &f->m[0], loose);
	run_windows_put_island(&f->rw, &f->m[0], &row);
	assert_null(run_windows_loose(&f->rw, &f->m[0]));
	assert_int_equal(mr->n, 1);
	assert_int_equal(mr->rows[0].until, 5 * H);
	assert_int_equal(mr->rows[0].applied_at, 300);
	assert_int_equal(mr->rows[0].oldest_at, 100);
	f->m[2].nupstreams = 0;
}

/* A window whose upstream hour was applied again after it is due again,
 * and the reason names the upstream and the hours. */
static void windows_due_again(void **state)
{
	struct fx *f = *state;
	struct model_upstream up = { .name = "s.fixed", .level = WIN_ENCAPSULATE, .type = "model",
				     .target = &f->m[1] };
	struct win_ask ask = { .now = 3 * H, .mode = WIN_DISCOVER };
	struct win_list due = { 0 };
	struct run_again again;
	struct run_gates g;

	f->m[2].upstreams = &up;
	f->m[2].nupstreams = 1;
	run_windows_clear(&f->rw, &f->m[1]);
	run_windows_clear(&f->rw, &f->m[2]);
	for (int64_t h = 0; h < 3; h++) {
		run_windows_put(&f->rw, &f->m[1],
				&(struct state_window){ .model = "s.fixed", .since = h * H,
							.until = (h + 1) * H,
							.status = WINDOW_APPLIED,
							.applied_at = h == 1 ? 2000 : 1000 });
		run_windows_put(&f->rw, &f->m[2],
				&(struct state_window){ .model = "s.down", .since = h * H,
							.until = (h + 1) * H,
							.status = WINDOW_APPLIED, .applied_at = 1500 });
	}
	run_gates_open(&f->rw, &f->m[2], ask.now, &g);
	run_windows_due(&f->rw, &f->m[2], &ask, &g, &due, &again);
	assert_int_equal(due.n, 1);
	assert_int_equal(due.r[0].since, H);
	assert_string_equal(run_again_text(f->a, &again),
			    "1 again: upstream s.fixed re-applied 1970-01-01 01:00..02:00 after it");
	free(due.r);
	run_gates_free(&g);
	/* built after the upstream's hour, it is not due again */
	run_windows_put(&f->rw, &f->m[2],
			&(struct state_window){ .model = "s.down", .since = H, .until = 2 * H,
						.status = WINDOW_APPLIED, .applied_at = 2000 });
	run_gates_open(&f->rw, &f->m[2], ask.now, &g);
	due = (struct win_list){ 0 };
	run_windows_due(&f->rw, &f->m[2], &ask, &g, &due, &again);
	assert_int_equal(due.n, 0);
	assert_null(run_again_text(f->a, &again));
	free(due.r);
	run_gates_free(&g);
	f->m[2].nupstreams = 0;
	run_windows_clear(&f->rw, &f->m[1]);
	run_windows_clear(&f->rw, &f->m[2]);
}

/* A run of hours applied at one time, as one grid row. */
static void put_run(struct fx *f, int i, int64_t since, int64_t until, int64_t at)
{
	run_windows_put(&f->rw, &f->m[i],
			&(struct state_window){ .model = f->m[i].fqn, .since = since, .until = until,
						.status = WINDOW_APPLIED, .applied_at = at,
						.grain = "1h" });
}

/* "N again: upstream U re-applied FROM..TO after them" for hours. */
static const char *again_text(struct fx *f, const char *prefix, const char *upstream,
			      int64_t from, int64_t to)
{
	char a[WIN_TIME_MAX], b[WIN_TIME_MAX];

	win_time_format(from, a);
	win_time_format(to, b);
	a[16] = b[16] = '\0';
	return arena_sprintf(f->a, "%s: upstream %s re-applied %s..%s after %s", prefix, upstream,
			     a, strncmp(a, b, 11) == 0 ? b + 11 : b,
			     strncmp(prefix, "1 again", 8) == 0 ? "it" : "them");
}

/* s.down's runs due, and the text of those due again, its upstreams ups. */
static const char *due_again(struct fx *f, struct model_upstream *ups, size_t nups,
			     struct win_list *due)
{
	struct win_ask ask = { .now = RUN_HOURS * H, .mode = WIN_DISCOVER };
	struct run_again again;
	struct run_gates g;
	const char *text;

	f->m[2].upstreams = ups;
	f->m[2].nupstreams = nups;
	*due = (struct win_list){ 0 };
	run_gates_open(&f->rw, &f->m[2], ask.now, &g);
	run_windows_due(&f->rw, &f->m[2], &ask, &g, due, &again);
	text = run_again_text(f->a, &again);
	run_gates_free(&g);
	f->m[2].nupstreams = 0;
	return text;
}

/* Restatements over runs: a run of a million applied hours whose upstream
 * applied nothing after it is not due; one upstream hour applied again in
 * its middle makes that hour alone due again for encapsulate and exact,
 * and every hour from it on for through; an hour stale for two upstreams
 * is told for the first. */
static void runs_due_again(void **state)
{
	struct fx *f = *state;
	struct model_upstream ups[2] = {
		{ .name = "s.fixed", .level = WIN_ENCAPSULATE, .type = "model",
		  .target = &f->m[1] },
		{ .name = "s.flex", .level = WIN_WHOLE, .type = "model", .target = &f->m[0] },
	};
	const int64_t mid = (RUN_HOURS / 2) * H, end = RUN_HOURS * H;
	struct win_list due;

	run_windows_clear(&f->rw, &f->m[0]);
	run_windows_clear(&f->rw, &f->m[1]);
	run_windows_clear(&f->rw, &f->m[2]);
	put_run(f, 1, 0, end, 1000);
	put_run(f, 2, 0, end, 1500);
	assert_int_equal(f->rw.by_model[2].n, 1);
	for (int l = WIN_EXACT; l <= WIN_WHOLE; l++) {
		ups[0].level = l;
		assert_null(due_again(f, ups, 1, &due));
		assert_int_equal(due.n, 0);
		free(due.r);
	}
	put_run(f, 1, mid, mid + H, 2000);
	ups[0].level = WIN_ENCAPSULATE;
	assert_string_equal(due_again(f, ups, 1, &due),
			    again_text(f, "1 again", "s.fixed", mid, mid + H));
	assert_int_equal(due.n, 1);
	assert_int_equal(due.r[0].since, mid);
	assert_int_equal(due.r[0].until, mid + H);
	free(due.r);
	ups[0].level = WIN_EXACT;
	assert_string_equal(due_again(f, ups, 1, &due),
			    again_text(f, "1 again", "s.fixed", mid, mid + H));
	assert_int_equal(due.n, 1);
	assert_int_equal(due.r[0].until, mid + H);
	free(due.r);
	ups[0].level = WIN_THROUGH;
	assert_string_equal(due_again(f, ups, 1, &due),
			    again_text(f, arena_sprintf(f->a, "%lld again", RUN_HOURS / 2),
				       "s.fixed", mid, mid + H));
	assert_int_equal(due.n, 1);
	assert_int_equal(due.r[0].since, mid);
	assert_int_equal(due.r[0].until, end);
	free(due.r);
	/* every hour is stale for the flexible upstream, the middle one for
	 * the first upstream already */
	apply(f, 0, end, 3000);
	ups[0].level = WIN_ENCAPSULATE;
	assert_string_equal(due_again(f, ups, 2, &due),
			    arena_sprintf(f->a, "%s, %s",
					  again_text(f, "1 again", "s.fixed", mid, mid + H),
					  again_text(f, arena_sprintf(f->a, "%lld again", RUN_HOURS - 1),
						     "s.flex", 0, end)));
	assert_int_equal(due.n, 1);
	assert_int_equal(due.r[0].since, 0);
	assert_int_equal(due.r[0].until, end);
	free(due.r);
	run_windows_clear(&f->rw, &f->m[0]);
	run_windows_clear(&f->rw, &f->m[1]);
	run_windows_clear(&f->rw, &f->m[2]);
}

static void gates_name_each_upstream(void **state)
{
	struct fx *f = *state;
	struct model_upstream ups[2] = {
		{ .name = "s.fixed", .level = WIN_ENCAPSULATE, .type = "model", .target = &f->m[1] },
		{ .name = "s.flex", .level = WIN_THROUGH, .type = "model", .target = &f->m[0],
		  .fresh_s = 50 },
	};
	struct run_gates g;
	const char *reason;
	struct sl_err err = SL_ERR_INIT;

	f->m[2].upstreams = ups;
	f->m[2].nupstreams = 2;
	run_windows_clear(&f->rw, &f->m[0]);
	apply(f, 0, 4 * H, 1000);
	run_windows_put(&f->rw, &f->m[1],
			&(struct state_window){ .model = "s.fixed", .since = 0, .until = H,
						.status = WINDOW_APPLIED, .applied_at = 1000 });
	run_gates_open(&f->rw, &f->m[2], 1020, &g);
	assert_int_equal(run_gates_check(&g, 0, H, &reason, &err), 0);
	assert_int_equal(run_gates_check(&g, H, 2 * H, &reason, &err), SL_E_BLOCKED);
	assert_string_equal(reason, "s.fixed (encapsulate)");
	run_gates_free(&g);
	/* later, the flexible upstream is stale too: both are named */
	run_gates_open(&f->rw, &f->m[2], 2000, &g);
	assert_int_equal(run_gates_check(&g, H, 2 * H, &reason, &err), SL_E_BLOCKED);
	assert_string_equal(reason, "s.fixed (encapsulate), s.flex (through, stale)");
	run_gates_free(&g);
	/* exact on a flexible upstream can never be met */
	ups[1].level = WIN_EXACT;
	run_gates_open(&f->rw, &f->m[2], 1020, &g);
	assert_int_equal(run_gates_check(&g, 0, H, &reason, &err), SL_E_INVALID);
	assert_non_null(strstr(err.msg, "contract exact on 's.flex' can never be met"));
	run_gates_free(&g);
}

static void must(struct wh *w, const char *sql)
{
	struct sl_err err = SL_ERR_INIT;

	if (wh_exec(w, sql, &err))
		fail_msg("%s: %s", sql, err.msg);
}

/* 2026-11-01 00:00 UTC */
#define NOV1 1793491200LL

static void sources_publish_coverage(void **state)
{
	struct fx *f = *state;
	struct source_cfg src[3] = {
		{ .name = "orders", .kind = "webhook", .event_time = "created_at",
		  .lateness_ms = 600000 },
		{ .name = "clicks", .kind = "webhook", .event_time = "ts" },
		{ .name = "quiet", .kind = "webhook", .event_time = "ts" },
	};
	struct model_upstream ups[3] = {
		{ .name = "orders", .level = WIN_THROUGH, .type = "model", .source = &src[0],
		  .source_relation = "landing.orders", .fresh_s = 3600 },
		{ .name = "landing.clicks", .level = WIN_ENCAPSULATE, .type = "model",
		  .source = &src[1], .source_relation = "landing.clicks" },
		{ .name = "quiet", .level = WIN_ENCAPSULATE, .type = "model", .source = &src[2],
		  .source_relation = "landing.quiet" },
	};
	bool selected[3] = { false, false, true };
	struct sl_err err = SL_ERR_INIT;
	struct run_gates g;
	const char *reason;
	struct wh *w;

	(void)state;
	if (wh_open_duckdb(":memory:", false, &w, &err))
		fail_msg("%s", err.msg);
	must(w, "CREATE SCHEMA landing; CREATE TABLE landing.orders (created_at TIMESTAMP, "
		"payload JSON, _sluice_landed_at TIMESTAMP, _sluice_seq BIGINT);"
		"INSERT INTO landing.orders VALUES ('2026-11-01 00:30', NULL, '2026-11-01 04:00', 1),"
		" ('2026-11-01 02:15', NULL, '2026-11-01 04:30', 2), (NULL, NULL, NULL, 3);"
		"CREATE TABLE landing.clicks (payload JSON, _sluice_landed_at TIMESTAMP, "
		"_sluice_seq BIGINT);"
		"INSERT INTO landing.clicks VALUES ('{\"ts\": \"2026-11-01 03:00:00\"}', "
		"'2026-11-01 04:10', 1), ('{\"ts\": \"not a time\"}', '2026-11-01 04:20', 2);");
	f->p.cfg.sources = src;
	f->p.cfg.nsources = 3;
	f->m[0].start = NOV1;
	f->m[1].start = NOV1;
	f->m[2].start = NOV1;
	f->m[2].upstreams = ups;
	f->m[2].nupstreams = 3;
	/* quiet has no table: it covers nothing, and says so */
	assert_int_equal(run_windows_load_sources(&f->rw, w, selected, &err), 0);
	assert_true(f->rw.sources[0].known);
	/* the newest event less ten minutes, landed at the newest landing */
	assert_int_equal(f->rw.sources[0].until, NOV1 + 2 * H + 5 * 60);
	assert_int_equal(f->rw.sources[0].landed_at, NOV1 + 4 * H + 30 * 60);
	/* a payload field, its unreadable values passed over */
	assert_true(f->rw.sources[1].known);
	assert_int_equal(f->rw.sources[1].until, NOV1 + 3 * H);
	assert_int_equal(f->rw.sources[1].landed_at, NOV1 + 4 * H + 20 * 60);
	assert_false(f->rw.sources[2].known);

	ups[2].level = -1; /* quiet aside for now */
	run_gates_open(&f->rw, &f->m[2], NOV1 + 5 * H, &g);
	assert_int_equal(run_gates_check(&g, NOV1, NOV1 + H, &reason, &err), 0);
	assert_int_equal(run_gates_check(&g, NOV1 + H, NOV1 + 2 * H, &reason, &err), 0);
	/* orders passed 02:05 only; clicks passed 03:00 */
	assert_int_equal(run_gates_check(&g, NOV1 + 2 * H, NOV1 + 3 * H, &reason, &err),
			 SL_E_BLOCKED);
	assert_string_equal(reason, "landing.orders (through)");
	assert_int_equal(run_gates_check(&g, NOV1 + 3 * H, NOV1 + 4 * H, &reason, &err),
			 SL_E_BLOCKED);
	assert_string_equal(reason, "landing.orders (through), landing.clicks (encapsulate)");
	run_gates_free(&g);
	/* two hours after the newest landing, orders is stale */
	run_gates_open(&f->rw, &f->m[2], NOV1 + 6 * H + 31 * 60, &g);
	assert_int_equal(run_gates_check(&g, NOV1, NOV1 + H, &reason, &err), SL_E_BLOCKED);
	assert_string_equal(reason, "landing.orders (through, stale)");
	run_gates_free(&g);
	ups[2].level = WIN_ENCAPSULATE;
	run_gates_open(&f->rw, &f->m[2], NOV1 + 5 * H, &g);
	assert_int_equal(run_gates_check(&g, NOV1, NOV1 + H, &reason, &err), SL_E_BLOCKED);
	assert_string_equal(reason, "landing.quiet (encapsulate)");
	run_gates_free(&g);
	/* one event stamped far ahead: the stream has passed no more than what
	 * had happened when it last landed, less its lateness */
	must(w, "INSERT INTO landing.orders VALUES ('2030-01-01', NULL, '2026-11-01 04:40', 4)");
	assert_int_equal(run_windows_load_sources(&f->rw, w, selected, &err), 0);
	assert_int_equal(f->rw.sources[0].until, NOV1 + 4 * H + 30 * 60);
	assert_int_equal(f->rw.sources[0].landed_at, NOV1 + 4 * H + 40 * 60);
	f->m[2].upstreams = NULL;
	f->m[2].nupstreams = 0;
	f->p.cfg.sources = NULL;
	f->p.cfg.nsources = 0;
	wh_close(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(islands),
		cmocka_unit_test(rows_left_apart),
		cmocka_unit_test(windows_due_again),
		cmocka_unit_test(runs_due_again),
		cmocka_unit_test(gates_name_each_upstream),
		cmocka_unit_test(sources_publish_coverage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
