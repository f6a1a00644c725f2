/*
 * This file implements ${NAME} references to environment variables
 * (envref.h). It must never put a variable's value into a message.
 */
#include "core/envref.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *envref_problem(const char *s)
{
	for (const char *p = strstr(s, "${"); p; p = strstr(p, "${")) {
		const char *q = p + 2;

		if (isalpha((unsigned char)*q) || *q == '_')
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
		if (q == p + 2 || (*q && *q != '}'))
			return "write ${NAME} with a variable name of letters, digits and '_'";
		if (!*q)
			return "close ${NAME} with '}'";
		p = q + 1;
	}
	return NULL;
}

int envref_expand(struct arena *a, const char *value, const char *what, const char **out,
		  struct sl_err *err)
{
	struct buf b = BUF_INIT;
	const char *p = value, *open;

	while ((open = strstr(p, "${"))) {
		const char *close = strchr(open, '}');
		char name[256];
		const char *v;

		if (!close || (size_t)(close - open - 2) >= sizeof(name)) {
			buf_release(&b);
			return sl_err_set(err, SL_E_CONFIG, "unclosed ${ in %s", what);
		}
		snprintf(name, sizeof(name), "%.*s", (int)(close - open - 2), open + 2);
		v = getenv(name);
		/* an empty secret is a mistake, not a secret */
		if (!v || !*v) {
			buf_release(&b);
			return sl_err_set(err, SL_E_CONFIG,
					  "environment variable %s is %s (%s reads ${%s})\n"
					  "  hint: export %s=... before starting sluice",
					  name, v ? "empty" : "not set", what, name, name);
		}
		buf_add(&b, p, (size_t)(open - p));
		buf_adds(&b, v);
		p = close + 1;
	}
	buf_adds(&b, p);
	*out = arena_strndup(a, b.buf, b.len);
	buf_release(&b);
	return 0;
}
