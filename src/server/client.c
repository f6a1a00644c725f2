/*
 * A minimal HTTP/1.1 client for the loopback server: one request per
 * connection, the whole answer read before it is parsed.
 */
#include "server/client.h"

#include "core/buf.h"
#include "core/err.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

bool server_find(const char *root, int *port)
{
	char path[4096];
	json_t *doc;
	long pid;

	snprintf(path, sizeof(path), "%s/.sluice/server.json", root);
	doc = json_load_file(path, 0, NULL);
	if (!doc)
		return false;
	pid = (long)json_integer_value(json_object_get(doc, "pid"));
	*port = (int)json_integer_value(json_object_get(doc, "port"));
	json_decref(doc);
	/* a server killed without its clean stop leaves the file behind */
	return pid > 0 && *port > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static int connect_to(int port, struct sl_err *err)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 30 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return sl_err_set(err, SL_E_IO, "cannot open a socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		int e = errno;

		close(fd);
		return sl_err_set(err, SL_E_IO, "cannot reach the server on port %d: %s", port,
				  strerror(e));
	}
	return fd;
}

int server_request(int port, const char *method, const char *path, const char *token,
		   int *status, json_t **doc, struct sl_err *err)
{
	struct buf req = BUF_INIT, resp = BUF_INIT;
	char chunk[4096];
	const char *body;
	ssize_t n;
	int fd = connect_to(port, err), rc = 0;

	if (fd < 0)
		return fd;
	buf_addf(&req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
		       "Content-Length: 0\r\n",
		 method, path);
	if (token)
		buf_addf(&req, "Authorization: Bearer %s\r\n", token);
	buf_adds(&req, "\r\n");
	for (size_t off = 0; off < req.len && !rc; off += (size_t)n) {
		n = send(fd, req.buf + off, req.len - off, MSG_NOSIGNAL);
		if (n <= 0)
			rc = sl_err_set(err, SL_E_IO, "cannot send to the server: %s", strerror(errno));
	}
	while (!rc && (n = recv(fd, chunk, sizeof(chunk), 0)) > 0)
		buf_add(&resp, chunk, (size_t)n);
	close(fd);
	*doc = NULL;
	if (!rc && (!resp.len || sscanf(resp.buf, "HTTP/1.%*d %d", status) != 1))
		rc = sl_err_set(err, SL_E_IO, "the server on port %d gave no HTTP answer", port);
	if (!rc && (body = strstr(resp.buf, "\r\n\r\n")) != NULL)
		*doc = json_loads(body + 4, 0, NULL);
	buf_release(&req);
	buf_release(&resp);
	return rc;
}
