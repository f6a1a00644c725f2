/*
 * This file implements the UI's files as a static site's (webstatic.h):
 * each module's text copied line by line into a function of the bundle,
 * its import and export statements rewritten to calls of the bundle's own
 * require, its exports made getters of the module's object. It reads
 * nothing but the table it is given, and refuses rather than guesses:
 * what it cannot read as the subset says is an error naming the line.
 */
#include "server/webstatic.h"

#include "core/buf.h"
#include "core/err.h"
#include "server/assets.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SHELL_MODULE "<script type=\"module\" src=\"ui/js/app.js\"></script>"

/* Where the reader is in a module's text: in code, or inside a block
 * comment or a template string, which may run over lines and where
 * nothing is a statement. */
enum lex { LEX_CODE, LEX_COMMENT, LEX_TEMPLATE };

/* One module being read. */
struct reader {
	const struct web_asset *assets;
	size_t nassets;
	const char *path; /* "js/pages/live.js" */
	const char *s;    /* its text, NUL-terminated */
	size_t i;
	int line;
	struct buf *body;    /* what it becomes */
	struct buf *exports; /* its getters */
	struct sl_err *err;
	enum lex lex;
};

static int fail(struct reader *r, const char *why)
{
	return sl_err_set(r->err, SL_E_PARSE, "web/%s:%d: %s (the static site's bundle reads only "
			  "the module forms src/server/webstatic.h lists)",
			  r->path, r->line, why);
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* Whether word starts s and ends there as a word. */
static bool at_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	return strncmp(s, word, n) == 0 && !ident_char(s[n]);
}

/* Skips spaces and line breaks, counting the lines. */
static void skip_ws(struct reader *r)
{
	for (; r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r';
	     r->i++)
		r->line += r->s[r->i] == '\n';
}

/* An identifier at r->i into out (at most size - 1 bytes); false when
 * there is none. */
static bool ident(struct reader *r, char *out, size_t size)
{
	size_t n = 0;

	if (r->s[r->i] >= '0' && r->s[r->i] <= '9')
		return false;
	while (ident_char(r->s[r->i]) && n + 1 < size)
		out[n++] = r->s[r->i++];
	out[n] = '\0';
	return n > 0 && !ident_char(r->s[r->i]);
}

static const struct web_asset *find(const struct reader *r, const char *path)
{
	for (size_t k = 0; k < r->nassets; k++)
		if (strcmp(r->assets[k].path, path) == 0)
			return &r->assets[k];
	return NULL;
}

/* The module a string at r->i names, resolved against the module's
 * folder into out; r->i past the string. */
