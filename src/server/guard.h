/*
 * Who may make a request: the one place that decides it, before any route
 * sees the request (http.c asks it for every request, with the headers
 * that matter). Pure: it reads the request's facts, the token's digest
 * and the session store, and says let through, 401 or 403.
 *
 * - A request that may change something (any method but GET, HEAD and
 *   OPTIONS), or any request under the protected segment, sent by a
 *   browser from another origin is refused 403 whatever its authority: an Origin header that is not this server's own (its
 *   Host), or a Sec-Fetch-Site other than same-origin or none. That is what
 *   keeps a web page elsewhere from driving a server open on loopback.
 *   Senders that are no browser (curl, webhooks) send neither and pass.
 * - Under the protected segment ("api"), when the server has a token:
 *   an Authorization header must be "Bearer TOKEN" (401 otherwise, the
 *   cookie is not looked at then); without one, a session cookie
 *   (sluice_session) naming a live session authorizes the request, if a
 *   browser says it comes from the page itself (Sec-Fetch-Site
 *   same-origin or none: cookies know no ports, so another program of the
 *   host may hold it, and no header is no browser) and, for a method that may change something, carries the
 *   session's CSRF token in X-Sluice-CSRF (403 otherwise); with neither,
 *   401.
 * - A server without a token answers only requests whose Host is an IP
 *   address or localhost (with a port or not): a web page elsewhere whose
 *   name was made to point at this machine (DNS rebinding) would be the
 *   server's own origin, and is refused 403 on every path.
 * - Everything else passes: the UI's files and the sign-in route, and
 *   every path when the server has no token.
 */
#ifndef SL_SERVER_GUARD_H
#define SL_SERVER_GUARD_H

#include <openssl/sha.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct http_path;
struct session_store;

#define GUARD_COOKIE "sluice_session"
#define GUARD_CSRF_HEADER "X-Sluice-CSRF"
/* a Cookie header is read this far; a session cookie past it is none */
#define GUARD_COOKIE_MAX 8192

/* A token, kept as its digest: comparing digests takes the same time
 * wherever two tokens differ, whatever their lengths. */
struct guard_token {
	bool set;
	unsigned char digest[SHA256_DIGEST_LENGTH];
};

/* token NULL or "": no token. */
void guard_token_init(struct guard_token *t, const char *token);
/* Whether candidate (len bytes) is the token; false when there is none. */
bool guard_token_matches(const struct guard_token *t, const char *candidate, size_t len);

struct guard {
	struct guard_token token;
	/* the first segment of the paths that need authority; NULL: every
	 * path */
	const char *segment;
	struct session_store *sessions; /* NULL: no cookie authority */
};

/* What the guard reads of a request; a header that is absent is NULL. */
struct guard_request {
	const char *method;
	const struct http_path *path;
	const char *authorization, *cookie, *origin, *host, *fetch_site, *csrf;
};

enum guard_authority {
	GUARD_OPEN,    /* nothing needed: no token, or a path outside the segment */
	GUARD_BEARER,  /* the token itself */
	GUARD_SESSION, /* a session cookie */
};

struct guard_verdict {
	int status; /* 0: let it through; 401 or 403 */
	const char *error, *detail; /* static strings, for a refusal */
	enum guard_authority by;
};

void guard_decide(const struct guard *g, const struct guard_request *rq, int64_t now_ms,
		  struct guard_verdict *v);

/* The value of the session cookie in a Cookie header, into out
 * (SESSION_TOKEN_LEN + 1 bytes): false when there is none, when it is
 * named twice, when it is no session id's shape, or past GUARD_COOKIE_MAX. */
bool guard_cookie_session(const char *cookie, char *out);
/* Whether a Host header names an address (IPv4, [IPv6]) or localhost,
 * with a port or not; no header (HTTP/1.0) counts as one. */
bool guard_host_literal(const char *host);
/* Whether an Origin header names the server a Host header names:
 * "http://HOST" or "https://HOST", the host compared without case. */
bool guard_same_origin(const char *origin, const char *host);

#endif
