/*
 * The canonical form of a parse tree: its JSON text less the locations.
 * Reads the text as the parser wrote it, never through a JSON library,
 * whose numbers are doubles: a BIGINT literal past 2^53 must keep every
 * digit. Never reorders fields (the parser's order is fixed).
 */
#include "project/canon.h"

#include "core/buf.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

#define LOCATION_KEY "\"query_location\":"

/* Offset just past the JSON string that opens at tree[i], or 0 when it
 * never ends. */
static size_t string_end(const char *tree, size_t i)
{
	for (i++; tree[i]; i++) {
		if (tree[i] == '\\' && tree[i + 1])
			i++;
		else if (tree[i] == '"')
			return i + 1;
	}
	return 0;
}

int canon_tree(const char *tree, canon_mark_fn *mark, void *ctx, struct buf *out)
{
	size_t from = 0, i = 0;

	while (tree[i]) {
		const char *num, *text;
		char *num_end;
		unsigned long long loc;
		size_t end, len;

		if (tree[i] != '"') {
			i++;
			continue;
		}
		end = string_end(tree, i);
		if (!end)
			return SL_E_PARSE;
		/* a string is followed by ':' only as a key; no string holds an
		 * unescaped quote, so this is the key itself */
		if (strncmp(tree + i, LOCATION_KEY, strlen(LOCATION_KEY)) != 0) {
			i = end;
			continue;
		}
		num = tree + i + strlen(LOCATION_KEY);
		loc = strtoull(num, &num_end, 10);
		if (num_end == num)
			return SL_E_PARSE;
		buf_add(out, tree + from, i - from);
		text = mark ? mark(ctx, (size_t)loc, &len) : NULL;
		if (text) {
			buf_adds(out, "\"placeholder\":");
			buf_add(out, text, len);
		}
		i = from = (size_t)(num_end - tree);
	}
	buf_add(out, tree + from, i - from);
	return 0;
}
