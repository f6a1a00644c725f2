/*
 * `sluice kafka NAME [--once]`: one Kafka source's consumer in the
 * foreground, landing what its topics hold past the stored offsets, again
 * and again until SIGINT or SIGTERM; with --once, up to each partition's
 * end as found when it starts, then it exits. Like `sluice poll`, the loop
 * holds a DuckDB warehouse only while it lands; on a shared warehouse it
 * keeps its connection and, on it, the source's lock, and refuses to
 * start while another process holds that.
 */
#include "cli/commands.h"

#include "state/state.h"
#include "core/err.h"
#include "kafka/consumer.h"
#include "project/project.h"
#include "warehouse/wh.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* How long the loop rests after landing nothing. */
#define IDLE_MS 500

static volatile sig_atomic_t stopping;
static struct kafka_consumer *running;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
	if (running)
		kafka_consumer_cancel(running);
}

/* The landing in progress, through the writer cli_land gives it. */
struct landing {
	struct cli_session *s;
	struct kafka_consumer *c;
	struct kafka_result *res;
};

static int land_with(void *ctx, struct ingest_writer *wr, struct sl_err *err)
{
	struct landing *l = ctx;

	return kafka_land(l->c, l->s->wh, wr, l->res, err);
}

/* One landing on the open warehouse: a writer of its own for it. */
static int land_once(struct cli_session *s, struct kafka_consumer *c, struct kafka_result *res,
		     struct sl_err *err)
{
	struct landing l = { s, c, res };

	return cli_land(s, "kafka",
			"exiting so that it is reopened from what is on disk: the batch may or "
			"may not have landed, and its stored offsets say which",
			land_with, &l, err);
}

static void report(const char *name, int rc, const struct kafka_result *res,
		   const struct sl_err *err, bool quiet_when_idle)
{
	if (res->messages)
		printf("kafka %s: %lld message%s landed in %lld batch%s, last at sequence %lld; "
		       "offsets %s\n",
		       name, (long long)res->messages, res->messages == 1 ? "" : "s",
		       (long long)res->batches, res->batches == 1 ? "" : "es",
		       (long long)res->seq, res->offsets);
	else if (!rc && !quiet_when_idle)
		printf("kafka %s: nothing new; offsets %s\n", name,
		       *res->offsets ? res->offsets : "(none yet)");
	fflush(stdout);
	if (rc) {
		fprintf(stderr, "sluice: kafka %s failed: %s\n", name, err->msg);
		fflush(stderr);
	}
}

/* Takes the source's lock on the open warehouse unless held already
 * (0); another process's holding it is an error saying so. */
static int claim(struct cli_session *s, struct kafka_consumer *c, const char *name,
		 struct sl_err *err)
{
	bool got = false;
	int rc;

	if (kafka_consumer_locked(c, s->wh))
		return 0;
	rc = wh_lost(s->wh) ? wh_reconnect(s->wh, err) : 0;
	if (!rc)
		rc = kafka_consumer_lock(c, s->wh, &got, err);
	if (!rc && !got)
		rc = sl_err_set(err, SL_E_LOCKED,
				"another process consumes kafka source %s (sluice serve or sluice "
				"kafka, on this machine or another): one at a time does\n"
				"  hint: stop that one first, or leave the source to it",
				name);
	return rc;
}

/* --reset: the stored offsets moved on, said, and nothing landed. */
static int reset(struct cli_session *s, struct kafka_consumer *c, const char *name,
		 const char *to)
{
	struct sl_err err = SL_ERR_INIT;
	const char *stored = NULL;
	int rc = state_ensure(s->wh, &err);

	if (!rc)
		rc = kafka_reset(c, s->arena, s->wh, to, &stored, &err);
	if (rc) {
		cli_print_err(&err);
		return rc == SL_E_USAGE ? CLI_USAGE : CLI_FAILED;
	}
	printf("kafka %s: offsets set to %s; the next landing starts there\n", name, stored);
	return CLI_OK;
}

int cli_kafka(struct cli_args *args)
{
	struct cli_session s;
	const struct source_cfg *src;
	struct sl_err err = SL_ERR_INIT;
	struct kafka_result res;
	struct kafka_consumer *c = NULL;
	struct sigaction sa;
	int rc, last = 0;

	if (args->npos != 1 || (args->reset && args->once)) {
		fprintf(stderr, "usage: sluice kafka NAME [--once] | NAME --reset "
				"earliest|latest|TOPIC:PARTITION:OFFSET,...\n");
		return CLI_USAGE;
	}
	rc = cli_session_open(&s, args,
			      args->once || args->reset ? CLI_OPEN_WRITE : CLI_OPEN_NONE, true);
	if (rc)
		return rc;
	src = cli_find_source(&s.project->cfg, args->pos[0], "kafka",
			      "declare one under sources: with kind: kafka, brokers and a topic");
	if (!src || kafka_consumer_new(s.arena, src, s.project->cfg.ingest.flush_rows, &c, &err)) {
		if (src)
			cli_print_err(&err);
		cli_session_close(&s);
		return CLI_FAILED;
	}
	if (args->reset) {
		rc = reset(&s, c, src->name, args->reset);
		kafka_consumer_free(c);
		cli_session_close(&s);
		return rc;
	}
	running = c;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stopping) {
		if (!s.wh && cli_session_connect(&s, &err)) {
			/* another process holds the warehouse: look again soon */
			if (err.code != SL_E_LOCKED) {
				cli_print_err(&err);
				last = err.code;
				break;
			}
			sl_err_clear(&err);
			cli_nap(200, &stopping);
			continue;
		}
		sl_err_clear(&err);
		memset(&res, 0, sizeof(res));
		last = claim(&s, c, src->name, &err);
		if (last == SL_E_CONN) {
			report(src->name, last, &res, &err, true);
			cli_nap(IDLE_MS, &stopping);
			continue;
		}
		if (last) {
			cli_print_err(&err);
			break;
		}
		last = land_once(&s, c, &res, &err);
		if (!(stopping && last == SL_E_BUSY))
			report(src->name, last, &res, &err, !args->once);
		if (args->once)
			break;
		/* a DuckDB file is let go between landings, for other processes
		 * to open it; a shared warehouse's connection holds the lock */
		if (!wh_shared(s.wh)) {
			wh_close(s.wh);
			s.wh = NULL;
		}
		cli_nap(last || !res.messages ? IDLE_MS : 0, &stopping);
	}
	running = NULL;
	kafka_consumer_free(c);
	cli_session_close(&s);
	return last && (args->once || !stopping) ? CLI_FAILED : CLI_OK;
}
