/*
 * Talking to a running `sluice serve` of the same project, for commands
 * that go through the server when there is one (`sluice live status`,
 * pause, resume, advance): the server owns the warehouse while it runs.
 */
#ifndef SL_SERVER_CLIENT_H
#define SL_SERVER_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

struct sl_err;

/* The port of the server running for the project in root, from
 * root/.sluice/server.json; false when there is none, or the file is
 * stale (its process is gone). */
bool server_find(const char *root, int *port);

/* One request to the server on 127.0.0.1:port; token (may be NULL) goes
 * as a bearer token. *status gets the HTTP status and *doc the JSON body
 * (NULL when it is not JSON; free it). Fails only when the server cannot
 * be reached or answers garbage. */
int server_request(int port, const char *method, const char *path, const char *token,
		   int *status, json_t **doc, struct sl_err *err);

#endif
