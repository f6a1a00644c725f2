/*
 * Unit tests for the drawing of the DAG: the layered layout
 * (src/project/dag_layout.c) on crafted and generated graphs, its
 * crossings checked against a count of its own polylines' crossings,
 * and the project's graph it draws (src/project/dag_graph.c): sources,
 * seeds and models, the edges between them and the hash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"
#include "fixture_rng.h"

#include "core/arena.h"
#include "core/err.h"
#include "project/dag_graph.h"
#include "project/dag_layout.h"
#include "project/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define L(a, b) ((struct dag_layout_link){ (a), (b) })

static int setup(void **state)
{
	return fixture_project_setup(state, "layout");
}

/* The layout of the graph, which must succeed. */
static struct dag_layout lay(struct arena *a, size_t n, const struct dag_layout_link *links,
			     size_t nlinks, const struct dag_layout_opts *opts)
{
	struct sl_err err = SL_ERR_INIT;
	struct dag_layout out;

	if (dag_layout_compute(a, n, links, nlinks, opts, &out, &err))
		fail_msg("dag_layout_compute: %s", err.msg);
	return out;
}

/* The crossings of the drawn polylines, pair by pair: two segments that
 * run from one layer to the next cross when their ends swap sides. */
static size_t drawn_crossings(const struct dag_layout *d)
{
	size_t c = 0;

	for (size_t e = 0; e < d->nedges; e++)
		for (size_t f = e + 1; f < d->nedges; f++)
			for (size_t i = 0; i + 1 < d->edges[e].npoints; i++)
				for (size_t j = 0; j + 1 < d->edges[f].npoints; j++) {
					const struct dag_layout_point *p = &d->edges[e].points[i];
					const struct dag_layout_point *q = &d->edges[f].points[j];
					long top = (long)p[0].x - q[0].x, bottom = (long)p[1].x - q[1].x;

					/* in one band (between two layers, or down a layer
					 * where both pass as bends, where nothing crosses) */
					if (p[0].y == q[0].y && p[1].y == q[1].y && top * bottom < 0)
						c++;
				}
	return c;
}

/* What every layout holds: each edge goes down at least one layer and a
 * node with inputs is exactly one layer below the lowest of them; boxes
 * of a layer keep their distance; polylines start and end at their boxes,
 * bend in pairs of one x, and everything lies inside the drawing. */
static void check_layout(const struct dag_layout *d, size_t n, const struct dag_layout_link *links,
			 size_t nlinks)
{
	int *lowest = calloc(n + 1, sizeof(int));

	for (size_t v = 0; v < n; v++)
		lowest[v] = -1;
	for (size_t e = 0; e < nlinks; e++) {
		const struct dag_layout_node *a = &d->nodes[links[e].from], *b = &d->nodes[links[e].to];
		const struct dag_layout_edge *ed = &d->edges[e];
		int span = b->layer - a->layer;

		assert_true(span >= 1);
		if (a->layer > lowest[links[e].to])
			lowest[links[e].to] = a->layer;
		assert_int_equal(ed->npoints, 2 * (size_t)span);
		assert_int_equal(ed->points[0].x, a->x + a->width / 2);
		assert_int_equal(ed->points[0].y, a->y + a->height);
		assert_int_equal(ed->points[ed->npoints - 1].x, b->x + b->width / 2);
		assert_int_equal(ed->points[ed->npoints - 1].y, b->y);
		for (size_t k = 1; k + 1 < ed->npoints; k += 2) {
			assert_int_equal(ed->points[k].x, ed->points[k + 1].x);
			assert_true(ed->points[k].y > ed->points[k - 1].y);
			assert_true(ed->points[k + 1].y > ed->points[k].y);
		}
		for (size_t k = 0; k < ed->npoints; k++) {
			assert_true(ed->points[k].x >= 0 && ed->points[k].x <= d->width);
			assert_true(ed->points[k].y >= 0 && ed->points[k].y <= d->height);
		}
	}
	for (size_t v = 0; v < n; v++) {
		const struct dag_layout_node *a = &d->nodes[v];

		assert_int_equal(a->layer, lowest[v] + 1);
		assert_true(a->layer < d->nlayers);
		assert_true(a->x >= 0 && a->x + a->width <= d->width);
		assert_true(a->y >= 0 && a->y + a->height <= d->height);
		for (size_t w = 0; w < n; w++)
			if (w != v && d->nodes[w].layer == a->layer && d->nodes[w].x >= a->x)
				assert_true(d->nodes[w].x >= a->x + a->width + 24);
	}
	free(lowest);
}

