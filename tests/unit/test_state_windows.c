/*
 * Unit tests for window rows held as runs (src/state/windows.c, and the
 * run's copy of them in src/exec/windows.c): a row that stands for a run
 * of grid windows is written one row per window, consecutive windows in
 * one state are read back as one row whether their model's states
 * interleave or not, and putting rows of any span over runs keeps every
 * window's state as a plain array of windows would, in as few rows as
 * the states allow.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture_wh.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "exec/windows.h"
#include "project/model.h"
#include "state/state.h"
#include "state/windows.h"

#include <stdlib.h>
#include <string.h>

#define H 3600
/* 2026-11-01 00:00 UTC */
#define T0 1793491200LL

static void write_rows(struct fixture_db *f, const struct state_window *rows, size_t n)
{
	struct buf sql = BUF_INIT;

	for (size_t i = 0; i < n; i++)
		state_sql_window(&sql, "", &rows[i]);
	assert_int_equal(wh_exec(f->w, sql.buf, &f->err), 0);
	buf_release(&sql);
}

/* A run of 1,000 hours is written as 1,000 rows and read back as one; a
 * failed hour in its middle splits it, the two applied halves being one
 * group of the same state (read row by row); a model whose runs do not
 * interleave is read from the groups alone, months included. */
static void runs_written_and_read(void **state)
{
	struct fixture_db *f = *state;
	struct state_window in[] = {
		{ .model = "s.hourly", .since = T0, .until = T0 + 1000 * H,
		  .status = WINDOW_APPLIED, .applied_at = T0 + 2000 * H, .attempts = 1,
		  .grain = "1h" },
		{ .model = "s.hourly", .since = T0 + 1000 * H, .until = T0 + 1010 * H,
		  .status = WINDOW_BLOCKED, .reason = "s.up (encapsulate)", .grain = "1h" },
		{ .model = "s.hourly", .since = T0 + 500 * H, .until = T0 + 501 * H,
		  .status = WINDOW_FAILED, .error = "boom", .attempts = 2, .grain = "1h" },
		/* 2026-11 to 2027-12: 14 calendar months */
		{ .model = "s.monthly", .since = T0, .until = 1830297600LL,
		  .status = WINDOW_APPLIED, .applied_at = T0, .attempts = 1, .grain = "1mo" },
		{ .model = "s.view", .timeless = true, .status = WINDOW_APPLIED,
		  .applied_at = T0 },
	};
	struct state_window *rows;
	size_t n;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	write_rows(f, in, sizeof(in) / sizeof(*in));
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.windows WHERE model = "
					 "'s.hourly'"),
			 1010);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.windows WHERE model = "
					 "'s.hourly' AND until - since = INTERVAL '1 hour'"),
			 1010);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.windows WHERE model = "
					 "'s.monthly' AND since IS NOT NULL"),
			 14);
	assert_int_equal(query_int(f->w, "SELECT count(*) FROM _sluice.windows WHERE "
					 "since = TIMESTAMP '2027-12-01' AND until = "
					 "TIMESTAMP '2028-01-01'"),
			 1);
	assert_int_equal(state_windows_load(f->w, f->a, "", NULL, 0, &rows, &n, &f->err), 0);
	assert_int_equal(n, 6);
	assert_string_equal(rows[0].model, "s.hourly");
	assert_int_equal(rows[0].since, T0);
	assert_int_equal(rows[0].until, T0 + 500 * H);
	assert_int_equal(rows[0].applied_at, T0 + 2000 * H);
	assert_int_equal(rows[1].status, WINDOW_FAILED);
	assert_int_equal(rows[1].until, T0 + 501 * H);
	assert_string_equal(rows[1].error, "boom");
	assert_int_equal(rows[2].since, T0 + 501 * H);
	assert_int_equal(rows[2].until, T0 + 1000 * H);
	assert_int_equal(rows[3].status, WINDOW_BLOCKED);
	assert_int_equal(rows[3].until, T0 + 1010 * H);
	assert_string_equal(rows[3].reason, "s.up (encapsulate)");
	assert_string_equal(rows[4].model, "s.monthly");
	assert_int_equal(rows[4].until, 1830297600LL);
	assert_string_equal(rows[4].grain, "1mo");
	assert_string_equal(rows[5].model, "s.view");
	assert_true(rows[5].timeless);
	/* a run written again over part of itself stays one run */
	write_rows(f, &in[0], 1);
	assert_int_equal(state_windows_load(f->w, f->a, "", (const char *[]){ "s.hourly" }, 1,
					    &rows, &n, &f->err),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].until, T0 + 1000 * H);
}

