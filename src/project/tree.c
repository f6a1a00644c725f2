/*
 * This file implements the shared reading of parse trees (tree.h). It
 * must never decide what a query means: its readers do.
 */
#include "project/tree.h"

#include "warehouse/sqlparse.h"

#include <string.h>
#include <strings.h>

void tree_text_init(struct tree_text *t, const char *text)
{
	t->text = text;
	t->len = strlen(text);
}

const char *tree_str(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : "";
}

bool tree_is(json_t *obj, const char *key, const char *value)
{
	return strcmp(tree_str(obj, key), value) == 0;
}

bool tree_present(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return v && !json_is_null(v);
}

/* A node's own place in the text, or -1 ("none" is 2^64-1 in the tree). */
long tree_location(const struct tree_text *t, json_t *node)
{
	json_t *loc = json_object_get(node, "query_location");

	if (!json_is_number(loc) || json_number_value(loc) < 0 ||
	    json_number_value(loc) >= (double)t->len)
		return -1;
	return (long)json_number_value(loc);
}

/* The first place in the text of anything under j, or -1: an operator's
 * node sits at the operator, its left operand before it. */
long tree_first_location(const struct tree_text *t, json_t *j)
{
	long best = json_is_object(j) ? tree_location(t, j) : -1, l;
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if ((l = tree_first_location(t, v)) >= 0 && (best < 0 || l < best))
				best = l;
	} else if (json_is_object(j)) {
		json_object_foreach(j, key, v)
			if ((l = tree_first_location(t, v)) >= 0 && (best < 0 || l < best))
				best = l;
	}
	return best;
}

/* Functions whose value changes from one run to the next: a refresh would
 * give the changed rows other values than the rows kept. */
bool tree_is_volatile(const char *name)
{
	static const char *const names[] = {
		"random", "setseed", "uuid", "gen_random_uuid", "uuidv4", "uuidv7", "now",
		"current_timestamp", "current_date", "current_time", "current_localtimestamp",
		"localtimestamp", "localtime", "get_current_timestamp", "get_current_time",
		"transaction_timestamp", "statement_timestamp", "clock_timestamp", "timeofday",
		"today", "nextval", "currval", NULL,
	};

	for (size_t i = 0; names[i]; i++)
		if (strcasecmp(name, names[i]) == 0)
			return true;
	/* and what the warehouse's catalog calls VOLATILE */
	return sqlparse_volatile(name);
}

/* CURRENT_TIMESTAMP and its kin, which the parser reads as column names. */
bool tree_is_volatile_keyword(json_t *colref)
{
	static const char *const names[] = { "current_timestamp", "current_date", "current_time",
					      "localtimestamp", "localtime", NULL };
	json_t *parts = json_object_get(colref, "column_names");

	if (json_array_size(parts) != 1)
		return false;
	for (size_t i = 0; names[i]; i++)
		if (strcasecmp(json_string_value(json_array_get(parts, 0)), names[i]) == 0)
			return true;
	return false;
}

/* The name a column reference ends with: the column, whatever qualifies it. */
const char *tree_column_name(json_t *colref)
{
	json_t *parts = json_object_get(colref, "column_names");
	json_t *last = json_array_get(parts, json_array_size(parts) - 1);

	return json_is_string(last) ? json_string_value(last) : "";
}

bool tree_holds(json_t *j, enum tree_seen (*see)(json_t *node, const void *ctx), const void *ctx)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (tree_holds(v, see, ctx))
				return true;
		return false;
	}
	if (!json_is_object(j))
		return false;
	switch (see(j, ctx)) {
	case TREE_FOUND:
		return true;
	case TREE_SKIP:
		return false;
	case TREE_GO_ON:
		break;
	}
	json_object_foreach(j, key, v)
		if (tree_holds(v, see, ctx))
			return true;
	return false;
}

const char *tree_output_name(json_t *e)
{
	json_t *parts = json_object_get(e, "column_names");
	const char *last = json_string_value(json_array_get(parts, json_array_size(parts) - 1));

	if (*tree_str(e, "alias"))
		return tree_str(e, "alias");
	if (tree_is(e, "class", "STAR"))
		return "*";
	if (tree_is(e, "class", "COLUMN_REF") && last)
		return last;
	if (*tree_str(e, "function_name"))
		return tree_str(e, "function_name");
	return "?column?";
}
