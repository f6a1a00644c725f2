/*
 * Test tool: floods a local HTTP server (`sluice serve`) with connections,
 * for the end-to-end tests of its defences against slow clients and of its
 * answers under a burst of requests. One epoll loop, non-blocking sockets,
 * no threads. It only ever connects to the --url given, and refuses one
 * whose host is not a loopback address: it must never be aimed at anything
 * but a server on this machine. Every run ends by --duration.
 *
 *   conn_flood --url http://HOST:PORT --mode slow-headers|slow-body|burst
 *              [--bind ADDR] [--conns N] [--path P] [--token T]
 *              [--interval-ms MS] [--duration S] [--body-bytes B]
 *              [--rounds K]
 *
 *   slow-headers  opens N connections; on each sends the request line
 *                 "GET P HTTP/1.1", then one byte of header lines (Host,
 *                 Authorization, then "X-Slow: 1" again and again) every
 *                 MS ms, never ending the header block
 *   slow-body     opens N connections; on each sends the complete headers
 *                 of a "POST P" with Content-Length: B, then one byte of
 *                 the body (spaces) every MS ms, and once all B are sent
 *                 waits for the answer
 *   burst         opens N connections, and once all are open sends one
 *                 "GET P" on each, back to back, and reads every answer
 *                 (Content-Length, chunked, or up to the close); K rounds
 *                 of that on the same keep-alive connections (one the
 *                 server closed is opened again for the next round)
 *
 *   --url          http://HOST:PORT, HOST a literal in 127.0.0.0/8 or
 *                  [::1] (anything else: exit 2)
 *   --bind         the source address of every connection, a loopback
 *                  literal of the same family: with 127.0.0.2 the flood
 *                  comes from another address than a well-behaved client
 *                  on 127.0.0.1
 *   --conns        connections (100)
 *   --path         the request path (/api/live/status)
 *   --token        sent as Authorization: Bearer T
 *   --interval-ms  slow modes: the pause between two bytes (1000)
 *   --duration     seconds (10) the run may take. The slow modes trickle
 *                  that long, or until the server has closed every
 *                  connection; burst gives up on what is unanswered then
 *   --body-bytes   slow-body: the Content-Length sent (4096)
 *   --rounds       burst: requests per connection (1)
 *
 * Prints one line of key=value pairs. The slow modes:
 *   mode=slow-headers conns=N opened=N connect_errors=0 closed_by_server=N
 *   answered=0 still_open=0 closed_after_s_min=2.0
 *   closed_after_s_median=2.0 closed_after_s_max=2.1
 * opened: connections established; connect_errors: not established
 * (refused, failed, still connecting at the end); closed_by_server: of the
 * opened, how many the server closed (end of stream or reset, noticed on a
 * read or a send); answered: how many got any answer bytes, with
 * status_NNN=COUNT after it for each status seen on them; still_open: not
 * closed at the end; closed_after_s: from the connection's establishment
 * to its close, "-" when none was closed. burst:
 *   mode=burst conns=N rounds=K opened=N connect_errors=0 requests=N*K
 *   ok=N*K status_503=0 errors=0 timeouts=0 p50_ms=1.2 p99_ms=3.4
 *   max_ms=3.5
 * opened: connections established, reopened ones included; requests: one
 * per connection and round; ok: answered 2xx; status_NNN: answered NNN,
 * status_503 always and the other statuses that were seen; errors:
 * requests lost to the connection (not opened, closed or reset before a
 * complete answer, an answer that cannot be read), connect_errors being
 * those not opened; timeouts: unanswered at the end; p50/p99/max_ms: from
 * a request's send to the end of its answer, over the answered ones ("-"
 * when none was).
 *
 * Exit 0 after a run, 1 when no connection could be opened, 2 for bad
 * arguments.
 */
