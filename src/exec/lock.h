/*
 * Per-model build locks within a process: a batch run and the live runner
 * in one process (the server) never build the same model at once. A batch
 * build waits for the lock; the runner only tries it and, when a batch run
 * holds it, looks again next cycle (the watermark bookkeeping then finds
 * the pending rows already applied). Across processes DuckDB's file lock
 * already keeps builders apart.
 */
#ifndef SL_EXEC_LOCK_H
#define SL_EXEC_LOCK_H

#include <stdbool.h>

/* Each model has a lock of its own, whatever its name. A thread holding a
 * model's lock must not take it again (it would wait for itself). */
void build_lock(const char *model);
/* true when taken; false when another build holds it */
bool build_lock_try(const char *model);
/* Releases a lock the caller holds; any other call aborts. */
void build_unlock(const char *model);

#endif
