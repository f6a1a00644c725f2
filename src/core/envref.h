/*
 * References to environment variables in values a project configures,
 * written ${NAME}: the way a secret (a token, a password) stays out of
 * sluice.yml. The text is checked when the project loads, and the
 * references are replaced only where the value is used, so that no
 * secret is ever kept in the loaded project or put into a message.
 */
#ifndef SL_CORE_ENVREF_H
#define SL_CORE_ENVREF_H

struct arena;
struct sl_err;

/* NULL when every "${" of s is closed by a variable name (letters, digits
 * and '_', not starting with a digit) and '}', else what is wrong. */
const char *envref_problem(const char *s);

/* value with each ${NAME} replaced by the variable's value, into *out (in
 * a). A variable that is not set or empty is SL_E_CONFIG, naming it and
 * what reads it (what: "a header of the source"). */
int envref_expand(struct arena *a, const char *value, const char *what, const char **out,
		  struct sl_err *err);

#endif
