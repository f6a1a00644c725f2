/*
 * A seeded random stream for the tests' generators (splitmix64): the same
 * numbers from a seed on every platform, so a failing seed can be run
 * again anywhere.
 */
#ifndef SL_TESTS_FIXTURE_RNG_H
#define SL_TESTS_FIXTURE_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n). */
static inline size_t rng_below(struct rng *r, size_t n)
{
	return (size_t)(rng_next(r) % n);
}

#endif
