/*
 * Test and benchmark tool: a load generator for `sluice serve`'s webhook
 * route. It posts EVENTS events with unique ids (id, account, amount, all
 * BIGINT) in requests of BATCH events over CONNS keep-alive HTTP/1.1
 * connections, driven by one epoll loop, at a target rate (events/s; after
 * a stall at most 250 ms worth is made up for at once) or as fast as the
 * server answers. Every request carries a delivery id derived from its
 * event ids (X-Sluice-Delivery), so a request retried after a connection
 * error, a timeout or a 503 lands at most once. When the server goes away
 * (killed, restarting) it reconnects, re-reading the server file for the
 * new port, and retries every request not acknowledged yet, until all are
 * or the deadline passes.
 *
 * It never counts an event as acknowledged before a 202 or 200 reply: the
 * acknowledged file lists exactly those ids. A request answered 5xx and
 * never left unanswered, that a retry then finds landed (200, a
 * duplicate), was answered falsely: such requests are counted and
 * reported on a line of their own. (With --no-delivery a retried
 * request may land twice; that is for measuring the cost of the ids.) With
 * --lag-model it also polls GET /api/live/status of the server found at the
 * start and measures, per acknowledged request, the time from its
 * acknowledgement until that model's covered sequence reached the
 * request's sequence.
 *
 *   post_load (--url http://HOST:PORT | --server-file PATH) --source NAME
 *             [--token T] [--events N] [--batch K] [--conns C] [--rate R]
 *             [--first-id ID] [--accounts A] [--acked FILE] [--deadline S]
 *             [--timeout S] [--prefix P] [--no-delivery]
 *             [--lag-model M] [--lag-poll MS]
 *
 *   --server-file    .sluice/server.json of `sluice serve`, read again
 *                    before every connect
 *   --token          sent as Authorization: Bearer
 *   --events, --batch  events in all (1000) and per request (1: one JSON
 *                    object; more: NDJSON lines)
 *   --conns          connections (16), each with one request in flight
 *   --rate           events/s (0: as fast as the answers come)
 *   --first-id       the first event id (1); account = id % --accounts
 *                    (1000), amount = id % 997 + 1
 *   --acked          file of every acknowledged event id, one a line
 *   --deadline       seconds (120) until it gives up on what is left
 *   --timeout        seconds (10) a request may wait for its answer before
 *                    its connection is dropped and it is sent again
 *   --prefix         of delivery ids ("ids-"): PREFIX<first id>-<last id>
 *   --lag-model      a live model to measure the lag to, polling every
 *                    --lag-poll ms (5)
 *
 * Prints one summary line: requests/s and events/s from the start to the
 * last acknowledgement; p50, p99 and max acknowledgement latency (from the
 * last send of a request to its answer); the replies by status; how many
 * sequences (commits) the acknowledged requests got; connection errors,
 * timeouts, connects; its own CPU time. With --lag-model a second line
 * gives the lag. Exit 0 when every event was acknowledged and no 5xx was
 * false, 1 when not (deadline, or a request refused with a status other
 * than 503, 500 or 429), 2 for bad arguments.
 */
#include "core/units.h"
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "live_status.h"

#define RECONNECT_US 10000      /* first wait after a refused or broken connection */
#define RECONNECT_MAX_US 160000 /* the wait doubles up to this while refused */
#define RETRY_5XX_US 100000     /* wait before retrying a 503 or 500 */
#define IN_MAX 16384            /* largest reply accepted */
#define CATCH_UP_US 250000      /* with --rate: the most a stall is made up for */

struct opts {
	const char *url, *server_file, *source, *token, *acked, *lag_model, *prefix;
	long long events, first_id, accounts;
	int batch, conns;
	double rate, deadline_s, timeout_s;
	int lag_poll_ms;
	bool no_delivery;
};

enum req_state { REQ_QUEUED, REQ_SENT, REQ_DONE, REQ_REFUSED };

struct request {
	enum req_state state;
	int64_t sent_us;
	int64_t not_before_us; /* a retry after a 503 or 500 waits until then */
	int64_t seq;
	int status;
	bool lag_done;
	bool answered_5xx, unanswered; /* some attempt got a 5xx; some got no answer */
};

