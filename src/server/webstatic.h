/*
 * The UI's files (assets.h) made fit to be opened without a server, for
 * `sluice docs`: a browser loads no module script from a file (a file://
 * page has no origin for it), so the JavaScript modules under js/ become
 * one classic script, and the app shell loads it after the project's
 * snapshot (snapshot.js) instead of js/app.js.
 *
 * The modules are written in the subset this bundler reads, which it
 * refuses anything outside of (naming the file and line), so that a page
 * written otherwise fails `make unit` rather than a static site:
 *   - at the start of a line, `import { a, b as c } from './x.js';`,
 *     `import * as x from './x.js';` or `import './x.js';`, a statement
 *     that may run over several lines and ends with ';';
 *   - at the start of a line, `export` before one `function`, `async
 *     function`, `class`, `const`, `let` or `var` declaration of one name,
 *     or `export { a, b as c };`; no `export default`;
 *   - anywhere, `import('./x.js')` with a string: it becomes a promise of
 *     the module;
 *   - module paths relative (./ or ../) and ending in .js; no
 *     `import.meta`.
 */
#ifndef SL_SERVER_WEBSTATIC_H
#define SL_SERVER_WEBSTATIC_H

#include <stddef.h>

struct buf;
struct sl_err;
struct web_asset;

/* The path of the bundle under the site's folder, and of the snapshot
 * script the shell loads before it. */
#define WEB_STATIC_BUNDLE "ui/sluice.js"
#define WEB_STATIC_SNAPSHOT "snapshot.js"

/* Appends to out the n assets' modules under js/ as one classic script
 * that runs entry ("js/app.js") when it loads; SL_E_PARSE naming the
 * module and line for anything outside the subset above, or an import of
 * a module that is not there. */
int web_static_bundle(const struct web_asset *assets, size_t n, const char *entry,
		      struct buf *out, struct sl_err *err);

/* Appends to out the shell index (index.html) loading the snapshot and
 * the bundle in place of its module script; SL_E_PARSE when it has no
 * `<script type="module" src="ui/js/app.js"></script>` to replace. */
int web_static_index(const struct web_asset *index, struct buf *out, struct sl_err *err);

#endif
