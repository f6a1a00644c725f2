/*
 * A drawing of a directed acyclic graph in layers, top to bottom
 * (Sugiyama's method): each node in the layer of its longest path from a
 * node without inputs, an edge that spans layers bent through one point
 * pair per layer it crosses, the order within each layer swept by
 * barycenters to cut crossings, and x coordinates pulled towards the
 * median of each node's neighbours. Pure: nodes are indexes, edges pairs
 * of them; it knows no project, no names and no I/O, and the same graph
 * gives the same coordinates, computed in integers only.
 */
#ifndef SL_PROJECT_DAG_LAYOUT_H
#define SL_PROJECT_DAG_LAYOUT_H

#include <stddef.h>

struct arena;
struct sl_err;

/* An edge: from is read by to, so from is drawn in a layer above. */
struct dag_layout_link {
	size_t from, to;
};

/* Sizes in pixels, at most 100,000; a zero (or negative) size takes its
 * default (in brackets). */
struct dag_layout_opts {
	int node_width;	 /* a box's width [160] */
	int node_height; /* a box's height [36] */
	int hgap;	 /* between two boxes of a layer [24]; half of it beside a bend */
	int vgap;	 /* between two layers [56] */
	int margin;	 /* around the drawing [16] */
	/* rounds of crossing reduction, each a sweep down and one up [4];
	 * negative: none, the first order stays (for comparison) */
	int sweeps;
};

struct dag_layout_point {
	int x, y;
};

struct dag_layout_node {
	int layer;   /* 0 at the top */
	int x, y;    /* the box's top left corner */
	int width, height;
};

/* An edge as a polyline: from the bottom middle of its from box, down
 * through two points (top and bottom of the layer) per layer it crosses,
 * to the top middle of its to box. */
struct dag_layout_edge {
	struct dag_layout_point *points;
	size_t npoints;
};

struct dag_layout {
	struct dag_layout_node *nodes; /* as the nodes were given */
	size_t nnodes;
	struct dag_layout_edge *edges; /* as the edges were given */
	size_t nedges;
	int width, height; /* of the whole drawing, margins included; 0 when empty */
	int nlayers;
	size_t nbends;	   /* the hidden nodes long edges pass through */
	size_t crossings;  /* of the edges, in the order drawn */
};

/* Lays out nnodes nodes and the nedges links between them, in arena a
 * (out's arrays belong to it; scratch memory is freed before returning).
 * opts may be NULL for the defaults. SL_E_INVALID for a link naming a
 * node past nnodes, SL_E_CYCLE when the links hold a cycle (a node that
 * reads itself too): it never loops. SL_E_TOOBIG past 4,000,000 nodes
 * and bends or edges, or for a drawing wider or higher than an int. */
int dag_layout_compute(struct arena *a, size_t nnodes, const struct dag_layout_link *links,
		       size_t nlinks, const struct dag_layout_opts *opts, struct dag_layout *out,
		       struct sl_err *err);

#endif