enum conn_state { CONN_DOWN, CONN_CONNECTING, CONN_IDLE, CONN_SENDING, CONN_WAITING };

struct conn {
	int fd;
	enum conn_state state;
	long req;             /* the request in flight, -1 */
	char *out;
	size_t out_len, out_off;
	char in[IN_MAX];
	size_t in_len;
	int64_t retry_at_us;  /* CONN_DOWN: when to connect again */
	int64_t backoff_us;   /* the next wait after a refused connection */
	int64_t deadline_us;  /* CONN_SENDING/WAITING: the request's timeout */
	uint32_t events;      /* what epoll watches */
};

/* Acknowledged requests in acknowledgement order, for the lag poller. */
struct acks {
	pthread_mutex_t mu;
	long *req;
	int64_t *at_us;
	size_t n;
};

struct load {
	struct opts o;
	char host[256];
	int port;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int ep;
	struct conn *conns;
	struct request *reqs;
	long nreqs;
	long *queue;          /* requests to send: retries first, then the rest */
	long qhead, qtail;    /* ring of nreqs + 1 slots */
	long next_new;        /* the next request never sent */
	long acked_reqs, refused_reqs;
	long long acked_events;
	long long sent_new_events; /* for the rate: events of first sends */
	int64_t start_us, last_ack_us;
	int64_t pace_us;      /* with --rate: when the schedule started */
	int64_t *lat_us;      /* latency of each acknowledged request */
	long counts[600];     /* replies by status */
	long conn_errors, timeouts, connects;
	long false_5xx; /* requests answered 5xx that had landed */
	FILE *acked;
	struct acks acks; /* its mutex also guards done and last_ack_us */
	bool done;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: post_load (--url http://HOST:PORT | --server-file PATH) --source NAME\n"
		"                 [--token T] [--events N] [--batch K] [--conns C] [--rate R]\n"
		"                 [--first-id ID] [--accounts A] [--acked FILE] [--deadline S]\n"
		"                 [--timeout S] [--prefix P] [--no-delivery]\n"
		"                 [--lag-model MODEL] [--lag-poll MS]\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "post_load: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .events = 1000, .first_id = 1, .accounts = 1000, .batch = 1,
			    .conns = 16, .deadline_s = 120, .timeout_s = 10, .lag_poll_ms = 5,
			    .prefix = "ids-" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--no-delivery") == 0) {
			o->no_delivery = true;
			continue;
		}
		if (!v || strncmp(a, "--", 2) != 0)
			usage();
		i++;
		if (strcmp(a, "--url") == 0)
			o->url = v;
		else if (strcmp(a, "--server-file") == 0)
			o->server_file = v;
		else if (strcmp(a, "--source") == 0)
			o->source = v;
		else if (strcmp(a, "--token") == 0)
			o->token = v;
		else if (strcmp(a, "--acked") == 0)
			o->acked = v;
		else if (strcmp(a, "--prefix") == 0)
			o->prefix = v;
		else if (strcmp(a, "--lag-model") == 0)
			o->lag_model = v;
		else if (strcmp(a, "--lag-poll") == 0)
			o->lag_poll_ms = atoi(v);
		else if (strcmp(a, "--events") == 0)
			o->events = atoll(v);
		else if (strcmp(a, "--first-id") == 0)
			o->first_id = atoll(v);
		else if (strcmp(a, "--accounts") == 0)
			o->accounts = atoll(v);
		else if (strcmp(a, "--batch") == 0)
			o->batch = atoi(v);
		else if (strcmp(a, "--conns") == 0)
			o->conns = atoi(v);
		else if (strcmp(a, "--rate") == 0)
			o->rate = atof(v);
		else if (strcmp(a, "--deadline") == 0)
			o->deadline_s = atof(v);
		else if (strcmp(a, "--timeout") == 0)
			o->timeout_s = atof(v);
		else
			usage();
	}
	if ((!o->url && !o->server_file) || !o->source || o->events < 1 || o->batch < 1 ||
	    o->conns < 1 || o->accounts < 1 || o->rate < 0 || o->lag_poll_ms < 1)
		usage();
}

