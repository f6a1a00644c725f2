/*
 * The replay memory: claims and their settling, expiry, the floor a full
 * memory raises, in-flight entries that are never forgotten, a long random
 * stream against a plain oracle, and two threads at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/err.h"
#include "ingest/seen.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW 1700000000
#define TOL 300

/* A MAC for key number n: the first 8 bytes (what the table hashes) are
 * shared by every key of the same n % spread, so that runs of colliding
 * keys form and get deleted from; the rest tells them apart. */
static void mac_of(uint32_t n, uint32_t spread, unsigned char mac[WEBHOOK_MAC_LEN])
{
	uint64_t head = n % spread;

	memset(mac, 0xa5, WEBHOOK_MAC_LEN);
	memcpy(mac, &head, sizeof(head));
	memcpy(mac + 8, &n, sizeof(n));
}

static struct seen *memory(size_t capacity)
{
	struct sl_err err = SL_ERR_INIT;
	struct seen *m;

	assert_int_equal(seen_new(capacity, TOL, NOW, &m, &err), 0);
	return m;
}

/* The state a claim of key n (source 0) stamped ts gets at now. */
static struct seen_claim claim(struct seen *m, uint32_t n, int64_t ts, int64_t now)
{
	unsigned char mac[WEBHOOK_MAC_LEN];
	struct sl_err err = SL_ERR_INIT;
	struct seen_claim c;

	mac_of(n, 1u << 20, mac);
	assert_int_equal(seen_claim(m, 0, mac, ts, now, &c, &err), 0);
	return c;
}

static enum seen_state state_of(struct seen *m, uint32_t n, int64_t ts, int64_t now)
{
	return claim(m, n, ts, now).state;
}

/* Claims key n fresh and lands it with seq n. */
static void land(struct seen *m, uint32_t n, int64_t ts, int64_t now)
{
	struct seen_claim c = claim(m, n, ts, now);

	assert_int_equal(c.state, SEEN_FRESH);
	seen_settle_landed(m, c.ticket, n, 1);
}

static struct seen_stats stats(struct seen *m)
{
	struct seen_stats s;

	seen_stats(m, &s);
	return s;
}

static void test_fresh_in_flight_landed(void **state)
{
	struct seen *m = memory(8);
	unsigned char mac[WEBHOOK_MAC_LEN];
	struct sl_err err = SL_ERR_INIT;
	struct seen_claim c, again;

	(void)state;
	c = claim(m, 1, NOW, NOW);
	assert_int_equal(c.state, SEEN_FRESH);
	assert_int_equal(stats(m).held, 1);
	assert_int_equal(stats(m).in_flight, 1);
	/* a copy while the first is landing is told so, and reserves nothing */
	assert_int_equal(state_of(m, 1, NOW, NOW + 1), SEEN_IN_FLIGHT);
	assert_int_equal(stats(m).held, 1);
	seen_settle_landed(m, c.ticket, 42, 3);
	again = claim(m, 1, NOW, NOW + 2);
	assert_int_equal(again.state, SEEN_LANDED);
	assert_int_equal(again.seq, 42);
	assert_int_equal(again.rows, 3);
	assert_int_equal(stats(m).in_flight, 0);
	/* the same MAC under another source is another request */
	mac_of(1, 1u << 20, mac);
	assert_int_equal(seen_claim(m, 1, mac, NOW, NOW, &c, &err), 0);
	assert_int_equal(c.state, SEEN_FRESH);
	assert_int_equal(seen_claim(m, 1, mac, NOW, NOW, &c, &err), 0);
	assert_int_equal(c.state, SEEN_IN_FLIGHT);
	/* and another MAC of the same second is another request too */
	assert_int_equal(state_of(m, 2, NOW, NOW), SEEN_FRESH);
	assert_int_equal(stats(m).held, 3);
	seen_free(m);
}

static void test_failed_settle_frees_the_entry(void **state)
{
	struct seen *m = memory(1);
	struct seen_claim c;

	(void)state;
	c = claim(m, 1, NOW, NOW);
	assert_int_equal(c.state, SEEN_FRESH);
	seen_settle_failed(m, c.ticket);
	assert_int_equal(stats(m).held, 0);
	/* the sender's retry of the very same request is fresh */
	c = claim(m, 1, NOW, NOW + 1);
	assert_int_equal(c.state, SEEN_FRESH);
	seen_settle_failed(m, c.ticket);
	/* and the one entry is free for another request: no floor was raised */
	land(m, 2, NOW + 1, NOW + 1);
	assert_int_equal(stats(m).floor, NOW - 1);
	assert_int_equal(state_of(m, 2, NOW + 1, NOW + 2), SEEN_LANDED);
	seen_free(m);
}

