/*
 * What the HTTP test tools driven by one epoll loop (post_load, conn_flood)
 * share: changing what epoll watches on a socket, and latency percentiles.
 * Header only, static inline: each tool stays one .c file built on its own.
 * Nothing here prints, exits or allocates.
 */
#ifndef SL_TESTS_TOOLS_NET_H
#define SL_TESTS_TOOLS_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

/* Makes epoll ep watch fd for want, with ptr as the event's data. *have is
 * what it watches now (0: fd is not added yet) and becomes want. Returns
 * 0, or -1 with errno set by epoll_ctl (*have then unchanged). */
static inline int net_watch(int ep, int fd, uint32_t *have, uint32_t want, void *ptr)
{
	struct epoll_event ev = { .events = want, .data.ptr = ptr };

	if (*have == want)
		return 0;
	if (epoll_ctl(ep, *have ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev))
		return -1;
	*have = want;
	return 0;
}

/* qsort's comparison for int64_t, ascending. */
static inline int net_cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The p quantile (0..1, the nearest rank) of n microsecond values sorted
 * ascending, in milliseconds; 0 when n is 0. */
static inline double net_pct_ms(const int64_t *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return (double)v[i] / 1000.0;
}

#endif
