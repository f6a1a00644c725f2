/*
 * This file implements a Kafka source's position as text (offsets.h).
 */
#include "kafka/offsets.h"

#include "core/buf.h"
#include "core/xalloc.h"

#include <errno.h>
#include <stdlib.h>

/* The place of partition in o, or where it would go. */
static size_t place(const struct kafka_offsets *o, int32_t partition)
{
	size_t i = 0;

	while (i < o->n && o->partition[i] < partition)
		i++;
	return i;
}

int64_t kafka_offsets_get(const struct kafka_offsets *o, int32_t partition)
{
	size_t i = place(o, partition);

	return i < o->n && o->partition[i] == partition ? o->next[i] : -1;
}

void kafka_offsets_set(struct kafka_offsets *o, int32_t partition, int64_t next)
{
	size_t i = place(o, partition);

	if (i < o->n && o->partition[i] == partition) {
		o->next[i] = next;
		return;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 8;
		o->partition = xreallocarray(o->partition, o->cap, sizeof(*o->partition));
		o->next = xreallocarray(o->next, o->cap, sizeof(*o->next));
	}
	for (size_t k = o->n; k > i; k--) {
		o->partition[k] = o->partition[k - 1];
		o->next[k] = o->next[k - 1];
	}
	o->partition[i] = partition;
	o->next[i] = next;
	o->n++;
}

void kafka_offsets_free(struct kafka_offsets *o)
{
	free(o->partition);
	free(o->next);
	*o = (struct kafka_offsets){ 0 };
}

bool kafka_offsets_parse(const char *text, struct kafka_offsets *o)
{
	const char *s = text ? text : "";

	*o = (struct kafka_offsets){ 0 };
	while (*s) {
		char *end;
		long long p, next;

		errno = 0;
		p = strtoll(s, &end, 10);
		if (end == s || *end != ':' || p < 0 || p > INT32_MAX || errno)
			goto bad;
		s = end + 1;
		next = strtoll(s, &end, 10);
		/* partitions ascending, each once */
		if (end == s || next < 0 || errno || (*end && *end != ',') ||
		    (o->n && o->partition[o->n - 1] >= (int32_t)p))
			goto bad;
		kafka_offsets_set(o, (int32_t)p, next);
		s = end;
		if (*s == ',' && !*++s)
			goto bad;
	}
	return true;
bad:
	kafka_offsets_free(o);
	return false;
}

void kafka_offsets_text(const struct kafka_offsets *o, struct buf *out)
{
	for (size_t i = 0; i < o->n; i++)
		buf_addf(out, "%s%d:%lld", i ? "," : "", (int)o->partition[i],
			 (long long)o->next[i]);
}