static void test_floor_starts_at_creation(void **state)
{
	struct seen *m = memory(8);

	(void)state;
	assert_int_equal(stats(m).floor, NOW - 1);
	/* stamped before the start: a process before this one may have taken it */
	assert_int_equal(state_of(m, 1, NOW - 1, NOW), SEEN_TOO_OLD);
	assert_int_equal(state_of(m, 1, NOW - TOL, NOW), SEEN_TOO_OLD);
	assert_int_equal(stats(m).held, 0);
	assert_int_equal(state_of(m, 2, NOW, NOW), SEEN_FRESH);
	/* a sender's clock may run ahead */
	assert_int_equal(state_of(m, 3, NOW + TOL, NOW), SEEN_FRESH);
	seen_free(m);
}

static void test_expiry_after_tolerance(void **state)
{
	struct seen *m = memory(2);

	(void)state;
	land(m, 1, NOW, NOW);
	land(m, 2, NOW + 10, NOW + 10);
	/* still within the tolerance: remembered */
	assert_int_equal(state_of(m, 1, NOW, NOW + TOL), SEEN_LANDED);
	assert_int_equal(stats(m).floor, NOW - 1);
	/* one second later it is dead: forgotten, and the floor covers it */
	assert_int_equal(state_of(m, 1, NOW, NOW + TOL + 1), SEEN_TOO_OLD);
	assert_int_equal(stats(m).held, 1);
	assert_int_equal(stats(m).floor, NOW);
	assert_int_equal(state_of(m, 2, NOW + 10, NOW + TOL + 1), SEEN_LANDED);
	/* its entry is reused without forgetting anything else */
	land(m, 3, NOW + TOL, NOW + TOL + 1);
	assert_int_equal(stats(m).held, 2);
	assert_int_equal(stats(m).floor, NOW);
	assert_int_equal(state_of(m, 2, NOW + 10, NOW + TOL + 2), SEEN_LANDED);
	/* a clock that steps back does not bring a forgotten request back */
	assert_int_equal(state_of(m, 1, NOW, NOW + 1), SEEN_TOO_OLD);
	seen_free(m);
}

static void test_full_memory_raises_the_floor(void **state)
{
	struct seen *m = memory(4);
	/* landed out of order: the oldest timestamp goes first, not the first in */
	static const int64_t ts[] = { NOW + 9, NOW + 3, NOW + 7, NOW + 5 };

	(void)state;
	for (uint32_t n = 0; n < 4; n++)
		land(m, n, ts[n], NOW + 9);
	land(m, 4, NOW + 10, NOW + 10);
	assert_int_equal(stats(m).held, 4);
	assert_int_equal(stats(m).floor, NOW + 3);
	assert_int_equal(state_of(m, 1, NOW + 3, NOW + 10), SEEN_TOO_OLD);
	assert_int_equal(state_of(m, 0, NOW + 9, NOW + 10), SEEN_LANDED);
	assert_int_equal(state_of(m, 2, NOW + 7, NOW + 10), SEEN_LANDED);
	assert_int_equal(state_of(m, 3, NOW + 5, NOW + 10), SEEN_LANDED);
	/* a new request at or before what is now the oldest cannot be told
	 * apart once room is made for it: refused, and nothing is forgotten */
	assert_int_equal(state_of(m, 5, NOW + 4, NOW + 10), SEEN_TOO_OLD);
	assert_int_equal(state_of(m, 5, NOW + 5, NOW + 10), SEEN_TOO_OLD);
	assert_int_equal(stats(m).floor, NOW + 3);
	assert_int_equal(state_of(m, 3, NOW + 5, NOW + 10), SEEN_LANDED);
	/* a newer one makes room */
	land(m, 6, NOW + 6, NOW + 10);
	assert_int_equal(stats(m).floor, NOW + 5);
	assert_int_equal(state_of(m, 3, NOW + 5, NOW + 10), SEEN_TOO_OLD);
	assert_int_equal(state_of(m, 6, NOW + 6, NOW + 10), SEEN_LANDED);
	assert_int_equal(stats(m).held, 4);
	seen_free(m);
}