static int module_path(struct reader *r, char *out, size_t size)
{
	char q = r->s[r->i], spec[512], *seg, *save = NULL;
	const char *end, *slash = strrchr(r->path, '/');
	size_t n = 0;

	if (q != '\'' && q != '"')
		return fail(r, "a module is named by a string");
	end = strchr(r->s + r->i + 1, q);
	if (!end || (size_t)(end - (r->s + r->i + 1)) >= sizeof(spec) ||
	    memchr(r->s + r->i + 1, '\n', (size_t)(end - (r->s + r->i + 1))))
		return fail(r, "an unterminated module name");
	snprintf(spec, sizeof(spec), "%.*s", (int)(end - (r->s + r->i + 1)), r->s + r->i + 1);
	r->i = (size_t)(end - r->s) + 1;
	if ((strncmp(spec, "./", 2) && strncmp(spec, "../", 3)) || strlen(spec) < 4 ||
	    strcmp(spec + strlen(spec) - 3, ".js"))
		return fail(r, "a module is named by a relative path ending in .js");
	/* the folder, then each segment: ".." drops the last one */
	n = slash ? (size_t)(slash - r->path) + 1 : 0;
	if (n >= size)
		return fail(r, "a module path too long");
	memcpy(out, r->path, n);
	out[n] = '\0';
	for (seg = strtok_r(spec, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
		if (strcmp(seg, ".") == 0)
			continue;
		if (strcmp(seg, "..") == 0) {
			char *up;

			if (!n)
				return fail(r, "a module path that leaves web/");
			out[--n] = '\0';
			up = strrchr(out, '/');
			n = up ? (size_t)(up - out) + 1 : 0;
			out[n] = '\0';
			continue;
		}
		if (n + strlen(seg) + 2 >= size)
			return fail(r, "a module path too long");
		n += (size_t)sprintf(out + n, "%s/", seg);
	}
	out[n - 1] = '\0';
	if (!find(r, out)) {
		char why[700];

		snprintf(why, sizeof(why), "it imports %s, which is not there", out);
		return fail(r, why);
	}
	return 0;
}

/* Past the ';' that ends a statement, after optional spaces. */
static int statement_end(struct reader *r)
{
	skip_ws(r);
	if (r->s[r->i] != ';')
		return fail(r, "an import or export statement ends with ';'");
	r->i++;
	return 0;
}

/* `{ a, b as c }` at r->i: appended to out as "a, b: c" (imports, as
 * destructuring) or recorded as getters (exports: "b as c" exports b
 * under the name c). */
static int name_list(struct reader *r, struct buf *out, bool exports)
{
	char name[128], as[128];

	r->i++;
	for (bool first = true;; first = false) {
		skip_ws(r);
		if (r->s[r->i] == '}') {
			r->i++;
			return 0;
		}
		if (!first) {
			if (r->s[r->i] != ',')
				return fail(r, "names in braces are separated by commas");
			r->i++;
			skip_ws(r);
			if (r->s[r->i] == '}')
				continue;
		}
		if (!ident(r, name, sizeof(name)))
			return fail(r, "a name in braces is an identifier");
		skip_ws(r);
		snprintf(as, sizeof(as), "%s", name);
		if (at_word(r->s + r->i, "as")) {
			r->i += 2;
			skip_ws(r);
			if (!ident(r, as, sizeof(as)))
				return fail(r, "'as' is followed by an identifier");
		}
		if (exports)
			buf_addf(r->exports,
				 "Object.defineProperty(__sluice_exports, \"%s\", { enumerable: true, "
				 "get: function () { return %s; } });\n",
				 as, name);
		else
			buf_addf(out, "%s%s%s%s", out->len ? ", " : "", name, strcmp(name, as) ? ": " : "",
				 strcmp(name, as) ? as : "");
	}
}

/* An import statement, r->i just past `import`. */
static int import_statement(struct reader *r)
{
	char path[512], name[128];
	struct buf names = BUF_INIT;
	int line = r->line, rc = 0;

	skip_ws(r);
	if (r->s[r->i] == '\'' || r->s[r->i] == '"') {
		rc = module_path(r, path, sizeof(path));
		if (!rc)
			buf_addf(r->body, "__sluice_require(\"%s\");", path);
	} else {
		if (r->s[r->i] == '{') {
			rc = name_list(r, &names, false);
		} else if (r->s[r->i] == '*') {
			r->i++;
			skip_ws(r);
			if (!at_word(r->s + r->i, "as"))
				rc = fail(r, "'import *' is followed by 'as NAME'");
			r->i += 2;
			skip_ws(r);
			if (!rc && !ident(r, name, sizeof(name)))
				rc = fail(r, "'import * as' is followed by an identifier");
		} else {
			rc = fail(r, "a default import (import NAME from ...)");
		}
		skip_ws(r);
		if (!rc && !at_word(r->s + r->i, "from"))
			rc = fail(r, "an import names its module after 'from'");
		if (!rc) {
			r->i += 4;
			skip_ws(r);
			rc = module_path(r, path, sizeof(path));
		}
		if (!rc && names.len)
			buf_addf(r->body, "const { %s } = __sluice_require(\"%s\");", names.buf, path);
		else if (!rc)
			buf_addf(r->body, "const %s = __sluice_require(\"%s\");", name, path);
	}
	buf_release(&names);
	if (!rc)
		rc = statement_end(r);
	/* the lines it ran over stay lines */
	for (; !rc && line < r->line; line++)
		buf_addch(r->body, '\n');
	return rc;
}

/* An export, r->i just past `export`: a list is recorded and dropped; a
 * declaration is recorded and left to be copied without its `export`. */
static int export_statement(struct reader *r)
{
	static const char *const kinds[] = { "function", "class", "const", "let", "var", NULL };
	char name[128];
	size_t k;

	skip_ws(r);
	if (r->s[r->i] == '{') {
		int line = r->line, rc = name_list(r, NULL, true);

		if (!rc)
			rc = statement_end(r);
		for (; !rc && line < r->line; line++)
			buf_addch(r->body, '\n');
		return rc;
	}
	if (at_word(r->s + r->i, "default"))
		return fail(r, "export default");
	if (at_word(r->s + r->i, "async")) {
		buf_adds(r->body, "async ");
		r->i += 5;
		skip_ws(r);
	}
	for (k = 0; kinds[k] && !at_word(r->s + r->i, kinds[k]); k++)
		;
	if (!kinds[k])
		return fail(r, "'export' comes before a function, class, const, let or var");
	buf_adds(r->body, kinds[k]);
	r->i += strlen(kinds[k]);
	if (r->s[r->i] == '*') {
		buf_addch(r->body, '*');
		r->i++;
	}
	buf_addch(r->body, ' ');
	skip_ws(r);
	if (!ident(r, name, sizeof(name)))
		return fail(r, "an exported declaration names one identifier");
	buf_adds(r->body, name);
	buf_addf(r->exports,
		 "Object.defineProperty(__sluice_exports, \"%s\", { enumerable: true, get: function () "
		 "{ return %s; } });\n",
		 name, name);
	return 0;
}

/* A dynamic import at r->i (just past `import`): import('./x.js')
 * becomes the bundle's promise of the module. */
static int dynamic_import(struct reader *r)
{
	char path[512];
	int rc;

	while (r->s[r->i] == ' ')
		r->i++;
	if (r->s[r->i] == '.')
		return fail(r, "import.meta");
	if (r->s[r->i] != '(')
		return fail(r, "'import' inside a line that is not import(...)");
	r->i++;
	while (r->s[r->i] == ' ')
		r->i++;
	rc = module_path(r, path, sizeof(path));
	while (!rc && r->s[r->i] == ' ')
		r->i++;
	if (!rc && r->s[r->i] != ')')
		rc = fail(r, "import(...) takes one string");
	if (rc)
		return rc;
	r->i++;
	buf_addf(r->body, "__sluice_import(\"%s\")", path);
	return 0;
}

/* Copies a quoted string at r->i, on its line, escapes and all. */
static void copy_string(struct reader *r)
{
	char q = r->s[r->i];

	buf_addch(r->body, r->s[r->i++]);
	while (r->s[r->i] && r->s[r->i] != '\n' && r->s[r->i] != q) {
		if (r->s[r->i] == '\\' && r->s[r->i + 1] && r->s[r->i + 1] != '\n')
			buf_addch(r->body, r->s[r->i++]);
		buf_addch(r->body, r->s[r->i++]);
	}
	if (r->s[r->i] == q)
		buf_addch(r->body, r->s[r->i++]);
}

/* The rest of the line as it is, but for its dynamic imports; comments
 * and strings are copied without a look inside. */
static int copy_line(struct reader *r)
{
	int rc = 0;

	while (!rc && r->s[r->i] && r->s[r->i] != '\n') {
		const char *at = r->s + r->i;

		if (r->lex == LEX_COMMENT || r->lex == LEX_TEMPLATE) {
			bool ends = r->lex == LEX_COMMENT ? strncmp(at, "*/", 2) == 0 : *at == '`';

			if (r->lex == LEX_TEMPLATE && *at == '\\' && at[1] && at[1] != '\n')
				buf_addch(r->body, r->s[r->i++]);
			else if (ends && r->lex == LEX_COMMENT)
				buf_addch(r->body, r->s[r->i++]);
			buf_addch(r->body, r->s[r->i++]);
			if (ends)
				r->lex = LEX_CODE;
		} else if (strncmp(at, "//", 2) == 0) {
			while (r->s[r->i] && r->s[r->i] != '\n')
				buf_addch(r->body, r->s[r->i++]);
		} else if (strncmp(at, "/*", 2) == 0) {
			buf_add(r->body, at, 2);
			r->i += 2;
			r->lex = LEX_COMMENT;
		} else if (*at == '\'' || *at == '"') {
			copy_string(r);
		} else if (*at == '`') {
			buf_addch(r->body, r->s[r->i++]);
			r->lex = LEX_TEMPLATE;
		} else if (at_word(at, "import") && !(r->i && (ident_char(at[-1]) || at[-1] == '.'))) {
			r->i += 6;
			rc = dynamic_import(r);
		} else {
			buf_addch(r->body, r->s[r->i++]);
		}
	}
	if (!rc && r->s[r->i] == '\n') {
		buf_addch(r->body, '\n');
		r->i++;
		r->line++;
	}
	return rc;
}

/* One module, as a function of the bundle's table. */
static int add_module(const struct web_asset *assets, size_t n, const struct web_asset *m,
		      struct buf *out, struct sl_err *err)
{
	struct buf text = BUF_INIT, body = BUF_INIT, exports = BUF_INIT;
	struct reader r = { assets, n, m->path, NULL, 0, 1, &body, &exports, err, LEX_CODE };
	int rc = 0;

	buf_add(&text, m->data, m->len);
	r.s = text.buf;
	if (strlen(text.buf) != m->len)
		rc = fail(&r, "a NUL byte");
	while (!rc && r.s[r.i]) {
		bool code = r.lex == LEX_CODE;

		if (code && at_word(r.s + r.i, "import") && r.s[r.i + 6] != '(' &&
		    r.s[r.i + 6] != '.') {
			r.i += 6;
			rc = import_statement(&r);
		} else if (code && at_word(r.s + r.i, "export")) {
			r.i += 6;
			rc = export_statement(&r);
		}
		if (!rc)
			rc = copy_line(&r);
	}
	if (!rc)
		buf_addf(out,
			 "__sluice_defs[\"%s\"] = function (__sluice_exports) {\n'use strict';\n"
			 "%s%s};\n",
			 m->path, exports.buf, body.buf);
	buf_release(&text);
	buf_release(&body);
	buf_release(&exports);
	return rc;
}

int web_static_bundle(const struct web_asset *assets, size_t n, const char *entry,
		      struct buf *out, struct sl_err *err)
{
	bool has_entry = false;
	int rc = 0;

	buf_adds(out,
		 "// The UI's modules as one classic script, for pages opened from files (sluice "
		 "docs):\n// a browser loads no module script there. Written by sluice from web/js/.\n"
		 "(function () {\n'use strict';\n"
		 "var __sluice_defs = Object.create(null), __sluice_done = Object.create(null);\n"
		 "function __sluice_require(path) {\n"
		 "  var m = __sluice_done[path];\n"
		 "  if (m) return m;\n"
		 "  m = __sluice_done[path] = {};\n"
		 "  __sluice_defs[path](m);\n"
		 "  return m;\n"
		 "}\n"
		 "function __sluice_import(path) {\n"
		 "  return new Promise(function (resolve) { resolve(__sluice_require(path)); });\n"
		 "}\n");
	for (size_t i = 0; i < n && !rc; i++) {
		size_t len = strlen(assets[i].path);

		if (strncmp(assets[i].path, "js/", 3) || len < 4 ||
		    strcmp(assets[i].path + len - 3, ".js"))
			continue;
		has_entry |= strcmp(assets[i].path, entry) == 0;
		rc = add_module(assets, n, &assets[i], out, err);
	}
	if (!rc && !has_entry)
		rc = sl_err_set(err, SL_E_PARSE, "web/%s: no such module to start the bundle with",
				entry);
	if (!rc)
		buf_addf(out, "__sluice_require(\"%s\");\n})();\n", entry);
	return rc;
}

int web_static_index(const struct web_asset *index, struct buf *out, struct sl_err *err)
{
	struct buf text = BUF_INIT;
	const char *at;
	int rc = 0;

	buf_add(&text, index->data, index->len);
	at = strstr(text.buf, SHELL_MODULE);
	if (!at) {
		rc = sl_err_set(err, SL_E_PARSE, "web/%s has no %s to load the bundle in its place",
				index->path, SHELL_MODULE);
	} else {
		buf_add(out, text.buf, (size_t)(at - text.buf));
		/* deferred, as a module is: they run in order once the page is
		 * parsed */
		buf_adds(out, "<script src=\"" WEB_STATIC_SNAPSHOT "\" defer></script>\n"
			      "<script src=\"" WEB_STATIC_BUNDLE "\" defer></script>");
		buf_adds(out, at + strlen(SHELL_MODULE));
	}
	buf_release(&text);
	return rc;
}
