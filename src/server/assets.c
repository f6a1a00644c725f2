/*
 * Looking up the UI's embedded files and deciding whether a browser's copy
 * is current. It reads the generated table only; it never touches a file.
 */
#include "server/assets.h"

#include <stdlib.h>
#include <string.h>

static int by_path(const void *key, const void *row)
{
	return strcmp(key, ((const struct web_asset *)row)->path);
}

const struct web_asset *web_asset_find(const char *path)
{
	return bsearch(path, web_assets, web_nassets, sizeof(web_assets[0]), by_path);
}

bool web_asset_fresh(const struct web_asset *a, const char *if_none_match)
{
	size_t taglen = strlen(a->etag);
	const char *p = if_none_match;

	if (!p)
		return false;
	for (;;) {
		size_t n;

		p += strspn(p, " \t,");
		if (!*p)
			return false;
		if (*p == '*')
			return true;
		if (strncmp(p, "W/", 2) == 0)
			p += 2;
		/* an entity tag is a quoted string without inner quotes */
		n = *p == '"' && strchr(p + 1, '"') ? (size_t)(strchr(p + 1, '"') - p) + 1
						      : strcspn(p, ",");
		if (n == taglen && memcmp(p, a->etag, n) == 0)
			return true;
		p += n;
	}
}
