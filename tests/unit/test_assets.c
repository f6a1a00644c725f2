/*
 * The UI's embedded files (server/assets.c over the table tools/webembed
 * wrote from web/): every file found by its path, its content type from
 * its extension, a strong ETag that is the digest of its bytes, the table
 * sorted for the lookup, and If-None-Match read as RFC 9110 has it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/hex.h"
#include "server/assets.h"

#include <openssl/sha.h>

#include <stdio.h>
#include <string.h>

static void test_lookup(void **state)
{
	const struct web_asset *a;

	(void)state;
	assert_true(web_nassets >= 4);
	a = web_asset_find("index.html");
	assert_non_null(a);
	assert_string_equal(a->type, "text/html; charset=utf-8");
	assert_non_null(memmem(a->data, a->len, "\"ui/js/app.js\"", 14));
	a = web_asset_find("js/app.js");
	assert_non_null(a);
	assert_string_equal(a->type, "text/javascript; charset=utf-8");
	a = web_asset_find("css/app.css");
	assert_non_null(a);
	assert_string_equal(a->type, "text/css; charset=utf-8");
	assert_string_equal(web_asset_find("icon.svg")->type, "image/svg+xml");
	assert_null(web_asset_find("js/none.js"));
	assert_null(web_asset_find(""));
	assert_null(web_asset_find("/index.html"));
	assert_null(web_assets[web_nassets].path);
}

static void test_etags_are_digests(void **state)
{
	(void)state;
	for (size_t i = 0; i < web_nassets; i++) {
		const struct web_asset *a = &web_assets[i];
		unsigned char digest[SHA256_DIGEST_LENGTH];
		char want[40];

		SHA256(a->data, a->len, digest);
		want[0] = '"';
		hex_encode(digest, 16, want + 1);
		strcpy(want + 33, "\"");
		assert_string_equal(a->etag, want);
		/* sorted, each found by its own path */
		if (i)
			assert_true(strcmp(web_assets[i - 1].path, a->path) < 0);
		assert_ptr_equal(web_asset_find(a->path), a);
	}
}

static void test_if_none_match(void **state)
{
	const struct web_asset *a = web_asset_find("index.html");
	char list[128], weak[64];

	(void)state;
	assert_false(web_asset_fresh(a, NULL));
	assert_false(web_asset_fresh(a, ""));
	assert_true(web_asset_fresh(a, a->etag));
	assert_true(web_asset_fresh(a, "*"));
	snprintf(list, sizeof(list), "\"0000\", %s", a->etag);
	assert_true(web_asset_fresh(a, list));
	snprintf(weak, sizeof(weak), "W/%s", a->etag);
	assert_true(web_asset_fresh(a, weak));
	assert_false(web_asset_fresh(a, "\"0000\", \"1111\""));
	/* a tag that only begins like it, or holds it, is another tag */
	snprintf(list, sizeof(list), "%.*sx\"", (int)strlen(a->etag) - 1, a->etag);
	assert_false(web_asset_fresh(a, list));
	assert_false(web_asset_fresh(a, "\"unterminated"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_etags_are_digests),
		cmocka_unit_test(test_if_none_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
