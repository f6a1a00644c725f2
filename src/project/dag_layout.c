/*
 * This file implements the layered drawing of a DAG (dag_layout.h) in
 * five steps, each a function below: layers (longest path, Kahn's order,
 * which is also where a cycle is found), bends (a long edge becomes a
 * chain of hidden nodes, one per layer it crosses, so every edge joins
 * two neighbouring layers), order (barycenter sweeps down and up, the
 * order with the fewest crossings kept), x (each layer in turn placed as
 * near the median of its nodes' neighbours as the spacing allows) and
 * straightening (chains of nodes joined one to one, a long edge's bends
 * among them, lined up where there is room).
 * It must never loop on bad input, allocate from the caller's arena
 * anything but the answer, or use floating point, whose rounding could
 * move a node between two machines.
 */
#include "project/dag_layout.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/xalloc.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Past this many nodes and bends, or edges, the exact comparisons of
 * means could outgrow 64 bits (a drawing wider than an int is refused on
 * its own). */
#define LAYOUT_MAX_NODES 4000000u

/* How hard a node holds on to its target against its neighbours in the
 * layer: a bend most, so long edges run straight; a node with nothing to
 * follow least, so it only fills a gap. */
#define WEIGHT_BEND 16
#define WEIGHT_NODE 4
#define WEIGHT_FREE 1

/* Rounds of x placement, each a pass down and one up. */
#define PLACE_ROUNDS 4

/* The graph made proper and its drawing under way: node ids are the
 * given ones, then the bends, link by link. Every array is the lay's. */
struct lay {
	size_t n, total, nsegs;
	int nlayers;
	int *layer;	 /* per node */
	size_t *bend0;	 /* per link: its first bend's id */
	/* neighbours one layer up and one down: up[up_at[v] .. up_at[v+1]) */
	size_t *up_at, *up, *down_at, *down;
	/* layer l is order[layer_at[l] .. layer_at[l+1]), left to right;
	 * pos[v] is v's place there */
	size_t *layer_at, *order, *pos;
	int64_t *x; /* the middle of each node */
	struct dag_layout_opts o;
};

static void lay_free(struct lay *L)
{
	free(L->layer);
	free(L->bend0);
	free(L->up_at);
	free(L->up);
	free(L->down_at);
	free(L->down);
	free(L->layer_at);
	free(L->order);
	free(L->pos);
	free(L->x);
}

/* A size given, at most 100,000 px, so that sums of sizes stay ints. */
static int opt_or(int v, int dflt)
{
	return v <= 0 ? dflt : v > 100000 ? 100000 : v;
}

static void lay_opts(struct lay *L, const struct dag_layout_opts *o)
{
	struct dag_layout_opts none = { 0 };

	if (!o)
		o = &none;
	L->o.node_width = opt_or(o->node_width, 160);
	L->o.node_height = opt_or(o->node_height, 36);
	L->o.hgap = opt_or(o->hgap, 24);
	L->o.vgap = opt_or(o->vgap, 56);
	L->o.margin = opt_or(o->margin, 16);
	L->o.sweeps = o->sweeps < 0 ? 0 : opt_or(o->sweeps, 4);
}

/* Each node's layer: one below the lowest of the nodes it reads, taken in
 * Kahn's order; a node never taken is on a cycle or behind one. */
static int lay_layers(struct lay *L, const struct dag_layout_link *links, size_t nlinks,
		      struct sl_err *err)
{
	size_t n = L->n, head = 0, tail = 0;
	size_t *out_at = xcalloc(n + 1, sizeof(size_t)), *outs = xcalloc(nlinks + 1, sizeof(size_t));
	size_t *indeg = xcalloc(n + 1, sizeof(size_t)), *queue = xcalloc(n + 1, sizeof(size_t));
	int rc = 0;