/* A flexible model's islands are never joined, even touching in one state. */
static void islands_stand_apart(void **state)
{
	struct fixture_db *f = *state;
	struct state_window in[] = {
		{ .model = "s.flex", .since = T0, .until = T0 + 3 * H, .status = WINDOW_APPLIED,
		  .applied_at = T0, .oldest_at = T0, .attempts = 1 },
		{ .model = "s.flex", .since = T0 + 3 * H, .until = T0 + 5 * H,
		  .status = WINDOW_APPLIED, .applied_at = T0, .oldest_at = T0, .attempts = 1 },
	};
	struct state_window *rows;
	size_t n;

	assert_int_equal(state_ensure(f->w, &f->err), 0);
	write_rows(f, in, 2);
	assert_int_equal(state_windows_load(f->w, f->a, "", NULL, 0, &rows, &n, &f->err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rows[1].since, T0 + 3 * H);
}

#define CELLS 64

/* Random puts of grid rows of 1 to 8 hours in one of three states over a
 * 64-hour grid, against an array of windows: every window's state is the
 * last put over it, the rows stay sorted and disjoint, and no row could
 * join the next. */
static void puts_against_cells(void **state)
{
	struct fixture_db *f = *state;
	static const char *const reasons[] = { NULL, "a (whole)", "b (exact)" };
	struct model m = { .fqn = "s.h", .temporal = true, .grain = WIN_HOUR, .end = INT64_MAX };
	struct model *ptrs[] = { &m };
	struct project p = { .models = ptrs, .nmodels = 1, .arena = f->a };
	struct run_windows rw;

	assert_int_equal(run_windows_load(&rw, f->a, &p, NULL, "", NULL, NULL), 0);
	srand(11);
	for (int round = 0; round < 200; round++) {
		int cell[CELLS];

		run_windows_clear(&rw, &m);
		for (int i = 0; i < CELLS; i++)
			cell[i] = -1;
		for (int k = 0; k < 40; k++) {
			int at = rand() % CELLS, len = 1 + rand() % 8, st = rand() % 3;
			struct state_window row = { .model = "s.h", .grain = "1h" };

			len = at + len > CELLS ? CELLS - at : len;
			row.since = T0 + at * H;
			row.until = T0 + (at + len) * H;
			row.status = st ? WINDOW_BLOCKED : WINDOW_APPLIED;
			row.applied_at = st ? 0 : T0;
			row.reason = reasons[st];
			run_windows_put(&rw, &m, &row);
			for (int i = at; i < at + len; i++)
				cell[i] = st;
		}
		for (int i = 0; i < CELLS; i++) {
			const struct state_window *w = run_windows_at(&rw, &m, T0 + i * H);

			if (cell[i] < 0) {
				assert_null(w);
				continue;
			}
			assert_non_null(w);
			assert_true(w->since <= T0 + i * H && w->until > T0 + i * H);
			assert_int_equal(w->status, cell[i] ? WINDOW_BLOCKED : WINDOW_APPLIED);
			if (cell[i])
				assert_string_equal(w->reason, reasons[cell[i]]);
		}
		for (size_t i = 0; i + 1 < rw.by_model[0].n; i++) {
			const struct state_window *a = &rw.by_model[0].rows[i], *b = a + 1;

			assert_true(a->since < a->until && a->until <= b->since);
			assert_false(state_window_joins(a, b));
		}
	}
}

/* An upstream's run of 48 applied hours meets EXACT for each of its hours
 * (cut into them for the level that asks for a row per window), not for
 * a day; ENCAPSULATE takes the run as coverage. */
static void exact_over_a_run(void **state)
{
	struct fixture_db *f = *state;
	struct model up = { .fqn = "s.up", .order = 0, .temporal = true, .grain = WIN_HOUR,
			    .start = T0, .end = INT64_MAX };
	struct model down = { .fqn = "s.down", .order = 1, .temporal = true, .grain = WIN_HOUR,
			      .start = T0, .end = INT64_MAX };
	struct model *ptrs[] = { &up, &down };
	struct project p = { .models = ptrs, .nmodels = 2, .arena = f->a };
	struct model_upstream u = { .name = "s.up", .level = WIN_EXACT, .type = "model",
				    .target = &up };
	struct state_window run = { .model = "s.up", .since = T0, .until = T0 + 48 * H,
				    .status = WINDOW_APPLIED, .applied_at = T0 + 48 * H,
				    .attempts = 1, .grain = "1h" };
	struct run_windows rw;
	struct run_gates g;
	const char *why;

	down.upstreams = &u;
	down.nupstreams = 1;
	assert_int_equal(run_windows_load(&rw, f->a, &p, NULL, "", NULL, NULL), 0);
	run_windows_put(&rw, &up, &run);
	assert_int_equal(rw.by_model[0].n, 1);
	run_gates_open(&rw, &down, T0 + 49 * H, &g);
	assert_int_equal(run_gates_check(&g, T0 + 5 * H, T0 + 6 * H, &why, &f->err), 0);
	assert_int_equal(run_gates_check(&g, T0 + 47 * H, T0 + 48 * H, &why, &f->err), 0);
	assert_int_equal(run_gates_check(&g, T0, T0 + 24 * H, &why, &f->err), SL_E_BLOCKED);
	assert_int_equal(run_gates_check(&g, T0 + 48 * H, T0 + 49 * H, &why, &f->err),
			 SL_E_BLOCKED);
	run_gates_free(&g);
	u.level = WIN_ENCAPSULATE;
	run_gates_open(&rw, &down, T0 + 49 * H, &g);
	assert_int_equal(run_gates_check(&g, T0, T0 + 24 * H, &why, &f->err), 0);
	run_gates_free(&g);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_db_setup, fixture_db_teardown)
	const struct CMUnitTest tests[] = {
		T(runs_written_and_read),
		T(islands_stand_apart),
		T(puts_against_cells),
		T(exact_over_a_run),
	};
#undef T

	return cmocka_run_group_tests(tests, fixture_db_group_setup, fixture_db_group_teardown);
}
