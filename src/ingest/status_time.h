/*
 * A time as every source's status shows it: UTC to the second
 * ("YYYY-MM-DD HH:MM:SS"), JSON null for none.
 */
#ifndef SL_INGEST_STATUS_TIME_H
#define SL_INGEST_STATUS_TIME_H

#include <jansson.h>
#include <stdint.h>

/* ms since the epoch, or 0 for none. */
json_t *ingest_status_time(int64_t ms);

#endif
