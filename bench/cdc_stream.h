/*
 * What the two sides of the CDC stream benchmark share: the change events
 * (the same stream for both), the pace at which they land, and the lag
 * bookkeeping and its report. cdc_stream.c (sluice: the ingest writer and
 * the live runner thread) and raw_cdc_stream.c (the engine alone) include
 * it; it needs nothing but libc, so the raw side stays free of sluice.
 *
 * A side records a landing mark (its sequence, when its commit returned,
 * its events) on the thread that lands, and an applied mark (the sequence
 * an apply covered, when its commit returned) on the thread that applies.
 * The lag of an event is from its landing mark to the first applied mark
 * that covers its sequence; its landing delay, from when the pace said it
 * was due to its landing mark.
 */
#ifndef SL_BENCH_CDC_STREAM_H
#define SL_BENCH_CDC_STREAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Events per submission: a sender's request. Whatever waits when the
 * lander is free goes into one commit. */
#define STREAM_CHUNK 1000
/* The p99 lag a rate must hold to, from landing to applied; the landing
 * must keep pace within it too. */
#define STREAM_LAG_MS 2000
/* How long the warm-up chunk may take to be applied. */
#define STREAM_WARMUP_US (60 * 1000000LL)

struct stream_event {
	int64_t id, account, amount, lsn;
	const char *status, *op;
};

struct stream_mark {
	int64_t seq, at_us, events;
	int64_t due_us; /* a landing's: when its first event was due */
};

/* Grown by one thread, read by others only after it stopped. */
struct stream_marks {
	struct stream_mark *v;
	size_t n, cap;
};

struct stream {
	int64_t rows;     /* the model's starting ids are 0 .. rows - 1 */
	int64_t rate;     /* events/s */
	int64_t seconds;  /* of the paced landing */
	int64_t first;    /* events landed before the clock starts (the warm-up) */
	int64_t total;    /* events in all, the warm-up's included */
	int64_t start_us; /* the paced landing's */
	struct stream_marks landed, applied;
	_Atomic int64_t landed_seq, landed_events, applied_seq;
};

static inline int64_t stream_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline void stream_sleep_until(int64_t at_us)
{
	int64_t d = at_us - stream_now_us();
	struct timespec ts = { d / 1000000, (d % 1000000) * 1000 };

	if (d > 0)
		nanosleep(&ts, NULL);
}

/* A warm-up chunk, then rate events/s for seconds. */
static inline void stream_init(struct stream *s, int64_t rows, int64_t rate, int64_t seconds)
{
	*s = (struct stream){
		.rows = rows, .rate = rate, .seconds = seconds, .first = STREAM_CHUNK
	};
	s->total = s->first + rate * seconds;
}

/* splitmix64: the events are the same on every machine and for both sides. */
static inline uint64_t stream_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Event i: 70% updates and 10% deletes of random starting ids, 20% inserts
 * of new ids; its lsn is above everything the starting model holds. */
static inline void stream_event(const struct stream *s, int64_t i, struct stream_event *e)
{
	uint64_t k = stream_mix((uint64_t)i) % 10, r = (uint64_t)s->rows;

	e->id = k < 7   ? (int64_t)(stream_mix((uint64_t)i * 31 + 7) % r)
		: k < 9 ? s->rows + i
			: (int64_t)(stream_mix((uint64_t)i * 17 + 3) % r);
	e->account = i % 100000;
	e->amount = i % 997;
	e->status = k < 7 ? "paid" : "new";
	e->op = k < 7 ? "u" : k < 9 ? "c" : "d";
	e->lsn = s->rows + 1 + i;
}

static inline void stream_mark_add(struct stream_marks *m, struct stream_mark mark)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 1024;
		m->v = realloc(m->v, m->cap * sizeof(*m->v));
		if (!m->v)
			abort();
	}
	m->v[m->n++] = mark;
}

/* When event i is due: the warm-up's at once, the others at the rate. */
static inline int64_t stream_due_us(const struct stream *s, int64_t i)
{
	return i < s->first ? 0 : s->start_us + (i - s->first) * 1000000 / s->rate;
}

static inline void stream_free(struct stream *s)
{
	free(s->landed.v);
	free(s->applied.v);
}

/* On the landing thread, after the commit of seq returned; due_us is when
 * its first event was due. */
static inline void stream_landed(struct stream *s, int64_t seq, int64_t events, int64_t due_us)
{
	stream_mark_add(&s->landed, (struct stream_mark){ seq, stream_now_us(), events, due_us });
	atomic_store(&s->landed_seq, seq);
	atomic_fetch_add(&s->landed_events, events);
}

/* On the applying thread, after the commit of an apply covering seq returned. */
static inline void stream_applied(struct stream *s, int64_t seq)
{
	stream_mark_add(&s->applied, (struct stream_mark){ seq, stream_now_us(), 0, 0 });
	atomic_store(&s->applied_seq, seq);
}

/* Lands the events [from, to) and returns when they are submitted. */
typedef void (*stream_land_fn)(void *ctx, int64_t from, int64_t to);

/* The paced landing: whenever a chunk is due, land hands over everything
 * due by then (more than a chunk when it fell behind). */
static inline void stream_run(struct stream *s, stream_land_fn land, void *ctx)
{
	int64_t sent = s->first;

	s->start_us = stream_now_us();
	while (sent < s->total) {
		int64_t next = sent + STREAM_CHUNK < s->total ? sent + STREAM_CHUNK : s->total;
		int64_t due;

		stream_sleep_until(stream_due_us(s, next));
		due = s->first + (stream_now_us() - s->start_us) * s->rate / 1000000;
		due = due < next ? next : due > s->total ? s->total : due;
		land(ctx, sent, due);
		sent = due;
	}
}

