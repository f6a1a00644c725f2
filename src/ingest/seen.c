/*
 * The replay memory (seen.h): a fixed array of entries, found through an
 * open-addressing table (linear probing, at most half full, deletion by
 * backward shift so that no tombstones pile up), with the landed entries
 * also in a min-heap by timestamp so that the next one to forget is always
 * at hand. Nothing is allocated after seen_new. It must never forget an
 * entry without raising the floor to its timestamp, nor forget an entry in
 * flight: either would let a copy of a request land twice.
 */
#include "ingest/seen.h"

#include "core/err.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define CAPACITY_MAX ((size_t)1 << 30)

enum entry_state { ENTRY_FREE, ENTRY_IN_FLIGHT, ENTRY_LANDED };

struct entry {
	unsigned char mac[WEBHOOK_MAC_LEN];
	int64_t ts, seq, rows;
	uint32_t source;
	uint8_t state; /* enum entry_state */
};

struct seen {
	pthread_mutex_t mu;
	int64_t tolerance_s;
	int64_t floor;
	size_t capacity;
	struct entry *entries; /* capacity */
	uint32_t *slots;       /* mask + 1: an entry's index, or NONE */
	size_t mask;
	uint32_t *heap; /* the landed entries, the oldest timestamp first */
	size_t nheap;
	uint32_t *unused; /* a stack of the free entries */
	size_t nunused;
};

/* A MAC is already uniform to whoever lacks the secret; the mix is for the
 * source number, and for callers whose keys are not MACs. */
static size_t home_of(uint32_t source, const unsigned char *mac)
{
	uint64_t h;

	memcpy(&h, mac, sizeof(h));
	h ^= (uint64_t)source * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return (size_t)h;
}

/* The slot holding (source, mac), or the empty one where it would go;
 * there is always one, the table being at most half full. */
static size_t probe(const struct seen *m, uint32_t source, const unsigned char *mac)
{
	for (size_t i = home_of(source, mac) & m->mask;; i = (i + 1) & m->mask) {
		uint32_t e = m->slots[i];

		if (e == NONE || (m->entries[e].source == source &&
				  memcmp(m->entries[e].mac, mac, WEBHOOK_MAC_LEN) == 0))
			return i;
	}
}

/* Empties slot i, moving back each later entry of its run that may stand
 * there, so that every entry stays reachable from its home slot. */
static void slot_clear(struct seen *m, size_t i)
{
	for (size_t j = (i + 1) & m->mask; m->slots[j] != NONE; j = (j + 1) & m->mask) {
		const struct entry *e = &m->entries[m->slots[j]];
		size_t home = home_of(e->source, e->mac) & m->mask;

		/* i lies on the way from e's home to j */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i] = NONE;
}

static int64_t heap_ts(const struct seen *m, size_t k)
{
	return m->entries[m->heap[k]].ts;
}

static void heap_swap(struct seen *m, size_t a, size_t b)
{
	uint32_t t = m->heap[a];

	m->heap[a] = m->heap[b];
	m->heap[b] = t;
}

static void heap_push(struct seen *m, uint32_t e)
{
	size_t k = m->nheap++;

	m->heap[k] = e;
	for (; k > 0 && heap_ts(m, (k - 1) / 2) > heap_ts(m, k); k = (k - 1) / 2)
		heap_swap(m, k, (k - 1) / 2);
}

static uint32_t heap_pop(struct seen *m)
{
	uint32_t top = m->heap[0];
	size_t k = 0;

	m->heap[0] = m->heap[--m->nheap];
	for (;;) {
		size_t l = 2 * k + 1, r = l + 1, least = k;

		if (l < m->nheap && heap_ts(m, l) < heap_ts(m, least))
			least = l;
		if (r < m->nheap && heap_ts(m, r) < heap_ts(m, least))
			least = r;
		if (least == k)
			return top;
		heap_swap(m, k, least);
		k = least;
	}
}

static void entry_release(struct seen *m, uint32_t e)
{
	struct entry *en = &m->entries[e];

	slot_clear(m, probe(m, en->source, en->mac));
	en->state = ENTRY_FREE;
	m->unused[m->nunused++] = e;
}

/* Forgets the landed entry with the oldest timestamp, and from now on
 * refuses whatever it could have told apart. */
static void forget_oldest(struct seen *m)
{
	uint32_t e = heap_pop(m);

	if (m->entries[e].ts > m->floor)
		m->floor = m->entries[e].ts;
	entry_release(m, e);
}

int seen_new(size_t capacity, int64_t tolerance_s, int64_t now, struct seen **out,
	     struct sl_err *err)
{
	struct seen *m;
	size_t nslots = 2;

