/*
 * The single writer of landing tables. Ingest paths (webhook requests,
 * pollers) submit batches of rows from any thread; one thread owns the
 * write connection and group-commits them: every batch waiting when a flush
 * starts is appended, stamped with its landing table's next sequence and
 * announced, in one transaction. A batch's completion callback runs only
 * after that transaction committed, so an acknowledged batch is durable,
 * and a batch that fails lands nothing. A lost connection fails the
 * batches of the flush that met it with SL_E_CONN (for the sender to
 * retry) unless its commit had gone through, which the writer asks the
 * warehouse on a new session before it answers; a writer stopped before it
 * could ask is in doubt, as below. A failure that leaves the
 * warehouse in doubt (wh_suspect) is answered to no one: whether that
 * transaction reached the disk is unknown, and only a process that opens
 * the warehouse again can tell.
 */
#ifndef SL_INGEST_WRITER_H
#define SL_INGEST_WRITER_H

#include "live/advance.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct sl_err;
struct wh;
struct wh_file_read;

/* A data file a batch lands whole (ingest_batch.file). */
struct ingest_file {
	const struct wh_file_read *read; /* how the warehouse reads it (its values are
					  * the writer's: _sluice_file, the landing
					  * time and the sequence) */
	const char *path;   /* _sluice_file, and the ledger's name of it */
	const char *sha256; /* its content's, in hex */
	int64_t size;
};

/* One submission's rows for one landing table. The memory stays the
 * submitter's and must stay valid until its callback ran. */
struct ingest_batch {
	const char *source;        /* "landing.NAME" */
	const char *const *names;  /* the ncols columns the values are for */
	size_t ncols, nrows;
	const char *const *cells;  /* nrows * ncols, row-major, NULL for SQL NULL */
	const char *delivery;      /* optional id: a batch whose id already landed
				    * lands nothing and gets the first one's answer */
	const char *cursor;        /* optional: the source's new cursor (live_cursor_set),
				    * stored in the transaction that lands the rows;
				    * a batch without rows stores nothing */
	const struct ingest_file *file; /* optional, instead of cells (ncols and nrows
					 * 0): the rows are the file's, and the file
					 * is recorded in the files ledger
					 * (state/files.h) in their transaction, rows
					 * or none; one on record already lands
					 * nothing (duplicate, with the first
					 * landing's sequence and rows) */
	const char *cursor_from;   /* optional: the stored cursor the rows were read
				    * after ("" for none). The batch lands only while
				    * it is still the one stored (or the cursor of the
				    * batch before it in the same flush), compared
				    * under the landing table's lock; else it fails
				    * with SL_E_BUSY: another process landed meanwhile */
};

struct ingest_result {
	int code;           /* 0, or the SL_E_* that failed it */
	bool bad_input;     /* the rows themselves were refused (a value the column
			     * type does not take): the sender's fault */
	bool duplicate;     /* its delivery id had landed before */
	int64_t seq, rows;  /* the sequence its rows got, and how many */
	char error[512];
};

typedef void (*ingest_done_fn)(void *ctx, const struct ingest_result *res);
/* After each commit, once per landing table it advanced (the writer's
 * thread): the place to wake the live runner. */
typedef void (*ingest_advanced_fn)(void *ctx, const char *source, const struct live_advance *adv);

/* The warehouse failed a write and is in doubt (SL_E_SUSPECT, err says
 * what failed); called once, on the writer's thread. */
typedef void (*ingest_suspect_fn)(void *ctx, const struct sl_err *err);

struct ingest_opts {
	struct arena *arena;       /* the parent of the writer's (may be NULL) */
	int64_t flush_interval_ms; /* longest a batch waits for company */
	int64_t flush_rows;        /* flush at once when this many rows wait */
	int64_t max_rows;          /* refuse submissions beyond this many waiting rows */
	ingest_advanced_fn advanced;
	/* From a failure that leaves the warehouse in doubt on, the writer
	 * answers none of the batches of the flush that met it, nor those
	 * queued, tries none of them again, and refuses submissions. The
	 * process should then exit without closing the warehouse (the server
	 * _exits with SL_EXIT_SUSPECT), and the senders retry against the next
	 * one, which finds what reached the disk. A writer whose callback
	 * returns waits to be stopped, and drops the unanswered batches then.
	 * May be NULL. */
	ingest_suspect_fn suspect;
	void *ctx;
};

struct ingest_writer;

/* Starts the writer thread on w, which it owns from now on and closes when
 * stopped. */
int ingest_writer_start(struct wh *w, const struct ingest_opts *opts, struct ingest_writer **out,
			struct sl_err *err);
/* Queues a batch; done(ctx, result) is called once, on the writer's thread,
 * after its transaction ended, or never when the warehouse failed in doubt
 * first (ingest_opts.suspect). SL_E_BUSY when too many rows wait, the
 * writer is stopping or the warehouse is in doubt (nothing queued, done
 * not called). */
int ingest_submit(struct ingest_writer *wr, const struct ingest_batch *b, ingest_done_fn done,
		  void *ctx, struct sl_err *err);
/* Submits and waits for the result (for callers with a thread to spare);
 * waits for good on a batch that the warehouse's failure left unanswered,
 * which ingest_opts.suspect ends by ending the process. */
int ingest_submit_wait(struct ingest_writer *wr, const struct ingest_batch *b,
		       struct ingest_result *res, struct sl_err *err);
/* Whether the writer's connection to the warehouse is lost: from the
 * flush that met the loss until the writer opened a new one (it tries
 * every 100 ms, within the connection's backoff), submissions fail with
 * SL_E_CONN, and why gets the loss's message. Any thread. */
bool ingest_writer_down(struct ingest_writer *wr, char *why, size_t n);
/* Refuses new batches, commits every accepted one, joins the thread and
 * closes the connection. */
void ingest_writer_stop(struct ingest_writer *wr);

#endif
