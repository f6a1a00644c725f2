/*
 * Test tool: sends one request's bytes exactly as written, escapes and all,
 * to a server on this machine, and prints what comes back, so that an
 * end-to-end case can send what no well-behaved client would (a NUL in the
 * request line, two Content-Lengths, a smuggled second request).
 *
 *   raw_http PORT 'BYTES'
 *
 * BYTES take \r, \n, \t, \\ and \xHH. It connects to 127.0.0.1:PORT only,
 * sends, and reads until the server closes the connection or 2 s pass
 * without a byte. It prints each response's status line and body (not its
 * other headers, which carry dates), then "[closed by the server]" or
 * "[still open]". Exit 0, or 2 for bad arguments or no connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static size_t unescape(const char *in, char *out)
{
	size_t n = 0;

	while (*in) {
		if (*in != '\\' || !in[1]) {
			out[n++] = *in++;
			continue;
		}
		in++;
		switch (*in) {
		case 'r': out[n++] = '\r'; in++; break;
		case 'n': out[n++] = '\n'; in++; break;
		case 't': out[n++] = '\t'; in++; break;
		case 'x': {
			char hex[3] = { in[1], in[1] ? in[2] : 0, 0 };

			out[n++] = (char)strtol(hex, NULL, 16);
			in += 3;
			break;
		}
		default: out[n++] = *in++; break;
		}
	}
	return n;
}

/* Prints every complete response in buf[0..len): status line and body. */
static void print_responses(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *head_end = memmem(p, (size_t)(end - p), "\r\n\r\n", 4);
		const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		const char *cl;
		size_t body = 0;

		if (!head_end || !eol) {
			printf("[partial] %.*s\n", (int)(end - p), p);
			return;
		}
		printf("%.*s\n", (int)(eol - p), p);
		cl = memmem(p, (size_t)(head_end - p), "\r\nContent-Length: ", 18);
		if (!cl)
			cl = memmem(p, (size_t)(head_end - p), "\r\ncontent-length: ", 18);
		if (cl)
			body = strtoul(cl + 18, NULL, 10);
		p = head_end + 4;
		if (body > (size_t)(end - p))
			body = (size_t)(end - p);
		printf("%.*s\n", (int)body, p);
		p += body;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	static char req[1 << 16], resp[1 << 20];
	size_t len, got = 0;
	int fd, port;
	bool closed = false;

	if (argc != 3 || (port = atoi(argv[1])) <= 0 || port > 65535 ||
	    strlen(argv[2]) >= sizeof(req)) {
		fprintf(stderr, "usage: raw_http PORT 'BYTES'\n");
		return 2;
	}
	len = unescape(argv[2], req);
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "raw_http: cannot connect: %s\n", strerror(errno));
		return 2;
	}
	for (size_t sent = 0; sent < len;) {
		ssize_t n = send(fd, req + sent, len - sent, MSG_NOSIGNAL);

		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	while (got < sizeof(resp)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 2000) <= 0)
			break;
		n = recv(fd, resp + got, sizeof(resp) - got, 0);
		if (n <= 0) {
			closed = true;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	print_responses(resp, got);
	puts(closed ? "[closed by the server]" : "[still open]");
	return 0;
}