#include "core/units.h"
#include "net.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define CONNS_MAX 100000
#define IN_MAX (16 << 20)  /* burst: the largest answer read */
#define HEAD_MAX 65536     /* burst: the largest answer header block */
#define TICK_SLACK_US 1000 /* slow modes: bytes due this soon go out now */
#define FIRST_MAX 16       /* slow modes: answer bytes kept, for the status */

enum mode { MODE_SLOW_HEADERS, MODE_SLOW_BODY, MODE_BURST };

static const char *const mode_names[] = { "slow-headers", "slow-body", "burst" };

struct opts {
	const char *url, *bind, *path, *token;
	enum mode mode;
	long conns, interval_ms, body_bytes, rounds;
	double duration_s;
};

enum conn_state {
	CONN_DOWN,       /* no socket: not opened yet, failed, or (burst) dropped */
	CONN_CONNECTING,
	CONN_OPEN,       /* slow modes: trickling; burst: between requests */
	CONN_SENDING,    /* burst: the request partly sent */
	CONN_WAITING,    /* burst: the request sent, its answer not complete */
	CONN_CLOSED,     /* slow modes: closed by the server */
};

/* Where a burst round is: opening the connections that are down, waiting
 * for them to connect, waiting for the answers. */
enum burst_phase { BURST_OPEN, BURST_CONNECTING, BURST_ANSWERS };

struct conn {
	int fd;
	enum conn_state state;
	uint32_t events;   /* what epoll watches */
	int64_t opened_us; /* when the connection was established */
	int64_t sent_us;   /* burst: when the request went out */
	int64_t next_us;   /* slow modes: when the next byte is due */
	size_t sent, due;  /* bytes of the stream sent, and due by now */
	char first[FIRST_MAX]; /* slow modes: the first answer bytes */
	size_t first_len;
	bool status_counted;
	char *in;          /* burst: the answer so far, NUL-terminated */
	size_t in_len, in_cap;
};

struct flood {
	struct opts o;
	struct sockaddr_storage addr, src;
	socklen_t addrlen, srclen;
	char hostport[80]; /* for the Host header */
	int ep;
	struct conn *conns;
	/* What each connection sends, its stream: head (burst: the request),
	 * then in the slow modes trickle bytes, prefix and then repeat over
	 * and over, up to stream_len bytes in all. */
	char head[2048], prefix[1024];
	size_t head_len, prefix_len, stream_len;
	const char *repeat;
	int64_t start_us, deadline_us;
	long round;        /* burst: rounds done */
	enum burst_phase phase;
	long opened, connect_errors, closed, answered;
	long requests, ok, errors, timeouts;
	long statuses[600];
	int64_t *times_us; /* slow: closed-after times; burst: latencies */
	size_t ntimes, times_cap;
	bool said_errno;   /* the first socket error was shown */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: conn_flood --url http://HOST:PORT --mode slow-headers|slow-body|burst\n"
		"                  [--bind ADDR] [--conns N] [--path P] [--token T]\n"
		"                  [--interval-ms MS] [--duration S] [--body-bytes B]\n"
		"                  [--rounds K]\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "conn_flood: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long arg_long(const char *v, long min, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < min || n > max)
		usage();
	return n;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	bool have_mode = false;
	char *end;