/* A DAG of n nodes in the shape of a project: each node past the first
 * few reads one to three earlier ones. */
static struct dag_layout_link *random_dag(uint64_t seed, size_t n, size_t *nlinks)
{
	struct rng r = { seed };
	struct dag_layout_link *links = calloc(3 * n + 1, sizeof(*links));
	size_t k = 0;

	for (size_t v = n / 50 + 1; v < n; v++) {
		size_t reads = 1 + rng_below(&r, 3);

		for (size_t i = 0; i < reads; i++) {
			size_t from = v > 40 && i ? v - 1 - rng_below(&r, 40) : rng_below(&r, v);
			bool dup = false;

			for (size_t j = k; j-- > 0 && links[j].to == v;)
				dup |= links[j].from == from;
			if (!dup)
				links[k++] = L(from, v);
		}
	}
	*nlinks = k;
	return links;
}

static void test_empty_graph(void **state)
{
	struct fixture_project *f = *state;
	struct dag_layout d = lay(f->a, 0, NULL, 0, NULL);

	assert_int_equal(d.nnodes, 0);
	assert_int_equal(d.nedges, 0);
	assert_int_equal(d.nlayers, 0);
	assert_int_equal(d.width, 0);
	assert_int_equal(d.height, 0);
}

static void test_single_node(void **state)
{
	struct fixture_project *f = *state;
	struct dag_layout d = lay(f->a, 1, NULL, 0, NULL);

	assert_int_equal(d.nlayers, 1);
	assert_int_equal(d.nodes[0].layer, 0);
	assert_int_equal(d.nodes[0].x, 16);
	assert_int_equal(d.nodes[0].y, 16);
	assert_int_equal(d.nodes[0].width, 160);
	assert_int_equal(d.nodes[0].height, 36);
	assert_int_equal(d.width, 160 + 2 * 16);
	assert_int_equal(d.height, 36 + 2 * 16);
}

/* a reads nothing, b reads a, c reads a and b, e reads a and c: the
 * longest path decides, not the shortest; d stands alone at the top. */
static void test_longest_path_layers(void **state)
{
	struct fixture_project *f = *state;
	const struct dag_layout_link links[] = { L(0, 1), L(1, 2), L(0, 2), L(2, 4), L(0, 4) };
	struct dag_layout d = lay(f->a, 5, links, 5, NULL);
	const int want[] = { 0, 1, 2, 0, 3 };

	for (size_t v = 0; v < 5; v++)
		assert_int_equal(d.nodes[v].layer, want[v]);
	assert_int_equal(d.nlayers, 4);
	assert_int_equal(d.height, 2 * 16 + 4 * 36 + 3 * 56);
	check_layout(&d, 5, links, 5);
}

/* a -> b -> c -> d and a -> d: the long edge passes two layers, bent
 * twice at each, straight down the layers it crosses. */
static void test_long_edge_bends(void **state)
{
	struct fixture_project *f = *state;
	const struct dag_layout_link links[] = { L(0, 1), L(1, 2), L(2, 3), L(0, 3) };
	struct dag_layout d = lay(f->a, 4, links, 4, NULL);
	const struct dag_layout_edge *e = &d.edges[3];

	assert_int_equal(d.nbends, 2);
	assert_int_equal(e->npoints, 6);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(d.edges[k].npoints, 2);
	/* top and bottom of layers 1 and 2 */
	assert_int_equal(e->points[1].y, 16 + 92);
	assert_int_equal(e->points[2].y, 16 + 92 + 36);
	assert_int_equal(e->points[3].y, 16 + 2 * 92);
	assert_int_equal(e->points[4].y, 16 + 2 * 92 + 36);
	assert_int_equal(e->points[2].x, e->points[3].x);
	check_layout(&d, 4, links, 4);
}

/* Three layers of four, each wired to the next in reverse, and long
 * edges from the first to the third that the reversals agree with, their
 * bends put after the second layer's nodes at first: the sweeps undo
 * every crossing. */
static void test_sweeps_reduce_crossings(void **state)
{
	struct fixture_project *f = *state;
	const struct dag_layout_link links[] = { L(0, 7),  L(1, 6),  L(2, 5),  L(3, 4),
						 L(4, 11), L(5, 10), L(6, 9),  L(7, 8),
						 L(0, 8),  L(1, 9),  L(2, 10), L(3, 11) };
	size_t n = sizeof(links) / sizeof(links[0]);
	struct dag_layout_opts unswept = { .sweeps = -1 };
	struct dag_layout first = lay(f->a, 12, links, n, &unswept);
	struct dag_layout swept = lay(f->a, 12, links, n, NULL);

	assert_int_equal(first.crossings, drawn_crossings(&first));
	assert_int_equal(swept.crossings, drawn_crossings(&swept));
	assert_true(first.crossings >= 12);
	assert_int_equal(swept.crossings, 0);
	check_layout(&first, 12, links, n);
	check_layout(&swept, 12, links, n);
}

