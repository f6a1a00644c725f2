/*
 * This file implements the reading options of a files source's file
 * (reader.h). It must never read the file: the format comes from names.
 */
#include "files/reader.h"

#include "core/arena.h"
#include "core/err.h"
#include "files/scan.h"
#include "project/config.h"

#include <string.h>
#include <strings.h>

/* Endings DuckDB's readers undo themselves. */
static const char *const compressions[] = { ".gz", ".zst", NULL };

static const struct {
	const char *ending;
	enum wh_file_format format;
	const char *delim; /* the ending's own separator, NULL: detected */
} formats[] = {
	{ "csv", WH_FILE_CSV, NULL },	     { "tsv", WH_FILE_CSV, "\t" },
	{ "txt", WH_FILE_CSV, NULL },	     { "json", WH_FILE_JSON, NULL },
	{ "ndjson", WH_FILE_NDJSON, NULL }, { "jsonl", WH_FILE_NDJSON, NULL },
	{ "parquet", WH_FILE_PARQUET, NULL },
};

/* The ending of name ("csv" of "a.csv.gz"), in a, or NULL. */
static const char *ending_of(struct arena *a, const char *name)
{
	const char *base = strrchr(name, '/'), *dot;
	size_t len;

	base = base ? base + 1 : name;
	len = strlen(base);
	for (size_t i = 0; compressions[i]; i++) {
		size_t n = strlen(compressions[i]);

		if (len > n && !strcasecmp(base + len - n, compressions[i]))
			len -= n;
	}
	base = arena_strndup(a, base, len);
	dot = strrchr(base, '.');
	return dot && dot != base ? dot + 1 : NULL;
}

int files_reader(struct arena *a, const struct source_cfg *src, const struct files_entry *e,
		 struct wh_file_read *out, struct sl_err *err)
{
	const char *ending = src->file_ending ? src->file_ending : ending_of(a, e->name);
	size_t k = 0;

	while (k < sizeof(formats) / sizeof(*formats) &&
	       (!ending || strcasecmp(formats[k].ending, ending)))
		k++;
	if (k == sizeof(formats) / sizeof(*formats))
		return sl_err_set(err, SL_E_INVALID,
				  "%s: cannot tell its format from its name: end it in .csv, .tsv, "
				  ".txt, .json, .ndjson, .jsonl or .parquet, or set file_ending",
				  e->name);
	*out = (struct wh_file_read){
		.path = e->open,
		.shown = e->name,
		.format = formats[k].format,
		.delim = src->separator ? src->separator : formats[k].delim,
		.encoding = src->encoding,
		.skip = src->remove_top_rows,
		.dateformat = src->dateformat,
		.payload = "payload",
	};
	if (src->ncolumns) {
		struct wh_column *cols = arena_alloc(a, src->ncolumns * sizeof(*cols));

		for (size_t i = 0; i < src->ncolumns; i++)
			cols[i] = (struct wh_column){ src->columns[i].name, src->columns[i].type };
		out->columns = cols;
		out->ncolumns = src->ncolumns;
	}
	return 0;
}
