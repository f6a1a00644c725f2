/*
 * Per-model build locks: a batch run and the live runner in one process
 * (the server) never build the same model at once, nor do the processes
 * that share a warehouse (wh_shared). A batch build waits for the lock;
 * the runner only tries it and, when another build holds it, looks again
 * next cycle (the watermark bookkeeping then finds the pending rows
 * already applied). A DuckDB file is held by one process: there, the lock
 * is this process's alone.
 */
#ifndef SL_EXEC_LOCK_H
#define SL_EXEC_LOCK_H

#include <stdbool.h>

struct sl_err;
struct wh;

/* Each model has a lock of its own, whatever its name. A thread holding a
 * model's lock must not take it again (it would wait for itself). w is
 * the connection the build runs on.
 * build_lock waits for the lock; *waited says whether another build held it, whose
 * outcome may leave this one nothing to do. */
int build_lock(struct wh *w, const char *model, bool *waited, struct sl_err *err);
/* *got: taken; false when another build, here or elsewhere, holds it. */
int build_lock_try(struct wh *w, const char *model, bool *got, struct sl_err *err);
/* Releases a lock the caller holds; releasing one it does not aborts. */
int build_unlock(struct wh *w, const char *model, struct sl_err *err);

#endif
