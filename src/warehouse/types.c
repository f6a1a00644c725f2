/*
 * DuckDB's type names, as duckdb_types() lists them, with what values each
 * takes.
 */
#include "warehouse/types.h"

#include "core/arena.h"
#include "core/err.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Bounds as text: comparing digit strings needs no 128-bit arithmetic. */
#define I8 "-128", "127"
#define I16 "-32768", "32767"
#define I32 "-2147483648", "2147483647"
#define I64 "-9223372036854775808", "9223372036854775807"
#define I128 "-170141183460469231731687303715884105728", "170141183460469231731687303715884105727"
#define U8 "0", "255"
#define U16 "0", "65535"
#define U32 "0", "4294967295"
#define U64 "0", "18446744073709551615"
#define U128 "0", "340282366920938463463374607431768211455"
/* DuckDB's DECIMAL without parameters */
#define DECIMAL_DEFAULT_PRECISION 18
#define DECIMAL_DEFAULT_SCALE 3
#define DECIMAL_MAX_PRECISION 38

/* The names and aliases DuckDB 1.4 lists in duckdb_types() for the types
 * checked here; any other name is handled as text. */
static const struct type_name {
	const char *name;
	enum wh_value_kind kind;
	const char *min, *max;
} type_names[] = {
	{ "TINYINT", WH_VALUE_INT, I8 },
	{ "INT1", WH_VALUE_INT, I8 },
	{ "SMALLINT", WH_VALUE_INT, I16 },
	{ "INT2", WH_VALUE_INT, I16 },
	{ "INT16", WH_VALUE_INT, I16 },
	{ "SHORT", WH_VALUE_INT, I16 },
	{ "INTEGER", WH_VALUE_INT, I32 },
	{ "INT", WH_VALUE_INT, I32 },
	{ "INT4", WH_VALUE_INT, I32 },
	{ "INT32", WH_VALUE_INT, I32 },
	{ "SIGNED", WH_VALUE_INT, I32 },
	{ "INTEGRAL", WH_VALUE_INT, I32 },
	{ "BIGINT", WH_VALUE_INT, I64 },
	{ "INT8", WH_VALUE_INT, I64 },
	{ "INT64", WH_VALUE_INT, I64 },
	{ "LONG", WH_VALUE_INT, I64 },
	{ "OID", WH_VALUE_INT, I64 },
	{ "HUGEINT", WH_VALUE_INT, I128 },
	{ "INT128", WH_VALUE_INT, I128 },
	{ "UTINYINT", WH_VALUE_INT, U8 },
	{ "UINT8", WH_VALUE_INT, U8 },
	{ "USMALLINT", WH_VALUE_INT, U16 },
	{ "UINT16", WH_VALUE_INT, U16 },
	{ "UINTEGER", WH_VALUE_INT, U32 },
	{ "UINT32", WH_VALUE_INT, U32 },
	{ "UBIGINT", WH_VALUE_INT, U64 },
	{ "UINT64", WH_VALUE_INT, U64 },
	{ "UHUGEINT", WH_VALUE_INT, U128 },
	{ "UINT128", WH_VALUE_INT, U128 },
	{ "FLOAT", WH_VALUE_FLOAT },
	{ "FLOAT4", WH_VALUE_FLOAT },
	{ "REAL", WH_VALUE_FLOAT },
	{ "DOUBLE", WH_VALUE_DOUBLE },
	{ "FLOAT8", WH_VALUE_DOUBLE },
	{ "DOUBLE PRECISION", WH_VALUE_DOUBLE },
	{ "DECIMAL", WH_VALUE_DECIMAL },
	{ "DEC", WH_VALUE_DECIMAL },
	{ "NUMERIC", WH_VALUE_DECIMAL },
	{ "BOOLEAN", WH_VALUE_BOOL },
	{ "BOOL", WH_VALUE_BOOL },
	{ "LOGICAL", WH_VALUE_BOOL },
	{ "DATE", WH_VALUE_DATE },
	{ "TIME", WH_VALUE_TIME },
	{ "TIME_NS", WH_VALUE_TIME },
	{ "TIME WITHOUT TIME ZONE", WH_VALUE_TIME },
	{ "TIMETZ", WH_VALUE_TIMETZ },
	{ "TIME WITH TIME ZONE", WH_VALUE_TIMETZ },
	{ "TIMESTAMP", WH_VALUE_TIMESTAMP },
	{ "DATETIME", WH_VALUE_TIMESTAMP },
	{ "TIMESTAMP_S", WH_VALUE_TIMESTAMP },
	{ "TIMESTAMP_MS", WH_VALUE_TIMESTAMP },
	{ "TIMESTAMP_US", WH_VALUE_TIMESTAMP },
	{ "TIMESTAMP_NS", WH_VALUE_TIMESTAMP },
	{ "TIMESTAMP WITHOUT TIME ZONE", WH_VALUE_TIMESTAMP },
	{ "TIMESTAMPTZ", WH_VALUE_TIMESTAMPTZ },
	{ "TIMESTAMP WITH TIME ZONE", WH_VALUE_TIMESTAMPTZ },
	{ "UUID", WH_VALUE_UUID },
	{ "GUID", WH_VALUE_UUID },
	{ "JSON", WH_VALUE_JSON },
};

