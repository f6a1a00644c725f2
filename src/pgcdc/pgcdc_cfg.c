/*
 * A slot's consumer settings from the project's sources: every
 * postgres_cdc source that names the slot, with the connection string its
 * dsn_env holds.
 */
#include "pgcdc/pgcdc.h"

#include "core/arena.h"
#include "core/err.h"
#include "live/gate.h"
#include "project/config.h"
#include "project/inputs.h"
#include "project/project.h"

#include <stdlib.h>
#include <string.h>

static int by_landing(const void *a, const void *b)
{
	return strcmp(((const struct pgcdc_table *)a)->landing,
		      ((const struct pgcdc_table *)b)->landing);
}

int pgcdc_cfg_of(struct arena *a, const struct project *p, const struct source_cfg *src,
		 struct pgcdc_cfg *out, struct sl_err *err)
{
	const struct project_cfg *cfg = &p->cfg;
	struct pgcdc_table *tables = arena_alloc(a, (cfg->nsources + 1) * sizeof(*tables));
	const char *dsn = getenv(src->dsn_env);
	size_t n = 0;

	if (!dsn || !*dsn)
		return sl_err_set(err, SL_E_CONFIG,
				  "environment variable %s is not set (sources.%s.dsn_env names it)\n"
				  "  hint: export %s='host=... dbname=...', the source database's "
				  "connection string",
				  src->dsn_env, src->name, src->dsn_env);
	for (size_t i = 0; i < cfg->nsources; i++) {
		const struct source_cfg *s = &cfg->sources[i];
		char landing[256];

		if (!pgcdc_source(s) || strcmp(s->slot, src->slot))
			continue;
		inputs_source_table(s, landing, sizeof(landing));
		tables[n].source = s->table;
		tables[n].full_identity = s->replica_identity != NULL;
		tables[n].setting = arena_sprintf(a, "sources.%s", s->name);
		tables[n++].landing = arena_strdup(a, landing);
	}
	qsort(tables, n, sizeof(*tables), by_landing);
	*out = (struct pgcdc_cfg){
		.slot = src->slot,
		.publication = src->publication,
		.dsn = dsn,
		.setting = arena_sprintf(a, "sources.%s", src->name),
		.name = src->name,
		.create = src->create,
		.snapshot = !src->snapshot || strcmp(src->snapshot, "never") != 0,
		.status_interval_ms = src->status_interval_ms > 0 ? src->status_interval_ms : 10000,
		.gate = live_gate_wanted(a, p, src->slot),
		.tables = tables,
		.ntables = n,
	};
	return 0;
}

bool pgcdc_source(const struct source_cfg *s)
{
	return s->kind && strcmp(s->kind, "postgres_cdc") == 0;
}

bool pgcdc_first_of_slot(const struct project_cfg *cfg, size_t i)
{
	const struct source_cfg *s = &cfg->sources[i];

	if (!pgcdc_source(s))
		return false;
	for (size_t k = 0; k < i; k++)
		if (pgcdc_source(&cfg->sources[k]) && strcmp(cfg->sources[k].slot, s->slot) == 0)
			return false;
	return true;
}
