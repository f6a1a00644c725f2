/*
 * Reading `GET /api/live/status` in the tools that drive a server (the
 * load generator, the CDC latency benchmark): one model's covered
 * sequence.
 */
#ifndef SL_TOOLS_LIVE_STATUS_H
#define SL_TOOLS_LIVE_STATUS_H

#include <jansson.h>
#include <stdint.h>
#include <string.h>

/* The model's covered sequence in a status document, or -1. */
static inline int64_t covered_of(const char *text, const char *model)
{
	json_t *doc = json_loads(text, 0, NULL), *m;
	int64_t covered = -1;
	size_t i;

	json_array_foreach(json_object_get(doc, "models"), i, m)
		if (json_is_string(json_object_get(m, "model")) &&
		    strcmp(json_string_value(json_object_get(m, "model")), model) == 0 &&
		    json_is_integer(json_object_get(m, "covered")))
			covered = json_integer_value(json_object_get(m, "covered"));
	json_decref(doc);
	return covered;
}

#endif