/* decl in upper case, each run of white space as one space, trimmed. */
static char *type_text(struct arena *a, const char *decl)
{
	char *out = arena_alloc(a, strlen(decl) + 1), *o = out;

	for (const char *p = decl; *p; p++) {
		if (isspace((unsigned char)*p)) {
			if (o > out && o[-1] != ' ')
				*o++ = ' ';
		} else {
			*o++ = (char)toupper((unsigned char)*p);
		}
	}
	if (o > out && o[-1] == ' ')
		o--;
	*o = '\0';
	return out;
}

/* "(P)" or "(P, S)" after a DECIMAL; false when DuckDB would refuse them. */
static bool decimal_params(const char *s, int *precision, int *scale)
{
	char *end;
	long p = strtol(s, &end, 10), sc = 0;

	if (end == s)
		return false;
	while (*end == ' ')
		end++;
	if (*end == ',') {
		s = end + 1;
		sc = strtol(s, &end, 10);
		if (end == s)
			return false;
		while (*end == ' ')
			end++;
	}
	if (strcmp(end, ")") != 0 || p < 1 || p > DECIMAL_MAX_PRECISION || sc < 0 || sc > p)
		return false;
	*precision = (int)p;
	*scale = (int)sc;
	return true;
}

int wh_type_parse(struct arena *a, const char *decl, struct wh_value_type *out,
		  struct sl_err *err)
{
	char *name = type_text(a, decl);
	size_t base = strcspn(name, "(");
	const struct type_name *t = NULL;

	memset(out, 0, sizeof(*out));
	out->name = name;
	out->kind = WH_VALUE_TEXT;
	/* a LIST or ARRAY of anything is left to DuckDB */
	if (strchr(name, '['))
		return 0;
	/* "DECIMAL (10,2)" is as good as "DECIMAL(10,2)" */
	while (base > 0 && name[base - 1] == ' ')
		base--;
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		if (strlen(type_names[i].name) == base && !memcmp(type_names[i].name, name, base)) {
			t = &type_names[i];
			break;
		}
	}
	/* TIMESTAMP(3) is TIMESTAMP_MS, which reads the same text; parameters
	 * on other types (FLOAT(53) is a DOUBLE) leave them to DuckDB */
	if (!t || (name[base] && t->kind != WH_VALUE_DECIMAL && t->kind != WH_VALUE_TIMESTAMP))
		return 0;
	if (t->kind == WH_VALUE_DECIMAL) {
		const char *params = name + base + strspn(name + base, " ");

		out->precision = DECIMAL_DEFAULT_PRECISION;
		out->scale = DECIMAL_DEFAULT_SCALE;
		if (*params && !decimal_params(params + 1, &out->precision, &out->scale))
			return sl_err_set(err, SL_E_CONFIG,
					  "invalid type '%s' (precision 1 to 38, scale 0 to the "
					  "precision)",
					  decl);
	}
	out->kind = t->kind;
	out->min = t->min;
	out->max = t->max;
	return 0;
}
