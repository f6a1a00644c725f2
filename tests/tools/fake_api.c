/*
 * Test tool: a JSON API to poll. Serves canned pages on 127.0.0.1, one per
 * GET in the order given, then the last one again; prints "port N" on
 * stdout when it listens, and writes one line per request to the log with
 * the query parameters and headers it was told to show, so a test can see
 * what a poller sent. Runs until SIGTERM or SIGINT.
 *   fake_api [-l LOG] [-q PARAM]... [-H HEADER]... PAGE...
 * A PAGE is FILE (answered 200 with its content), CODE:FILE (answered CODE
 * with it), or "hang" (never answered: the client has to time out).
 */
#include "core/err.h"
#include "server/http.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SHOWN 8

#define MAX_HELD 64

struct api {
	struct http_call *held[MAX_HELD];
	int nheld;
	char **pages;
	int npages, next;
	const char *query[MAX_SHOWN], *header[MAX_SHOWN];
	int nquery, nheader;
	FILE *log;
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		text = malloc((size_t)n + 1);
		if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
			free(text);
			text = NULL;
		} else if (text) {
			text[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(f);
	return text;
}

static void handle(void *ctx, struct http_call *c)
{
	struct api *api = ctx;
	const char *page = api->next < api->npages	? api->pages[api->next++]
			   : api->npages ? api->pages[api->npages - 1]
					 : NULL;
	const char *colon, *file;
	size_t len = 0;
	int status = 200;
	char *body;

	if (api->log) {
		fprintf(api->log, "%s %s", http_call_method(c), http_call_path(c));
		for (int i = 0; i < api->nquery; i++) {
			const char *v = http_call_query(c, api->query[i]);

			fprintf(api->log, " %s=%s", api->query[i], v ? v : "(none)");
		}
		for (int i = 0; i < api->nheader; i++) {
			const char *v = http_call_header(c, api->header[i]);

			fprintf(api->log, " [%s: %s]", api->header[i], v ? v : "(none)");
		}
		fprintf(api->log, "\n");
		fflush(api->log);
	}
	if (!page) {
		http_reply(c, 200, "application/json", "[]", 2);
		return;
	}
	if (strcmp(page, "hang") == 0 && api->nheld < MAX_HELD) {
		api->held[api->nheld++] = c; /* answered 503 when the server stops */
		return;
	}
	colon = strchr(page, ':');
	file = page;
	if (colon && colon - page == 3) {
		status = atoi(page);
		file = colon + 1;
	}
	body = slurp(file, &len);
	if (!body) {
		http_reply_error(c, 500, "fake_api", "cannot read the page file");
		return;
	}
	http_reply(c, status, "application/json", body, len);
	free(body);
}

int main(int argc, char **argv)
{
	struct api api = { 0 };
	struct http_config hc = { .listen = "127.0.0.1:0" };
	struct sl_err err = SL_ERR_INIT;
	struct http_server *s;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-l") == 0) {
			api.log = fopen(argv[i + 1], "a");
		} else if (strcmp(argv[i], "-q") == 0 && api.nquery < MAX_SHOWN) {
			api.query[api.nquery++] = argv[i + 1];
		} else if (strcmp(argv[i], "-H") == 0 && api.nheader < MAX_SHOWN) {
			api.header[api.nheader++] = argv[i + 1];
		} else {
			fprintf(stderr, "usage: fake_api [-l LOG] [-q PARAM]... [-H HEADER]... "
					"PAGE...\n");
			return 2;
		}
	}
	api.pages = argv + i;
	api.npages = argc - i;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (http_server_start(&hc, handle, &api, &s, &err)) {
		fprintf(stderr, "fake_api: %s\n", err.msg);
		return 1;
	}
	printf("port %d\n", http_server_port(s));
	fflush(stdout);
	while (!stopping)
		nanosleep(&(struct timespec){ 0, 20000000L }, NULL);
	http_server_stop(s);
	for (i = 0; i < api.nheld; i++)
		http_reply(api.held[i], 503, NULL, "", 0);
	if (api.log)
		fclose(api.log);
	return 0;
}