	*o = (struct opts){ .path = "/api/live/status", .conns = 100, .interval_ms = 1000,
			    .body_bytes = 4096, .rounds = 1, .duration_s = 10 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v || strncmp(a, "--", 2) != 0)
			usage();
		i++;
		if (strcmp(a, "--url") == 0) {
			o->url = v;
		} else if (strcmp(a, "--bind") == 0) {
			o->bind = v;
		} else if (strcmp(a, "--path") == 0) {
			o->path = v;
		} else if (strcmp(a, "--token") == 0) {
			o->token = v;
		} else if (strcmp(a, "--mode") == 0) {
			have_mode = false;
			for (int m = 0; m < 3; m++)
				if (strcmp(v, mode_names[m]) == 0) {
					o->mode = (enum mode)m;
					have_mode = true;
				}
			if (!have_mode)
				usage();
		} else if (strcmp(a, "--conns") == 0) {
			o->conns = arg_long(v, 1, CONNS_MAX);
		} else if (strcmp(a, "--interval-ms") == 0) {
			o->interval_ms = arg_long(v, 1, 3600 * 1000);
		} else if (strcmp(a, "--body-bytes") == 0) {
			o->body_bytes = arg_long(v, 1, 1L << 40);
		} else if (strcmp(a, "--rounds") == 0) {
			o->rounds = arg_long(v, 1, 1000000);
		} else if (strcmp(a, "--duration") == 0) {
			o->duration_s = strtod(v, &end);
			if (end == v || *end || !(o->duration_s > 0 && o->duration_s <= 3600))
				usage();
		} else {
			usage();
		}
	}
	/* what goes into the request must keep to one line of it */
	if (!o->url || !have_mode || o->path[0] != '/' || strpbrk(o->path, " \r\n") ||
	    (o->token && strpbrk(o->token, "\r\n")))
		usage();
}

/* ---- where to connect, and from where ---- */

/* A loopback address literal (in 127.0.0.0/8, or ::1) and a port into
 * *ss. -1 when text is not one. */
static int loopback_parse(const char *text, int port, struct sockaddr_storage *ss,
			  socklen_t *len)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
		if (ntohl(v4->sin_addr.s_addr) >> 24 != 127)
			return -1;
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*len = sizeof(*v4);
		return 0;
	}
	if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
		if (!IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr))
			return -1;
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*v6);
		return 0;
	}
	return -1;
}

/* --url ("http://HOST:PORT" or "http://[V6]:PORT", a "/" after it allowed)
 * and --bind into F's addresses; exits 2 on anything else. */
static void where_parse(struct flood *F)
{
	const char *u = F->o.url, *h = u + 7, *he, *p;
	char host[64], *end;
	bool v6 = false;
	long port;

	if (strncmp(u, "http://", 7) != 0)
		goto bad;
	if (*h == '[') {
		v6 = true;
		h++;
		he = strchr(h, ']');
		if (!he || he[1] != ':')
			goto bad;
		p = he + 2;
	} else {
		he = strchr(h, ':');
		if (!he)
			goto bad;
		p = he + 1;
	}
	if (he == h || (size_t)(he - h) >= sizeof(host) || !isdigit((unsigned char)*p))
		goto bad;
	memcpy(host, h, (size_t)(he - h));
	host[he - h] = '\0';
	port = strtol(p, &end, 10);
	if ((*end && strcmp(end, "/") != 0) || port < 1 || port > 65535)
		goto bad;
	if (loopback_parse(host, (int)port, &F->addr, &F->addrlen))
		goto bad;
	snprintf(F->hostport, sizeof(F->hostport), "%s%s%s:%ld", v6 ? "[" : "", host,
		 v6 ? "]" : "", port);
	if (F->o.bind && (loopback_parse(F->o.bind, 0, &F->src, &F->srclen) ||
			  F->src.ss_family != F->addr.ss_family)) {
		fprintf(stderr,
			"conn_flood: --bind '%s' is not a loopback address of the --url's family\n",
			F->o.bind);
		exit(2);
	}
	return;
bad:
	fprintf(stderr,
		"conn_flood: --url '%s' is not http://HOST:PORT with HOST a loopback address "
		"(127.0.0.0/8 or [::1])\n",
		u);
	exit(2);
}

/* ---- what is sent ---- */