/* ---- where the server is ---- */

/* "http://HOST:PORT[/...]" into host and port. */
static int url_split(const char *url, char *host, size_t hostlen, int *port)
{
	const char *p = strncmp(url, "http://", 7) == 0 ? url + 7 : url;
	const char *colon = strchr(p, ':');
	size_t n;

	if (!colon)
		return -1;
	n = (size_t)(colon - p);
	if (n == 0 || n >= hostlen)
		return -1;
	memcpy(host, p, n);
	host[n] = '\0';
	*port = atoi(colon + 1);
	return *port > 0 && *port < 65536 ? 0 : -1;
}

/* The server's address, from --url or from the server file as it is now
 * (a restarted server writes a new one). -1 when there is none yet. */
static int locate(struct load *L)
{
	char text[1024], url[512];
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char portstr[16];
	const char *u;
	FILE *f;
	size_t n;

	if (L->o.server_file) {
		f = fopen(L->o.server_file, "r");
		if (!f)
			return -1;
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		u = strstr(text, "\"url\": \"");
		if (!u || sscanf(u + 8, "%511[^\"]", url) != 1)
			return -1;
	} else {
		snprintf(url, sizeof(url), "%s", L->o.url);
	}
	if (url_split(url, L->host, sizeof(L->host), &L->port))
		return -1;
	if (inet_pton(AF_INET, L->host, &((struct sockaddr_in *)&L->addr)->sin_addr) == 1) {
		((struct sockaddr_in *)&L->addr)->sin_family = AF_INET;
		((struct sockaddr_in *)&L->addr)->sin_port = htons((uint16_t)L->port);
		L->addrlen = sizeof(struct sockaddr_in);
		return 0;
	}
	snprintf(portstr, sizeof(portstr), "%d", L->port);
	if (getaddrinfo(L->host, portstr, &hints, &res))
		return -1;
	memcpy(&L->addr, res->ai_addr, res->ai_addrlen);
	L->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* ---- requests ---- */

static long long req_first(const struct load *L, long r)
{
	return L->o.first_id + (long long)r * L->o.batch;
}

static int req_events(const struct load *L, long r)
{
	long long left = L->o.events - (long long)r * L->o.batch;

	return left < L->o.batch ? (int)left : L->o.batch;
}

static void add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < *cap - *len)
			break;
		*cap = *cap * 2 + (size_t)n + 64;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			abort();
	}
	*len += (size_t)n;
}

/* The bytes of request r, into c->out. Events are rows of (id, account,
 * amount) with values that follow from the id alone, so a rebuild and a
 * retry see the same rows. */
static void req_build(struct load *L, struct conn *c, long r)
{
	long long first = req_first(L, r);
	int k = req_events(L, r);
	char *body = NULL;
	size_t blen = 0, bcap = 0, cap = 512;

	for (int i = 0; i < k; i++) {
		long long id = first + i;

		add(&body, &blen, &bcap, "{\"id\":%lld,\"account\":%lld,\"amount\":%lld}%s", id,
		    id % L->o.accounts, id % 997 + 1, L->o.batch > 1 ? "\n" : "");
	}
	free(c->out);
	c->out = malloc(cap);
	if (!c->out)
		abort();
	c->out_len = 0;
	add(&c->out, &c->out_len, &cap,
	    "POST /api/ingest/webhook/%s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\n",
	    L->o.source, L->host, L->port,
	    L->o.batch > 1 ? "application/x-ndjson" : "application/json", blen);
	if (L->o.token)
		add(&c->out, &c->out_len, &cap, "Authorization: Bearer %s\r\n", L->o.token);
	if (!L->o.no_delivery)
		add(&c->out, &c->out_len, &cap, "X-Sluice-Delivery: %s%lld-%lld\r\n", L->o.prefix,
		    first, first + k - 1);
	add(&c->out, &c->out_len, &cap, "\r\n%s", body);
	free(body);
	c->out_off = 0;
}

