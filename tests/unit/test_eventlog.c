/*
 * The event log that lets a watcher resume (server/eventlog.c): ids
 * EPOCH-SEQ in order, a watcher that comes back with an id gets exactly
 * the events after it, a gap when they are no longer all kept, everything
 * since the start for an id of the server before, and the log bounded in
 * events and in bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "server/eventlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seen {
	char ids[64][EVENT_ID_MAX];
	char data[64][32];
	int n;
};

static void collect(void *ctx, const char *id, const char *event, const char *data)
{
	struct seen *s = ctx;

	assert_string_equal(event, "advance");
	assert_true(s->n < 64);
	snprintf(s->ids[s->n], EVENT_ID_MAX, "%s", id);
	snprintf(s->data[s->n++], 32, "%s", data);
}

static void add(struct event_log *l, int n, char *last)
{
	for (int i = 0; i < n; i++) {
		char data[32];

		snprintf(data, sizeof(data), "{\"n\":%d}", i);
		event_log_add(l, "advance", data, last);
	}
}

static void test_ids_and_resume(void **state)
{
	struct event_log *l = event_log_new(0xabc, 0, 0);
	struct seen s = { 0 };
	char id[EVENT_ID_MAX];

	(void)state;
	event_log_last_id(l, id);
	assert_string_equal(id, "00000abc-0");
	add(l, 5, id);
	assert_string_equal(id, "00000abc-5");
	assert_int_equal(event_log_replay(l, NULL, collect, &s), EVENT_NEW);
	assert_int_equal(event_log_replay(l, "", collect, &s), EVENT_NEW);
	assert_int_equal(event_log_replay(l, "garbage", collect, &s), EVENT_NEW);
	assert_int_equal(event_log_replay(l, "00000abc-x", collect, &s), EVENT_NEW);
	assert_int_equal(s.n, 0);
	assert_int_equal(event_log_replay(l, "00000abc-3", collect, &s), EVENT_CONTINUES);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.ids[0], "00000abc-4");
	assert_string_equal(s.ids[1], "00000abc-5");
	assert_string_equal(s.data[1], "{\"n\":4}");
	s.n = 0;
	assert_int_equal(event_log_replay(l, "00000abc-5", collect, &s), EVENT_CONTINUES);
	assert_int_equal(s.n, 0);
	/* before the first event: all of them */
	assert_int_equal(event_log_replay(l, "00000abc-0", collect, &s), EVENT_CONTINUES);
	assert_int_equal(s.n, 5);
	s.n = 0;
	/* an id this server never gave is a gap: all it keeps */
	assert_int_equal(event_log_replay(l, "00000abc-9", collect, &s), EVENT_GAP);
	assert_int_equal(s.n, 5);
	s.n = 0;
	/* the server before: everything since this one started */
	assert_int_equal(event_log_replay(l, "00000def-77", collect, &s), EVENT_RESTARTED);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.ids[0], "00000abc-1");
	assert_string_equal(event_resume_name(EVENT_RESTARTED), "restarted");
	event_log_free(l);
}

static void test_bounded(void **state)
{
	struct event_log *l = event_log_new(1, 4, 0);
	struct seen s = { 0 };
	char id[EVENT_ID_MAX];

	(void)state;
	add(l, 10, id);
	assert_string_equal(id, "00000001-10");
	assert_int_equal(event_log_replay(l, "00000001-7", collect, &s), EVENT_CONTINUES);
	assert_int_equal(s.n, 3);
	s.n = 0;
	/* 6 is the last one gone: 7 on are all there */
	assert_int_equal(event_log_replay(l, "00000001-6", collect, &s), EVENT_CONTINUES);
	assert_int_equal(s.n, 4);
	s.n = 0;
	assert_int_equal(event_log_replay(l, "00000001-5", collect, &s), EVENT_GAP);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.ids[0], "00000001-7");
	s.n = 0;
	/* the first event of this server is gone: a restart is a gap too */
	assert_int_equal(event_log_replay(l, "00000002-3", collect, &s), EVENT_GAP);
	event_log_free(l);

	/* by bytes: each event here is 7 + 8 bytes */
	l = event_log_new(1, 0, 40);
	add(l, 6, id);
	s.n = 0;
	assert_int_equal(event_log_replay(l, "00000001-0", collect, &s), EVENT_GAP);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.ids[0], "00000001-5");
	event_log_free(l);
}

static void test_large_event(void **state)
{
	struct event_log *l = event_log_new(1, 0, 16);
	char *big = malloc(100), id[EVENT_ID_MAX];
	struct seen s = { 0 };

	(void)state;
	memset(big, 'x', 99);
	big[99] = '\0';
	event_log_add(l, "advance", big, id);
	event_log_add(l, "advance", "{}", id);
	assert_int_equal(event_log_replay(l, "00000001-1", collect, &s), EVENT_CONTINUES);
	assert_int_equal(s.n, 1);
	free(big);
	event_log_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_and_resume),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_large_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