	for (size_t e = 0; e < nlinks; e++) {
		out_at[links[e].from + 1]++;
		indeg[links[e].to]++;
	}
	for (size_t v = 0; v < n; v++)
		out_at[v + 1] += out_at[v];
	/* the queue is the fill's cursors before it is the queue */
	memcpy(queue, out_at, n * sizeof(size_t));
	for (size_t e = 0; e < nlinks; e++)
		outs[queue[links[e].from]++] = links[e].to;
	for (size_t v = 0; v < n; v++)
		if (!indeg[v])
			queue[tail++] = v;
	while (head < tail) {
		size_t u = queue[head++];

		for (size_t k = out_at[u]; k < out_at[u + 1]; k++) {
			size_t v = outs[k];

			if (L->layer[v] < L->layer[u] + 1)
				L->layer[v] = L->layer[u] + 1;
			if (--indeg[v] == 0)
				queue[tail++] = v;
		}
		if (L->layer[u] + 1 > L->nlayers)
			L->nlayers = L->layer[u] + 1;
	}
	if (tail < n)
		rc = sl_err_set(err, SL_E_CYCLE,
				"the graph has a cycle: %zu of its %zu nodes are on one or below one",
				n - tail, n);
	free(out_at);
	free(outs);
	free(indeg);
	free(queue);
	return rc;
}

/* Walks every link as its chain of one-layer segments, through its bends;
 * with fill false it counts each node's neighbours above and below, with
 * fill true (up_at and down_at made cursors in cur_up, cur_down) it
 * writes them. */
static void lay_segments(struct lay *L, const struct dag_layout_link *links, size_t nlinks,
			 size_t *cur_up, size_t *cur_down, bool fill)
{
	for (size_t e = 0; e < nlinks; e++) {
		size_t prev = links[e].from;
		int span = L->layer[links[e].to] - L->layer[links[e].from];

		for (int k = 1; k <= span; k++) {
			size_t next = k == span ? links[e].to : L->bend0[e] + (size_t)k - 1;

			if (fill) {
				L->down[cur_down[prev]++] = next;
				L->up[cur_up[next]++] = prev;
			} else {
				L->down_at[prev + 1]++;
				L->up_at[next + 1]++;
			}
			prev = next;
		}
	}
}

/* The bends, their layers and the proper graph's neighbour lists. */
static int lay_bends(struct lay *L, const struct dag_layout_link *links, size_t nlinks,
		     struct sl_err *err)
{
	size_t total = L->n, *cur_up, *cur_down;

	L->bend0 = xcalloc(nlinks + 1, sizeof(size_t));
	for (size_t e = 0; e < nlinks; e++) {
		L->bend0[e] = total;
		total += (size_t)(L->layer[links[e].to] - L->layer[links[e].from] - 1);
		if (total > LAYOUT_MAX_NODES)
			return sl_err_set(err, SL_E_TOOBIG,
					  "the graph is too large to draw: over %u nodes and bends",
					  LAYOUT_MAX_NODES);
	}
	L->total = total;
	L->layer = xreallocarray(L->layer, total + 1, sizeof(int));
	for (size_t e = 0; e < nlinks; e++)
		for (size_t b = L->bend0[e]; b < (e + 1 < nlinks ? L->bend0[e + 1] : total); b++)
			L->layer[b] = L->layer[links[e].from] + (int)(b - L->bend0[e]) + 1;
	L->up_at = xcalloc(total + 1, sizeof(size_t));
	L->down_at = xcalloc(total + 1, sizeof(size_t));
	lay_segments(L, links, nlinks, NULL, NULL, false);
	for (size_t v = 0; v < total; v++) {
		L->up_at[v + 1] += L->up_at[v];
		L->down_at[v + 1] += L->down_at[v];
	}
	L->nsegs = L->up_at[total];
	L->up = xcalloc(L->nsegs + 1, sizeof(size_t));
	L->down = xcalloc(L->nsegs + 1, sizeof(size_t));
	cur_up = xcalloc(total + 1, sizeof(size_t));
	cur_down = xcalloc(total + 1, sizeof(size_t));
	memcpy(cur_up, L->up_at, total * sizeof(size_t));
	memcpy(cur_down, L->down_at, total * sizeof(size_t));
	lay_segments(L, links, nlinks, cur_up, cur_down, true);
	free(cur_up);
	free(cur_down);
	return 0;
}

static size_t lay_degree(const size_t *at, size_t v)
{
	return at[v + 1] - at[v];
}

/* The first order: each layer's nodes by id, so the given nodes in the
 * order given and the bends after them, link by link. */