/* The stream each connection sends, by mode. */
static void stream_build(struct flood *F)
{
	const struct opts *o = &F->o;
	char auth[600] = "";
	int n;

	if (o->token)
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s\r\n", o->token);
	switch (o->mode) {
	case MODE_SLOW_HEADERS:
		n = snprintf(F->head, sizeof(F->head), "GET %s HTTP/1.1\r\n", o->path);
		F->prefix_len = (size_t)snprintf(F->prefix, sizeof(F->prefix), "Host: %s\r\n%s",
						 F->hostport, auth);
		F->repeat = "X-Slow: 1\r\n";
		F->stream_len = SIZE_MAX;
		break;
	case MODE_SLOW_BODY:
		n = snprintf(F->head, sizeof(F->head),
			     "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\n"
			     "Content-Length: %ld\r\n\r\n",
			     o->path, F->hostport, auth, o->body_bytes);
		F->repeat = " ";
		F->stream_len = (size_t)n + (size_t)o->body_bytes;
		break;
	default:
		n = snprintf(F->head, sizeof(F->head), "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n",
			     o->path, F->hostport, auth);
		F->stream_len = (size_t)n;
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(F->head) || F->prefix_len >= sizeof(F->prefix)) {
		fprintf(stderr, "conn_flood: --path or --token too long\n");
		exit(2);
	}
	F->head_len = (size_t)n;
}

static char stream_byte(const struct flood *F, size_t i)
{
	if (i < F->head_len)
		return F->head[i];
	i -= F->head_len;
	if (i < F->prefix_len)
		return F->prefix[i];
	i -= F->prefix_len;
	return F->repeat[i % strlen(F->repeat)];
}

/* Sends what is due of c's stream. Returns 1 when all of it is out, 0 when
 * the socket takes no more for now, -1 when the connection is broken. */
static int conn_push(const struct flood *F, struct conn *c)
{
	char buf[4096];

	while (c->sent < c->due) {
		size_t n = c->due - c->sent < sizeof(buf) ? c->due - c->sent : sizeof(buf);
		ssize_t w;

		for (size_t i = 0; i < n; i++)
			buf[i] = stream_byte(F, c->sent + i);
		w = send(c->fd, buf, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0)
			return -1;
		c->sent += (size_t)w;
	}
	return 1;
}

/* ---- connections ---- */

static void watch(struct flood *F, struct conn *c, uint32_t events)
{
	if (net_watch(F->ep, c->fd, &c->events, events, c))
		die("epoll_ctl");
}

static void time_add(struct flood *F, int64_t us)
{
	if (F->ntimes == F->times_cap) {
		F->times_cap = F->times_cap * 2 + 1024;
		F->times_us = realloc(F->times_us, F->times_cap * sizeof(int64_t));
		if (!F->times_us)
			abort();
	}
	F->times_us[F->ntimes++] = us;
}

static void conn_drop(struct conn *c, enum conn_state to)
{
	if (c->fd >= 0)
		close(c->fd); /* which also takes it out of the epoll set */
	c->fd = -1;
	c->events = 0;
	c->state = to;
	c->in_len = 0;
}

/* Shows the first failure of a socket call; the rest are only counted. */
static void say_errno(struct flood *F, const char *what)
{
	if (F->said_errno)
		return;
	F->said_errno = true;
	fprintf(stderr, "conn_flood: %s: %s\n", what, strerror(errno));
}

static void connect_failed(struct flood *F, struct conn *c)
{
	F->connect_errors++;
	if (F->o.mode == MODE_BURST) {
		F->requests++;
		F->errors++;
	}
	conn_drop(c, CONN_DOWN);
}

/* Slow modes: counts the status of the answer on c once its status line
 * is in, or the connection has ended after a part of it. */
static void slow_status(struct flood *F, struct conn *c, bool ended)
{
	int status;

	if (c->status_counted || !c->first_len || (c->first_len < 12 && !ended))
		return;
	c->status_counted = true;
	if (sscanf(c->first, "HTTP/1.%*d %3d", &status) == 1 && status >= 100 && status < 600)
		F->statuses[status]++;
}

/* Slow modes: the server closed c (open since opened_us). */
static void slow_closed(struct flood *F, struct conn *c, int64_t now)
{
	F->closed++;
	time_add(F, now - c->opened_us);
	slow_status(F, c, true);
	conn_drop(c, CONN_CLOSED);
}

