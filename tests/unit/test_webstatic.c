/*
 * The UI's files made fit for a static site (server/webstatic.c): the
 * module forms the bundler reads become calls of the bundle's own
 * require, comments and strings are left alone, what is outside its
 * subset is refused naming the module and line; the UI's own modules (the
 * embedded table) bundle, and its shell loads the snapshot and the bundle
 * in place of its module.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/err.h"
#include "server/assets.h"
#include "server/webstatic.h"

#include <stdio.h>
#include <string.h>

#define ASSET(p, text) { p, "text/javascript", "\"x\"", (const unsigned char *)(text), sizeof(text) - 1 }

static const char *bundle(const struct web_asset *a, size_t n, struct buf *out, struct sl_err *err)
{
	buf_reset(out);
	return web_static_bundle(a, n, "js/app.js", out, err) ? NULL : out->buf;
}

static void test_forms_rewritten(void **state)
{
	static const struct web_asset a[] = {
		ASSET("js/app.js", "// the shell: import the pages\n"
				   "import { el, fill as put } from './dom.js';\n"
				   "import * as api from './api.js';\n"
				   "import {\n  one,\n  two,\n} from './pages/x.js';\n"
				   "import './side.js';\n"
				   "const s = 'import this';\n"
				   "/* import\n export */\n"
				   "const load = () => import('./pages/x.js');\n"
				   "export const shown = `import\nexport`;\n"),
		ASSET("js/dom.js", "export function el() {}\nexport async function fill() {}\n"
				   "export class View {}\nlet kept = 1;\nexport { kept, kept as also };\n"),
		ASSET("js/api.js", "export let n = 0;\n"),
		ASSET("js/side.js", "window.seen = true;\n"),
		ASSET("js/pages/x.js", "import { el } from '../dom.js';\nexport const one = 1, two = 2;\n"),
		ASSET("css/app.css", "import { x } from nowhere;\n"),
	};
	struct sl_err err = SL_ERR_INIT;
	struct buf out = BUF_INIT;
	const char *b;

	(void)state;
	b = bundle(a, 6, &out, &err);
	if (!b)
		fail_msg("%s", err.msg);
	assert_non_null(strstr(b, "const { el, fill: put } = __sluice_require(\"js/dom.js\");"));
	assert_non_null(strstr(b, "const api = __sluice_require(\"js/api.js\");"));
	/* a statement over four lines stays four lines */
	assert_non_null(strstr(b, "const { one, two } = __sluice_require(\"js/pages/x.js\");\n\n\n\n"
				  "__sluice_require(\"js/side.js\");"));
	assert_non_null(strstr(b, "const load = () => __sluice_import(\"js/pages/x.js\");"));
	/* comments and strings are not read */
	assert_non_null(strstr(b, "// the shell: import the pages\n"));
	assert_non_null(strstr(b, "const s = 'import this';"));
	assert_non_null(strstr(b, "/* import\n export */"));
	assert_non_null(strstr(b, "const shown = `import\nexport`;"));
	/* exports become getters, declarations lose their export */
	assert_non_null(strstr(b, "Object.defineProperty(__sluice_exports, \"fill\""));
	assert_non_null(strstr(b, "async function fill() {}"));
	assert_non_null(strstr(b, "\"also\", { enumerable: true, get: function () { return kept; }"));
	assert_non_null(strstr(b, "class View {}"));
	assert_null(strstr(b, "\nexport "));
	assert_non_null(strstr(b, "__sluice_defs[\"js/pages/x.js\"]"));
	assert_non_null(strstr(b, "const { el } = __sluice_require(\"js/dom.js\");"));
	/* only modules under js/ are bundled; the entry runs last */
	assert_null(strstr(b, "nowhere"));
	assert_non_null(strstr(b, "__sluice_require(\"js/app.js\");\n})();\n"));
	buf_release(&out);
}

/* Each form outside the subset is refused, naming the module and line. */
static void test_refusals(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "x;\nexport default function () {}\n", "web/js/app.js:2: export default" },
		{ "import x from './dom.js';\n", "a default import" },
		{ "import { a } from 'dom.js';\n", "relative path ending in .js" },
		{ "import { a } from './dom';\n", "relative path ending in .js" },
		{ "import { a } from './none.js';\n", "it imports js/none.js, which is not there" },
		{ "import { a } from '../../x.js';\n", "leaves web/" },
		{ "import { a } from './dom.js'\nx();\n", "ends with ';'" },
		{ "const u = import.meta.url;\n", "import.meta" },
		{ "const m = import(name);\n", "a module is named by a string" },
		{ "export const { a, b } = o;\n", "names one identifier" },
		{ "export * from './dom.js';\n", "'export' comes before" },
		{ "x; import { a } from './dom.js';\n", "not import(...)" },
	};
	struct buf out = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct web_asset a[] = {
			{ "js/app.js", "text/javascript", "\"x\"", (const unsigned char *)cases[i].text,
			  strlen(cases[i].text) },
			ASSET("js/dom.js", "export const a = 1;\n"),
		};
		struct sl_err err = SL_ERR_INIT;

		if (bundle(a, 2, &out, &err))
			fail_msg("bundled: %s", cases[i].text);
		assert_int_equal(err.code, SL_E_PARSE);
		if (!strstr(err.msg, cases[i].why))
			fail_msg("'%s' for %s", err.msg, cases[i].text);
		assert_non_null(strstr(err.msg, "web/js/app.js:"));
	}
	buf_release(&out);
}

/* The UI's own modules bundle, and its shell takes the bundle: a page
 * written outside the subset fails here, not in a static site. */
static void test_the_ui_bundles(void **state)
{
	const struct web_asset *index = web_asset_find("index.html");
	struct sl_err err = SL_ERR_INIT;
	struct buf out = BUF_INIT;

	(void)state;
	if (!bundle(web_assets, web_nassets, &out, &err))
		fail_msg("%s", err.msg);
	assert_non_null(strstr(out.buf, "__sluice_defs[\"js/pages/models.js\"]"));
	buf_reset(&out);
	assert_non_null(index);
	assert_int_equal(web_static_index(index, &out, &err), 0);
	assert_non_null(strstr(out.buf, "<script src=\"snapshot.js\" defer></script>\n"
					"<script src=\"ui/sluice.js\" defer></script>"));
	assert_null(strstr(out.buf, "type=\"module\""));
	assert_non_null(strstr(out.buf, "href=\"ui/css/app.css\""));
	buf_release(&out);
}

static void test_shell_without_its_module(void **state)
{
	static const struct web_asset index = ASSET("index.html", "<html><body></body></html>");
	struct sl_err err = SL_ERR_INIT;
	struct buf out = BUF_INIT;

	(void)state;
	assert_int_equal(web_static_index(&index, &out, &err), SL_E_PARSE);
	assert_non_null(strstr(err.msg, "web/index.html has no <script type=\"module\""));
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms_rewritten),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_the_ui_bundles),
		cmocka_unit_test(test_shell_without_its_module),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
