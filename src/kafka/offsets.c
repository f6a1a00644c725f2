/*
 * This file implements a Kafka source's position as text (offsets.h).
 */
#include "kafka/offsets.h"

#include "core/buf.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kafka's own limit on a topic's name (whose letters config.c checks). */
#define TOPIC_MAX 249

/* How (topic, partition) orders against entry i of o. */
static int cmp_at(const struct kafka_offsets *o, size_t i, const char *topic, int32_t partition)
{
	int c = strcmp(o->topic[i], topic);

	if (c)
		return c;
	return o->partition[i] < partition ? -1 : o->partition[i] > partition;
}

/* The place of (topic, partition) in o, or where it would go. */
static size_t place(const struct kafka_offsets *o, const char *topic, int32_t partition)
{
	size_t i = 0;

	while (i < o->n && cmp_at(o, i, topic, partition) < 0)
		i++;
	return i;
}

int64_t kafka_offsets_get(const struct kafka_offsets *o, const char *topic, int32_t partition)
{
	size_t i = place(o, topic, partition);

	return i < o->n && cmp_at(o, i, topic, partition) == 0 ? o->next[i] : -1;
}

void kafka_offsets_set(struct kafka_offsets *o, const char *topic, int32_t partition,
		       int64_t next)
{
	size_t i = place(o, topic, partition);

	if (i < o->n && cmp_at(o, i, topic, partition) == 0) {
		o->next[i] = next;
		return;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 8;
		o->topic = xreallocarray(o->topic, o->cap, sizeof(*o->topic));
		o->partition = xreallocarray(o->partition, o->cap, sizeof(*o->partition));
		o->next = xreallocarray(o->next, o->cap, sizeof(*o->next));
	}
	for (size_t k = o->n; k > i; k--) {
		o->topic[k] = o->topic[k - 1];
		o->partition[k] = o->partition[k - 1];
		o->next[k] = o->next[k - 1];
	}
	o->topic[i] = xstrdup(topic);
	o->partition[i] = partition;
	o->next[i] = next;
	o->n++;
}

void kafka_offsets_free(struct kafka_offsets *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->topic[i]);
	free(o->topic);
	free(o->partition);
	free(o->next);
	*o = (struct kafka_offsets){ 0 };
}

/* A number of the text at *s, up to the next ':', ',' or the end. */
static bool number(const char **s, long long max, long long *out)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return false;
	errno = 0;
	*out = strtoll(*s, &end, 10);
	if (errno || *out > max || (*end && *end != ':' && *end != ','))
		return false;
	*s = end;
	return true;
}

/* One entry, "TOPIC:PARTITION:NEXT" or "PARTITION:NEXT", ending at a ','
 * or the end; the topic's name is copied into name. */
static bool entry(const char **s, const char *topic, char *name, int32_t *partition,
		  int64_t *next)
{
	size_t len = strcspn(*s, ":,");
	const char *after = *s + len;
	long long p, n;

	/* a topic's name first when a second ':' follows before the ',' */
	if (*after == ':' && strcspn(after + 1, ":,") < strcspn(after + 1, ",")) {
		if (!len || len > TOPIC_MAX)
			return false;
		memcpy(name, *s, len);
		name[len] = '\0';
		*s = after + 1;
	} else if (topic) {
		snprintf(name, TOPIC_MAX + 1, "%s", topic);
	} else {
		return false;
	}
	if (!number(s, INT32_MAX, &p) || **s != ':')
		return false;
	(*s)++;
	if (!number(s, INT64_MAX, &n) || **s == ':')
		return false;
	*partition = (int32_t)p;
	*next = n;
	return true;
}

bool kafka_offsets_parse(const char *text, const char *topic, struct kafka_offsets *o)
{
	const char *s = text ? text : "";
	char name[TOPIC_MAX + 1];

	*o = (struct kafka_offsets){ 0 };
	while (*s) {
		int32_t partition;
		int64_t next;

		if (!entry(&s, topic, name, &partition, &next))
			goto bad;
		/* by topic and partition ascending, each once */
		if (o->n && cmp_at(o, o->n - 1, name, partition) >= 0)
			goto bad;
		kafka_offsets_set(o, name, partition, next);
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
		buf_addf(out, "%s%s:%d:%lld", i ? "," : "", o->topic[i], (int)o->partition[i],
			 (long long)o->next[i]);
}