static void conn_established(struct flood *F, struct conn *c, int64_t now)
{
	F->opened++;
	c->opened_us = now;
	c->state = CONN_OPEN;
	watch(F, c, EPOLLIN | EPOLLRDHUP);
	if (F->o.mode == MODE_BURST)
		return;
	c->sent = 0;
	c->due = F->head_len;
	c->next_us = now + F->o.interval_ms * 1000;
	if (conn_push(F, c) < 0)
		slow_closed(F, c, now);
}

static void conn_open(struct flood *F, struct conn *c)
{
	int one = 1;

	c->fd = socket(F->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		say_errno(F, "socket");
		connect_failed(F, c);
		return;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (F->o.bind) {
		/* the port is picked at connect, per destination: many more
		 * connections from one source address */
		setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
		if (bind(c->fd, (struct sockaddr *)&F->src, F->srclen)) {
			say_errno(F, "bind");
			connect_failed(F, c);
			return;
		}
	}
	if (connect(c->fd, (struct sockaddr *)&F->addr, F->addrlen) == 0) {
		conn_established(F, c, units_mono_us());
		return;
	}
	if (errno != EINPROGRESS) {
		say_errno(F, "connect");
		connect_failed(F, c);
		return;
	}
	c->state = CONN_CONNECTING;
	watch(F, c, EPOLLOUT);
}

static void conn_connected(struct flood *F, struct conn *c)
{
	int e = 0;
	socklen_t elen = sizeof(e);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &elen) || e) {
		errno = e;
		say_errno(F, "connect");
		connect_failed(F, c);
		return;
	}
	conn_established(F, c, units_mono_us());
}

/* ---- the slow modes ---- */

/* Reads what the server sends on a trickling connection: keeps the first
 * bytes for the status, notices the close. */
static void slow_read(struct flood *F, struct conn *c)
{
	char buf[4096];

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			slow_closed(F, c, units_mono_us());
			return;
		}
		if (c->first_len == 0)
			F->answered++;
		for (ssize_t i = 0; i < n && c->first_len < FIRST_MAX - 1; i++)
			c->first[c->first_len++] = buf[i];
		c->first[c->first_len] = '\0';
		slow_status(F, c, false);
	}
}

/* Sends the bytes due by now; returns true once no connection is left to
 * trickle on (every one closed or failed). *wait_us: until the next is
 * due, if sooner. */
static bool slow_step(struct flood *F, int64_t now, int64_t *wait_us)
{
	bool left = false;

	for (long i = 0; i < F->o.conns; i++) {
		struct conn *c = &F->conns[i];

		if (c->state == CONN_CONNECTING)
			left = true;
		if (c->state != CONN_OPEN)
			continue;
		left = true;
		if (c->next_us <= now + TICK_SLACK_US) {
			if (c->due < F->stream_len)
				c->due++;
			c->next_us = now + F->o.interval_ms * 1000;
			if (conn_push(F, c) < 0) {
				slow_closed(F, c, now);
				continue;
			}
		}
		if (c->next_us - now < *wait_us)
			*wait_us = c->next_us - now;
	}
	return !left;
}

/* ---- burst ---- */

/* Whether the header line [p, p + n) is header name with a value that
 * holds word (any case). */
static bool header_has(const char *p, size_t n, const char *name, const char *word)
{
	size_t k = strlen(name), w = strlen(word);

	if (n <= k || strncasecmp(p, name, k) != 0 || p[k] != ':')
		return false;
	if (!*word)
		return true;
	for (size_t i = k + 1; i + w <= n; i++)
		if (strncasecmp(p + i, word, w) == 0)
			return true;
	return false;
}

/* Where a chunked body starting at in + at ends, trailers included: its
 * end, 0 while incomplete, -1 when it is not chunked framing. */
