/*
 * When a warehouse connection counts as lost, and when to try to open it
 * again: the decisions of a connection that comes back on its own, kept
 * apart from libpq so that they can be tested without a server. No I/O,
 * no clock of its own: the caller passes the time.
 */
#ifndef SL_WAREHOUSE_RECONNECT_H
#define SL_WAREHOUSE_RECONNECT_H

#include <stdbool.h>
#include <stdint.h>

/* The first wait after a failed attempt, doubling up to the most. */
#define WH_RECONNECT_BASE_MS 100
#define WH_RECONNECT_MAX_MS 5000

/* Whether an error the server raised (its SQLSTATE, NULL when it gave
 * none) means that the session is gone, rather than that one statement
 * failed: class 08 (connection exceptions), 57P01 admin_shutdown (an
 * administrator's pg_terminate_backend, a fast shutdown), 57P02
 * crash_shutdown, 57P03 cannot_connect_now (a server starting up or
 * shutting down). A statement without SQLSTATE on a connection libpq
 * reports bad is lost too: the caller tells that apart. */
bool wh_reconnect_lost_state(const char *sqlstate);

/* Attempts to open a lost connection again: how many failed in a row and
 * when the next is due (monotonic milliseconds). */
struct wh_reconnect {
	int failures;
	int64_t next_ms;
};

/* The wait after failures failed attempts in a row (0: none). */
int64_t wh_reconnect_wait_ms(int failures);
/* Whether an attempt may be made at now_ms. */
bool wh_reconnect_due(const struct wh_reconnect *r, int64_t now_ms);
/* An attempt failed at now_ms: the next waits longer. */
void wh_reconnect_failed(struct wh_reconnect *r, int64_t now_ms);
/* The connection is up: the next loss starts from the first wait. */
void wh_reconnect_done(struct wh_reconnect *r);

#endif
