/*
 * The replay memory: the signed webhook requests already accepted, so that
 * whoever captures one cannot have it landed again while its timestamp is
 * still within the tolerance. A request is named by its source and its
 * MAC (webhook_verify_signature), which covers the timestamp and the body.
 *
 * Each request is claimed before it is queued and settled once its batch
 * is answered:
 *
 *   unknown --claim--> in flight --settle_landed--> landed --expires or
 *                          |                                  is evicted--> forgotten
 *                          +--settle_failed--> unknown (a retry is fresh)
 *
 * A copy claimed while the first is in flight is told so and lands nothing;
 * one claimed after it landed gets its sequence and row count, so it is
 * never answered as landed before the first one actually was.
 *
 * The memory is bounded: capacity entries, allocated once. A landed entry
 * is forgotten only by raising the floor to its timestamp, and a request
 * stamped at or before the floor is refused as too old: every request
 * claimed with a timestamp after the floor is remembered until settled
 * failed. Forgetting happens when an entry expires (its timestamp more
 * than tolerance_s before now, so the signature check refuses it anyway)
 * or, with every entry in use, to make room: the landed entry with the
 * oldest timestamp goes. In-flight entries are never forgotten.
 *
 * The floor starts just before the memory is created: a request stamped
 * earlier might have been accepted by a process that ran before, whose
 * memory is gone.
 *
 * Every function may be called from any thread; one lock serializes them.
 */
#ifndef SL_INGEST_SEEN_H
#define SL_INGEST_SEEN_H

#include "ingest/webhook.h"

#include <stddef.h>
#include <stdint.h>

struct seen;
struct sl_err;

enum seen_state {
	SEEN_FRESH,     /* never seen: reserved under the ticket, now in flight */
	SEEN_IN_FLIGHT, /* claimed before and not settled yet */
	SEEN_LANDED,    /* landed before: seq and rows are the first one's answer */
	SEEN_TOO_OLD,   /* stamped at or before the floor: the memory cannot tell */
};

struct seen_claim {
	enum seen_state state;
	uint32_t ticket;   /* SEEN_FRESH: for exactly one seen_settle_* */
	int64_t seq, rows; /* SEEN_LANDED */
};

/* A memory of at most capacity requests (1 to 2^30), for signatures good
 * for tolerance_s either way, created at unix time now. About 80 bytes a
 * request, allocated here once. Fails with SL_E_USAGE for a capacity out of
 * range or a negative tolerance, SL_E_NOMEM. Free with seen_free. */
int seen_new(size_t capacity, int64_t tolerance_s, int64_t now, struct seen **out,
	     struct sl_err *err);
void seen_free(struct seen *m);

/* Looks up (source, mac) for a request stamped ts, at unix time now (the
 * now its signature was checked at), and reserves it when it is fresh.
 * source is the caller's number for the request's source. Fills out and
 * returns 0, or SL_E_BUSY when every entry is in flight (nothing is
 * reserved; the request may be sent again). */
int seen_claim(struct seen *m, uint32_t source, const unsigned char mac[WEBHOOK_MAC_LEN],
	       int64_t ts, int64_t now, struct seen_claim *out, struct sl_err *err);

/* Settles a fresh claim: its batch committed with this sequence and row
 * count, which copies of it are answered with from now on. */
void seen_settle_landed(struct seen *m, uint32_t ticket, int64_t seq, int64_t rows);
/* Settles a fresh claim whose request landed nothing: it is forgotten, so
 * that the sender's retry of the very same request is fresh. */
void seen_settle_failed(struct seen *m, uint32_t ticket);

struct seen_stats {
	size_t held;      /* entries in use, at most the capacity */
	size_t in_flight; /* of those, claimed and not settled */
	int64_t floor;
};

/* What the memory holds now. */
void seen_stats(struct seen *m, struct seen_stats *out);

#endif
