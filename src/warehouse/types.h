/*
 * The types a landing column may be declared with, as the DuckDB warehouse
 * names them: which kind of value each takes, an integer type's bounds, a
 * DECIMAL's precision and scale. What src/ingest/coerce.c checks a JSON
 * value against before the appender casts its text. A name not listed
 * (LIST, STRUCT, MAP, ENUM, INTERVAL, ...) is text: the value goes through
 * unchecked and the warehouse decides.
 */
#ifndef SL_WAREHOUSE_TYPES_H
#define SL_WAREHOUSE_TYPES_H

struct arena;
struct sl_err;

/* The most digits an integer bound has. */
#define WH_INT_DIGITS_MAX 39

enum wh_value_kind {
	WH_VALUE_TEXT,    /* VARCHAR, and every type not listed below */
	WH_VALUE_INT,     /* TINYINT ... UHUGEINT, bounds in min/max */
	WH_VALUE_FLOAT,   /* FLOAT, REAL */
	WH_VALUE_DOUBLE,
	WH_VALUE_DECIMAL, /* precision and scale */
	WH_VALUE_BOOL,
	WH_VALUE_DATE,
	WH_VALUE_TIME,
	WH_VALUE_TIMETZ,
	WH_VALUE_TIMESTAMP,
	WH_VALUE_TIMESTAMPTZ,
	WH_VALUE_UUID,
	WH_VALUE_JSON,
};

struct wh_value_type {
	enum wh_value_kind kind;
	const char *name;      /* the declared type in upper case, for messages */
	const char *min, *max; /* WH_VALUE_INT: the bounds as decimal text */
	int precision, scale;  /* WH_VALUE_DECIMAL */
};

/* Reads a declared type ("decimal(10, 2)", "BIGINT", "INTEGER[]"). Strings
 * go to arena a. Returns 0, or SL_E_CONFIG for a DECIMAL whose precision
 * or scale the warehouse would refuse. */
int wh_type_parse(struct arena *a, const char *decl, struct wh_value_type *out,
		  struct sl_err *err);

#endif
