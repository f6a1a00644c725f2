/*
 * This file implements the JSON of profiles and anomalies. It must never
 * read the warehouse: it shows what it is given.
 */
#include "exec/profile_json.h"

#include "core/units.h"
#include "state/profiles.h"

#include <jansson.h>
#include <math.h>

/* A whole number as an integer (a row count, a band of them), else a
 * real. */
static json_t *number(double v)
{
	if (v == round(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *profile_anomaly_json(const struct state_anomaly *an)
{
	json_t *o = json_object();

	json_object_set_new(o, "metric", json_string(an->metric));
	json_object_set_new(o, "column", str_or_null(an->column));
	json_object_set_new(o, "value", number(an->observed));
	json_object_set_new(o, "median", number(an->median));
	json_object_set_new(o, "low", number(an->low));
	json_object_set_new(o, "high", number(an->high));
	json_object_set_new(o, "history", json_integer(an->history));
	json_object_set_new(o, "level", json_string(an->error ? "error" : "warn"));
	return o;
}

const char *profile_status(const struct state_profile *p)
{
	return !p->kept ? "rejected" : p->nanomalies ? "warned" : "ok";
}

static json_t *column_json(const struct state_profile *p, const struct state_profile_column *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(c->name));
	json_object_set_new(o, "type", str_or_null(c->type));
	json_object_set_new(o, "nulls", json_integer(c->nulls));
	json_object_set_new(o, "null_rate",
			    p->rows ? number((double)c->nulls / (double)p->rows) : json_null());
	json_object_set_new(o, "min", str_or_null(c->min));
	json_object_set_new(o, "max", str_or_null(c->max));
	json_object_set_new(o, "distinct", c->distinct >= 0 ? json_integer(c->distinct)
							    : json_null());
	return o;
}

json_t *profile_json(const struct state_profile *p)
{
	json_t *o = json_object(), *cols = json_array(), *ans = json_array();
	char at[32];

	units_format_ts(p->taken_ms, at, sizeof(at));
	json_object_set_new(o, "id", json_integer(p->id));
	json_object_set_new(o, "taken_at", json_string(at));
	json_object_set_new(o, "kind", json_string(state_profile_kind_name(p->kind)));
	json_object_set_new(o, "run_id", p->run_id ? json_integer(p->run_id) : json_null());
	json_object_set_new(o, "refresh_count",
			    p->refresh_count >= 0 ? json_integer(p->refresh_count) : json_null());
	json_object_set_new(o, "status", json_string(profile_status(p)));
	json_object_set_new(o, "rows", json_integer(p->rows));
	for (size_t i = 0; i < p->ncols; i++)
		json_array_append_new(cols, column_json(p, &p->cols[i]));
	for (size_t i = 0; i < p->nanomalies; i++)
		json_array_append_new(ans, profile_anomaly_json(&p->anomalies[i]));
	json_object_set_new(o, "columns", cols);
	json_object_set_new(o, "anomalies", ans);
	return o;
}
