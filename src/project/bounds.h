/*
 * What a source's replay boundary is made of: per boundary mode, the
 * columns of its landing table (or, for an adopted source, its table)
 * that say how far a build read, and the time a replay's start and the
 * source's retention cut on. Pure: from the source's declaration alone.
 */
#ifndef SL_PROJECT_BOUNDS_H
#define SL_PROJECT_BOUNDS_H

#include "project/config.h"
#include "state/replay.h"

/* The source's boundary, its mode the declared one or its kind's default.
 * Returns NULL, or what makes the mode impossible for the source (its
 * kind lands no such column), said as a sentence. */
const char *source_bounds_of(const struct source_cfg *s, struct source_bounds *out);

#endif