static long chunked_end(const char *in, size_t len, size_t at)
{
	for (;;) {
		const char *line = in + at, *crlf = memmem(line, len - at, "\r\n", 2);
		unsigned long long size;
		char *end;

		if (!crlf)
			return len - at > 256 ? -1 : 0;
		if (!isxdigit((unsigned char)*line))
			return -1;
		size = strtoull(line, &end, 16);
		if (end > crlf || (end < crlf && *end != ';' && *end != ' ') || size > IN_MAX)
			return -1;
		at = (size_t)(crlf + 2 - in);
		if (size == 0) {
			for (;;) { /* trailers, up to an empty line */
				crlf = memmem(in + at, len - at, "\r\n", 2);
				if (!crlf)
					return 0;
				if (crlf == in + at)
					return (long)(at + 2);
				at = (size_t)(crlf + 2 - in);
			}
		}
		if (len < at + size + 2)
			return 0;
		if (memcmp(in + at + size, "\r\n", 2) != 0)
			return -1;
		at += size + 2;
	}
}

/* The length of the complete answer at the start of in (NUL-terminated;
 * eof: the server closed after it), 0 while incomplete, -1 when it cannot
 * be read. Sets *status, and *closes when the connection ends with it. */
static long reply_parse(const char *in, size_t len, bool eof, int *status, bool *closes)
{
	const char *end = memmem(in, len, "\r\n\r\n", 4), *p, *nl;
	long long length = -1;
	bool chunked = false, keep = false;
	size_t at;

	if (!end)
		return len > HEAD_MAX ? -1 : 0;
	if (sscanf(in, "HTTP/1.%*d %3d", status) != 1 || *status < 100 || *status >= 600)
		return -1;
	*closes = false;
	/* the status line ends at end + 2 at the latest */
	for (p = (const char *)memchr(in, '\n', (size_t)(end + 2 - in)) + 1; p < end + 2;
	     p = nl + 1) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end + 4 - p));
		n = (size_t)(nl - p) - (nl > p && nl[-1] == '\r');
		if (header_has(p, n, "Content-Length", ""))
			length = atoll(p + 15);
		else if (header_has(p, n, "Transfer-Encoding", "chunked"))
			chunked = true;
		else if (header_has(p, n, "Connection", "close"))
			*closes = true;
		else if (header_has(p, n, "Connection", "keep-alive"))
			keep = true;
	}
	if (strncmp(in, "HTTP/1.0", 8) == 0 && !keep)
		*closes = true;
	at = (size_t)(end + 4 - in);
	if (*status < 200 || *status == 204 || *status == 304)
		return (long)at;
	if (chunked)
		return chunked_end(in, len, at);
	if (length >= 0)
		return len >= at + (size_t)length ? (long)(at + (size_t)length) : 0;
	*closes = true; /* the body runs up to the close */
	return eof ? (long)len : 0;
}

static void burst_send(struct flood *F, struct conn *c)
{
	int r = conn_push(F, c);

	if (r < 0) {
		F->errors++;
		conn_drop(c, CONN_DOWN);
	} else if (r == 0) {
		c->state = CONN_SENDING;
		watch(F, c, EPOLLOUT);
	} else {
		c->state = CONN_WAITING;
		watch(F, c, EPOLLIN | EPOLLRDHUP);
	}
}

/* Reads c's answer; once complete counts it and has c wait for the next
 * round, or drops it when the server closes it. */
