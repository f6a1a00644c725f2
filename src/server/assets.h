/*
 * The UI's files (web/), carried inside the binary: the table is written
 * at build time by tools/webembed from the files under web/ (a generated
 * C file, never edited or committed). Each file has its path under web/
 * ("index.html", "js/app.js"), its content type and a strong ETag, a
 * digest of its bytes, so a browser's copy is checked with one
 * If-None-Match.
 */
#ifndef SL_SERVER_ASSETS_H
#define SL_SERVER_ASSETS_H

#include <stdbool.h>
#include <stddef.h>

struct web_asset {
	const char *path; /* under web/, no leading '/' */
	const char *type; /* the Content-Type */
	const char *etag; /* "\"HEX\"", quotes included */
	const unsigned char *data;
	size_t len;
};

/* Sorted by path, ended by a row of zeros; web_nassets rows before it.
 * Defined by the generated file. */
extern const struct web_asset web_assets[];
extern const size_t web_nassets;

/* The file at path ("js/app.js"), or NULL. The table is static: nothing
 * to free. */
const struct web_asset *web_asset_find(const char *path);
/* Whether a request's If-None-Match (may be NULL) names the asset's
 * current bytes: "*", or a list of entity tags one of which is its ETag
 * (a weak W/ prefix compares as the tag itself, as RFC 9110 has it for
 * If-None-Match). */
bool web_asset_fresh(const struct web_asset *a, const char *if_none_match);

#endif
