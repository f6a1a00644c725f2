/*
 * The clocks of the benchmark programs that time a piece of work
 * themselves: wall time, and the CPU time of the whole process (user and
 * system, every thread), in seconds.
 */
#ifndef SL_BENCH_CLOCK_H
#define SL_BENCH_CLOCK_H

#include <sys/resource.h>
#include <time.h>

static inline double clock_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double clock_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

#endif
