/*
 * Benchmark: end-to-end lag of a live bronze -> silver -> gold chain while a
 * writer lands RATE events/s in batches of BATCH (each batch inserted,
 * announced and handed to the runner thread, as the server does), and the
 * framework overhead of a refresh that applies nothing against its bare SQL.
 *   live_chain PROJECT_DIR [SECONDS] [RATE] [BATCH]
 * Prints p50/p99 lag (landing arrival to gold covering it), refreshes/s,
 * and the 0-row refresh overhead in ms. The warehouse is the project's:
 * a DuckDB file, or a PostgreSQL server (its sluice.yml names the
 * environment variable that holds the connection string), where the lag
 * target allows debounce + 400 ms instead of + 250 ms.
 */
#include "exec/run.h"
#include "state/state.h"
#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "live/advance.h"
#include "live/batch.h"
#include "live/ledger.h"
#include "live/runner.h"
#include "live/thread.h"
#include "live/watermark.h"
#include "project/project.h"
#include "project/validate.h"
#include "warehouse/open.h"
#include "warehouse/sqlparse.h"
#include "warehouse/wh.h"

#include "bench_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void land_one(struct wh *w, long long id, struct live_advance *adv)
{
	struct sl_err err = SL_ERR_INIT;
	char sql[160];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO landing.events (id, account, amount) VALUES (%lld, 0, 0)", id);
	exec(w, sql);
	if (live_advance_source(w, "landing.events", adv, &err))
		die(&err);
}

/* The 0-row figure: a runner cycle in which bronze is behind but its filter
 * drops the new row (a negative id), against the bare statement it runs. */
static void overhead_zero_rows(struct arena *a, struct project *p, struct wh *w)
{
	struct sl_err err = SL_ERR_INIT;
	struct live_runner *r = live_runner_new(a, p, NULL);
	struct live_cycle c;
	int64_t cyc = 0, bare = 0, t0;
	const int reps = 50;

	live_runner_cycle(r, w, &c, &err);
	for (int i = 0; i < reps; i++) {
		struct live_advance adv;

		land_one(w, -1, &adv);
		live_runner_advanced(r, "landing.events", &adv);
		t0 = units_mono_us();
		if (live_runner_cycle(r, w, &c, &err))
			die(&err);
		cyc += units_mono_us() - t0;
		if (c.refreshed != 1 || c.events != 0) {
			fprintf(stderr, "live_chain: expected one refresh of 0 rows\n");
			exit(1);
		}
		t0 = units_mono_us();
		if (wh_kind(w) == WH_POSTGRES)
			exec(w, "BEGIN; INSERT INTO bronze.events (id, account, amount, _sluice_seq) "
				"SELECT * FROM (SELECT id, account, amount, _sluice_seq FROM "
				"landing.events) AS s WHERE _sluice_seq > (SELECT max(_sluice_seq) FROM "
				"landing.events) AND id >= 0; COMMIT");
		else
			exec(w, "BEGIN; INSERT INTO bronze.events BY NAME SELECT * FROM (SELECT id, "
				"account, amount, _sluice_seq FROM landing.events) AS s WHERE _sluice_seq "
				"> (SELECT max(_sluice_seq) FROM landing.events) AND id >= 0; COMMIT");
		bare += units_mono_us() - t0;
	}
	printf("refresh applying 0 rows: %.2f ms vs the bare statement %.2f ms = %.2f ms of "
	       "framework (target <= 1 ms)%s\n",
	       cyc / 1000.0 / reps, bare / 1000.0 / reps, (cyc - bare) / 1000.0 / reps,
	       cyc - bare <= 1000LL * reps ? "" : "  MISSED");
	if (live_runner_release(r, w, &err))
		die(&err);
	live_runner_free(r);
}

/* For scale, a refresh of bronze alone that applies one row, which writes
 * its bookkeeping rows, against the same insert into a table of the same
 * shape in its own transaction. */