/* On generated graphs the sweeps never leave more crossings than the
 * first order, and the count is the drawing's. */
static void test_sweeps_on_generated_graphs(void **state)
{
	struct fixture_project *f = *state;

	for (uint64_t seed = 1; seed <= 20; seed++) {
		size_t nlinks, n = 20 + (size_t)seed * 3;
		struct dag_layout_link *links = random_dag(seed, n, &nlinks);
		struct dag_layout_opts unswept = { .sweeps = -1 };
		struct dag_layout first = lay(f->a, n, links, nlinks, &unswept);
		struct dag_layout swept = lay(f->a, n, links, nlinks, NULL);

		assert_int_equal(first.crossings, drawn_crossings(&first));
		assert_int_equal(swept.crossings, drawn_crossings(&swept));
		assert_true(swept.crossings <= first.crossings);
		check_layout(&swept, n, links, nlinks);
		free(links);
		arena_reset(f->a);
	}
}

static void assert_same_layout(const struct dag_layout *a, const struct dag_layout *b)
{
	assert_int_equal(a->nnodes, b->nnodes);
	assert_int_equal(a->width, b->width);
	assert_int_equal(a->height, b->height);
	assert_memory_equal(a->nodes, b->nodes, a->nnodes * sizeof(*a->nodes));
	for (size_t e = 0; e < a->nedges; e++) {
		assert_int_equal(a->edges[e].npoints, b->edges[e].npoints);
		assert_memory_equal(a->edges[e].points, b->edges[e].points,
				    a->edges[e].npoints * sizeof(*a->edges[e].points));
	}
}

static void test_deterministic(void **state)
{
	struct fixture_project *f = *state;
	size_t nlinks;
	struct dag_layout_link *links = random_dag(42, 400, &nlinks);
	struct arena *other = arena_new(NULL);
	struct dag_layout a = lay(f->a, 400, links, nlinks, NULL);
	struct dag_layout b = lay(other, 400, links, nlinks, NULL);

	assert_same_layout(&a, &b);
	/* the first node, as this graph and these sizes draw it */
	printf("node 0 of 400 at %d,%d, layer %d; %d x %d px, %zu crossings\n", a.nodes[0].x,
	       a.nodes[0].y, a.nodes[0].layer, a.width, a.height, a.crossings);
	arena_free(other);
	free(links);
}

static void test_cycle_is_an_error(void **state)
{
	struct fixture_project *f = *state;
	const struct dag_layout_link cycle[] = { L(0, 1), L(1, 2), L(2, 1), L(2, 3) };
	const struct dag_layout_link self[] = { L(0, 1), L(1, 1) };
	const struct dag_layout_link past[] = { L(0, 5) };
	struct sl_err err = SL_ERR_INIT;
	struct dag_layout d;

	assert_int_equal(dag_layout_compute(f->a, 4, cycle, 4, NULL, &d, &err), SL_E_CYCLE);
	assert_string_equal(err.msg,
			    "the graph has a cycle: 3 of its 4 nodes are on one or below one");
	assert_int_equal(dag_layout_compute(f->a, 2, self, 2, NULL, &d, &err), SL_E_CYCLE);
	assert_string_equal(err.msg, "the graph has a cycle: node 1 reads itself");
	assert_int_equal(dag_layout_compute(f->a, 2, past, 1, NULL, &d, &err), SL_E_INVALID);
	assert_string_equal(err.msg, "edge 0 joins node 0 to node 5 of only 2 nodes");
	assert_int_equal(d.nnodes, 0);
}

