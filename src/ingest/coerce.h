/*
 * Typed columns from JSON values. A column's declared DuckDB type decides
 * which JSON values it takes; each accepted value becomes the text that
 * DuckDB's cast from VARCHAR turns into that type (the writer appends text
 * and the appender casts it). Ranges and shapes are checked here, so a bad
 * value is reported with its row and column before anything is appended.
 * Types this module does not know (LIST, STRUCT, MAP, ENUM, INTERVAL, ...)
 * are handled like VARCHAR: the value's text goes through unchecked and
 * DuckDB decides. Never touches the warehouse.
 */
#ifndef SL_INGEST_COERCE_H
#define SL_INGEST_COERCE_H

#include <jansson.h>

struct arena;
struct sl_err;

enum coerce_kind {
	COERCE_TEXT,    /* VARCHAR, and every type not listed below */
	COERCE_INT,     /* TINYINT ... UHUGEINT, bounds in min/max */
	COERCE_FLOAT,   /* FLOAT, REAL */
	COERCE_DOUBLE,
	COERCE_DECIMAL, /* precision and scale */
	COERCE_BOOL,
	COERCE_DATE,
	COERCE_TIME,
	COERCE_TIMETZ,
	COERCE_TIMESTAMP,
	COERCE_TIMESTAMPTZ,
	COERCE_UUID,
	COERCE_JSON,
};

struct coerce_type {
	enum coerce_kind kind;
	const char *name;      /* the declared type in upper case, for messages */
	const char *min, *max; /* COERCE_INT: the bounds as decimal text */
	int precision, scale;  /* COERCE_DECIMAL */
};

/* Reads a declared type ("decimal(10, 2)", "BIGINT", "INTEGER[]"). Strings
 * go to arena a. Returns 0, or SL_E_CONFIG for a DECIMAL whose precision
 * or scale DuckDB would refuse. */
int coerce_type_parse(struct arena *a, const char *decl, struct coerce_type *out,
		      struct sl_err *err);

/* The text for value v in a column of type t, allocated in a; NULL for
 * JSON null. Returns 0, or SL_E_INVALID with a message naming the value and
 * the type ("\"abc\" is not a DOUBLE", "300 is out of range for TINYINT"). */
int coerce_value(struct arena *a, const struct coerce_type *t, const json_t *v, const char **out,
		 struct sl_err *err);

/* v as compact JSON text (see jsontext.h), allocated in a. */
const char *coerce_json(struct arena *a, const json_t *v);

#endif
