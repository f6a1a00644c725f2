/*
 * Talking to a running `sluice serve` of the same project, for commands
 * that go through the server when there is one (`sluice live status`,
 * pause, resume, advance): the server owns the warehouse while it runs.
 */
#ifndef SL_SERVER_CLIENT_H
#define SL_SERVER_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct sl_err;

/* The port of the server running for the project in root, from
 * root/.sluice/server.json; false when there is none, or the file is
 * stale (its process is gone). */
bool server_find(const char *root, int *port);

/* The largest answer server_request reads: far above any status document,
 * and still a bound on what something else on that port may send. */
#define SERVER_MAX_ANSWER (16 * 1024 * 1024)

/* One request to the server on 127.0.0.1:port, never through a proxy; a
 * method other than GET goes with an empty body. The bytes of path that a
 * path may not hold go percent-encoded, so a '?' or '#' in it stays in
 * the path. token (may be NULL) goes as a bearer token. *status gets the
 * HTTP status and *doc the JSON body (NULL when it is not JSON; free it).
 * Fails only when the server cannot be reached or answers garbage:
 * SL_E_IO when it refuses the connection, closes it or gives no HTTP
 * answer within 30 s, SL_E_TOOBIG for an answer over SERVER_MAX_ANSWER. */
int server_request(int port, const char *method, const char *path, const char *token,
		   int *status, json_t **doc, struct sl_err *err);

/* A request with a body and a query, for the calls that send one (a
 * query to read, a command to run). */
struct server_ask {
	const char *method, *path;
	const char *query;        /* "format=csv&max_rows=10", or NULL */
	const char *token;        /* may be NULL */
	const char *body;         /* may be NULL: an empty body */
	size_t body_len;
	const char *content_type; /* of the body; NULL: none */
	long timeout_ms;          /* 0: 30 s */
};
struct server_answer {
	int status;
	char *body;     /* NUL-terminated; free() it */
	size_t len;
	bool truncated; /* X-Sluice-Truncated: true */
};
/* The same as server_request for any answer: its body as it came. */
int server_call(int port, const struct server_ask *ask, struct server_answer *ans,
		struct sl_err *err);

#endif
