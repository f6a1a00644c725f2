/*
 * This file implements the UI's routes: the app shell at /, its files
 * under /ui/ (embedded at build: assets.h), signing in and out, and
 * GET /api/session, which tells the page how it is authorized and gives it
 * its CSRF token. Who may make a request is the guard's to decide before
 * any of this runs (guard.h); this file only makes and ends sessions.
 * Every route answers on the HTTP thread at once.
 */
#include "server/server_int.h"

#include "core/err.h"
#include "core/units.h"
#include "project/project.h"
#include "server/assets.h"
#include "server/http.h"
#include "server/session.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* a sign-in body is a token in a small JSON object */
#define SIGNIN_BODY_MAX 4096

static bool segment_is(struct http_call *c, size_t i, const char *want)
{
	const char *seg = http_call_segment(c, i);

	return seg && strcmp(seg, want) == 0;
}

static bool method_ok(struct http_call *c, bool post)
{
	const char *m = http_call_method(c);

	if (post ? strcmp(m, "POST") == 0 : strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0)
		return true;
	http_call_add_header(c, "Allow", post ? "POST" : "GET, HEAD");
	http_reply_error(c, 405, "method not allowed", post ? "use POST" : "use GET");
	return false;
}

/* An embedded file, or 304 when the browser's copy is the same bytes. */
static void asset(struct http_call *c, const char *path)
{
	const struct web_asset *a = web_asset_find(path);

	if (!a) {
		http_reply_error(c, 404, "not found", http_call_path(c));
		return;
	}
	/* a copy is used only once the server says it is still current */
	http_call_add_header(c, "Cache-Control", "no-cache");
	http_call_add_header(c, "ETag", a->etag);
	if (web_asset_fresh(a, http_call_header(c, "If-None-Match")))
		http_reply(c, 304, NULL, "", 0);
	else
		http_reply(c, 200, a->type, (const char *)a->data, a->len);
}

/* /ui/A/B... as the asset path "A/B" */
static void ui_file(struct http_call *c)
{
	char path[HTTP_PATH_MAX];
	size_t len = 0;

	path[0] = '\0';
	for (size_t i = 1; i < http_call_nsegments(c); i++)
		len += (size_t)snprintf(path + len, sizeof(path) - len, "%s%s", i > 1 ? "/" : "",
					http_call_segment(c, i));
	asset(c, path);
}

static void set_cookie(struct http_call *c, const char *id, int64_t max_age_s)
{
	char cookie[160];

	snprintf(cookie, sizeof(cookie),
		 GUARD_COOKIE "=%s; Path=/; Max-Age=%lld; HttpOnly; SameSite=Strict",
		 id, (long long)max_age_s);
	http_call_add_header(c, "Set-Cookie", cookie);
}

/* POST /auth/signin {"token": TOKEN}: a session for the page. */
static void sign_in(struct server *s, struct http_call *c)
{
	char id[SESSION_TOKEN_LEN + 1], csrf[SESSION_TOKEN_LEN + 1];
	struct sl_err err = SL_ERR_INIT;
	size_t len;
	const char *body = http_call_body(c, &len);
	json_t *doc, *tok;

	if (len > SIGNIN_BODY_MAX) {
		http_reply_error(c, 413, "payload too large", "a sign-in body is at most 4096 bytes");
		return;
	}
	if (!s->token.set) {
		http_reply_json(c, 200, json_pack("{s:s, s:n}", "auth", "open", "csrf"));
		return;
	}
	doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	tok = json_object_get(doc, "token");
	if (!json_is_string(tok)) {
		json_decref(doc);
		http_reply_error(c, 400, "bad request", "the body must be {\"token\": \"...\"}");
		return;
	}
	if (!guard_token_matches(&s->token, json_string_value(tok), json_string_length(tok))) {
		json_decref(doc);
		http_reply_error(c, 401, "unauthorized", "the token is not the server's");
		return;
	}
	json_decref(doc);
	if (session_create(s->sessions, units_now_ms(), id, csrf, &err)) {
		http_reply_error(c, 500, "internal error", err.msg);
		return;
	}
	set_cookie(c, id, session_store_max_ms(s->sessions) / 1000);
	http_reply_json(c, 200, json_pack("{s:s, s:s}", "auth", "session", "csrf", csrf));
}

/* POST /auth/signout: the session is forgotten and the cookie cleared. */
static void sign_out(struct server *s, struct http_call *c)
{
	char id[SESSION_TOKEN_LEN + 1];

	if (guard_cookie_session(http_call_header(c, "Cookie"), id))
		session_end(s->sessions, id, units_now_ms());
	set_cookie(c, "", 0);
	http_reply_json(c, 200, json_pack("{s:b}", "signed_in", 0));
}

/* GET /api/session: how the guard let this request through, and the
 * session's CSRF token for the page's POSTs. */
static void session_info(struct server *s, struct http_call *c)
{
	char id[SESSION_TOKEN_LEN + 1], csrf[SESSION_TOKEN_LEN + 1];
	const char *auth = "open";
	bool has_csrf = false;

	if (s->token.set && http_call_header(c, "Authorization")) {
		auth = "bearer";
	} else if (s->token.set && guard_cookie_session(http_call_header(c, "Cookie"), id) &&
		   session_find(s->sessions, id, units_now_ms(), csrf)) {
		auth = "session";
		has_csrf = true;
	}
	http_reply_json(c, 200,
			json_pack("{s:s, s:s?, s:b, s:s}", "auth", auth, "csrf",
				  has_csrf ? csrf : NULL, "token", s->token.set, "project",
				  s->p->cfg.name ? s->p->cfg.name : ""));
}

bool server_webui_route(struct server *s, struct http_call *c)
{
	size_t n = http_call_nsegments(c);

	if (n == 0) {
		if (method_ok(c, false))
			asset(c, "index.html");
	} else if (segment_is(c, 0, "ui") && n > 1) {
		if (method_ok(c, false))
			ui_file(c);
	} else if (n == 2 && segment_is(c, 0, "auth") && segment_is(c, 1, "signin")) {
		if (method_ok(c, true))
			sign_in(s, c);
	} else if (n == 2 && segment_is(c, 0, "auth") && segment_is(c, 1, "signout")) {
		if (method_ok(c, true))
			sign_out(s, c);
	} else if (n == 2 && segment_is(c, 0, "api") && segment_is(c, 1, "session")) {
		if (method_ok(c, false))
			session_info(s, c);
	} else {
		return false;
	}
	return true;
}