static void queue_push(struct load *L, long r)
{
	L->queue[L->qtail] = r;
	L->qtail = (L->qtail + 1) % (L->nreqs + 1);
}

/* The next request to send now, or -1 (nothing left, or the rate says
 * wait: *wait_us then says how long). Retries go first and ignore the
 * rate. */
static long next_request(struct load *L, int64_t now, int64_t *wait_us)
{
	long r;

	if (L->qhead != L->qtail) {
		int64_t due = L->reqs[L->queue[L->qhead]].not_before_us;

		if (due <= now) {
			r = L->queue[L->qhead];
			L->qhead = (L->qhead + 1) % (L->nreqs + 1);
			return r;
		}
		if (due - now < *wait_us)
			*wait_us = due - now;
	}
	if (L->next_new >= L->nreqs)
		return -1;
	if (L->o.rate > 0) {
		int64_t due = L->pace_us + (int64_t)((double)L->sent_new_events * 1e6 / L->o.rate);

		/* after a stall (a server down, restarting) the schedule moves
		 * on: what was missed is made up for by at most CATCH_UP_US
		 * worth of events at once */
		if (due < now - CATCH_UP_US) {
			L->pace_us += now - CATCH_UP_US - due;
			due = now - CATCH_UP_US;
		}
		if (due > now) {
			if (due - now < *wait_us)
				*wait_us = due - now;
			return -1;
		}
	}
	r = L->next_new++;
	L->sent_new_events += req_events(L, r);
	return r;
}

/* ---- connections ---- */

static void watch(struct load *L, struct conn *c, uint32_t events)
{
	if (net_watch(L->ep, c->fd, &c->events, events, c))
		die("epoll_ctl");
}

/* Drops the connection; its request, not acknowledged, goes back first
 * in line. */