static void test_never_forgets_in_flight(void **state)
{
	struct seen *m = memory(3);
	unsigned char mac[WEBHOOK_MAC_LEN];
	struct sl_err err = SL_ERR_INIT;
	struct seen_claim c[3], busy;

	(void)state;
	for (uint32_t n = 0; n < 3; n++) {
		c[n] = claim(m, n, NOW + n, NOW);
		assert_int_equal(c[n].state, SEEN_FRESH);
	}
	/* nothing to make room with */
	mac_of(3, 1u << 20, mac);
	assert_int_equal(seen_claim(m, 0, mac, NOW + 3, NOW + 3, &busy, &err), SL_E_BUSY);
	assert_string_equal(err.msg, "all 3 signed requests the replay memory holds are still "
				     "landing; retry shortly");
	assert_int_equal(stats(m).held, 3);
	assert_int_equal(stats(m).floor, NOW - 1);
	/* the newest lands: it is the only one that may go, old as the others are */
	seen_settle_landed(m, c[2].ticket, 2, 1);
	land(m, 3, NOW + 3, NOW + 3);
	assert_int_equal(stats(m).floor, NOW + 2);
	assert_int_equal(stats(m).in_flight, 2);
	/* long past the tolerance, a batch still landing stays remembered */
	assert_int_equal(state_of(m, 0, NOW, NOW + 10 * TOL), SEEN_IN_FLIGHT);
	assert_int_equal(state_of(m, 1, NOW + 1, NOW + 10 * TOL), SEEN_IN_FLIGHT);
	assert_int_equal(stats(m).held, 2);
	seen_settle_landed(m, c[0].ticket, 0, 1);
	seen_settle_failed(m, c[1].ticket);
	/* landed at last, and dead already: forgotten by the next claim */
	assert_int_equal(state_of(m, 0, NOW, NOW + 10 * TOL), SEEN_TOO_OLD);
	assert_int_equal(stats(m).floor, NOW + 3);
	assert_int_equal(stats(m).held, 0);
	seen_free(m);
}

static void test_new_refuses(void **state)
{
	struct sl_err err = SL_ERR_INIT;
	struct seen *m;

	(void)state;
	assert_int_equal(seen_new(0, TOL, NOW, &m, &err), SL_E_USAGE);
	assert_null(m);
	assert_string_equal(err.msg, "replay memory of 0 entries (1 to 1073741824)");
	assert_int_equal(seen_new(((size_t)1 << 30) + 1, TOL, NOW, &m, &err), SL_E_USAGE);
	assert_int_equal(seen_new(8, -1, NOW, &m, &err), SL_E_USAGE);
	assert_string_equal(err.msg, "negative signature tolerance -1 s");
	assert_int_equal(seen_new(1, 0, NOW, &m, &err), 0);
	seen_free(m);
	seen_free(NULL);
}

/* ---- a long random stream against an oracle ---- */

/* What the oracle knows of one key. It may disagree with the memory on
 * which of several landed entries with the oldest timestamp was forgotten;
 * such an entry's timestamp is then at or below the floor, where either
 * answer is right. */
struct okey {
	uint32_t source;
	unsigned char mac[WEBHOOK_MAC_LEN];
	int64_t ts;
	enum { O_UNKNOWN, O_IN_FLIGHT, O_LANDED } state;
	bool held;
	size_t pos; /* in held, when held */
	uint32_t ticket;
	int64_t seq, rows;
};

struct oracle {
	size_t capacity, in_flight;
	int64_t floor;
	struct okey *keys;
	size_t nkeys;
	struct okey **held; /* the keys it holds, in no order */
	size_t nheld;
};

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* The landed key the oracle holds with the oldest timestamp, or NULL. */
static struct okey *oracle_oldest(struct oracle *o)
{
	struct okey *best = NULL;

	for (size_t i = 0; i < o->nheld; i++) {
		struct okey *k = o->held[i];

		if (k->state == O_LANDED && (!best || k->ts < best->ts))
			best = k;
	}
	return best;
}

static void oracle_hold(struct oracle *o, struct okey *k)
{
	k->held = true;
	k->pos = o->nheld;
	o->held[o->nheld++] = k;
}

