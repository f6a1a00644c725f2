/*
 * The folder's log of alerts sent (live/alertlog.c): each alert a line
 * with its delivery, read back newest first; a line never past its bound
 * (the error cut short); the log turned over before it passes its bound,
 * the newest alerts kept; lines from many processes at once each whole;
 * and a live_alert recorded whatever its command did.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"
#include "core/err.h"
#include "live/alert.h"
#include "live/alertlog.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/sluice-alertlog-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void add(int i, const char *delivery)
{
	struct sl_err err = SL_ERR_INIT;
	char alert[128];

	snprintf(alert, sizeof(alert), "{\"alert\":\"live_model_failed\",\"model\":\"m%d\",\"error\":null}",
		 i);
	assert_int_equal(alert_log_add(root, alert, delivery, &err), 0);
}

static json_t *parsed(const char *line)
{
	json_t *o = json_loads(line, 0, NULL);

	assert_non_null(o);
	return o;
}

static off_t size_of(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/.sluice/%s", root, name);
	return stat(path, &st) ? -1 : st.st_size;
}

static void test_newest_first_with_delivery(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	const char **lines;
	size_t n;
	json_t *o;

	(void)state;
	assert_int_equal(alert_log_read(root, a, 10, &lines, &n, &err), 0);
	assert_int_equal(n, 0);
	add(1, "no command");
	add(2, "sent");
	add(3, "exit status 1");
	assert_int_equal(alert_log_read(root, a, 10, &lines, &n, &err), 0);
	assert_int_equal(n, 3);
	o = parsed(lines[0]);
	assert_string_equal(json_string_value(json_object_get(o, "model")), "m3");
	assert_string_equal(json_string_value(json_object_get(o, "delivery")), "exit status 1");
	json_decref(o);
	o = parsed(lines[2]);
	assert_string_equal(json_string_value(json_object_get(o, "delivery")), "no command");
	json_decref(o);
	assert_int_equal(alert_log_read(root, a, 2, &lines, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_non_null(strstr(lines[1], "\"m2\""));
	/* what is no alert is refused, and nothing is written */
	assert_int_equal(alert_log_add(root, "[1]", "sent", &err), SL_E_PARSE);
	assert_int_equal(alert_log_read(root, a, 10, &lines, &n, &err), 0);
	assert_int_equal(n, 3);
	arena_free(a);
}

/* An error of 100 KiB is cut at a character's start: the line stays
 * under its bound and still parses. */
static void test_long_error_cut(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	size_t big = 100 * 1024;
	char *alert = malloc(big + 128), *at;
	const char **lines;
	size_t n;
	json_t *o;

	(void)state;
	at = alert + sprintf(alert, "{\"alert\":\"live_model_failed\",\"model\":\"x\",\"error\":\"");
	for (size_t i = 0; i < big; i += 2) {
		*at++ = (char)0xc3; /* é, two bytes each */
		*at++ = (char)0xa9;
	}
	strcpy(at, "\"}");
	assert_int_equal(alert_log_add(root, alert, "sent", &err), 0);
	assert_int_equal(alert_log_read(root, a, 1, &lines, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_true(strlen(lines[0]) < ALERT_LOG_LINE_MAX);
	o = parsed(lines[0]);
	assert_true(strlen(json_string_value(json_object_get(o, "error"))) > 4000);
	json_decref(o);
	free(alert);
	arena_free(a);
}

/* Past its bound the log turns over: never more than the bound in the
 * file written, the one before kept beside it, and the newest alert read
 * first. */
static void test_turns_over(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	const char **lines;
	size_t n;
	int i;

	(void)state;
	for (i = 0; i < 12000; i++) {
		add(i, "sent");
		assert_true(size_of("alerts.jsonl") <= ALERT_LOG_MAX);
	}
	assert_true(size_of("alerts.jsonl.1") > ALERT_LOG_MAX / 2);
	assert_true(size_of("alerts.jsonl.1") <= ALERT_LOG_MAX);
	assert_int_equal(alert_log_read(root, a, 100000, &lines, &n, &err), 0);
	assert_true(n > 4000 && n < 12000);
	assert_non_null(strstr(lines[0], "\"m11999\""));
	assert_non_null(strstr(lines[n - 1], arena_sprintf(a, "\"m%zu\"", 12000 - n)));
	arena_free(a);
}

/* Processes writing at once each get their lines whole. */
static void test_processes_at_once(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	const char **lines;
	size_t n;
	int status;

	(void)state;
	for (int p = 0; p < 4; p++) {
		if (fork() == 0) {
			for (int i = 0; i < 300; i++) {
				char alert[96];

				snprintf(alert, sizeof(alert), "{\"alert\":\"a\",\"model\":\"p%d-%d\"}", p,
					 i);
				if (alert_log_add(root, alert, "sent", NULL))
					_exit(1);
			}
			_exit(0);
		}
	}
	for (int p = 0; p < 4; p++) {
		wait(&status);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(alert_log_read(root, a, 100000, &lines, &n, &err), 0);
	assert_int_equal(n, 1200);
	for (size_t i = 0; i < n; i++)
		json_decref(parsed(lines[i]));
	arena_free(a);
}

/* live_alert records the alert, with the command's outcome. */
static void test_live_alert_recorded(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	const char **lines;
	size_t n;
	json_t *o;

	(void)state;
	live_alert(NULL, root, NULL, "live_model_failed", "silver.a", "@assert x: 1 failing row");
	live_alert("cat >/dev/null", root, NULL, "live_model_recovered", "silver.a", NULL);
	live_alert("exit 3", root, NULL, "live_model_failed", "silver.b", "boom");
	assert_int_equal(alert_log_read(root, a, 10, &lines, &n, &err), 0);
	assert_int_equal(n, 3);
	o = parsed(lines[2]);
	assert_string_equal(json_string_value(json_object_get(o, "model")), "silver.a");
	assert_string_equal(json_string_value(json_object_get(o, "error")),
			    "@assert x: 1 failing row");
	assert_string_equal(json_string_value(json_object_get(o, "delivery")), "no command");
	assert_non_null(json_object_get(o, "at"));
	json_decref(o);
	o = parsed(lines[1]);
	assert_string_equal(json_string_value(json_object_get(o, "delivery")), "sent");
	json_decref(o);
	o = parsed(lines[0]);
	assert_string_equal(json_string_value(json_object_get(o, "delivery")), "exit status 3");
	json_decref(o);
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_newest_first_with_delivery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_error_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_turns_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_processes_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_alert_recorded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