static void lay_first_order(struct lay *L)
{
	size_t *fill = xcalloc((size_t)L->nlayers + 1, sizeof(size_t));

	L->layer_at = xcalloc((size_t)L->nlayers + 1, sizeof(size_t));
	L->order = xcalloc(L->total + 1, sizeof(size_t));
	L->pos = xcalloc(L->total + 1, sizeof(size_t));
	for (size_t v = 0; v < L->total; v++)
		L->layer_at[L->layer[v] + 1]++;
	for (int l = 0; l < L->nlayers; l++)
		L->layer_at[l + 1] += L->layer_at[l];
	for (size_t v = 0; v < L->total; v++) {
		int l = L->layer[v];

		L->pos[v] = fill[l]++;
		L->order[L->layer_at[l] + L->pos[v]] = v;
	}
	free(fill);
}

/* Barycenters are compared in fixed point, 16 bits after the point, and
 * a key is the barycenter above the node's place now, which breaks ties
 * so that the order is total: integers alone, the same on every machine.
 * A place is below 2^22 and a barycenter below 2^38 (LAYOUT_MAX_NODES). */
#define BARY_FRACTION 16
#define BARY_PLACE 22

/* Sorts n keys, tmp having room for n more: by insertion when they are
 * few, else a byte at a time from the lowest (a radix sort), skipping the
 * bytes every key shares. Barycenters come in no order a comparison could
 * predict: compared one by one, the mispredicted branches cost most of
 * the sweeps. */
