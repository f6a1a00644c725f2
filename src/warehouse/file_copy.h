/*
 * A data file landed on a warehouse that reads no files itself: read by
 * DuckDB's readers (file_read.h) in a DuckDB of its own in memory, its rows
 * then sent through the warehouse's appender. Private to src/warehouse/.
 */
#ifndef SL_WAREHOUSE_FILE_COPY_H
#define SL_WAREHOUSE_FILE_COPY_H

#include <stdint.h>

struct sl_err;
struct wh;
struct wh_file_read;

/* wh_file_land for such a warehouse. The file's rows are held in memory
 * as text while they are sent. */
int file_copy_land(struct wh *w, const char *schema, const char *table,
		   const struct wh_file_read *rd, int64_t *rows, struct sl_err *err);

#endif
