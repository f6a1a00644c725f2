/*
 * Diagnostics list: collection, ordering and printing. Holds no state beyond
 * the list, and never stops a pass early.
 */
#include "core/diag.h"

#include "core/arena.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_list_init(struct diag_list *l, struct arena *a)
{
	memset(l, 0, sizeof(*l));
	l->arena = a;
}

void diag_add(struct diag_list *l, enum diag_severity sev, const char *file, int line, int col,
	      const char *hint, const char *fmt, ...)
{
	struct diag *d = ARENA_PUSH(l->arena, &l->items, &l->n, &l->cap);
	va_list ap;

	d->severity = sev;
	d->file = file ? arena_strdup(l->arena, file) : NULL;
	d->line = line;
	d->col = col;
	d->hint = hint ? arena_strdup(l->arena, hint) : NULL;
	va_start(ap, fmt);
	d->msg = arena_vsprintf(l->arena, fmt, ap);
	va_end(ap);
}

size_t diag_count(const struct diag_list *l, enum diag_severity sev)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		n += l->items[i].severity == sev;
	return n;
}

bool diag_has_errors(const struct diag_list *l)
{
	return diag_count(l, DIAG_ERROR) > 0;
}

void diag_print(const struct diag_list *l, FILE *out)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct diag *d = &l->items[i];

		if (d->file && d->line && d->col)
			fprintf(out, "%s:%d:%d: ", d->file, d->line, d->col);
		else if (d->file && d->line)
			fprintf(out, "%s:%d: ", d->file, d->line);
		else if (d->file)
			fprintf(out, "%s: ", d->file);
		fprintf(out, "%s: %s\n", d->severity == DIAG_ERROR ? "error" : "warning", d->msg);
		if (d->hint)
			fprintf(out, "  hint: %s\n", d->hint);
	}
}

static int diag_cmp(const struct diag *a, const struct diag *b)
{
	int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return 0;
}

void diag_sort(struct diag_list *l)
{
	/* insertion sort: stable, and lists are short */
	for (size_t i = 1; i < l->n; i++) {
		struct diag d = l->items[i];
		size_t j = i;

		while (j > 0 && diag_cmp(&l->items[j - 1], &d) > 0) {
			l->items[j] = l->items[j - 1];
			j--;
		}
		l->items[j] = d;
	}
}