static void sort_keys(uint64_t *a, uint64_t *tmp, size_t n)
{
	uint64_t *from = a, *to = tmp, *t, differ = 0;

	if (n < 64) {
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && a[j - 1] > a[j]; j--) {
				uint64_t k = a[j];

				a[j] = a[j - 1];
				a[j - 1] = k;
			}
		return;
	}
	for (size_t i = 1; i < n; i++)
		differ |= a[i] ^ a[0];
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };

		if (!((differ >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[((from[i] >> shift) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(*a));
}

/* Sorts layer l by the barycenters of its nodes' neighbours above (up)
 * or below; a node without any there keeps its place. keys has room for
 * twice the layer (sort_keys' room), was for the layer. */
static void lay_sort_layer(struct lay *L, int l, bool up, uint64_t *keys, size_t *was)
{
	size_t at = L->layer_at[l], n = L->layer_at[l + 1] - at, k = 0, j = 0;
	const size_t *nb_at = up ? L->up_at : L->down_at, *nb = up ? L->up : L->down;

	for (size_t i = 0; i < n; i++) {
		size_t v = L->order[at + i], cnt = nb_at[v + 1] - nb_at[v];
		uint64_t sum = 0;

		was[i] = v;
		if (!cnt)
			continue;
		for (size_t q = nb_at[v]; q < nb_at[v + 1]; q++)
			sum += L->pos[nb[q]];
		keys[k++] = ((sum << BARY_FRACTION) / cnt) << BARY_PLACE | i;
	}
	sort_keys(keys, keys + n, k);
	for (size_t i = 0; i < n; i++)
		if (nb_at[was[i] + 1] > nb_at[was[i]])
			L->order[at + i] = was[keys[j++] & ((1u << BARY_PLACE) - 1)];
	for (size_t i = 0; i < n; i++)
		L->pos[L->order[at + i]] = i;
}

/* Crossings between layer l and l + 1 (Barth, Jünger and Mutzel): the
 * segments in the order of their top ends, then of their bottom ends (a
 * bucket per top node, filled walking the layer below left to right);
 * each crosses the earlier ones whose bottom end lies further right,
 * counted with a Fenwick tree over the places below. seq has room for the
 * segments, start and tree for the widest layer and one more. */
static size_t lay_crossings_at(const struct lay *L, int l, size_t *seq, size_t *start,
			       size_t *tree)
{
	size_t at = L->layer_at[l], n = L->layer_at[l + 1] - at, k, c = 0;
	size_t below = L->layer_at[l + 2] - L->layer_at[l + 1];

	start[0] = 0;
	for (size_t i = 0; i < n; i++)
		start[i + 1] = start[i] + lay_degree(L->down_at, L->order[at + i]);
	k = start[n];
	for (size_t j = 0; j < below; j++) {
		size_t w = L->order[L->layer_at[l + 1] + j];

		for (size_t q = L->up_at[w]; q < L->up_at[w + 1]; q++)
			seq[start[L->pos[L->up[q]]]++] = j;
	}
	memset(tree, 0, (below + 1) * sizeof(size_t));
	for (size_t j = 0; j < k; j++) {
		size_t at_most = 0;

		for (size_t i = seq[j] + 1; i > 0; i -= i & -i)
			at_most += tree[i];
		c += j - at_most;
		for (size_t i = seq[j] + 1; i <= below; i += i & -i)
			tree[i]++;
	}
	return c;
}

static size_t lay_crossings(const struct lay *L, size_t *seq, size_t *start, size_t *tree)
{
	size_t c = 0;

	for (int l = 0; l + 1 < L->nlayers; l++)
		c += lay_crossings_at(L, l, seq, start, tree);
	return c;
}

/* Sweeps down (each layer by the one above) and up (by the one below),
 * keeping the order with the fewest crossings; returns their count. */
static size_t lay_order(struct lay *L)
{
	uint64_t *keys = xcalloc(2 * L->total + 1, sizeof(uint64_t));
	size_t *was = xcalloc(L->total + 1, sizeof(size_t));
	size_t *seq = xcalloc(L->nsegs + 1, sizeof(size_t));
	size_t *start = xcalloc(L->total + 2, sizeof(size_t));
	size_t *tree = xcalloc(L->total + 2, sizeof(size_t));
	size_t *best = xcalloc(L->total + 1, sizeof(size_t));
	size_t fewest = lay_crossings(L, seq, start, tree);

	memcpy(best, L->order, L->total * sizeof(size_t));
	for (int r = 0; r < L->o.sweeps && fewest > 0; r++) {
		size_t c;

		for (int l = 1; l < L->nlayers; l++)
			lay_sort_layer(L, l, true, keys, was);
		for (int l = L->nlayers - 2; l >= 0; l--)
			lay_sort_layer(L, l, false, keys, was);
		c = lay_crossings(L, seq, start, tree);
		if (c < fewest) {
			fewest = c;
			memcpy(best, L->order, L->total * sizeof(size_t));
		}
	}
	memcpy(L->order, best, L->total * sizeof(size_t));
	for (int l = 0; l < L->nlayers; l++)
		for (size_t i = L->layer_at[l]; i < L->layer_at[l + 1]; i++)
			L->pos[L->order[i]] = i - L->layer_at[l];
	free(keys);
	free(was);
	free(seq);
	free(start);
	free(tree);
	free(best);
	return fewest;
}

/* Rewrites every neighbour list left to right, the order settled: each
 * node's neighbours are then in the order of their x, for the medians. */
static void lay_sort_neighbours(struct lay *L)
{
	size_t *cur = xcalloc(L->total + 1, sizeof(size_t));
	size_t *up = xcalloc(L->nsegs + 1, sizeof(size_t));
	size_t *down = xcalloc(L->nsegs + 1, sizeof(size_t));

	memcpy(cur, L->down_at, L->total * sizeof(size_t));
	for (size_t i = 0; i < L->total; i++)
		for (size_t q = L->up_at[L->order[i]]; q < L->up_at[L->order[i] + 1]; q++)
			down[cur[L->up[q]]++] = L->order[i];
	memcpy(cur, L->up_at, L->total * sizeof(size_t));
	for (size_t i = 0; i < L->total; i++)
		for (size_t q = L->down_at[L->order[i]]; q < L->down_at[L->order[i] + 1]; q++)
			up[cur[L->down[q]]++] = L->order[i];
	free(L->up);
	free(L->down);
	L->up = up;
	L->down = down;
	free(cur);
}

static int64_t lay_width(const struct lay *L, size_t v)
{
	return v < L->n ? L->o.node_width : 0;
}

/* The least distance between the middles of a and its right neighbour b. */
static int64_t lay_sep(const struct lay *L, size_t a, size_t b)
{
	int64_t gap = a < L->n && b < L->n ? L->o.hgap : L->o.hgap / 2;

	return (lay_width(L, a) + lay_width(L, b)) / 2 + gap;
}

/* The median x of v's neighbours in one list, false when it has none. */
static bool lay_median(const struct lay *L, const size_t *at, const size_t *nb, size_t v,
		       int64_t *x)
{
	size_t k = at[v + 1] - at[v];

	if (!k)
		return false;
	if (k % 2)
		*x = L->x[nb[at[v] + k / 2]];
	else
		*x = (L->x[nb[at[v] + k / 2 - 1]] + L->x[nb[at[v] + k / 2]]) / 2;
	return true;
}

/* A run of neighbours placed together, at the weighted mean of their
 * targets (sw the weights' sum, swy the weighted targets'). */
struct block {
	int64_t sw, swy;
	size_t first;
};

/* floor(num / den), den > 0, and what is left, never negative. */
static int64_t div_floor(int64_t num, int64_t den, int64_t *rest)
{
	int64_t q = num / den, r = num % den;

	if (r < 0) {
		r += den;
		q--;
	}
	*rest = r;
	return q;
}

static int64_t block_mean(const struct block *b, int64_t *rest)
{
	return div_floor(b->swy, b->sw, rest);
}

/* Whether a's mean is above b's, exactly: by cross products while they
 * fit in 64 bits, else by quotients and rests (a rest times a weight
 * stays far inside 64 bits for LAYOUT_MAX_NODES). */
static bool block_above(const struct block *a, const struct block *b)
{
	int64_t l, r, ra, rb, qa, qb;

	if (!__builtin_mul_overflow(a->swy, b->sw, &l) && !__builtin_mul_overflow(b->swy, a->sw, &r))
		return l > r;
	qa = block_mean(a, &ra);
	qb = block_mean(b, &rb);
	return qa != qb ? qa > qb : ra * b->sw > rb * a->sw;
}

/* Places layer l on a pass down (each node wants the median x of its
 * neighbours above) or up (below); with both, a node that is no bend
 * wants the middle of the two medians, while a bend still follows the
 * pass, so that a long edge runs straight. The layer keeps its order and
 * spacing: with y_i the target less the spacing before node i, the x
 * that minimise the weighted squared distance to the targets are the y
 * made non-decreasing by pooling adjacent violators, plus that spacing
 * back. */
static void lay_place_layer(struct lay *L, int l, bool down, bool both, struct block *blocks,
			    int64_t *offset)
{
	size_t at = L->layer_at[l], n = L->layer_at[l + 1] - at, nb = 0;

	for (size_t i = 0; i < n; i++) {
		size_t v = L->order[at + i];
		bool real = v < L->n;
		int64_t t = L->x[v], tu, td, w = real ? WEIGHT_NODE : WEIGHT_BEND;
		bool hu = (down || (both && real)) && lay_median(L, L->up_at, L->up, v, &tu);
		bool hd = (!down || (both && real)) && lay_median(L, L->down_at, L->down, v, &td);

		offset[i] = i ? offset[i - 1] + lay_sep(L, L->order[at + i - 1], v) : 0;
		if (hu && hd)
			t = (tu + td) / 2;
		else if (hu || hd)
			t = hu ? tu : td;
		else
			w = WEIGHT_FREE;
		blocks[nb++] = (struct block){ w, w * (t - offset[i]), i };
		while (nb > 1 && block_above(&blocks[nb - 2], &blocks[nb - 1])) {
			blocks[nb - 2].sw += blocks[nb - 1].sw;
			blocks[nb - 2].swy += blocks[nb - 1].swy;
			nb--;
		}
	}
	for (size_t b = 0; b < nb; b++) {
		int64_t rest, y = block_mean(&blocks[b], &rest);
		size_t end = b + 1 < nb ? blocks[b + 1].first : n;

		for (size_t i = blocks[b].first; i < end; i++)
			L->x[L->order[at + i]] = y + offset[i];
	}
}

/* x of every node: packed to the left first, then rounds of passes down
 * (towards the nodes above) and up, and a last one each way in which the
 * nodes that are no bends look both ways. */
static void lay_place(struct lay *L)
{
	size_t widest = 0;
	struct block *blocks;
	int64_t *offset;

	L->x = xcalloc(L->total + 1, sizeof(int64_t));
	for (int l = 0; l < L->nlayers; l++) {
		size_t at = L->layer_at[l], n = L->layer_at[l + 1] - at;

		for (size_t i = 1; i < n; i++)
			L->x[L->order[at + i]] =
				L->x[L->order[at + i - 1]] + lay_sep(L, L->order[at + i - 1], L->order[at + i]);
		if (n > widest)
			widest = n;
	}
	blocks = xcalloc(widest + 1, sizeof(*blocks));
	offset = xcalloc(widest + 1, sizeof(int64_t));
	for (int r = 0; r <= PLACE_ROUNDS; r++) {
		for (int l = 1; l < L->nlayers; l++)
			lay_place_layer(L, l, true, r == PLACE_ROUNDS, blocks, offset);
		for (int l = L->nlayers - 2; l >= 0; l--)
			lay_place_layer(L, l, false, r == PLACE_ROUNDS, blocks, offset);
	}
	free(blocks);
	free(offset);
}

/* w below v, when v has no other neighbour below and w none other above:
 * the two can share an x without pulling any third node. */
static bool lay_one_to_one(const struct lay *L, size_t v, size_t *w)
{
	if (lay_degree(L->down_at, v) != 1)
		return false;
	*w = L->down[L->down_at[v]];
	return lay_degree(L->up_at, *w) == 1;
}

/* Lines up each chain of nodes joined one to one (a long edge's bends,
 * and the nodes at its ends that have no other edge that way; a model
 * alone under its source) on one x: the mean of theirs, moved into the
 * room every member's neighbours in its layer leave it. Chains by their
 * top node, so one straightened first may take the room of a later one. */
static void lay_straighten(struct lay *L)
{
	for (size_t head = 0; head < L->total; head++) {
		int64_t lo = INT64_MIN, hi = INT64_MAX, sum = 0, count = 0, rest, x;
		size_t v = head, w = head;

		if (lay_degree(L->up_at, head) == 1 && lay_one_to_one(L, L->up[L->up_at[head]], &w))
			continue; /* not the top of its chain */
		if (!lay_one_to_one(L, head, &w))
			continue;
		for (;;) {
			size_t at = L->layer_at[L->layer[v]], end = L->layer_at[L->layer[v] + 1];
			size_t p = L->pos[v];

			if (p > 0 && L->x[L->order[at + p - 1]] + lay_sep(L, L->order[at + p - 1], v) > lo)
				lo = L->x[L->order[at + p - 1]] + lay_sep(L, L->order[at + p - 1], v);
			if (at + p + 1 < end &&
			    L->x[L->order[at + p + 1]] - lay_sep(L, v, L->order[at + p + 1]) < hi)
				hi = L->x[L->order[at + p + 1]] - lay_sep(L, v, L->order[at + p + 1]);
			sum += L->x[v];
			count++;
			if (!lay_one_to_one(L, v, &w))
				break;
			v = w;
		}
		if (lo > hi)
			continue;
		x = div_floor(sum, count, &rest);
		x = x < lo ? lo : x > hi ? hi : x;
		for (v = head;; v = w) {
			L->x[v] = x;
			if (!lay_one_to_one(L, v, &w))
				break;
		}
	}
}

static int lay_top(const struct lay *L, int layer)
{
	return L->o.margin + layer * (L->o.node_height + L->o.vgap);
}

/* The leftmost and rightmost x a box or bend takes; whether the drawing,
 * margins included, fits in an int each way. */
static bool lay_extent(const struct lay *L, int64_t *left, int64_t *right)
{
	int64_t height = 2 * (int64_t)L->o.margin +
			 (int64_t)L->nlayers * (L->o.node_height + L->o.vgap);

	*left = L->total ? INT64_MAX : 0;
	*right = L->total ? INT64_MIN : 0;
	for (size_t v = 0; v < L->total; v++) {
		int64_t x = L->x[v] - lay_width(L, v) / 2;

		if (x < *left)
			*left = x;
		if (x + lay_width(L, v) > *right)
			*right = x + lay_width(L, v);
	}
	return *right - *left + 2 * (int64_t)L->o.margin <= INT_MAX && height <= INT_MAX;
}

/* The answer in a: boxes, polylines and the size, shifted so that the
 * leftmost box or bend starts at the margin. */
static void lay_answer(const struct lay *L, struct arena *a, const struct dag_layout_link *links,
		       size_t nlinks, int64_t left, int64_t right, struct dag_layout *out)
{
	int64_t shift;
	int h = L->o.node_height;

	shift = L->o.margin - left;
	out->nodes = arena_alloc(a, (L->n + 1) * sizeof(*out->nodes));
	out->edges = arena_alloc(a, (nlinks + 1) * sizeof(*out->edges));
	for (size_t v = 0; v < L->n; v++)
		out->nodes[v] = (struct dag_layout_node){
			L->layer[v], (int)(L->x[v] + shift - L->o.node_width / 2), lay_top(L, L->layer[v]),
			L->o.node_width, h
		};
	for (size_t e = 0; e < nlinks; e++) {
		size_t from = links[e].from, to = links[e].to, k = 0;
		int span = L->layer[to] - L->layer[from];
		struct dag_layout_point *p = arena_alloc(a, (size_t)(2 * span) * sizeof(*p));

		p[k++] = (struct dag_layout_point){ (int)(L->x[from] + shift),
						   lay_top(L, L->layer[from]) + h };
		for (int b = 1; b < span; b++) {
			size_t d = L->bend0[e] + (size_t)b - 1;

			p[k++] = (struct dag_layout_point){ (int)(L->x[d] + shift), lay_top(L, L->layer[d]) };
			p[k++] = (struct dag_layout_point){ (int)(L->x[d] + shift),
							   lay_top(L, L->layer[d]) + h };
		}
		p[k++] = (struct dag_layout_point){ (int)(L->x[to] + shift), lay_top(L, L->layer[to]) };
		out->edges[e] = (struct dag_layout_edge){ p, k };
	}
	out->nnodes = L->n;
	out->nedges = nlinks;
	out->nlayers = L->nlayers;
	out->nbends = L->total - L->n;
	if (L->total) {
		out->width = (int)(right - left) + 2 * L->o.margin;
		out->height = 2 * L->o.margin + L->nlayers * h + (L->nlayers - 1) * L->o.vgap;
	}
}

int dag_layout_compute(struct arena *a, size_t nnodes, const struct dag_layout_link *links,
		       size_t nlinks, const struct dag_layout_opts *opts, struct dag_layout *out,
		       struct sl_err *err)
{
	struct lay L = { .n = nnodes };
	int64_t left, right;
	int rc;

	memset(out, 0, sizeof(*out));
	if (nnodes > LAYOUT_MAX_NODES || nlinks > LAYOUT_MAX_NODES)
		return sl_err_set(err, SL_E_TOOBIG,
				  "the graph is too large to draw: %zu nodes and %zu edges, at most %u "
				  "of each",
				  nnodes, nlinks, LAYOUT_MAX_NODES);
	for (size_t e = 0; e < nlinks; e++) {
		if (links[e].from >= nnodes || links[e].to >= nnodes)
			return sl_err_set(err, SL_E_INVALID,
					  "edge %zu joins node %zu to node %zu of only %zu nodes", e,
					  links[e].from, links[e].to, nnodes);
		if (links[e].from == links[e].to)
			return sl_err_set(err, SL_E_CYCLE, "the graph has a cycle: node %zu reads itself",
					  links[e].from);
	}
	lay_opts(&L, opts);
	L.layer = xcalloc(nnodes + 1, sizeof(int));
	rc = lay_layers(&L, links, nlinks, err);
	if (!rc)
		rc = lay_bends(&L, links, nlinks, err);
	if (!rc) {
		lay_first_order(&L);
		out->crossings = lay_order(&L);
		lay_sort_neighbours(&L);
		lay_place(&L);
		lay_straighten(&L);
		if (lay_extent(&L, &left, &right))
			lay_answer(&L, a, links, nlinks, left, right, out);
		else
			rc = sl_err_set(err, SL_E_TOOBIG,
					"the graph is too large to draw: %lld x %d px at these sizes",
					(long long)(right - left), L.nlayers);
	}
	lay_free(&L);
	return rc;
}