static void oracle_drop(struct oracle *o, struct okey *k)
{
	k->held = false;
	o->held[k->pos] = o->held[--o->nheld];
	o->held[k->pos]->pos = k->pos;
}

static void oracle_forget(struct oracle *o, struct okey *k)
{
	oracle_drop(o, k);
	if (k->ts > o->floor)
		o->floor = k->ts;
}

/* One claim of k at now, on both, checked against each other. counts[]
 * tallies the states (and SL_E_BUSY in the last one). */
static void step_claim(struct seen *m, struct oracle *o, struct okey *k, int64_t now,
		       size_t counts[5])
{
	struct sl_err err = SL_ERR_INIT;
	struct seen_claim c;
	struct okey *oldest;
	int rc;

	for (size_t i = o->nheld; i-- > 0;)
		if (o->held[i]->state == O_LANDED && o->held[i]->ts < now - TOL)
			oracle_forget(o, o->held[i]);
	/* what making room would forget */
	oldest = o->nheld == o->capacity ? oracle_oldest(o) : NULL;
	rc = seen_claim(m, k->source, k->mac, k->ts, now, &c, &err);
	if (k->state == O_IN_FLIGHT) {
		assert_int_equal(rc, 0);
		assert_int_equal(c.state, SEEN_IN_FLIGHT);
	} else if (k->state == O_LANDED) {
		assert_int_equal(rc, 0);
		if (k->ts > o->floor) {
			/* the guarantee: a landed request above the floor is never fresh */
			assert_true(k->held);
			assert_int_equal(c.state, SEEN_LANDED);
		} else {
			assert_true(c.state == SEEN_LANDED || c.state == SEEN_TOO_OLD);
		}
		if (c.state == SEEN_LANDED) {
			assert_int_equal(c.seq, k->seq);
			assert_int_equal(c.rows, k->rows);
		}
	} else if (k->ts <= o->floor) {
		assert_int_equal(rc, 0);
		assert_int_equal(c.state, SEEN_TOO_OLD);
	} else if (o->nheld == o->capacity && !oldest) {
		assert_int_equal(rc, SL_E_BUSY);
		counts[4]++;
		return;
	} else if (oldest && oldest->ts >= k->ts) {
		assert_int_equal(rc, 0);
		assert_int_equal(c.state, SEEN_TOO_OLD);
	} else {
		if (oldest)
			oracle_forget(o, oldest);
		assert_int_equal(rc, 0);
		assert_int_equal(c.state, SEEN_FRESH);
		k->state = O_IN_FLIGHT;
		k->ticket = c.ticket;
		oracle_hold(o, k);
		o->in_flight++;
	}
	counts[c.state]++;
}

static void step_settle(struct seen *m, struct oracle *o, struct okey *k, bool landed,
			int64_t seq)
{
	o->in_flight--;
	if (landed) {
		k->state = O_LANDED;
		k->seq = seq;
		k->rows = rnd(100);
		seen_settle_landed(m, k->ticket, k->seq, k->rows);
	} else {
		k->state = O_UNKNOWN;
		oracle_drop(o, k);
		seen_settle_failed(m, k->ticket);
	}
}

static void check_stats(struct seen *m, const struct oracle *o)
{
	struct seen_stats s = stats(m);

	assert_true(s.held <= o->capacity);
	assert_int_equal(s.held, o->nheld);
	assert_int_equal(s.in_flight, o->in_flight);
	assert_int_equal(s.floor, o->floor);
}

/* steps claims and settles on a memory of capacity entries, keys hashing
 * to one of spread homes per source */