static void conn_down(struct load *L, struct conn *c, int64_t retry_in_us)
{
	if (c->fd >= 0) {
		epoll_ctl(L->ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
	c->events = 0;
	c->state = CONN_DOWN;
	c->retry_at_us = units_mono_us() + retry_in_us;
	c->in_len = 0;
	if (c->req >= 0) {
		L->reqs[c->req].unanswered = true;
		L->reqs[c->req].state = REQ_QUEUED;
		queue_push(L, c->req);
		c->req = -1;
	}
}

/* No server to connect to (killed, starting): wait longer each time. */
static void conn_refused(struct load *L, struct conn *c)
{
	if (c->fd >= 0)
		L->conn_errors++;
	c->backoff_us = c->backoff_us ? c->backoff_us * 2 : RECONNECT_US;
	if (c->backoff_us > RECONNECT_MAX_US)
		c->backoff_us = RECONNECT_MAX_US;
	conn_down(L, c, c->backoff_us);
}

static void conn_open(struct load *L, struct conn *c)
{
	int one = 1;

	if (locate(L)) {
		conn_refused(L, c);
		return;
	}
	c->fd = socket(L->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		die("socket");
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	L->connects++;
	if (connect(c->fd, (struct sockaddr *)&L->addr, L->addrlen) == 0) {
		c->state = CONN_IDLE;
		c->backoff_us = 0;
		return;
	}
	if (errno != EINPROGRESS) {
		conn_refused(L, c);
		return;
	}
	c->state = CONN_CONNECTING;
	watch(L, c, EPOLLOUT);
}

static void conn_send(struct load *L, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			c->state = CONN_SENDING;
			watch(L, c, EPOLLOUT);
			return;
		}
		if (n <= 0) {
			L->conn_errors++;
			conn_down(L, c, RECONNECT_US);
			return;
		}
		c->out_off += (size_t)n;
	}
	c->state = CONN_WAITING;
	watch(L, c, EPOLLIN);
}

static void conn_start(struct load *L, struct conn *c, long r)
{
	c->req = r;
	L->reqs[r].state = REQ_SENT;
	L->reqs[r].sent_us = units_mono_us();
	c->deadline_us = L->reqs[r].sent_us + (int64_t)(L->o.timeout_s * 1e6);
	c->in_len = 0;
	req_build(L, c, r);
	conn_send(L, c);
}

static void acknowledge(struct load *L, long r, int64_t seq, int64_t now)
{
	struct request *q = &L->reqs[r];
	long long first = req_first(L, r);
	int k = req_events(L, r);

	q->state = REQ_DONE;
	q->seq = seq;
	L->lat_us[L->acked_reqs++] = now - q->sent_us;
	L->acked_events += k;
	if (L->acked)
		for (int i = 0; i < k; i++)
			fprintf(L->acked, "%lld\n", first + i);
	pthread_mutex_lock(&L->acks.mu);
	L->last_ack_us = now;
	L->acks.req[L->acks.n] = r;
	L->acks.at_us[L->acks.n++] = now;
	pthread_mutex_unlock(&L->acks.mu);
}

/* A complete reply in c->in: its length, 0 while incomplete, -1 when it
 * cannot be read. */
static long reply_length(const struct conn *c, int *status, bool *closes, size_t *body_at)
{
	const char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
	long long length = -1;

	if (!end)
		return c->in_len >= IN_MAX ? -1 : 0;
	if (sscanf(c->in, "HTTP/1.%*d %d", status) != 1)
		return -1;
	*closes = false;
	for (const char *p = strstr(c->in, "\r\n") + 2; p < end; p = strstr(p, "\r\n") + 2) {
		if (strncasecmp(p, "Content-Length:", 15) == 0)
			length = atoll(p + 15);
		else if (strncasecmp(p, "Connection:", 11) == 0 && strstr(p, "close") &&
			 strstr(p, "close") < strstr(p, "\r\n"))
			*closes = true;
	}
	if (length < 0)
		return -1;
	*body_at = (size_t)(end + 4 - c->in);
	if (*body_at + (size_t)length >= IN_MAX)
		return -1;
	return c->in_len >= *body_at + (size_t)length ? (long)(*body_at + (size_t)length) : 0;
}

static void conn_read(struct load *L, struct conn *c)
{
	int status = 0;
	bool closes = false;
	size_t body_at = 0;
	long len;
	int64_t now;

	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->in_len, IN_MAX - 1 - c->in_len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) { /* the server went away: the request is retried */
			L->conn_errors++;
			conn_down(L, c, RECONNECT_US);
			return;
		}
		c->in_len += (size_t)n;
		c->in[c->in_len] = '\0';
		if (c->in_len >= IN_MAX - 1)
			break;
	}
	len = reply_length(c, &status, &closes, &body_at);
	if (len == 0)
		return;
	if (len < 0 || c->in_len != (size_t)len) {
		fprintf(stderr, "post_load: unreadable reply: %.200s\n", c->in);
		L->conn_errors++;
		conn_down(L, c, RECONNECT_US);
		return;
	}
	now = units_mono_us();
	L->counts[status >= 100 && status < 600 ? status : 0]++;
	if (status == 202 || status == 200) {
		const char *s = strstr(c->in + body_at, "\"seq\":");
		const struct request *q = &L->reqs[c->req];

		L->false_5xx += status == 200 && q->answered_5xx && !q->unanswered;
		acknowledge(L, c->req, s ? atoll(s + 6) : -1, now);
		c->req = -1;
	} else if (status == 503 || status == 500 || status == 429) {
		/* not landed (busy, stopping, a failed commit): again shortly; a
		 * 500 is an error of the server's, said with its reason */
		if (status == 500)
			fprintf(stderr, "post_load: request %s%lld-%lld answered 500: %.300s\n",
				L->o.prefix, req_first(L, c->req),
				req_first(L, c->req) + req_events(L, c->req) - 1, c->in + body_at);
		L->reqs[c->req].answered_5xx = true;
		L->reqs[c->req].state = REQ_QUEUED;
		L->reqs[c->req].not_before_us = now + RETRY_5XX_US;
		queue_push(L, c->req);
		c->req = -1;
	} else {
		fprintf(stderr, "post_load: request %s%lld-%lld refused: %d %s\n", L->o.prefix,
			req_first(L, c->req), req_first(L, c->req) + req_events(L, c->req) - 1,
			status, c->in + body_at);
		L->reqs[c->req].state = REQ_REFUSED;
		L->reqs[c->req].status = status;
		L->refused_reqs++;
		c->req = -1;
	}
	c->in_len = 0;
	if (closes) {
		conn_down(L, c, 0);
		return;
	}
	c->state = CONN_IDLE;
	watch(L, c, EPOLLIN | EPOLLRDHUP);
}