static void test_two_thousand_nodes(void **state)
{
	struct fixture_project *f = *state;
	size_t nlinks;
	struct dag_layout_link *links = random_dag(7, 2000, &nlinks);
	struct dag_layout_opts unswept = { .sweeps = -1 };
	struct dag_layout first = lay(f->a, 2000, links, nlinks, &unswept);
	struct timespec t0, t1;
	struct dag_layout d;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	d = lay(f->a, 2000, links, nlinks, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("2000 nodes, %zu edges: %d layers, %zu bends, %zu crossings (%zu unswept), %.1f ms\n",
	       nlinks, d.nlayers, d.nbends, d.crossings, first.crossings,
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	assert_int_equal(d.nnodes, 2000);
	assert_true(d.crossings < first.crossings);
	check_layout(&d, 2000, links, nlinks);
	free(links);
}

/* A project with two sources, a seed, models reading a source's landing
 * table (named in any case), the seed and each other, and one waiting on
 * a source it does not read (@upstream). */
static struct project *load_shop(struct fixture_project *f, const char *yml)
{
	fixture_put(f->root, "sluice.yml", yml);
	fixture_put(f->root, "seeds/regions.csv", "region,name\neu,Europe\n");
	fixture_put(f->root, "models/silver/orders.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT order_id, region, _sluice_seq FROM landing.orders\n");
	fixture_put(f->root, "models/silver/regions.sql",
		    "@config materialized=view\nSELECT * FROM seeds.regions\n");
	fixture_put(f->root, "models/gold/revenue.sql",
		    "@config materialized=table\n"
		    "SELECT r.name, count(*) AS n FROM silver.orders o\n"
		    "JOIN silver.regions r USING (region) GROUP BY r.name\n");
	fixture_put(f->root, "models/gold/audit.sql",
		    "@config materialized=table\n"
		    "@upstream clicks\n"
		    "SELECT (SELECT count(*) FROM Landing.Orders) AS landed,\n"
		    "       (SELECT sum(n) FROM gold.revenue) AS counted\n");
	arena_reset(f->a);
	return fixture_load_valid(f->a, f->root);
}

static const char *graph_text(struct arena *a, const struct dag_graph *g)
{
	const char *s = "";

	for (size_t i = 0; i < g->nnodes; i++)
		s = arena_sprintf(a, "%s%s %s%s%s\n", s, dag_node_kind_name(g->nodes[i].kind),
				  g->nodes[i].name, g->nodes[i].model ? " " : "",
				  g->nodes[i].model ? model_mat_name(g->nodes[i].model->mat) : "");
	for (size_t e = 0; e < g->nedges; e++)
		s = arena_sprintf(a, "%s%s -> %s\n", s, g->nodes[g->edges[e].from].name,
				  g->nodes[g->edges[e].to].name);
	return s;
}

static void test_project_graph(void **state)
{
	struct fixture_project *f = *state;
	struct project *p = load_shop(f, "name: shop\nsources:\n"
					 "  orders: {kind: webhook}\n  clicks: {kind: webhook}\n");
	struct dag_graph g;
	struct dag_layout d;
	uint64_t hash;

	dag_graph_build(f->a, p, &g);
	assert_string_equal(graph_text(f->a, &g), "source clicks\n"
						  "source orders\n"
						  "seed seeds.regions seed\n"
						  "model silver.orders incremental\n"
						  "model silver.regions view\n"
						  "model gold.revenue table\n"
						  "model gold.audit table\n"
						  "clicks -> gold.audit\n"
						  "orders -> silver.orders\n"
						  "orders -> gold.audit\n"
						  "seeds.regions -> silver.regions\n"
						  "silver.orders -> gold.revenue\n"
						  "silver.regions -> gold.revenue\n"
						  "gold.revenue -> gold.audit\n");
	assert_true(g.nodes[3].live);
	assert_false(g.nodes[5].live);
	d = lay(f->a, g.nnodes, g.edges, g.nedges, NULL);
	check_layout(&d, g.nnodes, g.edges, g.nedges);
	/* the sources read from two layers above bend on their way */
	assert_int_equal(d.nodes[6].layer, 3);
	assert_int_equal(d.edges[0].npoints, 6);
	assert_int_equal(d.edges[2].npoints, 6);
	hash = g.hash;

	/* the sources in another order: the same graph, the same hash */
	p = load_shop(f, "name: shop\nsources:\n"
			 "  clicks: {kind: webhook}\n  orders: {kind: webhook}\n");
	dag_graph_build(f->a, p, &g);
	assert_true(g.hash == hash);

	/* one source more: another hash */
	p = load_shop(f, "name: shop\nsources:\n  clicks: {kind: webhook}\n"
			 "  orders: {kind: webhook}\n  returns: {kind: webhook}\n");
	dag_graph_build(f->a, p, &g);
	assert_int_equal(g.nnodes, 8);
	assert_true(g.hash != hash);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fixture_project_teardown)
		T(test_empty_graph),
		T(test_single_node),
		T(test_longest_path_layers),
		T(test_long_edge_bends),
		T(test_sweeps_reduce_crossings),
		T(test_sweeps_on_generated_graphs),
		T(test_deterministic),
		T(test_cycle_is_an_error),
		T(test_two_thousand_nodes),
		T(test_project_graph),
#undef T
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
