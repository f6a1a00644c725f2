/*
 * The landing writer's part of a batch that is a data file
 * (ingest_batch.file): whether the files ledger has it, and its rows and
 * its ledger row, in the writer's transaction. Only writer.c calls it.
 */
#ifndef SL_INGEST_LANDFILE_H
#define SL_INGEST_LANDFILE_H

#include <stdbool.h>
#include <stdint.h>

struct ingest_file;
struct ingest_result;
struct sl_err;
struct wh;

/* Whether source ("landing.NAME") landed the file before: res then gets
 * duplicate and that landing's sequence and rows. */
int ingest_file_find(struct wh *w, const char *source, const struct ingest_file *f,
		     struct ingest_result *res, struct sl_err *err);

/* Appends the file's rows to source with seq and now (a UTC timestamp's
 * text), and records it in the ledger; *rows gets how many. */
int ingest_file_land(struct wh *w, const char *source, const struct ingest_file *f,
		     int64_t seq, const char *now, int64_t *rows, struct sl_err *err);

#endif
