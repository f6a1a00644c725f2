/*
 * Arenas: memory that lives as long as a unit of work. Arenas form a tree
 * that follows the work:
 *
 *   process (main)
 *     command (cli_session)
 *       project (its models, the scratch of a selector's hint)
 *       server (sluice serve)
 *         landing writer -> one per landing table it read
 *         poller -> one per poll (the request, the page, its rows)
 *         a client's command (POST /api/commands) -> as a command's
 *         live runner -> as below
 *       live runner (sluice live) -> cycle, catalog, ledger, claims
 *       model build / slot -> batch or message
 *   HTTP server (a root: it outlives its starter until its last call)
 *     HTTP request (http_call_arena: a webhook's rows until answered)
 *
 * A few roots remain where the owner has its own free function (a
 * warehouse result's text, a DuckDB feed's strings) or where a warehouse
 * helper is called from places that hold no arena; each says so.
 *
 * Freeing or resetting an arena frees its children first. Cleanup
 * callbacks registered on an arena run (last registered first) when it is
 * reset or freed, which is how handles that belong to a unit of work (a
 * warehouse connection or result, a poll's libcurl handle) get closed.
 * Running out of memory aborts, as in buf.h.
 * Threads: one arena's allocations belong to one thread at a time, but the
 * children of an arena may be made and freed on several threads at once
 * (the requests of a server, the slots of a command, a poller's polls).
 */
#ifndef SL_CORE_ARENA_H
#define SL_CORE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct arena;

/* A new arena, a child of parent (may be NULL). Free with arena_free(), or
 * let the parent's reset/free do it. */
struct arena *arena_new(struct arena *parent);
void arena_free(struct arena *a);
/* Frees every child and every allocation, runs the cleanups; the arena itself
 * stays usable. */
void arena_reset(struct arena *a);

/* Zeroed memory owned by the arena: must not be freed by the caller. */
void *arena_alloc(struct arena *a, size_t size);
/* Grows an array allocated from the arena (copying: the old one stays until
 * reset). */
void *arena_grow(struct arena *a, void *old, size_t old_size, size_t new_size);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_sprintf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vsprintf(struct arena *a, const char *fmt, va_list ap);

void arena_on_reset(struct arena *a, void (*fn)(void *), void *ctx);

/* Appends one zeroed element to a growable array held in (*items, *n,
 * *cap), growing it in the arena; returns the new element. */
void *arena_push(struct arena *a, void **items, size_t *n, size_t *cap, size_t elem);
#define ARENA_PUSH(a, items, n, cap) \
	((__typeof__(**(items)) *)arena_push((a), (void **)(items), (n), (cap), sizeof(**(items))))

#endif
