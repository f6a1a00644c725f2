/*
 * The decisions of a connection that comes back on its own: which errors
 * mean the session is gone, and the backoff between attempts to open it
 * again. Pure: it never touches a connection or reads the clock.
 */
#include "warehouse/reconnect.h"

#include <string.h>

bool wh_reconnect_lost_state(const char *sqlstate)
{
	if (!sqlstate)
		return false;
	return strncmp(sqlstate, "08", 2) == 0 || strcmp(sqlstate, "57P01") == 0 ||
	       strcmp(sqlstate, "57P02") == 0 || strcmp(sqlstate, "57P03") == 0;
}

int64_t wh_reconnect_wait_ms(int failures)
{
	int64_t d = WH_RECONNECT_BASE_MS;

	if (failures <= 0)
		return 0;
	for (int i = 1; i < failures && d < WH_RECONNECT_MAX_MS; i++)
		d *= 2;
	return d < WH_RECONNECT_MAX_MS ? d : WH_RECONNECT_MAX_MS;
}

bool wh_reconnect_due(const struct wh_reconnect *r, int64_t now_ms)
{
	return r->failures == 0 || now_ms >= r->next_ms;
}

void wh_reconnect_failed(struct wh_reconnect *r, int64_t now_ms)
{
	r->failures++;
	r->next_ms = now_ms + wh_reconnect_wait_ms(r->failures);
}

void wh_reconnect_done(struct wh_reconnect *r)
{
	r->failures = 0;
	r->next_ms = 0;
}
