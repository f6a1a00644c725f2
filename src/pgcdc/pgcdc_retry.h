/*
 * Trying a postgres_cdc consumer again after its run ended: what the
 * consumer threads of sluice serve and `sluice cdc` in the foreground
 * share. Each attempt resumes from what landed (pgcdc_run), so trying
 * again loses nothing and lands nothing twice; this keeps the count of
 * failures in a row, the last error, when the next attempt is due (1 s,
 * doubling to 60 s), what the attempts landed, and logs each failure and
 * recovery. The caller waits and serializes (a thread's lock).
 */
#ifndef SL_PGCDC_PGCDC_RETRY_H
#define SL_PGCDC_PGCDC_RETRY_H

#include "pgcdc/pgcdc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sl_err;

struct pgcdc_retry {
	const char *slot; /* named in the log */
	FILE *log;	  /* a line per failure and recovery (may be NULL) */
	int failures;	  /* in a row; 0 once streaming again */
	char last_error[512];
	int64_t next_attempt_ms; /* monotonic (units_mono_ms) */
	/* the attempt running, after failures: when it was first heard of
	 * (0: not yet), and its confirmed LSN then */
	int64_t heard_ms;
	uint64_t heard_confirmed;
	/* the attempts that ended: transactions, changes and skipped added
	 * up, the highest landed and confirmed LSNs, the snapshot's rows
	 * (-1 when none was taken) */
	struct pgcdc_stats total;
};

/* For the consumer of slot; log may be NULL. */
void pgcdc_retry_init(struct pgcdc_retry *r, const char *slot, FILE *log);

/* An attempt ended, stopped or not: what it landed (st) goes into total. */
void pgcdc_retry_ended(struct pgcdc_retry *r, const struct pgcdc_stats *st);

/* An attempt failed with rc and err (rc 0: the server ended the stream):
 * counts the failure, sets when the next attempt is due and logs it. */
void pgcdc_retry_failed(struct pgcdc_retry *r, int rc, const struct sl_err *err);

/* The attempt running streams, with the figures st as they stand, at
 * now_ms (units_mono_ms); landed: it just committed a landing. After
 * failures it counts from 0 again, and logs that it recovered, once the
 * attempt shows it really streams: it lands, confirms beyond where it
 * stood when first heard of, or has been heard of for 5 s. A keepalive
 * alone is not enough: a server that fails at a change sends one first
 * on every attempt, and the backoff would never grow. */
void pgcdc_retry_progress(struct pgcdc_retry *r, const struct pgcdc_stats *st, bool landed,
			  int64_t now_ms);

/* The wait before attempt failures + 1: 1 s doubling, at most 60 s. */
int64_t pgcdc_retry_backoff_ms(int failures);

/* Whether an attempt that failed with rc may succeed when tried again:
 * the source database unreachable, restarting or its connection lost
 * (SL_E_IO), the warehouse's connection lost (SL_E_CONN: the next attempt
 * opens a new session, and resumes from the LSN stored there), or a
 * stream the server ended (0). Not a setting (SL_E_CONFIG,
 * SL_E_USAGE), a publication or slot that is missing or cannot be
 * followed without a gap (SL_E_NOTFOUND, SL_E_INVALID: lost, read by
 * someone else), nor anything else the same attempt would meet again. */
bool pgcdc_retry_mends(int rc);

/* The code of an error the source database raised with sqlstate (NULL
 * when it gave none) on the replication stream: SL_E_INVALID for what the
 * server raises at the same change on every attempt (42704, an object
 * missing: a publication dropped), SL_E_IO for the rest, which a lock, a
 * restart or an administrator may mend. */
int pgcdc_retry_stream_code(const char *sqlstate);

#endif