static void conn_event(struct load *L, struct conn *c, uint32_t ev)
{
	int e = 0;
	socklen_t elen = sizeof(e);

	switch (c->state) {
	case CONN_CONNECTING:
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &elen) || e) {
			conn_refused(L, c);
			return;
		}
		c->state = CONN_IDLE;
		c->backoff_us = 0;
		watch(L, c, EPOLLIN | EPOLLRDHUP);
		return;
	case CONN_SENDING:
		conn_send(L, c);
		return;
	case CONN_WAITING:
		conn_read(L, c);
		return;
	case CONN_IDLE:
		/* an idle connection that becomes readable was closed by the
		 * server: open a new one before it is needed */
		if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			conn_down(L, c, 0);
		return;
	case CONN_DOWN:
		return;
	}
}

/* ---- the lag poller ---- */

struct lag {
	struct load *L;
	/* the server as found at the start: the main loop's copy changes when
	 * a restarted server moves */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char host[256];
	int port;
	int64_t *lag_us;
	size_t n, polls, failed_polls;
	int64_t poll_us; /* total time spent in status calls */
};

/* One GET over a blocking keep-alive socket; the reply body into *body
 * (to free), or -1. */
static int http_get(const struct lag *g, int *fd, const char *path, char **body)
{
	const struct opts *o = &g->L->o;
	char req[1024], *buf = NULL, *end;
	size_t len = 0, cap = 0, at;
	long long length = -1;
	int n;

	if (*fd < 0) {
		int one = 1;

		*fd = socket(g->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (*fd < 0)
			return -1;
		setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(*fd, (const struct sockaddr *)&g->addr, g->addrlen))
			goto fail;
	}
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s:%d\r\n%s%s%s\r\n", path,
		     g->host, g->port, o->token ? "Authorization: Bearer " : "",
		     o->token ? o->token : "", o->token ? "\r\n" : "");
	if (send(*fd, req, (size_t)n, MSG_NOSIGNAL) != n)
		goto fail;
	for (;;) {
		ssize_t got;

		if (cap - len < 4096) {
			cap = cap * 2 + 8192;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		got = recv(*fd, buf + len, cap - len - 1, 0);
		if (got <= 0)
			goto fail;
		len += (size_t)got;
		buf[len] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (!end)
			continue;
		if (length < 0) {
			const char *cl = strcasestr(buf, "\r\nContent-Length:");

			if (!cl || cl > end)
				goto fail;
			length = atoll(cl + 17);
		}
		at = (size_t)(end + 4 - buf);
		if (len >= at + (size_t)length) {
			memmove(buf, buf + at, (size_t)length);
			buf[length] = '\0';
			*body = buf;
			return 0;
		}
	}
fail:
	free(buf);
	close(*fd);
	*fd = -1;
	return -1;
}

/* Polls the status every lag_poll_ms. A request acknowledged with seq S is
 * in the model once covered >= S: the model's covered sequence is written
 * in the transaction that commits its rows, so when a status read shows
 * it, the rows are there. The time taken is the poll's answer time, an
 * upper bound (at most one poll interval and one status call late). */
