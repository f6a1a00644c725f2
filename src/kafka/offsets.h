/*
 * A Kafka source's position: for each partition of each of its topics,
 * the offset of the next message to land. It is the source's cursor
 * (live/advance.h), stored in the warehouse transaction that lands the
 * messages before it, so that the position never runs ahead of, nor falls
 * behind, what landed. As text: "TOPIC:PARTITION:NEXT" triples joined by
 * commas, by topic then partition ascending ("clicks:0:12,clicks:1:40").
 * Kafka's topic names hold neither ':' nor ','. Text stored before
 * sources had topic lists, "PARTITION:NEXT" pairs, is read as one topic's.
 * Pure functions.
 */
#ifndef SL_KAFKA_OFFSETS_H
#define SL_KAFKA_OFFSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;

struct kafka_offsets {
	char **topic; /* each its own copy, freed with the offsets */
	int32_t *partition;
	int64_t *next;
	size_t n, cap;
};

/* The next offset stored for the partition of topic, or -1 when none is. */
int64_t kafka_offsets_get(const struct kafka_offsets *o, const char *topic, int32_t partition);
/* Sets the partition's next offset, adding the partition in its place. */
void kafka_offsets_set(struct kafka_offsets *o, const char *topic, int32_t partition,
		       int64_t next);
void kafka_offsets_free(struct kafka_offsets *o);

/* Reads text (NULL or "": no partition yet); pairs without a topic are
 * topic's (NULL: they are refused). false when it is not what
 * kafka_offsets_text writes, nor such pairs, and o is then empty. */
bool kafka_offsets_parse(const char *text, const char *topic, struct kafka_offsets *o);
/* Appends the text of o to out. */
void kafka_offsets_text(const struct kafka_offsets *o, struct buf *out);

#endif
