/*
 * The session store: a fixed array of at most `capacity` sessions under
 * one lock. It never grows: a full store forgets its least recently used
 * session to make room, so a flood of sign-ins costs no memory.
 */
#include "server/session.h"

#include "core/err.h"
#include "core/hex.h"
#include "core/xalloc.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SESSION_CAPACITY 64
#define SESSION_IDLE_MS (12 * 3600 * 1000LL)
#define SESSION_MAX_MS (7 * 24 * 3600 * 1000LL)

struct session {
	bool used;
	unsigned char id_digest[SHA256_DIGEST_LENGTH];
	char csrf[SESSION_TOKEN_LEN + 1];
	int64_t made_ms, last_ms;
};

struct session_store {
	pthread_mutex_t mu;
	struct session_limits lim;
	struct session *slots;
};

struct session_store *session_store_new(const struct session_limits *lim)
{
	struct session_store *st = xcalloc(1, sizeof(*st));

	if (lim)
		st->lim = *lim;
	if (!st->lim.capacity)
		st->lim.capacity = SESSION_CAPACITY;
	if (st->lim.idle_ms <= 0)
		st->lim.idle_ms = SESSION_IDLE_MS;
	if (st->lim.max_ms <= 0)
		st->lim.max_ms = SESSION_MAX_MS;
	st->slots = xcalloc(st->lim.capacity, sizeof(*st->slots));
	pthread_mutex_init(&st->mu, NULL);
	return st;
}

void session_store_free(struct session_store *st)
{
	if (!st)
		return;
	pthread_mutex_destroy(&st->mu);
	OPENSSL_cleanse(st->slots, st->lim.capacity * sizeof(*st->slots));
	free(st->slots);
	free(st);
}

int64_t session_store_max_ms(const struct session_store *st)
{
	return st->lim.max_ms;
}

/* Under the lock: forgets s when it has expired at now; whether it lives. */
static bool alive_locked(const struct session_store *st, struct session *s, int64_t now)
{
	if (!s->used)
		return false;
	if (now - s->last_ms < st->lim.idle_ms && now - s->made_ms < st->lim.max_ms)
		return true;
	OPENSSL_cleanse(s, sizeof(*s));
	return false;
}

static int random_hex(char *out, struct sl_err *err)
{
	unsigned char raw[SESSION_TOKEN_LEN / 2];

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return sl_err_set(err, SL_E_INTERNAL, "no randomness for a session");
	hex_encode(raw, sizeof(raw), out);
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

int session_create(struct session_store *st, int64_t now_ms, char *id, char *csrf,
		   struct sl_err *err)
{
	struct session *slot = &st->slots[0];

	if (random_hex(id, err) || random_hex(csrf, err))
		return SL_E_INTERNAL;
	pthread_mutex_lock(&st->mu);
	/* a free or expired slot, else the one used longest ago */
	for (size_t i = 0; i < st->lim.capacity; i++) {
		struct session *s = &st->slots[i];

		if (!alive_locked(st, s, now_ms)) {
			slot = s;
			break;
		}
		if (s->last_ms < slot->last_ms)
			slot = s;
	}
	memset(slot, 0, sizeof(*slot));
	slot->used = true;
	SHA256((const unsigned char *)id, SESSION_TOKEN_LEN, slot->id_digest);
	memcpy(slot->csrf, csrf, SESSION_TOKEN_LEN + 1);
	slot->made_ms = slot->last_ms = now_ms;
	pthread_mutex_unlock(&st->mu);
	return 0;
}

/* Under the lock: the live session id names, or NULL. Every slot is
 * compared, so the time taken says nothing of which one matched. */
static struct session *find_locked(struct session_store *st, const char *id, int64_t now)
{
	unsigned char digest[SHA256_DIGEST_LENGTH];
	struct session *found = NULL;

	if (!id || strlen(id) != SESSION_TOKEN_LEN)
		return NULL;
	SHA256((const unsigned char *)id, SESSION_TOKEN_LEN, digest);
	for (size_t i = 0; i < st->lim.capacity; i++) {
		struct session *s = &st->slots[i];

		if (alive_locked(st, s, now) &&
		    CRYPTO_memcmp(s->id_digest, digest, sizeof(digest)) == 0)
			found = s;
	}
	return found;
}

bool session_find(struct session_store *st, const char *id, int64_t now_ms, char *csrf)
{
	struct session *s;

	pthread_mutex_lock(&st->mu);
	s = find_locked(st, id, now_ms);
	if (s) {
		s->last_ms = now_ms;
		if (csrf)
			memcpy(csrf, s->csrf, SESSION_TOKEN_LEN + 1);
	}
	pthread_mutex_unlock(&st->mu);
	return s != NULL;
}

void session_end(struct session_store *st, const char *id, int64_t now_ms)
{
	struct session *s;

	pthread_mutex_lock(&st->mu);
	s = find_locked(st, id, now_ms);
	if (s)
		OPENSSL_cleanse(s, sizeof(*s));
	pthread_mutex_unlock(&st->mu);
}

size_t session_count(struct session_store *st, int64_t now_ms)
{
	size_t n = 0;

	pthread_mutex_lock(&st->mu);
	for (size_t i = 0; i < st->lim.capacity; i++)
		n += alive_locked(st, &st->slots[i], now_ms);
	pthread_mutex_unlock(&st->mu);
	return n;
}
