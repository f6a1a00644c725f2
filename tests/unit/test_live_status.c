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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_as_tables),
		cmocka_unit_test(test_no_threads_no_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