static void burst_read(struct flood *F, struct conn *c)
{
	bool eof = false, closes = false;
	int status = 0;
	long len;

	for (;;) {
		ssize_t n;

		if (c->in_cap - c->in_len < 4096 && c->in_cap < IN_MAX + 1) {
			c->in_cap = c->in_cap ? c->in_cap * 2 : 16384;
			if (c->in_cap > IN_MAX + 1)
				c->in_cap = IN_MAX + 1;
			c->in = realloc(c->in, c->in_cap);
			if (!c->in)
				abort();
		}
		if (c->in_len + 1 >= c->in_cap)
			break;
		n = recv(c->fd, c->in + c->in_len, c->in_cap - 1 - c->in_len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			F->errors++;
			conn_drop(c, CONN_DOWN);
			return;
		}
		if (n == 0) {
			eof = true;
			break;
		}
		c->in_len += (size_t)n;
		c->in[c->in_len] = '\0';
	}
	len = reply_parse(c->in, c->in_len, eof, &status, &closes);
	if (len == 0 && !eof && c->in_len + 1 < c->in_cap)
		return;
	if (len <= 0) {
		if (len < 0)
			fprintf(stderr, "conn_flood: unreadable answer: %.200s\n", c->in);
		F->errors++;
		conn_drop(c, CONN_DOWN);
		return;
	}
	time_add(F, units_mono_us() - c->sent_us);
	if (status / 100 == 2)
		F->ok++;
	else
		F->statuses[status]++;
	if (closes || eof || c->in_len != (size_t)len) {
		conn_drop(c, CONN_DOWN);
		return;
	}
	c->in_len = 0;
	c->state = CONN_OPEN;
}

/* Whether a connection is connecting, sending or waiting for its answer. */
static bool burst_busy(const struct flood *F)
{
	for (long i = 0; i < F->o.conns; i++) {
		enum conn_state s = F->conns[i].state;

		if (s == CONN_CONNECTING || s == CONN_SENDING || s == CONN_WAITING)
			return true;
	}
	return false;
}

/* Moves the rounds on, once no connection is busy: opens what is down,
 * fires once every connection is open or has failed, and after the
 * answers starts the next round. Returns true after the last round.
 * *wait_us becomes 0 when nothing is left to wait for (every request
 * failed at once). */
static bool burst_step(struct flood *F, int64_t *wait_us)
{
	bool connecting = false;

	if (burst_busy(F))
		return false;
	switch (F->phase) {
	case BURST_ANSWERS:
		if (++F->round == F->o.rounds)
			return true;
		F->phase = BURST_OPEN;
		/* fall through */
	case BURST_OPEN:
		for (long i = 0; i < F->o.conns; i++)
			if (F->conns[i].state == CONN_DOWN) {
				conn_open(F, &F->conns[i]);
				connecting |= F->conns[i].state == CONN_CONNECTING;
			}
		F->phase = BURST_CONNECTING;
		if (connecting)
			return false;
		/* fall through */
	case BURST_CONNECTING:
		for (long i = 0; i < F->o.conns; i++) {
			struct conn *c = &F->conns[i];

			if (c->state != CONN_OPEN)
				continue; /* failed to open: counted already */
			F->requests++;
			c->sent = 0;
			c->due = F->head_len;
			c->sent_us = units_mono_us();
			burst_send(F, c);
		}
		F->phase = BURST_ANSWERS;
		if (!burst_busy(F))
			*wait_us = 0;
		return false;
	}
	return false;
}

/* ---- the run ---- */

static void conn_event(struct flood *F, struct conn *c, uint32_t ev)
{
	switch (c->state) {
	case CONN_CONNECTING:
		conn_connected(F, c);
		return;
	case CONN_OPEN:
		if (F->o.mode != MODE_BURST)
			slow_read(F, c);
		else if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			conn_drop(c, CONN_DOWN); /* closed (or spoken to) between rounds */
		return;
	case CONN_SENDING:
		burst_send(F, c);
		return;
	case CONN_WAITING:
		burst_read(F, c);
		return;
	case CONN_DOWN:
	case CONN_CLOSED:
		return;
	}
}

/* Enough descriptors for every connection, if the hard limit allows. */
static void fd_limit_raise(long conns)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= (rlim_t)conns + 16)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fprintf(stderr, "conn_flood: cannot raise the open file limit: %s\n",
			strerror(errno));
}

/* " NAME=V": the p quantile of the sorted times, in milliseconds times
 * per_ms, with one decimal; "-" when there are none. */
static void put_quantile(const struct flood *F, const char *name, double p, double per_ms)
{
	if (F->ntimes)
		printf(" %s=%.1f", name, net_pct_ms(F->times_us, F->ntimes, p) * per_ms);
	else
		printf(" %s=-", name);
}

