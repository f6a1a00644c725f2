/*
 * Work items shared out among a few threads: each takes the next item not
 * yet taken, so a slow item holds up one thread only.
 */
#ifndef SL_CORE_PARFOR_H
#define SL_CORE_PARFOR_H

#include <stdbool.h>
#include <stddef.h>

/* Calls fn(ctx, slot, i) once for every i < n, on up to nslots threads
 * at once (slot < nslots says which, so that each can keep its own
 * resources); the calling thread is slot 0. Items are taken in order;
 * once fn returns false no further item is started. Returns when every
 * started call has returned. A thread that cannot be started leaves its
 * share to the others, the calling one at least. */
void parfor(size_t nslots, size_t n, bool (*fn)(void *ctx, size_t slot, size_t i), void *ctx);

#endif
