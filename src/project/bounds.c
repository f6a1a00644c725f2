/*
 * This file implements the boundary columns of each source kind. The
 * landing columns it names are the ones src/live/advance.c makes for the
 * kind; a kind that lands none for a mode refuses the mode here, so that
 * validation says so before any replay needs it.
 */
#include "project/bounds.h"

#include <string.h>

/* The mode a kind gets when its source declares none. */
static const char *default_mode(const char *kind)
{
	if (strcmp(kind, "kafka") == 0 || strcmp(kind, "postgres_cdc") == 0)
		return "offsets";
	if (strcmp(kind, "adopted") == 0)
		return "cursor";
	return "landed_at";
}

static const char *kafka_bounds(const char *mode, struct source_bounds *b)
{
	if (strcmp(mode, "offsets") == 0) {
		b->part_of = "_sluice_topic";
		b->part = "_sluice_partition";
		b->value = "_sluice_offset";
		b->time = "_sluice_event_ts";
	} else if (strcmp(mode, "timestamp") == 0) {
		b->value = b->time = "_sluice_event_ts";
	} else if (strcmp(mode, "landed_at") == 0) {
		b->value = b->time = "_sluice_landed_at";
	} else {
		return "a kafka source has no cursor column: its modes are offsets, timestamp and "
		       "landed_at";
	}
	return NULL;
}

static const char *cdc_bounds(const char *mode, struct source_bounds *b)
{
	if (strcmp(mode, "offsets") == 0) {
		b->value = "lsn";
		b->time = "received_at";
	} else if (strcmp(mode, "landed_at") == 0) {
		b->value = b->time = "received_at";
	} else {
		return "a postgres_cdc source lands an LSN and a time received: its modes are "
		       "offsets and landed_at";
	}
	return NULL;
}

/* An adopted table carries no sequence of sluice's; in offsets mode its
 * positions are the columns a connector writing it names. */
static const char *adopted_bounds(const struct source_cfg *s, const char *mode,
				  struct source_bounds *b)
{
	b->seq = NULL;
	if (strcmp(mode, "cursor") == 0) {
		b->value = s->cursor;
		b->time = s->event_time;
	} else if (strcmp(mode, "timestamp") == 0 && s->event_time) {
		b->value = b->time = s->event_time;
	} else if (strcmp(mode, "offsets") == 0 && s->partition_column && s->offset_column) {
		b->part = s->partition_column;
		b->value = s->offset_column;
		b->time = s->event_time;
	} else if (strcmp(mode, "offsets") == 0) {
		return "mode offsets reads a position from two columns of the table: declare "
		       "partition_column and offset_column";
	} else {
		return "an adopted source is followed by its cursor: its modes are cursor, "
		       "timestamp with event_time, and offsets with partition_column and "
		       "offset_column";
	}
	return NULL;
}

/* webhook, poll and the kinds that land their rows as they arrive */
static const char *arrival_bounds(const struct source_cfg *s, const char *mode,
				  struct source_bounds *b)
{
	if (strcmp(mode, "landed_at") == 0) {
		b->value = b->time = "_sluice_landed_at";
	} else if (strcmp(mode, "timestamp") == 0 && s->event_time) {
		b->value = b->time = s->event_time;
	} else {
		return strcmp(mode, "timestamp") == 0
			       ? "mode timestamp cuts on the source's event_time, which it does "
				 "not declare"
			       : "its rows have no offsets or cursor: its modes are landed_at, and "
				 "timestamp with event_time";
	}
	return NULL;
}

const char *source_bounds_of(const struct source_cfg *s, struct source_bounds *out)
{
	const char *kind = s->kind ? s->kind : "webhook";

	*out = (struct source_bounds){ .mode = s->boundary ? s->boundary : default_mode(kind),
				       .seq = "_sluice_seq" };
	if (strcmp(kind, "kafka") == 0)
		return kafka_bounds(out->mode, out);
	if (strcmp(kind, "postgres_cdc") == 0)
		return cdc_bounds(out->mode, out);
	if (strcmp(kind, "adopted") == 0)
		return adopted_bounds(s, out->mode, out);
	return arrival_bounds(s, out->mode, out);
}