static void report(const struct flood *F)
{
	const struct opts *o = &F->o;

	printf("mode=%s conns=%ld", mode_names[o->mode], o->conns);
	if (o->mode == MODE_BURST) {
		printf(" rounds=%ld opened=%ld connect_errors=%ld requests=%ld ok=%ld", o->rounds,
		       F->opened, F->connect_errors, F->requests, F->ok);
		for (int s = 100; s < 600; s++)
			if (s / 100 != 2 && (F->statuses[s] || s == 503))
				printf(" status_%d=%ld", s, F->statuses[s]);
		printf(" errors=%ld timeouts=%ld", F->errors, F->timeouts);
		put_quantile(F, "p50_ms", 0.50, 1);
		put_quantile(F, "p99_ms", 0.99, 1);
		put_quantile(F, "max_ms", 1.0, 1);
	} else {
		long still = 0;

		for (long i = 0; i < o->conns; i++)
			still += F->conns[i].state == CONN_OPEN;
		printf(" opened=%ld connect_errors=%ld closed_by_server=%ld answered=%ld",
		       F->opened, F->connect_errors, F->closed, F->answered);
		for (int s = 100; s < 600; s++)
			if (F->statuses[s])
				printf(" status_%d=%ld", s, F->statuses[s]);
		printf(" still_open=%ld", still);
		put_quantile(F, "closed_after_s_min", 0.0, 1e-3);
		put_quantile(F, "closed_after_s_median", 0.5, 1e-3);
		put_quantile(F, "closed_after_s_max", 1.0, 1e-3);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	struct flood *F = calloc(1, sizeof(*F));
	struct epoll_event evs[256];
	int64_t now;
	int rc;

	if (!F)
		abort();
	parse_args(argc, argv, &F->o);
	where_parse(F);
	stream_build(F);
	signal(SIGPIPE, SIG_IGN);
	fd_limit_raise(F->o.conns);
	F->conns = calloc((size_t)F->o.conns, sizeof(*F->conns));
	if (!F->conns)
		abort();
	F->ep = epoll_create1(EPOLL_CLOEXEC);
	if (F->ep < 0)
		die("epoll_create1");
	F->start_us = units_mono_us();
	F->deadline_us = F->start_us + (int64_t)(F->o.duration_s * 1e6);
	for (long i = 0; i < F->o.conns; i++) {
		F->conns[i] = (struct conn){ .fd = -1 };
		if (F->o.mode != MODE_BURST)
			conn_open(F, &F->conns[i]);
	}

	while ((now = units_mono_us()) < F->deadline_us) {
		int64_t wait_us = F->deadline_us - now;
		int n;

		if (F->o.mode == MODE_BURST ? burst_step(F, &wait_us) : slow_step(F, now, &wait_us))
			break;
		n = epoll_wait(F->ep, evs, 256, (int)((wait_us + 999) / 1000));
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int i = 0; i < n; i++)
			conn_event(F, evs[i].data.ptr, evs[i].events);
	}
	for (long i = 0; i < F->o.conns; i++) {
		struct conn *c = &F->conns[i];

		if (c->state == CONN_CONNECTING)
			connect_failed(F, c);
		else if (c->state == CONN_SENDING || c->state == CONN_WAITING)
			F->timeouts++;
	}
	if (F->ntimes) /* times_us is NULL until the first */
		qsort(F->times_us, F->ntimes, sizeof(int64_t), net_cmp64);
	report(F);
	rc = F->opened ? 0 : 1;
	if (!F->opened)
		fprintf(stderr, "conn_flood: no connection to %s could be opened\n", F->o.url);
	for (long i = 0; i < F->o.conns; i++) {
		if (F->conns[i].fd >= 0)
			close(F->conns[i].fd);
		free(F->conns[i].in);
	}
	close(F->ep);
	free(F->times_us);
	free(F->conns);
	free(F);
	return rc;
}
