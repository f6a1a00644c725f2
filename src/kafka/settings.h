/*
 * A Kafka source's client settings: what sluice sets itself for every
 * consumer (no consumer group deciding anything, nothing committed to the
 * brokers, an offset out of range an error, the end of each partition
 * told), then the source's properties from sluice.yml, passed through to
 * librdkafka as written, their ${NAME} references read from the
 * environment. A property that would change one of sluice's own settings
 * is refused, saying why.
 */
#ifndef SL_KAFKA_SETTINGS_H
#define SL_KAFKA_SETTINGS_H

#include <librdkafka/rdkafka.h>

struct arena;
struct sl_err;
struct source_cfg;

/* src's settings into conf (scratch in a). SL_E_CONFIG, with the
 * property's line in sluice.yml as a context line, for a property sluice
 * sets itself, one librdkafka does not know or whose value it refuses
 * (the value shown as written: a secret read from the environment never
 * goes into a message), or a variable not set. */
int kafka_settings_apply(struct arena *a, const struct source_cfg *src, rd_kafka_conf_t *conf,
			 struct sl_err *err);

#endif