static void overhead_one_row(struct arena *a, struct project *p, struct wh *w)
{
	struct sl_err err = SL_ERR_INIT;
	struct live_ledger *l = live_ledger_new(a, p);
	struct state_cache cache = { 0 };
	struct run_opts opts = { .env = "", .live = true, .state_ready = true,
				 .selector = "bronze.events", .cache = &cache };
	struct live_books books;
	const char **rel, **kinds;
	size_t nrel;
	int64_t ref = 0, bare = 0, t0;
	const int reps = 50;

	const bool pg = wh_kind(w) == WH_POSTGRES;

	exec(w, pg ? "DROP TABLE IF EXISTS public.bare_events; CREATE TABLE public.bare_events AS "
		     "SELECT * FROM bronze.events LIMIT 0"
		   : "CREATE OR REPLACE TABLE main.bare_events AS SELECT * FROM bronze.events LIMIT 0");
	if (wh_relation_kinds(w, a, &rel, &kinds, &nrel, &err))
		die(&err);
	opts.kinds = kinds;
	if (live_ledger_load(l, w, &err))
		die(&err);
	live_books_over(&books, p, l);
	opts.book = live_books_hooks(&books);
	for (int i = 0; i < reps; i++) {
		struct live_advance adv;
		struct run_report rep;

		land_one(w, 1000000000LL + i, &adv);
		live_ledger_note(l, "landing.events", &adv, units_now_ms());
		t0 = units_mono_us();
		if (build_run(a, p, w, rel, nrel, &opts, &rep, &err))
			die(&err);
		ref += units_mono_us() - t0;
		if (rep.n != 1 || rep.items[0].rows != 1) {
			fprintf(stderr, "live_chain: expected one refresh of 1 row\n");
			exit(1);
		}
		run_report_free(&rep);
		t0 = units_mono_us();
		if (pg)
			exec(w, "BEGIN; INSERT INTO public.bare_events (id, account, amount, _sluice_seq) "
				"SELECT * FROM (SELECT id, account, amount, _sluice_seq FROM "
				"landing.events) AS s WHERE _sluice_seq > (SELECT max(_sluice_seq) FROM "
				"landing.events) - 1 AND id >= 0; COMMIT");
		else
			exec(w, "BEGIN; INSERT INTO main.bare_events BY NAME SELECT * FROM (SELECT id, "
				"account, amount, _sluice_seq FROM landing.events) AS s WHERE _sluice_seq "
				"> (SELECT max(_sluice_seq) FROM landing.events) - 1 AND id >= 0; COMMIT");
		bare += units_mono_us() - t0;
	}
	printf("refresh applying 1 row: %.2f ms vs the bare statement %.2f ms = %.2f ms of framework "
	       "(no target: the bookkeeping rows written with it)\n",
	       ref / 1000.0 / reps, bare / 1000.0 / reps, (ref - bare) / 1000.0 / reps);
	exec(w, pg ? "DROP TABLE public.bare_events" : "DROP TABLE main.bare_events");
	state_cache_free(&cache);
	live_books_close(&books);
	live_ledger_free(l);
}

