/*
 * `sluice live status` as a table (live_status_print): the server's
 * pollers and postgres_cdc slots in columns under their headings, a value
 * the document lacks (null) as its placeholder, and the last error only
 * for one that is failing now.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "live/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char doc_text[] =
	"{\"models\": [], \"sources\": [],"
	" \"pollers\": ["
	"  {\"source\": \"rates\", \"state\": \"ok\", \"polls\": 12, \"rows\": 340,"
	"   \"last_ok\": \"2026-01-02 03:04:05\", \"failures\": 0, \"next_attempt_in_ms\": 0,"
	"   \"last_error\": \"old\"},"
	"  {\"source\": \"fx\", \"state\": \"failing\", \"polls\": 3, \"rows\": 0, \"last_ok\": null,"
	"   \"failures\": 2, \"next_attempt_in_ms\": 65000, \"last_error\": \"HTTP 503\"}],"
	" \"cdc\": ["
	"  {\"slot\": \"shop\", \"state\": \"streaming\", \"landed_lsn\": \"0/16B3748\","
	"   \"server_lsn\": \"0/16B3800\", \"lag_bytes\": 184, \"wal_status\": \"reserved\","
	"   \"safe_wal_size\": null, \"transactions\": 42, \"failures\": 0, \"last_error\": \"gone\"},"
	"  {\"slot\": \"old\", \"state\": \"lost\", \"landed_lsn\": \"0/0\", \"server_lsn\": \"1/0\","
	"   \"lag_bytes\": 0, \"wal_status\": \"lost\", \"safe_wal_size\": 1048576, \"transactions\": 0,"
	"   \"failures\": 3, \"last_error\": \"replication slot 'old' is lost\\n  hint: --resnapshot\"},"
	"  {\"slot\": \"new\", \"state\": \"starting\", \"landed_lsn\": \"0/0\", \"server_lsn\": \"0/0\","
	"   \"lag_bytes\": 0, \"wal_status\": null, \"safe_wal_size\": null, \"transactions\": 0,"
	"   \"failures\": 0, \"last_error\": null}]}";

static void test_threads_as_tables(void **state)
{
	json_error_t jerr;
	json_t *doc = json_loads(doc_text, 0, &jerr);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	assert_non_null(doc);
	live_status_print(doc, out);
	fclose(out);
	assert_string_equal(text,
		"MODEL                            STATE          LAG  EVENTS/S LAST REFRESH        REFRESHES  LAST ERROR\n"
		"\n"
		"POLLER                   STATE      POLLS      ROWS LAST OK             FAILURES      NEXT IN  LAST ERROR\n"
		"rates                    ok            12       340 2026-01-02 03:04:05        0          0ms  \n"
		"fx                       failing        3         0 -                          2        1m05s  HTTP 503\n"
		"\n"
		"SLOT                     STATE      LANDED         SERVER            LAG BYTES WAL            SAFE WAL     TXNS FAILURES  LAST ERROR\n"
		"shop                     streaming  0/16B3748      0/16B3800               184 reserved              -       42        0  \n"
		"old                      lost       0/0            1/0                       0 lost            1048576        0        3  replication slot 'old' is lost\n"
		"new                      starting   0/0            0/0                       0 -                     -        0        0  \n");
	free(text);
	json_decref(doc);
}

/* A document without threads (sluice live status with no server) has
 * neither table. */
static void test_no_threads_no_tables(void **state)
{
	json_t *doc = json_loads("{\"models\": [], \"sources\": [], \"pollers\": []}", 0, NULL);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	live_status_print(doc, out);
	fclose(out);
	assert_null(strstr(text, "POLLER"));
	assert_null(strstr(text, "SLOT"));
	free(text);
	json_decref(doc);
}

static json_t *blamed(const char *models_text)
{
	json_error_t jerr;
	json_t *models = json_loads(models_text, 0, &jerr);

	assert_non_null(models);
	live_status_blame(models);
	return models;
}

