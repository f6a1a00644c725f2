/*
 * Diagnostics: the list of problems a validation pass found, each with its
 * place (file:line:col) and an optional hint, so that every problem is
 * reported at once instead of stopping at the first.
 */
#ifndef SL_CORE_DIAG_H
#define SL_CORE_DIAG_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

struct arena;

enum diag_severity { DIAG_ERROR, DIAG_WARNING };

struct diag {
	enum diag_severity severity;
	const char *file; /* relative to the project root; may be NULL */
	int line, col;    /* 1-based; 0 when unknown */
	const char *msg;
	const char *hint; /* may be NULL */
};

struct diag_list {
	struct arena *arena; /* owns every string of every diag */
	struct diag *items;
	size_t n, cap;
};

void diag_list_init(struct diag_list *l, struct arena *a);
void diag_add(struct diag_list *l, enum diag_severity sev, const char *file, int line, int col,
	      const char *hint, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
size_t diag_count(const struct diag_list *l, enum diag_severity sev);
bool diag_has_errors(const struct diag_list *l);
/* "models/a.sql:3:7: error: message\n  hint: ...\n" for each, in list order
 * (diag_sort orders them by place). */
void diag_print(const struct diag_list *l, FILE *out);
/* Sorts by file, line, column, keeping insertion order for ties. */
void diag_sort(struct diag_list *l);

#endif