int main(int argc, char **argv)
{
	struct sl_err err = SL_ERR_INIT;
	struct arena *a = arena_new(NULL);
	struct sqlparse *parser;
	struct project *p;
	struct wh *w, *rconn, *probe;
	struct live_thread *t;
	struct run_opts opts = { .env = "" };
	struct run_report rep;
	const char **rel;
	size_t nrel, nb = 0;
	char sql[512], series[64];
	int64_t slack_ms;
	int seconds = argc > 2 ? atoi(argv[2]) : 10;
	int rate = argc > 3 ? atoi(argv[3]) : 10000;
	int batch = argc > 4 ? atoi(argv[4]) : 100;
	int64_t nbatches = (int64_t)seconds * rate / batch, start, *seq, *landed, *lag;
	int64_t interval_us = 1000000LL * batch / rate, refreshes0, refreshes1, wrote_ms;

	if (argc < 2) {
		fprintf(stderr, "usage: live_chain PROJECT_DIR [SECONDS] [RATE] [BATCH]\n");
		return 2;
	}
	seq = calloc((size_t)nbatches + 1, sizeof(int64_t));
	landed = calloc((size_t)nbatches + 1, sizeof(int64_t));
	lag = calloc((size_t)nbatches + 1, sizeof(int64_t));
	if (sqlparse_open(&parser, &err) || project_load(a, argv[1], parser, &p, &err))
		die(&err);
	project_validate(p, NULL, 0);
	{
		struct wh_place at = { .type = p->cfg.warehouse.type,
				       .path = p->cfg.warehouse.path,
				       .dsn_env = p->cfg.warehouse.dsn_env,
				       .root = argv[1] };

		if (wh_open(&at, a, WH_OPEN_CREATE, &w, &err) ||
		    wh_relation_list(w, a, &rel, &nrel, &err))
			die(&err);
	}
	slack_ms = wh_kind(w) == WH_POSTGRES ? 400 : 250;
	if (wh_kind(w) == WH_POSTGRES)
		snprintf(series, sizeof(series), "generate_series(0, %d)", batch - 1);
	else
		snprintf(series, sizeof(series), "range(%d)", batch);
	if (live_batch_run(a, p, w, rel, nrel, &opts, &rep, &err))
		die(&err);
	run_report_free(&rep);

	overhead_zero_rows(a, p, w);
	overhead_one_row(a, p, w);

	if (wh_connect(w, &rconn, &err) || wh_connect(w, &probe, &err) ||
	    live_thread_start(a, p, rconn, NULL, &t, &err))
		die(&err);
	refreshes0 = qint(w, "SELECT coalesce(sum(refresh_count), 0) FROM _sluice.live_state");
	start = units_mono_ms();
	for (int64_t b = 0; b < nbatches; b++) {
		struct live_advance adv;
		int64_t due = start * 1000 + b * interval_us, now_us;

		snprintf(sql, sizeof(sql),
			 "INSERT INTO landing.events (id, account, amount) SELECT %lld * %d + i, "
			 "(i * 7919) %% 500, i %% 97 FROM %s t(i)",
			 (long long)b, batch, series);
		if (wh_exec(w, sql, &err) || live_advance_source(w, "landing.events", &adv, &err))
			die(&err);
		landed[b] = units_mono_ms();
		seq[b] = adv.seq;
		live_thread_advanced(t, "landing.events", &adv);
		/* gold covers batch k once its covered sequence reaches it */
		while (nb <= (size_t)b) {
			int64_t covered = qint(probe, "SELECT coalesce(min(covered), 0) FROM "
						      "_sluice.live_state WHERE model = 'gold.accounts'");

			if (covered < seq[nb])
				break;
			lag[nb] = units_mono_ms() - landed[nb];
			nb++;
		}
		now_us = units_mono_ms() * 1000;
		if (due + interval_us > now_us)
			usleep((useconds_t)(due + interval_us - now_us));
	}
	wrote_ms = units_mono_ms() - start;
	while (nb < (size_t)nbatches) {
		int64_t covered = qint(probe, "SELECT coalesce(min(covered), 0) FROM "
					      "_sluice.live_state WHERE model = 'gold.accounts'");

		while (nb < (size_t)nbatches && covered >= seq[nb]) {
			lag[nb] = units_mono_ms() - landed[nb];
			nb++;
		}
		usleep(2000);
	}
	refreshes1 = qint(w, "SELECT coalesce(sum(refresh_count), 0) FROM _sluice.live_state");
	{
		double secs = (double)(units_mono_ms() - start) / 1000.0;

		qsort(lag, (size_t)nbatches, sizeof(*lag), cmp64);
		int64_t p99 = lag[nbatches * 99 / 100];
		/* the writer's own pace: over the time it wrote, not the wait for
		 * the last batch to reach gold */
		double landed_rate =
			(double)nbatches * batch * 1000.0 / (double)(wrote_ms ? wrote_ms : 1);
		bool met = p99 <= p->cfg.live.debounce_ms + slack_ms && landed_rate >= 0.95 * rate;

		printf("chain at %d events/s in batches of %d for %.1f s: p50 lag %lld ms, p99 lag %lld "
		       "ms (target <= debounce %lld ms + %lld ms), %.1f refreshes/s, %.0f events/s "
		       "landed%s\n",
		       rate, batch, secs, (long long)lag[nbatches / 2], (long long)p99,
		       (long long)p->cfg.live.debounce_ms, (long long)slack_ms,
		       (double)(refreshes1 - refreshes0) / secs, landed_rate, met ? "" : "  MISSED");
	}
	live_thread_stop(t);
	wh_close(probe);
	wh_close(w);
	sqlparse_close(parser);
	arena_free(a);
	free(seq);
	free(landed);
	free(lag);
	return 0;
}