static void run_stream(size_t capacity, uint32_t spread, uint64_t seed, size_t steps)
{
	struct oracle o = { .capacity = capacity, .floor = NOW - 1 };
	struct seen *m = memory(capacity);
	size_t counts[5] = { 0 };
	int64_t now = NOW, seq = 0;

	rng = seed;
	o.keys = calloc(steps, sizeof(*o.keys));
	o.held = calloc(capacity, sizeof(*o.held));
	assert_non_null(o.keys);
	assert_non_null(o.held);
	for (size_t i = 0; i < steps; i++) {
		/* the clock: mostly still, sometimes a second, now and then a jump
		 * past the tolerance, and once in a while a step back */
		uint32_t r = rnd(1000);

		if (r < 150)
			now++;
		else if (r < 152)
			now += TOL / 2 + rnd(TOL);
		else if (r < 154)
			now -= rnd(20);
		r = rnd(100);
		if (r < 40 || o.nkeys == 0) {
			/* a new request, stamped near now by a clock a little off */
			struct okey *k = &o.keys[o.nkeys];

			k->source = rnd(3);
			mac_of((uint32_t)o.nkeys, spread, k->mac);
			k->ts = now - 5 + rnd(8);
			o.nkeys++;
			step_claim(m, &o, k, now, counts);
		} else if (r < 70) {
			/* a copy of an earlier one, often a recent one */
			size_t back = rnd(2) ? rnd(o.nkeys < 10 ? (uint32_t)o.nkeys : 10)
					     : rnd((uint32_t)o.nkeys);

			step_claim(m, &o, &o.keys[o.nkeys - 1 - back], now, counts);
		} else if (o.in_flight && (r < 97 || o.nheld == capacity)) {
			/* the answer for one in flight; a tenth of them failed */
			size_t pick = rnd((uint32_t)o.in_flight);

			for (size_t j = 0; j < o.nheld; j++)
				if (o.held[j]->state == O_IN_FLIGHT && pick-- == 0) {
					step_settle(m, &o, o.held[j], rnd(10) != 0, ++seq);
					break;
				}
		}
		check_stats(m, &o);
	}
	/* every outcome happened, more than once */
	for (int s = 0; s < 5; s++)
		assert_true(counts[s] >= steps / 1000);
	free(o.held);
	free(o.keys);
	seen_free(m);
}

static void test_random_stream_against_oracle(void **state)
{
	(void)state;
	/* long runs of colliding keys, deleted from all the time */
	run_stream(16, 7, 0x9e3779b97f4a7c15ULL, 20000);
	run_stream(64, 1u << 20, 42, 20000);
	run_stream(5, 3, 7, 5000);
	run_stream(1, 1, 11, 2000);
}

/* ---- two threads ---- */

#define RACE_KEYS 20000

struct race {
	struct seen *m;
	atomic_int landed[RACE_KEYS]; /* how often each key was settled landed */
	atomic_int failed[RACE_KEYS];
	atomic_int wrong;             /* answers that break the contract */
};

struct racer {
	struct race *r;
	int id;
};

/* Claims every key once, one thread upwards and one downwards, settling
 * its own fresh claims: thread 0 fails every third key, thread 1 lands all. */
static void *race_run(void *arg)
{
	struct racer *me = arg;
	struct race *r = me->r;

	for (int i = 0; i < RACE_KEYS; i++) {
		uint32_t n = (uint32_t)(me->id == 0 ? i : RACE_KEYS - 1 - i);
		unsigned char mac[WEBHOOK_MAC_LEN];
		struct seen_claim c;

		mac_of(n, 1u << 20, mac);
		if (seen_claim(r->m, 0, mac, NOW, NOW, &c, NULL) != 0) {
			atomic_fetch_add(&r->wrong, 1);
			continue;
		}
		if (c.state == SEEN_FRESH && me->id == 0 && n % 3 == 0) {
			atomic_fetch_add(&r->failed[n], 1);
			seen_settle_failed(r->m, c.ticket);
		} else if (c.state == SEEN_FRESH) {
			atomic_fetch_add(&r->landed[n], 1);
			seen_settle_landed(r->m, c.ticket, n, 1);
		} else if (c.state == SEEN_LANDED && (c.seq != n || !atomic_load(&r->landed[n]))) {
			atomic_fetch_add(&r->wrong, 1);
		} else if (c.state == SEEN_TOO_OLD) {
			atomic_fetch_add(&r->wrong, 1);
		}
	}
	return NULL;
}

static void test_two_threads_claim_and_settle(void **state)
{
	struct race *r = calloc(1, sizeof(*r));
	struct racer racers[2] = { { r, 0 }, { r, 1 } };
	pthread_t t[2];
	size_t landed = 0;

	(void)state;
	assert_non_null(r);
	r->m = memory(RACE_KEYS);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, race_run, &racers[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&r->wrong), 0);
	for (int n = 0; n < RACE_KEYS; n++) {
		/* never twice; a key nobody failed landed exactly once */
		assert_true(atomic_load(&r->landed[n]) <= 1);
		if (!atomic_load(&r->failed[n]))
			assert_int_equal(atomic_load(&r->landed[n]), 1);
		landed += (size_t)atomic_load(&r->landed[n]);
	}
	assert_int_equal(stats(r->m).in_flight, 0);
	assert_int_equal(stats(r->m).held, landed);
	seen_free(r->m);
	free(r);
}