static const json_t *cause_of(const json_t *models, size_t i)
{
	return json_object_get(json_array_get(models, i), "cause");
}

/* Which upstream holds a lagging model back: a failing or paused one
 * before a waiting one, a waiting one before one only behind, the
 * largest lag among equals, followed up to the first failing or paused
 * one; none for a model held back by its sources only, or live. */
static void test_blame(void **state)
{
	json_t *m;
	const json_t *c;

	(void)state;
	m = blamed("[{\"model\": \"s.a\", \"state\": \"failing\", \"lag_ms\": 900, \"inputs\": [\"landing.x\"]},"
		   " {\"model\": \"s.b\", \"state\": \"behind\", \"lag_ms\": 2000, \"inputs\": [\"landing.y\"]},"
		   " {\"model\": \"g.c\", \"state\": \"waiting\", \"lag_ms\": 950, \"inputs\": [\"s.b\", \"s.a\"]},"
		   " {\"model\": \"g.d\", \"state\": \"behind\", \"lag_ms\": 990, \"inputs\": [\"g.c\", \"s.b\"]},"
		   " {\"model\": \"g.e\", \"state\": \"live\", \"lag_ms\": 0, \"inputs\": [\"s.a\"]},"
		   " {\"model\": \"g.f\", \"state\": \"behind\", \"lag_ms\": 10, \"inputs\": [\"s.b\", \"g.e\"]}]");
	/* s.a fails and s.b is behind their sources: nobody upstream to blame */
	assert_null(cause_of(m, 0));
	assert_null(cause_of(m, 1));
	/* g.c: the failing input before the one with more lag */
	c = cause_of(m, 2);
	assert_string_equal(json_string_value(json_object_get(c, "upstream")), "s.a");
	assert_string_equal(json_string_value(json_object_get(c, "upstream_state")), "failing");
	assert_int_equal(json_integer_value(json_object_get(c, "upstream_lag_ms")), 900);
	assert_int_equal(json_array_size(json_object_get(c, "path")), 1);
	/* g.d: through the waiting g.c up to the failing s.a */
	c = cause_of(m, 3);
	assert_string_equal(json_string_value(json_object_get(c, "upstream")), "s.a");
	assert_int_equal(json_array_size(json_object_get(c, "path")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(c, "path"), 0)), "g.c");
	/* live and current: no cause */
	assert_null(cause_of(m, 4));
	/* g.f: the input that lags, not the live one */
	c = cause_of(m, 5);
	assert_string_equal(json_string_value(json_object_get(c, "upstream")), "s.b");
	json_decref(m);

	/* a paused input stops the walk, even with more lag further up */
	m = blamed("[{\"model\": \"a\", \"state\": \"behind\", \"lag_ms\": 5000, \"inputs\": []},"
		   " {\"model\": \"b\", \"state\": \"paused\", \"lag_ms\": 100, \"inputs\": [\"a\"]},"
		   " {\"model\": \"c\", \"state\": \"behind\", \"lag_ms\": 100, \"inputs\": [\"b\"]}]");
	c = cause_of(m, 2);
	assert_string_equal(json_string_value(json_object_get(c, "upstream")), "b");
	assert_string_equal(json_string_value(json_object_get(cause_of(m, 1), "upstream")), "a");
	json_decref(m);

	/* a document that claims a cycle ends */
	m = blamed("[{\"model\": \"a\", \"state\": \"behind\", \"lag_ms\": 5, \"inputs\": [\"b\"]},"
		   " {\"model\": \"b\", \"state\": \"behind\", \"lag_ms\": 5, \"inputs\": [\"a\"]}]");
	assert_int_equal(json_array_size(json_object_get(cause_of(m, 0), "path")), 2);
	json_decref(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_as_tables),
		cmocka_unit_test(test_blame),
		cmocka_unit_test(test_no_threads_no_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
