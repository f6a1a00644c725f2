/*
 * The decision of guard.h: origin, token, session and CSRF, in that order.
 * It never answers a request itself and never keeps a request's bytes.
 */
#include "server/guard.h"

#include "core/hex.h"
#include "server/http.h"
#include "server/session.h"

#include <arpa/inet.h>
#include <openssl/crypto.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void guard_token_init(struct guard_token *t, const char *token)
{
	memset(t, 0, sizeof(*t));
	if (!token || !*token)
		return;
	t->set = true;
	SHA256((const unsigned char *)token, strlen(token), t->digest);
}

bool guard_token_matches(const struct guard_token *t, const char *candidate, size_t len)
{
	unsigned char got[SHA256_DIGEST_LENGTH];

	if (!t->set || !candidate)
		return false;
	SHA256((const unsigned char *)candidate, len, got);
	return CRYPTO_memcmp(got, t->digest, sizeof(got)) == 0;
}

bool guard_same_origin(const char *origin, const char *host)
{
	const char *rest;

	if (!origin || !host || !*host)
		return false;
	if (strncasecmp(origin, "http://", 7) == 0)
		rest = origin + 7;
	else if (strncasecmp(origin, "https://", 8) == 0)
		rest = origin + 8;
	else
		return false; /* "null" (a sandboxed or opaque origin) too */
	return strcasecmp(rest, host) == 0;
}

/* What may follow a Host's name: nothing, or ":" and a port. */
static bool port_ok(const char *p)
{
	size_t n;

	if (!*p)
		return true;
	n = strspn(p + 1, "0123456789");
	return p[0] == ':' && n >= 1 && n <= 5 && !p[1 + n] && atoi(p + 1) <= 65535;
}

bool guard_host_literal(const char *host)
{
	char name[64];
	const char *colon;
	size_t n;
	unsigned char addr[16];

	if (!host)
		return true;
	if (host[0] == '[') {
		n = strcspn(host + 1, "]");
		if (host[1 + n] != ']' || n >= sizeof(name) || !port_ok(host + 2 + n))
			return false;
		memcpy(name, host + 1, n);
		name[n] = '\0';
		return inet_pton(AF_INET6, name, addr) == 1;
	}
	colon = strrchr(host, ':');
	n = colon ? (size_t)(colon - host) : strlen(host);
	if (n >= sizeof(name) || !port_ok(host + n))
		return false;
	memcpy(name, host, n);
	name[n] = '\0';
	return strcasecmp(name, "localhost") == 0 || inet_pton(AF_INET, name, addr) == 1;
}

bool guard_cookie_session(const char *cookie, char *out)
{
	static const char name[] = GUARD_COOKIE "=";
	const char *p = cookie, *end;
	bool found = false;

	if (!cookie || strnlen(cookie, GUARD_COOKIE_MAX + 1) > GUARD_COOKIE_MAX)
		return false;
	end = cookie + strlen(cookie);
	while (p < end) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, ";");
		if (n > sizeof(name) - 1 && strncmp(p, name, sizeof(name) - 1) == 0) {
			const char *v = p + sizeof(name) - 1;
			size_t vlen = n - (sizeof(name) - 1);

			while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
				vlen--;
			/* a second one leaves which counts to whoever reads */
			if (found || vlen != SESSION_TOKEN_LEN)
				return false;
			for (size_t i = 0; i < vlen; i++)
				if (hex_value(v[i]) < 0)
					return false;
			memcpy(out, v, vlen);
			out[vlen] = '\0';
			found = true;
		}
		p += n + (p[n] == ';');
	}
	return found;
}

static bool may_change(const char *method)
{
	return strcmp(method, "GET") && strcmp(method, "HEAD") && strcmp(method, "OPTIONS");
}

/* A Sec-Fetch-Site a browser sends for the page's own requests (or the
 * user's typing); absent from senders that are no browser. */
static bool own_site(const char *fetch_site)
{
	return !fetch_site || strcasecmp(fetch_site, "same-origin") == 0 ||
	       strcasecmp(fetch_site, "none") == 0;
}

/* Whether path is under the segment that needs authority. */
static bool in_segment(const struct guard *g, const struct http_path *path)
{
	return !g->segment || (path->n && strcmp(path->seg[0], g->segment) == 0);
}

static void refuse(struct guard_verdict *v, int status, const char *error, const char *detail)
{
	v->status = status;
	v->error = error;
	v->detail = detail;
}

/* Under the segment, with a token: the bearer, else the session. */
static void authorize(const struct guard *g, const struct guard_request *rq, int64_t now_ms,
		      struct guard_verdict *v)
{
	char id[SESSION_TOKEN_LEN + 1], csrf[SESSION_TOKEN_LEN + 1];
	const char *h = rq->authorization;

	if (h) {
		if (strncasecmp(h, "Bearer ", 7)) {
			refuse(v, 401, "unauthorized", "this path needs an 'Authorization: Bearer' header");
			return;
		}
		for (h += 7; *h == ' '; h++)
			;
		if (!guard_token_matches(&g->token, h, strlen(h)))
			refuse(v, 401, "unauthorized", "the bearer token is not the server's");
		else
			v->by = GUARD_BEARER;
		return;
	}
	if (!g->sessions || !guard_cookie_session(rq->cookie, id) ||
	    !session_find(g->sessions, id, now_ms, csrf)) {
		refuse(v, 401, "unauthorized", "this path needs an 'Authorization: Bearer' header");
		return;
	}
	/* a browser says where a request comes from; the cookie may have
	 * reached another program of this host (cookies know no ports) */
	if (!rq->fetch_site || !own_site(rq->fetch_site)) {
		refuse(v, 403, "forbidden", "a session is good for the server's own pages only");
		return;
	}
	if (may_change(rq->method) &&
	    (!rq->csrf || strlen(rq->csrf) != SESSION_TOKEN_LEN ||
	     CRYPTO_memcmp(rq->csrf, csrf, SESSION_TOKEN_LEN))) {
		refuse(v, 403, "forbidden",
		       "a request made with a session needs its CSRF token in " GUARD_CSRF_HEADER);
		return;
	}
	v->by = GUARD_SESSION;
}

void guard_decide(const struct guard *g, const struct guard_request *rq, int64_t now_ms,
		  struct guard_verdict *v)
{
	const struct http_path *path = rq->path;

	memset(v, 0, sizeof(*v));
	/* a page whose name was made to point here (DNS rebinding) would be
	 * this server's own origin: an open server answers to addresses and
	 * localhost, no other name */
	if (!g->token.set && !guard_host_literal(rq->host)) {
		refuse(v, 403, "forbidden",
		       "a server without a token answers to its address or localhost, not to a name "
		       "(set server.token_env to reach it by name)");
		return;
	}
	/* the API is the server's own pages' and other programs', whatever
	 * the method: a page elsewhere may not even read a stream of it */
	if ((may_change(rq->method) || in_segment(g, path)) &&
	    ((rq->origin && !guard_same_origin(rq->origin, rq->host)) || !own_site(rq->fetch_site))) {
		refuse(v, 403, "forbidden", "a request from another origin may not change anything, nor read the API");
		return;
	}
	if (!g->token.set || !in_segment(g, path))
		return;
	authorize(g, rq, now_ms, v);
}