/* The server's shape: one thread claims (and claims copies), another
 * settles what the first handed it, as the writer's answerer does. */
#define PIPE_KEYS 20000
#define PIPE_DEPTH 64

struct pipe {
	struct seen *m;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t tickets[PIPE_DEPTH], keys[PIPE_DEPTH];
	size_t head, n;
	bool done;
	atomic_int landed[PIPE_KEYS], failed[PIPE_KEYS];
	atomic_int wrong;
};

static void *pipe_settle(void *arg)
{
	struct pipe *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		uint32_t ticket, n;

		while (!p->n && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->n)
			break;
		ticket = p->tickets[p->head];
		n = p->keys[p->head];
		p->head = (p->head + 1) % PIPE_DEPTH;
		p->n--;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		/* counted before settling, so that a claim that follows sees it */
		if (n % 5 == 0 && !atomic_load(&p->failed[n])) {
			atomic_fetch_add(&p->failed[n], 1);
			seen_settle_failed(p->m, ticket);
		} else {
			atomic_fetch_add(&p->landed[n], 1);
			seen_settle_landed(p->m, ticket, n, 2);
		}
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void pipe_claim(struct pipe *p, uint32_t n)
{
	unsigned char mac[WEBHOOK_MAC_LEN];
	struct seen_claim c;

	mac_of(n, 1u << 20, mac);
	if (seen_claim(p->m, 1, mac, NOW + 1, NOW + 2, &c, NULL) != 0) {
		atomic_fetch_add(&p->wrong, 1);
		return;
	}
	if (c.state == SEEN_FRESH) {
		/* fresh again only after a failure */
		if (atomic_load(&p->landed[n]))
			atomic_fetch_add(&p->wrong, 1);
		pthread_mutex_lock(&p->mu);
		while (p->n == PIPE_DEPTH)
			pthread_cond_wait(&p->cv, &p->mu);
		p->tickets[(p->head + p->n) % PIPE_DEPTH] = c.ticket;
		p->keys[(p->head + p->n) % PIPE_DEPTH] = n;
		p->n++;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	} else if (c.state == SEEN_LANDED) {
		/* answered as landed only once it has */
		if (c.seq != n || c.rows != 2 || !atomic_load(&p->landed[n]))
			atomic_fetch_add(&p->wrong, 1);
	} else if (c.state != SEEN_IN_FLIGHT) {
		atomic_fetch_add(&p->wrong, 1);
	}
}

static void test_claims_on_one_thread_settles_on_another(void **state)
{
	struct pipe *p = calloc(1, sizeof(*p));
	pthread_t settler;

	(void)state;
	assert_non_null(p);
	p->m = memory(PIPE_KEYS);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	assert_int_equal(pthread_create(&settler, NULL, pipe_settle, p), 0);
	for (uint32_t n = 0; n < PIPE_KEYS; n++) {
		pipe_claim(p, n);
		/* copies of recent ones, which may be in flight, landed, or failed */
		pipe_claim(p, n - n % 7);
		if (n >= 40)
			pipe_claim(p, n - 40);
	}
	pthread_mutex_lock(&p->mu);
	p->done = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(settler, NULL);
	assert_int_equal(atomic_load(&p->wrong), 0);
	for (uint32_t n = 0; n < PIPE_KEYS; n++)
		assert_true(atomic_load(&p->landed[n]) <= 1);
	assert_int_equal(stats(p->m).in_flight, 0);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	seen_free(p->m);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_in_flight_landed),
		cmocka_unit_test(test_failed_settle_frees_the_entry),
		cmocka_unit_test(test_floor_starts_at_creation),
		cmocka_unit_test(test_expiry_after_tolerance),
		cmocka_unit_test(test_full_memory_raises_the_floor),
		cmocka_unit_test(test_never_forgets_in_flight),
		cmocka_unit_test(test_new_refuses),
		cmocka_unit_test(test_random_stream_against_oracle),
		cmocka_unit_test(test_two_threads_claim_and_settle),
		cmocka_unit_test(test_claims_on_one_thread_settles_on_another),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
