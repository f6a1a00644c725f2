/*
 * Inside src/exec/ only: a temporal model's build (temporal.c), window by
 * window, its met windows shared out among the run's workers.
 */
#ifndef SL_EXEC_TEMPORAL_H
#define SL_EXEC_TEMPORAL_H

#include "exec/build.h"

/*
 * The windows the run's mode and window make due, each gated on every
 * upstream contract and, when met, built in a transaction of its own; the
 * windows that did not build and the model's run-log row recorded after
 * them. A failed window is the item's (0); SL_E_SUSPECT (run_err says
 * why) stops the run.
 */
int temporal_build(struct run *r, struct plan_item *pi, const char *sig, struct run_item *item,
		   struct sl_err *run_err);
/* Closes the connections of the run's workers (the first is the run's). */
void temporal_slots_close(struct run *r);

#endif
