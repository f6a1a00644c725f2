/*
 * How a files source's file is read: its format (the source's file_ending,
 * else the file's own ending, a compression ending such as .gz aside) and
 * the source's options for DuckDB's reader of that format. Pure.
 */
#ifndef SL_FILES_READER_H
#define SL_FILES_READER_H

#include "warehouse/wh.h"

struct arena;
struct files_entry;
struct sl_err;
struct source_cfg;

/* out describes how to read e for src: typed columns, payload and options;
 * its values are the writer's to set. A file whose format cannot be told
 * is SL_E_INVALID, naming it. Strings in a, or src's. */
int files_reader(struct arena *a, const struct source_cfg *src, const struct files_entry *e,
		 struct wh_file_read *out, struct sl_err *err);

#endif