static void *lag_run(void *arg)
{
	struct lag *g = arg;
	struct load *L = g->L;
	size_t from = 0;
	int fd = -1;

	for (;;) {
		int64_t t0 = units_mono_us(), now, covered;
		char *body = NULL;
		bool done, stuck;
		size_t n;

		pthread_mutex_lock(&L->acks.mu);
		done = L->done && from >= L->acks.n;
		/* a model that never catches up is not waited for forever */
		stuck = L->done && t0 - L->last_ack_us > 30 * 1000000LL;
		pthread_mutex_unlock(&L->acks.mu);
		if (done || stuck)
			break;
		if (http_get(g, &fd, "/api/live/status", &body)) {
			g->failed_polls++;
			usleep((useconds_t)L->o.lag_poll_ms * 1000);
			continue;
		}
		now = units_mono_us();
		g->polls++;
		g->poll_us += now - t0;
		covered = covered_of(body, L->o.lag_model);
		free(body);
		pthread_mutex_lock(&L->acks.mu);
		n = L->acks.n;
		pthread_mutex_unlock(&L->acks.mu);
		for (size_t i = from; i < n; i++) {
			struct request *q = &L->reqs[L->acks.req[i]];

			if (q->lag_done || q->seq > covered)
				continue;
			q->lag_done = true;
			g->lag_us[g->n++] = now - L->acks.at_us[i];
		}
		while (from < n && L->reqs[L->acks.req[from]].lag_done)
			from++;
		usleep((useconds_t)L->o.lag_poll_ms * 1000);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* ---- the run ---- */

/* How many sequences the acknowledged requests got: the commits (flushes)
 * that landed them, retries answered as duplicates included. */
static size_t distinct_seqs(const struct load *L)
{
	int64_t *v = calloc((size_t)L->acked_reqs + 1, sizeof(int64_t));
	size_t n = 0, d = 0;

	if (!v)
		abort();
	for (long r = 0; r < L->nreqs; r++)
		if (L->reqs[r].state == REQ_DONE)
			v[n++] = L->reqs[r].seq;
	qsort(v, n, sizeof(int64_t), net_cmp64);
	for (size_t i = 0; i < n; i++)
		d += i == 0 || v[i] != v[i - 1];
	free(v);
	return d;
}

int main(int argc, char **argv)
{
	struct load *L = calloc(1, sizeof(*L));
	struct lag g = { 0 };
	pthread_t lag_tid;
	struct epoll_event evs[256];
	struct rusage ru;
	int64_t deadline_us, now;
	double secs;
	bool ok;

	if (!L)
		abort();
	parse_args(argc, argv, &L->o);
	signal(SIGPIPE, SIG_IGN);
	L->nreqs = (long)((L->o.events + L->o.batch - 1) / L->o.batch);
	L->reqs = calloc((size_t)L->nreqs, sizeof(*L->reqs));
	L->queue = calloc((size_t)L->nreqs + 1, sizeof(long));
	L->lat_us = calloc((size_t)L->nreqs, sizeof(int64_t));
	L->acks.req = calloc((size_t)L->nreqs, sizeof(long));
	L->acks.at_us = calloc((size_t)L->nreqs, sizeof(int64_t));
	L->conns = calloc((size_t)L->o.conns, sizeof(*L->conns));
	if (!L->reqs || !L->queue || !L->lat_us || !L->acks.req || !L->acks.at_us || !L->conns)
		abort();
	pthread_mutex_init(&L->acks.mu, NULL);
	if (L->o.acked && !(L->acked = fopen(L->o.acked, "w")))
		die(L->o.acked);
	L->ep = epoll_create1(EPOLL_CLOEXEC);
	if (L->ep < 0)
		die("epoll_create1");
	L->start_us = L->pace_us = units_mono_us();
	deadline_us = L->start_us + (int64_t)(L->o.deadline_s * 1e6);
	for (int i = 0; i < L->o.conns; i++)
		L->conns[i] = (struct conn){ .fd = -1, .req = -1, .retry_at_us = 0 };
	while (locate(L) && units_mono_us() < deadline_us)
		usleep(RECONNECT_US);
	if (L->o.lag_model) {
		g.L = L;
		g.addr = L->addr;
		g.addrlen = L->addrlen;
		snprintf(g.host, sizeof(g.host), "%s", L->host);
		g.port = L->port;
		g.lag_us = calloc((size_t)L->nreqs, sizeof(int64_t));
		if (!g.lag_us || pthread_create(&lag_tid, NULL, lag_run, &g))
			abort();
	}

	while (L->acked_reqs + L->refused_reqs < L->nreqs && (now = units_mono_us()) < deadline_us) {
		int64_t wait_us = 100000;
		int n;

		for (int i = 0; i < L->o.conns; i++) {
			struct conn *c = &L->conns[i];

			if (c->state == CONN_DOWN) {
				if (now >= c->retry_at_us)
					conn_open(L, c);
				else if (c->retry_at_us - now < wait_us)
					wait_us = c->retry_at_us - now;
			}
			if (c->state == CONN_IDLE) {
				long r = next_request(L, now, &wait_us);

				if (r >= 0)
					conn_start(L, c, r);
			}
			if ((c->state == CONN_SENDING || c->state == CONN_WAITING) &&
			    now > c->deadline_us) {
				L->timeouts++;
				conn_down(L, c, 0);
			}
		}
		n = epoll_wait(L->ep, evs, 256, (int)((wait_us + 999) / 1000));
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int i = 0; i < n; i++)
			conn_event(L, evs[i].data.ptr, evs[i].events);
	}
	pthread_mutex_lock(&L->acks.mu);
	L->done = true;
	pthread_mutex_unlock(&L->acks.mu);
	for (int i = 0; i < L->o.conns; i++) {
		if (L->conns[i].fd >= 0)
			close(L->conns[i].fd);
		free(L->conns[i].out);
	}
	if (L->acked && fclose(L->acked))
		die(L->o.acked);

	secs = (double)((L->last_ack_us ? L->last_ack_us : units_mono_us()) - L->start_us) / 1e6;
	qsort(L->lat_us, (size_t)L->acked_reqs, sizeof(int64_t), net_cmp64);
	printf("post_load: %lld of %lld events acknowledged in %ld of %ld requests (%d per request, "
	       "%d connections) in %.2f s: %.0f requests/s, %.0f events/s; ack latency p50 %.1f ms, "
	       "p99 %.1f ms, max %.1f ms; replies",
	       L->acked_events, L->o.events, L->acked_reqs, L->nreqs, L->o.batch, L->o.conns, secs,
	       secs > 0 ? (double)L->acked_reqs / secs : 0, secs > 0 ? (double)L->acked_events / secs : 0,
	       net_pct_ms(L->lat_us, (size_t)L->acked_reqs, 0.50),
	       net_pct_ms(L->lat_us, (size_t)L->acked_reqs, 0.99),
	       net_pct_ms(L->lat_us, (size_t)L->acked_reqs, 1.0));
	for (int s = 0; s < 600; s++)
		if (L->counts[s])
			printf(" %d: %ld,", s, L->counts[s]);
	printf(" sequences: %zu,", distinct_seqs(L));
	getrusage(RUSAGE_SELF, &ru);
	printf(" connection errors: %ld, timeouts: %ld, connects: %ld; cpu %.2f s\n", L->conn_errors,
	       L->timeouts, L->connects,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	if (L->o.lag_model) {
		pthread_join(lag_tid, NULL);
		qsort(g.lag_us, g.n, sizeof(int64_t), net_cmp64);
		printf("post_load: lag from acknowledgement to %s covering it: p50 %.1f ms, p99 %.1f "
		       "ms, max %.1f ms over %zu of %ld requests (status polled every %d ms, %zu polls "
		       "of %.1f ms on average, %zu failed)\n",
		       L->o.lag_model, net_pct_ms(g.lag_us, g.n, 0.50),
		       net_pct_ms(g.lag_us, g.n, 0.99), net_pct_ms(g.lag_us, g.n, 1.0), g.n,
		       L->acked_reqs, L->o.lag_poll_ms, g.polls,
		       g.polls ? (double)g.poll_us / 1000.0 / (double)g.polls : 0, g.failed_polls);
		free(g.lag_us);
	}
	if (L->false_5xx)
		printf("post_load: %ld requests answered 5xx had landed all the same (a retry was "
		       "answered as their duplicate)\n",
		       L->false_5xx);
	ok = L->acked_events == L->o.events && !L->false_5xx;
	close(L->ep);
	free(L->reqs);
	free(L->queue);
	free(L->lat_us);
	free(L->acks.req);
	free(L->acks.at_us);
	free(L->conns);
	pthread_mutex_destroy(&L->acks.mu);
	free(L);
	return ok ? 0 : 1;
}
