/*
 * This file implements the sources' status times: one form for poll,
 * Kafka and files sources alike, which the status document lists side by
 * side.
 */
#include "ingest/status_time.h"

#include "core/units.h"

json_t *ingest_status_time(int64_t ms)
{
	char out[40];

	if (!ms)
		return json_null();
	units_format_ts(ms, out, sizeof(out));
	out[19] = '\0'; /* to the second */
	return json_string(out);
}
