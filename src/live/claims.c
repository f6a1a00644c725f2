/*
 * Which runner refreshes which group of live models on a shared warehouse:
 * the groups (live models joined by their inputs), an even share of them
 * per runner alive, taken when free or lapsed and let go of when over the
 * share. The claims themselves are rows of src/state/claims.c, where two
 * runners never both take a group.
 */
#include "live/claims.h"

#include "core/arena.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "project/inputs.h"
#include "project/project.h"
#include "state/claims.h"
#include "warehouse/wh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct live_claims {
	const struct project *p;
	struct arena *a;
	char runner[300];
	const char **groups; /* distinct group names, in model order */
	size_t ngroups;
	size_t *group_of; /* per model: index into groups; SIZE_MAX when not live */
	bool *held;       /* per group */
	bool *free_;      /* per group: nobody holds it, as keep last read */
	int64_t kept_mono_ms; /* last keep; 0: never */
	int64_t held_until_mono_ms;
};

/* Groups as a union-find over model positions, each group's root its
 * first model in dependency order. */
static size_t root_of(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

static void find_groups(struct arena *a, const struct project *p, size_t *parent)
{
	for (size_t i = 0; i < p->nmodels; i++)
		parent[i] = i;
	for (size_t i = 0; i < p->nmodels; i++) {
		const struct model *m = p->models[i];
		struct model_inputs in;

		if (!inputs_refreshes(m))
			continue;
		inputs_find(a, m, &in);
		for (size_t k = 0; k < in.n; k++) {
			const struct model *up = in.items[k].model;
			size_t x, y;

			if (!up || !inputs_refreshes(up))
				continue;
			x = root_of(parent, i);
			y = root_of(parent, up->order);
			/* the root is the group's first model */
			if (x < y)
				parent[y] = x;
			else
				parent[x] = y;
		}
	}
}

int64_t live_claims_period_ms(const struct project *p)
{
	int64_t ms = p->cfg.live.poll_interval_ms / 6;

	return ms > 0 ? ms : 1;
}

static int64_t lease_ms(const struct live_claims *c)
{
	int64_t ms = c->p->cfg.live.poll_interval_ms / 2;

	return ms > 0 ? ms : 1;
}

struct live_claims *live_claims_new(struct arena *a, const struct project *p,
				    const char *runner)
{
	struct live_claims *c = xcalloc(1, sizeof(*c));
	size_t *parent;
	char host[256] = "";

	c->p = p;
	c->a = arena_new(a);
	gethostname(host, sizeof(host) - 1);
	if (runner)
		snprintf(c->runner, sizeof(c->runner), "%s", runner);
	else
		snprintf(c->runner, sizeof(c->runner), "%s:%ld", host, (long)getpid());
	parent = arena_alloc(c->a, (p->nmodels + 1) * sizeof(size_t));
	c->group_of = arena_alloc(c->a, (p->nmodels + 1) * sizeof(size_t));
	c->groups = arena_alloc(c->a, (p->nmodels + 1) * sizeof(char *));
	c->held = arena_alloc(c->a, (p->nmodels + 1) * sizeof(bool));
	c->free_ = arena_alloc(c->a, (p->nmodels + 1) * sizeof(bool));
	find_groups(c->a, p, parent);
	for (size_t i = 0; i < p->nmodels; i++) {
		size_t root = root_of(parent, i);

		c->group_of[i] = SIZE_MAX;
		if (!inputs_refreshes(p->models[i]))
			continue;
		/* a root comes before the rest of its group */
		if (root == i)
			c->groups[c->ngroups++] = p->models[i]->fqn;
		for (size_t g = 0; g < c->ngroups; g++)
			if (strcmp(c->groups[g], p->models[root]->fqn) == 0)
				c->group_of[i] = g;
	}
	return c;
}

void live_claims_free(struct live_claims *c)
{
	if (!c)
		return;
	arena_free(c->a);
	free(c);
}

const char *live_claims_runner(const struct live_claims *c)
{
	return c->runner;
}

const char *live_claims_group(const struct live_claims *c, const struct model *m)
{
	size_t g = c->group_of[m->order];

	return g == SIZE_MAX ? NULL : c->groups[g];
}

bool live_claims_holds(const struct live_claims *c, const struct model *m)
{
	size_t g = c->group_of[m->order];

	return g != SIZE_MAX && c->held[g] && units_mono_ms() < c->held_until_mono_ms;
}

/* The heartbeat of this runner, its leases renewed, and what it takes to
 * be every group's claim and the number of runners alive. */
static int renew(struct live_claims *c, struct wh *w, struct wh_result **out, struct sl_err *err)
{
	return state_claims_renew(w, c->runner, lease_ms(c), out, err);
}

/* Takes group g when it is free or lapsed: *got says whether it did. */
static int take(struct live_claims *c, struct wh *w, size_t g, bool *got, struct sl_err *err)
{
	return state_claims_take(w, c->groups[g], c->runner, lease_ms(c), got, err);
}

static int let_go(struct live_claims *c, struct wh *w, size_t g, struct sl_err *err)
{
	return state_claims_drop(w, c->runner, g == SIZE_MAX ? NULL : c->groups[g], err);
}

/* What the claims rows say: held[g] for this runner's live claims, free[g]
 * for groups nobody holds; the number of runners alive. */
static size_t read_claims(struct live_claims *c, const struct wh_result *r, bool *free_)
{
	size_t runners = 0;
	bool me = false;

	for (size_t g = 0; g < c->ngroups; g++) {
		c->held[g] = false;
		free_[g] = true;
	}
	for (size_t k = 0; k < wh_result_nrows(r); k++) {
		const char *who = wh_result_value(r, k, 2);

		if (wh_result_value(r, k, 0)[0] == 'r') {
			runners++;
			me = me || strcmp(who, c->runner) == 0;
			continue;
		}
		for (size_t g = 0; g < c->ngroups; g++) {
			if (strcmp(c->groups[g], wh_result_value(r, k, 1)) != 0)
				continue;
			if (strcmp(wh_result_value(r, k, 3), "1") != 0)
				break;
			free_[g] = false;
			c->held[g] = strcmp(who, c->runner) == 0;
		}
	}
	return runners + !me;
}

int live_claims_keep(struct live_claims *c, struct wh *w, bool *gained, struct sl_err *err)
{
	int64_t started = units_mono_ms();
	bool *free_ = c->free_;
	struct wh_result *r;
	size_t runners, share, held = 0;
	int rc;

	*gained = false;
	if (c->kept_mono_ms && started - c->kept_mono_ms < live_claims_period_ms(c->p))
		return 0;
	rc = renew(c, w, &r, err);
	if (rc)
		return rc;
	runners = read_claims(c, r, free_);
	wh_result_free(r);
	share = (c->ngroups + runners - 1) / runners;
	for (size_t g = 0; g < c->ngroups; g++)
		held += c->held[g];
	/* the surplus goes from the end, so that the first groups stay put */
	for (size_t g = c->ngroups; !rc && g-- > 0 && held > share;) {
		if (!c->held[g])
			continue;
		rc = let_go(c, w, g, err);
		c->held[g] = false;
		held--;
	}
	for (size_t g = 0; !rc && g < c->ngroups && held < share; g++) {
		bool got;

		if (!free_[g])
			continue;
		rc = take(c, w, g, &got, err);
		if (got) {
			c->held[g] = true;
			*gained = true;
			held++;
		}
	}
	c->kept_mono_ms = started;
	/* leases run on the warehouse's clock; this side counts from before
	 * it renewed them, so it stops first */
	c->held_until_mono_ms = rc ? 0 : started + lease_ms(c);
	return rc;
}

int live_claims_release(struct live_claims *c, struct wh *w, struct sl_err *err)
{
	int rc = let_go(c, w, SIZE_MAX, err);

	if (!rc)
		rc = state_claims_runner_drop(w, c->runner, err);
	for (size_t g = 0; g < c->ngroups; g++)
		c->held[g] = false;
	c->kept_mono_ms = 0;
	return rc;
}
