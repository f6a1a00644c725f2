/*
 * This file implements a Kafka source's client settings (settings.h). It
 * must never put a value read from the environment into a message.
 */
#include "kafka/settings.h"

#include "core/arena.h"
#include "core/envref.h"
#include "core/err.h"
#include "project/config.h"

#include <stdio.h>
#include <string.h>

/* What the consumer sets itself for every source, and why no property
 * may change it (value NULL: set by no one, refused all the same: a name
 * of the same setting, or one only a consumer group reads). */
static const struct {
	const char *name, *value, *why;
} owned[] = {
	{ "group.id", "sluice",
	  "no consumer group decides anything: the warehouse keeps the offsets" },
	{ "group.instance.id", NULL,
	  "no consumer group decides anything: the warehouse keeps the offsets" },
	{ "partition.assignment.strategy", NULL,
	  "every partition is assigned by sluice itself, at its stored offset" },
	{ "enable.auto.commit", "false",
	  "nothing is committed to the brokers: the offsets are stored with the messages" },
	{ "auto.commit.enable", NULL,
	  "nothing is committed to the brokers: the offsets are stored with the messages" },
	{ "enable.auto.offset.store", "false",
	  "nothing is committed to the brokers: the offsets are stored with the messages" },
	{ "offset.store.method", NULL,
	  "nothing is committed to the brokers: the offsets are stored with the messages" },
	{ "enable.partition.eof", "true",
	  "a landing ends at each partition's end as found when it started" },
	{ "auto.offset.reset", "error",
	  "an offset the brokers no longer hold is an error naming what is lost, never a jump" },
	{ "bootstrap.servers", NULL, "the source's brokers: set them with brokers:" },
	{ "metadata.broker.list", NULL, "the source's brokers: set them with brokers:" },
};

/* librdkafka's complaint about a property, a value read from the
 * environment put back as written: a secret never goes into a message. */
static const char *complaint(struct arena *a, const char *errstr, const char *value,
			     const char *written)
{
	const char *at = *value && strcmp(value, written) ? strstr(errstr, value) : NULL;

	if (!at)
		return arena_strdup(a, errstr);
	return arena_sprintf(a, "%.*s%s%s", (int)(at - errstr), errstr, written,
			     at + strlen(value));
}

/* One property of sluice.yml into conf: refused when sluice owns it or
 * librdkafka does not take it, with the property's line. */
static int property_set(struct arena *a, const struct source_cfg *src,
			const struct cfg_setting *set, rd_kafka_conf_t *conf, struct sl_err *err)
{
	const char *what = arena_sprintf(a, "property '%s' of source %s", set->name, src->name);
	const char *value;
	char errstr[512];
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(owned) / sizeof(*owned); i++)
		if (strcmp(set->name, owned[i].name) == 0)
			rc = sl_err_set(err, SL_E_CONFIG, "%s is sluice's to set: %s", what,
					owned[i].why);
	if (!rc)
		rc = envref_expand(a, set->value, what, &value, err);
	if (!rc && rd_kafka_conf_set(conf, set->name, value, errstr, sizeof(errstr)) !=
			   RD_KAFKA_CONF_OK)
		rc = sl_err_set(err, SL_E_CONFIG, "%s: %s", what,
				complaint(a, errstr, value, set->value));
	if (rc)
		sl_err_context(err, "in sluice.yml:%d", set->line);
	return rc;
}

int kafka_settings_apply(struct arena *a, const struct source_cfg *src, rd_kafka_conf_t *conf,
			 struct sl_err *err)
{
	char errstr[512];
	int rc = 0;

	/* a default a property may change: brokers tell clients apart by it */
	if (rd_kafka_conf_set(conf, "client.id", "sluice", errstr, sizeof(errstr)) ||
	    rd_kafka_conf_set(conf, "bootstrap.servers", src->brokers, errstr, sizeof(errstr)))
		return sl_err_set(err, SL_E_CONFIG, "source %s: %s", src->name, errstr);
	for (size_t i = 0; i < sizeof(owned) / sizeof(*owned); i++)
		if (owned[i].value && rd_kafka_conf_set(conf, owned[i].name, owned[i].value, errstr,
							sizeof(errstr)) != RD_KAFKA_CONF_OK)
			return sl_err_set(err, SL_E_CONFIG, "source %s: %s", src->name, errstr);
	for (size_t i = 0; !rc && i < src->nproperties; i++)
		rc = property_set(a, src, &src->properties[i], conf, err);
	return rc;
}