	*out = NULL;
	if (capacity < 1 || capacity > CAPACITY_MAX)
		return sl_err_set(err, SL_E_USAGE, "replay memory of %zu entries (1 to %zu)",
				  capacity, CAPACITY_MAX);
	if (tolerance_s < 0)
		return sl_err_set(err, SL_E_USAGE, "negative signature tolerance %" PRId64 " s",
				  tolerance_s);
	while (nslots < 2 * capacity)
		nslots *= 2;
	m = calloc(1, sizeof(*m));
	if (!m)
		return sl_err_set(err, SL_E_NOMEM, "cannot allocate a replay memory");
	pthread_mutex_init(&m->mu, NULL);
	m->entries = calloc(capacity, sizeof(*m->entries));
	m->slots = malloc(nslots * sizeof(*m->slots));
	m->heap = malloc(capacity * sizeof(*m->heap));
	m->unused = malloc(capacity * sizeof(*m->unused));
	if (!m->entries || !m->slots || !m->heap || !m->unused) {
		seen_free(m);
		return sl_err_set(err, SL_E_NOMEM, "cannot allocate a replay memory of %zu entries",
				  capacity);
	}
	m->tolerance_s = tolerance_s;
	m->floor = now - 1;
	m->capacity = capacity;
	m->mask = nslots - 1;
	memset(m->slots, 0xff, nslots * sizeof(*m->slots));
	/* entry 0 is handed out first, so a small memory reads in order */
	for (size_t i = 0; i < capacity; i++)
		m->unused[i] = (uint32_t)(capacity - 1 - i);
	m->nunused = capacity;
	*out = m;
	return 0;
}

void seen_free(struct seen *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->mu);
	free(m->entries);
	free(m->slots);
	free(m->heap);
	free(m->unused);
	free(m);
}

int seen_claim(struct seen *m, uint32_t source, const unsigned char mac[WEBHOOK_MAC_LEN],
	       int64_t ts, int64_t now, struct seen_claim *out, struct sl_err *err)
{
	int rc = 0;
	size_t i;

	*out = (struct seen_claim){ .ticket = NONE };
	pthread_mutex_lock(&m->mu);
	while (m->nheap && heap_ts(m, 0) < now - m->tolerance_s)
		forget_oldest(m);
	i = probe(m, source, mac);
	if (m->slots[i] != NONE) {
		const struct entry *e = &m->entries[m->slots[i]];

		out->state = e->state == ENTRY_IN_FLIGHT ? SEEN_IN_FLIGHT : SEEN_LANDED;
		out->seq = e->seq;
		out->rows = e->rows;
	} else if (ts <= m->floor || (!m->nunused && m->nheap && heap_ts(m, 0) >= ts)) {
		/* the second case: making room would raise the floor to ts or past it */
		out->state = SEEN_TOO_OLD;
	} else if (!m->nunused && !m->nheap) {
		rc = sl_err_set(err, SL_E_BUSY,
				"all %zu signed requests the replay memory holds are still landing; "
				"retry shortly",
				m->capacity);
	} else {
		uint32_t e;

		if (!m->nunused) {
			forget_oldest(m);
			/* the backward shift may have moved the run i was in */
			i = probe(m, source, mac);
		}
		e = m->unused[--m->nunused];
		m->entries[e] = (struct entry){ .ts = ts, .source = source, .state = ENTRY_IN_FLIGHT };
		memcpy(m->entries[e].mac, mac, WEBHOOK_MAC_LEN);
		m->slots[i] = e;
		out->state = SEEN_FRESH;
		out->ticket = e;
	}
	pthread_mutex_unlock(&m->mu);
	return rc;
}

/* The entry of a fresh claim not yet settled; a ticket is settled exactly
 * once, and anything else is a bug that would corrupt the memory. */
static struct entry *ticket_entry(struct seen *m, uint32_t ticket)
{
	if (ticket >= m->capacity || m->entries[ticket].state != ENTRY_IN_FLIGHT)
		abort();
	return &m->entries[ticket];
}

void seen_settle_landed(struct seen *m, uint32_t ticket, int64_t seq, int64_t rows)
{
	struct entry *e;

	pthread_mutex_lock(&m->mu);
	e = ticket_entry(m, ticket);
	e->state = ENTRY_LANDED;
	e->seq = seq;
	e->rows = rows;
	heap_push(m, ticket);
	pthread_mutex_unlock(&m->mu);
}

void seen_settle_failed(struct seen *m, uint32_t ticket)
{
	pthread_mutex_lock(&m->mu);
	ticket_entry(m, ticket);
	entry_release(m, ticket);
	pthread_mutex_unlock(&m->mu);
}

void seen_stats(struct seen *m, struct seen_stats *out)
{
	pthread_mutex_lock(&m->mu);
	out->held = m->capacity - m->nunused;
	out->in_flight = out->held - m->nheap;
	out->floor = m->floor;
	pthread_mutex_unlock(&m->mu);
}
