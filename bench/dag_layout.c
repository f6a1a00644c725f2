/*
 * Benchmark: the layered drawing of a DAG (src/project/dag_layout.h), the
 * layout GET /api/dag serves. Generates a graph shaped like a project of
 * that many nodes (a few sources and seeds; staging models reading one
 * source each, some joining a seed; silver models reading staging and
 * earlier silver; gold models gathering several silver and gold ones;
 * marts over gold, a few also reading a source directly, so that long
 * edges bend through many layers), with some nodes read by many others
 * (fan-out) and the gold ones reading many (fan-in), and times the layout.
 *
 *   dag_layout [RUNS [NODES...]]       default 11 runs of 2000 and 10000
 *
 * Prints, per size, the median of RUNS timed layouts after a warm-up, with
 * the crossings the sweeps removed; the 2,000-node figure with its target.
 * Built by bench/run.sh against build/release/libsluice.a.
 */
#include "bench_clock.h"

#include "core/arena.h"
#include "core/err.h"
#include "project/dag_layout.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TARGET_MS 20.0
#define TARGET_NODES 2000

struct gen {
	struct dag_layout_link *links;
	size_t nlinks, cap;
	uint64_t x;
};

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* One of [lo, hi), the lower ones likelier (a few are read by many). */
static size_t pick(struct gen *g, size_t lo, size_t hi)
{
	uint64_t u = next(&g->x) % 1000;

	return lo + (size_t)((hi - lo) * (u * u) / 1000000);
}

static void link(struct gen *g, size_t from, size_t to)
{
	if (g->nlinks == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->links = realloc(g->links, g->cap * sizeof(*g->links));
		if (!g->links) {
			fprintf(stderr, "dag_layout: out of memory\n");
			exit(1);
		}
	}
	g->links[g->nlinks++] = (struct dag_layout_link){ from, to };
}

/* Links each of [at, end) to k parents picked from [lo, hi), or from
 * [lo, itself) when the parents are the same kind as the node. */
static void read_from(struct gen *g, size_t at, size_t end, size_t lo, size_t hi, int kmin,
		      int kmax)
{
	for (size_t v = at; v < end; v++) {
		int k = kmin + (int)(next(&g->x) % (uint64_t)(kmax - kmin + 1));
		size_t top = hi < v ? hi : v;

		for (int i = 0; i < k && top > lo; i++)
			link(g, pick(g, lo, top), v);
	}
}

/* The graph of a project of n nodes, nodes in the order a project gives
 * them: sources, seeds, then models in dependency order. */
static void generate(struct gen *g, size_t n)
{
	size_t sources = 4 + n / 1000, seeds = 1 + n / 100, rest = n - sources - seeds;
	size_t staging = sources + seeds, silver = staging + rest * 30 / 100;
	size_t gold = silver + rest * 35 / 100, marts = gold + rest * 25 / 100;

	g->nlinks = 0;
	g->x = 0x9e3779b97f4a7c15ULL;
	for (size_t v = staging; v < silver; v++) {
		link(g, (size_t)(next(&g->x) % sources), v);
		if (next(&g->x) % 100 < 15)
			link(g, sources + (size_t)(next(&g->x) % seeds), v);
	}
	/* silver: staging, and a third of them earlier silver too */
	read_from(g, silver, gold, staging, silver, 1, 3);
	for (size_t v = silver + 1; v < gold; v++)
		if (next(&g->x) % 3 == 0)
			link(g, silver + (size_t)(next(&g->x) % (v - silver)), v);
	/* gold: many silver, some earlier gold */
	read_from(g, gold, marts, silver, gold, 2, 5);
	for (size_t v = gold + 1; v < marts; v++)
		if (next(&g->x) % 4 == 0)
			link(g, gold + (size_t)(next(&g->x) % (v - gold)), v);
	/* marts: gold, a tenth also a source or a seed directly */
	read_from(g, marts, n, gold, marts, 1, 3);
	for (size_t v = marts; v < n; v++)
		if (next(&g->x) % 10 == 0)
			link(g, (size_t)(next(&g->x) % staging), v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The layout once, in a fresh arena; its time in ms. */
static double lay_once(const struct gen *g, size_t n, const struct dag_layout_opts *opts,
		       struct dag_layout *out, struct arena *a)
{
	struct sl_err err = SL_ERR_INIT;
	double t0 = clock_wall();

	if (dag_layout_compute(a, n, g->links, g->nlinks, opts, out, &err)) {
		fprintf(stderr, "dag_layout: %s\n", err.msg);
		exit(1);
	}
	return (clock_wall() - t0) * 1000.0;
}

static void bench(struct gen *g, size_t n, int runs)
{
	struct dag_layout_opts unswept = { .sweeps = -1 };
	struct dag_layout lay, first;
	struct arena *a = arena_new(NULL);
	double *ms = calloc((size_t)runs, sizeof(double)), med;

	generate(g, n);
	lay_once(g, n, &unswept, &first, a);
	lay_once(g, n, NULL, &lay, a);
	for (int r = 0; r < runs; r++) {
		arena_reset(a);
		ms[r] = lay_once(g, n, NULL, &lay, a);
	}
	qsort(ms, (size_t)runs, sizeof(double), cmp_double);
	med = runs % 2 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
	printf("   %zu nodes, %zu edges: %d layers, %zu bends, %zu crossings (%zu in the first "
	       "order), %d x %d px; runs (ms, sorted):",
	       n, g->nlinks, lay.nlayers, lay.nbends, lay.crossings, first.crossings, lay.width,
	       lay.height);
	for (int r = 0; r < runs; r++)
		printf(" %.2f", ms[r]);
	printf("\n");
	if (n == TARGET_NODES)
		printf("DAG layout of %zu nodes: %.2f ms (target <= %.0f ms)%s\n", n, med, TARGET_MS,
		       med <= TARGET_MS ? "" : "  MISSED");
	else
		printf("DAG layout of %zu nodes: %.2f ms\n", n, med);
	free(ms);
	arena_free(a);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 11;
	struct gen g = { 0 };

	if (runs < 1)
		runs = 1;
	if (argc > 2)
		for (int i = 2; i < argc; i++)
			bench(&g, (size_t)strtoull(argv[i], NULL, 10), runs);
	else {
		bench(&g, TARGET_NODES, runs);
		bench(&g, 10000, runs);
	}
	free(g.links);
	return 0;
}
