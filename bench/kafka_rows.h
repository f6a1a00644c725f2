/*
 * The messages the Kafka landing benchmark lands, as kafka_mock's
 * sendmany makes them (message i of a partition: key PREFIX-i, value
 * {"i":i,"p":"PREFIX"}), for the baselines that write the same rows
 * without a broker.
 */
#ifndef SL_BENCH_KAFKA_ROWS_H
#define SL_BENCH_KAFKA_ROWS_H

#include <stddef.h>
#include <stdio.h>

static inline void kafka_bench_message(const char *prefix, long i, char *key, size_t nkey,
				       char *value, size_t nvalue)
{
	snprintf(key, nkey, "%s-%ld", prefix, i);
	snprintf(value, nvalue, "{\"i\":%ld,\"p\":\"%s\"}", i, prefix);
}

#endif