/* Waits until the first `events` events landed and every sequence landed
 * was applied, at most timeout_us; whether it got there. */
static inline bool stream_drain(struct stream *s, int64_t events, int64_t timeout_us)
{
	int64_t until = stream_now_us() + timeout_us;

	while (atomic_load(&s->landed_events) < events ||
	       atomic_load(&s->applied_seq) < atomic_load(&s->landed_seq)) {
		if (stream_now_us() > until)
			return false;
		stream_sleep_until(stream_now_us() + 2000);
	}
	return true;
}

/* How long to wait for the backlog after the paced landing: as long as
 * the run, at least 10 s. A backlog that takes longer has long missed
 * the lag bound; what is left counts as lagging until then. */
static inline int64_t stream_drain_us(const struct stream *s)
{
	return (s->seconds > 10 ? s->seconds : 10) * 1000000LL;
}

/* The lag of the events of one landing. */
struct stream_lag {
	int64_t us, events;
};

static inline int stream_cmp_lag(const void *a, const void *b)
{
	int64_t x = ((const struct stream_lag *)a)->us, y = ((const struct stream_lag *)b)->us;

	return x < y ? -1 : x > y;
}

static inline int stream_cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The lag within which pct percent of the events are (lags sorted). */
static inline int64_t stream_pct(const struct stream_lag *l, size_t n, int64_t events,
				 int64_t pct)
{
	int64_t seen = 0;

	for (size_t i = 0; i < n; i++) {
		seen += l[i].events;
		if (seen * 100 >= events * pct)
			return l[i].us;
	}
	return n ? l[n - 1].us : 0;
}

/* p50, p99 and the maximum of the lags, each weighted by its events. */
struct stream_pcts {
	int64_t p50, p99, max;
};

static inline struct stream_pcts stream_pcts(struct stream_lag *l, size_t n)
{
	int64_t events = 0;

	qsort(l, n, sizeof(*l), stream_cmp_lag);
	for (size_t i = 0; i < n; i++)
		events += l[i].events;
	return (struct stream_pcts){ stream_pct(l, n, events, 50), stream_pct(l, n, events, 99),
				     n ? l[n - 1].us : 0 };
}

/* Events each apply covered: those of the landings after the one before
 * it, up to its sequence. Sorted; applies that covered nothing are left
 * out. */
static inline size_t stream_batches(const struct stream *s, int64_t *out)
{
	size_t n = 0, k = 0;

	for (size_t j = 0; j < s->applied.n; j++) {
		int64_t events = 0;

		while (k < s->landed.n && s->landed.v[k].seq <= s->applied.v[j].seq)
			events += s->landed.v[k++].events;
		if (events)
			out[n++] = events;
	}
	qsort(out, n, sizeof(*out), stream_cmp_int64);
	return n;
}

/*
 * One line: the landed rate and the landing delay, the lag from landing to
 * applied of the paced events (an event not applied by now counts as
 * lagging until now), the events per apply, and whether the rate held:
 * both p99 within STREAM_LAG_MS, every event applied.
 */
static inline void stream_report(const struct stream *s, const char *name)
{
	struct stream_lag *lag = calloc(s->landed.n + 1, sizeof(*lag));
	struct stream_lag *delay = calloc(s->landed.n + 1, sizeof(*delay));
	int64_t *batch = calloc(s->applied.n + 1, sizeof(*batch));
	int64_t events = 0, late = 0, last_us = s->start_us, now = stream_now_us();
	size_t n = 0, k = 0, nb;
	struct stream_pcts l, d;
	bool held;

	if (!lag || !delay || !batch)
		abort();
	for (size_t i = 0; i < s->landed.n; i++) {
		const struct stream_mark *m = &s->landed.v[i];

		while (k < s->applied.n && s->applied.v[k].seq < m->seq)
			k++;
		if (m->due_us < s->start_us)
			continue; /* the warm-up */
		late += k < s->applied.n ? 0 : m->events;
		lag[n].us = (k < s->applied.n ? s->applied.v[k].at_us : now) - m->at_us;
		/* both clocks are read after their commits returned */
		lag[n].us = lag[n].us < 0 ? 0 : lag[n].us;
		delay[n].us = m->at_us - m->due_us;
		lag[n].events = delay[n].events = m->events;
		n++;
		events += m->events;
		last_us = m->at_us;
	}
	l = stream_pcts(lag, n);
	d = stream_pcts(delay, n);
	nb = stream_batches(s, batch);
	held = !late && l.p99 <= STREAM_LAG_MS * 1000 && d.p99 <= STREAM_LAG_MS * 1000;
	printf("%s at %lld events/s for %lld s: landed %.0f events/s, landing delay p99 %.0f ms; "
	       "lag from landing to applied p50 %.0f ms, p99 %.0f ms, max %.0f ms; %zu applies, "
	       "events per apply min %lld, median %lld, max %lld",
	       name, (long long)s->rate, (long long)s->seconds,
	       last_us > s->start_us ? (double)events * 1e6 / (double)(last_us - s->start_us) : 0,
	       d.p99 / 1e3, l.p50 / 1e3, l.p99 / 1e3, l.max / 1e3, nb,
	       (long long)(nb ? batch[0] : 0), (long long)(nb ? batch[nb / 2] : 0),
	       (long long)(nb ? batch[nb - 1] : 0));
	if (late)
		printf("; %lld events not applied by the end", (long long)late);
	printf(": %s\n", held ? "held" : "did not hold");
	free(lag);
	free(delay);
	free(batch);
}

#endif
