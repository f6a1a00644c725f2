/*
 * The UI's sign-in sessions: what a browser holds instead of the token.
 * Signing in with the token makes a session, a random id that the browser
 * keeps in an HttpOnly cookie, and a random CSRF token that the page sends
 * back with every POST. The store is bounded: at most `capacity` sessions,
 * each forgotten `idle_ms` after its last use and `max_ms` after it was
 * made; when full, making one forgets the one used longest ago. Only
 * digests of the ids are kept and compared, in constant time, so neither
 * memory nor timing gives an id away. Thread-safe: one lock per store.
 */
#ifndef SL_SERVER_SESSION_H
#define SL_SERVER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sl_err;
struct session_store;

/* An id and a CSRF token: 32 random bytes as 64 hex digits. */
#define SESSION_TOKEN_LEN 64

struct session_limits {
	size_t capacity;  /* 0: 64 */
	int64_t idle_ms;  /* 0: 12 hours */
	int64_t max_ms;   /* 0: 7 days */
};

/* A store with lim's bounds (lim may be NULL: the defaults); freed with
 * session_store_free. */
struct session_store *session_store_new(const struct session_limits *lim);
void session_store_free(struct session_store *st);
/* How long a session lives at most, for the cookie's Max-Age. */
int64_t session_store_max_ms(const struct session_store *st);

/* Makes a session at now_ms: its id and CSRF token into id and csrf
 * (SESSION_TOKEN_LEN + 1 bytes each). SL_E_INTERNAL when the system has
 * no randomness to give. */
int session_create(struct session_store *st, int64_t now_ms, char *id, char *csrf,
		   struct sl_err *err);
/* Whether id names a live session at now_ms; if so it counts as used now,
 * and its CSRF token goes into csrf (SESSION_TOKEN_LEN + 1 bytes; may be
 * NULL). An id of another length is no session. */
bool session_find(struct session_store *st, const char *id, int64_t now_ms, char *csrf);
/* Forgets the session id names, if any (signing out). */
void session_end(struct session_store *st, const char *id, int64_t now_ms);
/* The sessions alive at now_ms. */
size_t session_count(struct session_store *st, int64_t now_ms);

#endif
