/*
 * The in-memory ledger of live bookkeeping. The tables stay the record;
 * the ledger is a copy that the process holding the warehouse keeps in
 * step with its own writes, so it never has to ask.
 */
#include "live/ledger.h"

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "project/project.h"
#include "state/live.h"
#include "state/state.h"
#include "warehouse/wh.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct arrival {
	int64_t seq, arrived_ms;
};

struct ledger_source {
	char *name;
	int64_t watermark;
	int64_t moved_ms; /* when watermark last moved; 0: not known */
	struct ledger_adopted adopted;
	struct arrival *arrivals; /* not yet covered by every reader, by seq */
	size_t narrivals, cap;
	int64_t pruned; /* advances up to here are gone from the table */
};

struct live_ledger {
	const struct project *p;
	struct arena *a;
	/* an environment's models keep their rows under keys of their own
	 * (live_ledger_key), so that its runs never move the main watermarks */
	char *env;
	struct ledger_model *models; /* by model order; in.items NULL when untracked */
	bool *tracked;
	bool loaded;
	pthread_mutex_t mu; /* guards sources and seen: advances come from any thread */
	struct ledger_source *sources;
	size_t nsources, cap;
	int64_t seen; /* highest advance sequence read from the table */
};

static void clear(struct live_ledger *l);

struct live_ledger *live_ledger_new(struct arena *a, const struct project *p)
{
	struct live_ledger *l = xcalloc(1, sizeof(*l));

	l->p = p;
	l->a = arena_new(a);
	pthread_mutex_init(&l->mu, NULL);
	clear(l);
	return l;
}

static void clear(struct live_ledger *l)
{
	for (size_t i = 0; i < l->nsources; i++) {
		free(l->sources[i].name);
		free(l->sources[i].arrivals);
	}
	free(l->sources);
	l->sources = NULL;
	l->nsources = l->cap = 0;
	l->seen = 0;
	arena_reset(l->a);
	l->models = arena_alloc(l->a, (l->p->nmodels + 1) * sizeof(*l->models));
	l->tracked = arena_alloc(l->a, (l->p->nmodels + 1) * sizeof(bool));
	for (size_t i = 0; i < l->p->nmodels; i++) {
		const struct model *m = l->p->models[i];
		struct ledger_model *lm = &l->models[i];
		size_t n, ns;

		if (!inputs_tracks(m))
			continue;
		l->tracked[i] = true;
		inputs_find(l->a, m, &lm->in);
		n = lm->in.n + 1;
		ns = lm->in.nsources + 1;
		lm->consumed = arena_alloc(l->a, n * sizeof(int64_t));
		lm->consumed_saved = arena_alloc(l->a, n * sizeof(bool));
		lm->covered_by = arena_alloc(l->a, ns * sizeof(int64_t));
		lm->covered_saved = arena_alloc(l->a, ns * sizeof(bool));
	}
}

void live_ledger_free(struct live_ledger *l)
{
	if (!l)
		return;
	clear(l);
	arena_free(l->a);
	pthread_mutex_destroy(&l->mu);
	free(l->env);
	free(l);
}

void live_ledger_in_env(struct live_ledger *l, const char *env)
{
	free(l->env);
	l->env = env && *env ? xstrdup(env) : NULL;
}

const char *live_ledger_key(const struct live_ledger *l, const char *fqn, char *buf, size_t size)
{
	if (!l->env)
		return fqn;
	snprintf(buf, size, "%s@%s", fqn, l->env);
	return buf;
}

bool live_ledger_loaded(const struct live_ledger *l)
{
	return l->loaded;
}

/* Under mu. */
static struct ledger_source *source(struct live_ledger *l, const char *name, bool add)
{
	for (size_t i = 0; i < l->nsources; i++)
		if (strcmp(l->sources[i].name, name) == 0)
			return &l->sources[i];
	if (!add)
		return NULL;
	if (l->nsources == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->sources = xreallocarray(l->sources, l->cap, sizeof(*l->sources));
	}
	l->sources[l->nsources] =
		(struct ledger_source){ .name = xstrdup(name), .adopted = { .kind = -1 } };
	return &l->sources[l->nsources++];
}

/* Under mu. Arrivals come mostly in order; a note and a poll may both
 * bring the same one. */
static void add_arrival(struct ledger_source *s, int64_t seq, int64_t arrived_ms)
{
	size_t at = s->narrivals;

	if (seq <= s->pruned)
		return;
	while (at && s->arrivals[at - 1].seq >= seq) {
		if (s->arrivals[at - 1].seq == seq)
			return;
		at--;
	}
	if (s->narrivals == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->arrivals = xreallocarray(s->arrivals, s->cap, sizeof(*s->arrivals));
	}
	memmove(&s->arrivals[at + 1], &s->arrivals[at], (s->narrivals - at) * sizeof(*s->arrivals));
	s->arrivals[at] = (struct arrival){ seq, arrived_ms };
	s->narrivals++;
	if (seq > s->watermark) {
		s->watermark = seq;
		s->moved_ms = arrived_ms;
	}
}

static int input_index(const struct model_inputs *in, const char *name)
{
	for (size_t i = 0; i < in->n; i++)
		if (strcmp(in->items[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int source_index(const struct model_inputs *in, const char *name)
{
	for (size_t i = 0; i < in->nsources; i++)
		if (strcmp(in->sources[i], name) == 0)
			return (int)i;
	return -1;
}

static int64_t num(const struct wh_result *r, size_t row, size_t col)
{
	const char *v = wh_result_value(r, row, col);

	return v ? strtoll(v, NULL, 10) : 0;
}

/* The entry a state row's key names: a model of the ledger's environment
 * (rows of the others, and the main ones in an environment, are not its). */
static struct ledger_model *named(struct live_ledger *l, const char *key)
{
	const char *at = strchr(key, '@');
	char fqn[LIVE_KEY_MAX];
	struct model *m;

	if (l->env ? !at || strcmp(at + 1, l->env) != 0 : at != NULL)
		return NULL;
	snprintf(fqn, sizeof(fqn), "%.*s", at ? (int)(at - key) : (int)strlen(key), key);
	m = project_find_model(l->p, fqn);
	return m ? live_ledger_model(l, m) : NULL;
}

static void load_row(struct live_ledger *l, const struct wh_result *r, size_t i)
{
	const char *kind = wh_result_value(r, i, 0), *k1 = wh_result_value(r, i, 1),
		   *k2 = wh_result_value(r, i, 2);
	struct ledger_model *lm = kind[0] == 's' || kind[0] == 'a' ? NULL : named(l, k1);
	int at;

	switch (kind[0]) {
	case 's': {
		struct ledger_source *s = source(l, k1, true);

		if (num(r, i, 3) > s->watermark)
			s->watermark = num(r, i, 3);
		s->moved_ms = num(r, i, 7);
		s->adopted.rows = num(r, i, 4);
		s->adopted.boundary = num(r, i, 5);
		s->adopted.late = num(r, i, 6);
		s->adopted.written = s->watermark;
		break;
	}
	case 'a':
		add_arrival(source(l, k1, true), num(r, i, 3), num(r, i, 4));
		if (num(r, i, 3) > l->seen)
			l->seen = num(r, i, 3);
		break;
	case 'c':
		if (lm && (at = input_index(&lm->in, k2)) >= 0) {
			lm->consumed[at] = num(r, i, 3);
			lm->consumed_saved[at] = true;
		}
		break;
	case 'v':
		if (lm && (at = source_index(&lm->in, k2)) >= 0) {
			lm->covered_by[at] = num(r, i, 3);
			lm->covered_saved[at] = true;
		}
		break;
	case 'z':
		if (!lm)
			break;
		lm->known = true;
		lm->published = num(r, i, 3);
		lm->covered = num(r, i, 4);
		lm->refresh_count = num(r, i, 5);
		lm->events = num(r, i, 6);
		lm->failures = (int)num(r, i, 7);
		lm->last_refresh_ms = num(r, i, 8);
		lm->next_retry_ms = num(r, i, 9);
		lm->events_per_s = k2 ? strtod(k2, NULL) : 0;
		lm->paused = num(r, i, 10) != 0;
		lm->failing = num(r, i, 11) != 0;
		break;
	}
}

int live_ledger_load(struct live_ledger *l, struct wh *w, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	bool present = false;
	int rc;

	/* a warehouse without live state has nothing to load. Asked first:
	 * another process may make the state between a query that failed for
	 * want of it and a look at the catalog after */
	rc = state_live_present(w, l->a, &present, err);
	pthread_mutex_lock(&l->mu);
	clear(l);
	if (!rc && present) {
		state_live_sql_load(w, &sql, NULL);
		rc = wh_query(w, sql.buf, &r, err);
		buf_release(&sql);
	}
	if (rc || !present) {
		l->loaded = rc == 0;
		pthread_mutex_unlock(&l->mu);
		return rc;
	}
	for (size_t i = 0; i < wh_result_nrows(r); i++)
		load_row(l, r, i);
	wh_result_free(r);
	for (size_t i = 0; i < l->p->nmodels; i++)
		l->models[i].saved_mono_ms = units_mono_ms();
	l->loaded = true;
	pthread_mutex_unlock(&l->mu);
	return 0;
}

int live_ledger_reload_model(struct live_ledger *l, struct wh *w, const struct model *m,
			     struct sl_err *err)
{
	struct ledger_model *lm = live_ledger_model(l, m);
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	char key[LIVE_KEY_MAX];
	int rc;

	if (!lm)
		return 0;
	state_live_sql_load(w, &sql, live_ledger_key(l, m->fqn, key, sizeof(key)));
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	memset(lm->consumed, 0, lm->in.n * sizeof(*lm->consumed));
	memset(lm->consumed_saved, 0, lm->in.n * sizeof(*lm->consumed_saved));
	memset(lm->covered_by, 0, lm->in.nsources * sizeof(*lm->covered_by));
	memset(lm->covered_saved, 0, lm->in.nsources * sizeof(*lm->covered_saved));
	lm->known = lm->paused = lm->failing = lm->dirty = false;
	lm->published = lm->covered = lm->refresh_count = lm->events = 0;
	lm->failures = 0;
	lm->events_per_s = 0;
	lm->last_refresh_ms = lm->next_retry_ms = 0;
	for (size_t i = 0; i < wh_result_nrows(r); i++)
		load_row(l, r, i);
	wh_result_free(r);
	lm->saved_mono_ms = units_mono_ms();
	return 0;
}

int live_ledger_poll(struct live_ledger *l, struct wh *w, bool *moved, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	struct wh_result *r;
	int64_t seen;
	int rc;

	*moved = false;
	if (!l->loaded)
		return 0;
	pthread_mutex_lock(&l->mu);
	seen = l->seen;
	/* processes that share the warehouse commit advances of different
	 * sources out of sequence order: each source is read from its own
	 * watermark */
	if (wh_shared(w)) {
		const char **names = xcalloc(l->nsources + 1, sizeof(*names));
		int64_t *marks = xcalloc(l->nsources + 1, sizeof(*marks));

		for (size_t i = 0; i < l->nsources; i++) {
			names[i] = l->sources[i].name;
			marks[i] = l->sources[i].watermark;
		}
		state_live_sql_advances_per_source(w, &sql, names, marks, l->nsources);
		free(names);
		free(marks);
	} else {
		state_live_sql_advances_after(w, &sql, seen);
	}
	pthread_mutex_unlock(&l->mu);
	rc = wh_query(w, sql.buf, &r, err);
	buf_release(&sql);
	if (rc)
		return rc;
	pthread_mutex_lock(&l->mu);
	for (size_t i = 0; i < wh_result_nrows(r); i++) {
		struct ledger_source *s = source(l, wh_result_value(r, i, 0), true);
		int64_t seq = num(r, i, 1), before = s->watermark;

		add_arrival(s, seq, num(r, i, 2));
		*moved = *moved || s->watermark != before;
		if (seq > l->seen)
			l->seen = seq;
	}
	pthread_mutex_unlock(&l->mu);
	wh_result_free(r);
	return 0;
}

void live_ledger_note(struct live_ledger *l, const char *source_name,
		      const struct live_advance *adv, int64_t arrived_ms)
{
	if (!adv->seq)
		return;
	pthread_mutex_lock(&l->mu);
	add_arrival(source(l, source_name, true), adv->seq, arrived_ms);
	pthread_mutex_unlock(&l->mu);
}

struct ledger_adopted live_ledger_adopted(struct live_ledger *l, const char *source_name,
					  int64_t *watermark, int64_t *moved_ms)
{
	struct ledger_adopted a;
	struct ledger_source *s;

	pthread_mutex_lock(&l->mu);
	s = source(l, source_name, true);
	a = s->adopted;
	if (watermark)
		*watermark = s->watermark;
	if (moved_ms)
		*moved_ms = s->moved_ms;
	pthread_mutex_unlock(&l->mu);
	return a;
}

void live_ledger_adopted_set(struct live_ledger *l, const char *source_name,
			     const struct ledger_adopted *a)
{
	pthread_mutex_lock(&l->mu);
	source(l, source_name, true)->adopted = *a;
	pthread_mutex_unlock(&l->mu);
}

struct ledger_model *live_ledger_model(struct live_ledger *l, const struct model *m)
{
	return l->tracked[m->order] ? &l->models[m->order] : NULL;
}

int64_t live_ledger_input_mark(struct live_ledger *l, const struct model_input *in)
{
	int64_t v = 0;

	if (in->kind == INPUT_MODEL) {
		const struct ledger_model *lm = live_ledger_model(l, in->model);

		return lm ? lm->published : 0;
	}
	pthread_mutex_lock(&l->mu);
	{
		const struct ledger_source *s = source(l, in->name, false);

		v = s ? s->watermark : 0;
	}
	pthread_mutex_unlock(&l->mu);
	return v;
}

/* How far the landing table src (NULL: every one behind lm, the least)
 * has reached lm, or -1 when no input of lm leads to it. Read directly:
 * what lm consumed of it. Through a live input lm has consumed all of:
 * what that input has reached, as what it covered since and did not
 * publish left lm nothing to apply (a refresh that let no row through
 * publishes nothing). Through one it has not: what lm's last refresh
 * recorded. The least over all paths, and never less than that record:
 * an input that publishes again does not take back what was reached. */
static int64_t reach(struct live_ledger *l, const struct ledger_model *lm, const char *src)
{
	int at = src ? source_index(&lm->in, src) : 0;
	int64_t recorded, least = -1;

	if (at < 0)
		return -1;
	recorded = src ? lm->covered_by[at] : lm->covered;
	for (size_t i = 0; i < lm->in.n; i++) {
		const struct model_input *in = &lm->in.items[i];
		const struct ledger_model *up =
			in->kind == INPUT_MODEL ? live_ledger_model(l, in->model) : NULL;
		int64_t v;

		/* an adopted table's places are its cursor's, no sequence */
		if (in->kind == INPUT_SOURCE)
			v = src ? (strcmp(in->name, src) == 0 ? lm->consumed[i] : -1)
				: (in->adopted ? -1 : lm->consumed[i]);
		else if (!up)
			v = src ? -1 : 0;
		else if (lm->consumed[i] < up->published)
			v = src && source_index(&up->in, src) < 0 ? -1 : recorded;
		else
			v = reach(l, up, src);
		if (v >= 0 && (least < 0 || v < least))
			least = v;
	}
	return least > recorded ? least : recorded;
}

int64_t live_ledger_readers_consumed(struct live_ledger *l, const struct model *m)
{
	int64_t least = -1;

	for (size_t k = 0; k < l->p->nmodels; k++) {
		const struct ledger_model *lm = live_ledger_model(l, l->p->models[k]);

		for (size_t i = 0; lm && i < lm->in.n; i++)
			if (lm->in.items[i].kind == INPUT_MODEL && lm->in.items[i].model == m &&
			    (least < 0 || lm->consumed[i] < least))
				least = lm->consumed[i];
	}
	return least;
}

int64_t live_ledger_covers(struct live_ledger *l, const struct model *m, const char *source_name)
{
	const struct ledger_model *lm = live_ledger_model(l, m);

	return lm ? reach(l, lm, source_name) : -1;
}

int64_t live_ledger_input_covers(struct live_ledger *l, const struct model_input *in,
				 const char *source_name)
{
	return in->kind == INPUT_SOURCE ? -1 : live_ledger_covers(l, in->model, source_name);
}

bool live_ledger_behind(struct live_ledger *l, const struct model *m)
{
	const struct ledger_model *lm = live_ledger_model(l, m);

	for (size_t i = 0; lm && i < lm->in.n; i++)
		if (live_ledger_input_mark(l, &lm->in.items[i]) > lm->consumed[i])
			return true;
	return false;
}

int64_t live_ledger_lag_ms(struct live_ledger *l, const struct model *m, int64_t now_ms)
{
	const struct ledger_model *lm = live_ledger_model(l, m);
	int64_t oldest = 0;

	if (!lm)
		return 0;
	pthread_mutex_lock(&l->mu);
	for (size_t k = 0; k < lm->in.nsources; k++) {
		const struct ledger_source *s = source(l, lm->in.sources[k], false);
		int64_t covers = reach(l, lm, lm->in.sources[k]);

		for (size_t j = 0; s && j < s->narrivals; j++) {
			if (s->arrivals[j].seq <= covers)
				continue;
			if (!oldest || s->arrivals[j].arrived_ms < oldest)
				oldest = s->arrivals[j].arrived_ms;
			break;
		}
	}
	pthread_mutex_unlock(&l->mu);
	return oldest && now_ms > oldest ? now_ms - oldest : 0;
}

void live_ledger_sql_model(struct live_ledger *l, const struct model *m, struct buf *sql)
{
	const struct ledger_model *lm = live_ledger_model(l, m);
	struct state_live_row row;
	char buf[LIVE_KEY_MAX];
	const char *key;

	if (!lm)
		return;
	key = live_ledger_key(l, m->fqn, buf, sizeof(buf));
	for (size_t i = 0; i < lm->in.n; i++)
		state_live_sql_consumed(sql, key, lm->in.items[i].name, lm->consumed[i],
					lm->consumed_saved[i]);
	for (size_t k = 0; k < lm->in.nsources; k++)
		state_live_sql_covered(sql, key, lm->in.sources[k], lm->covered_by[k],
				       lm->covered_saved[k]);
	row = (struct state_live_row){
		.published = lm->published,
		.covered = lm->covered,
		.refresh_count = lm->refresh_count,
		.events = lm->events,
		.events_per_s = lm->events_per_s,
		.last_refresh_ms = lm->last_refresh_ms,
		.failing = lm->failing,
	};
	state_live_sql_state(sql, key, &row, lm->known);
}

void live_ledger_saved(struct live_ledger *l, const struct model *m)
{
	struct ledger_model *lm = live_ledger_model(l, m);

	if (!lm)
		return;
	lm->known = true;
	for (size_t i = 0; i < lm->in.n; i++)
		lm->consumed_saved[i] = true;
	for (size_t k = 0; k < lm->in.nsources; k++)
		lm->covered_saved[k] = true;
	lm->dirty = false;
	lm->saved_mono_ms = units_mono_ms();
}

int live_ledger_checkpoint(struct live_ledger *l, struct wh *w, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < l->p->nmodels; i++)
		if (l->tracked[i] && l->models[i].dirty)
			live_ledger_sql_model(l, l->p->models[i], &sql);
	if (!sql.len)
		return 0;
	rc = wh_exec_atomic(w, sql.buf, err);
	buf_release(&sql);
	for (size_t i = 0; !rc && i < l->p->nmodels; i++)
		if (l->tracked[i] && l->models[i].dirty)
			live_ledger_saved(l, l->p->models[i]);
	return rc;
}

/* The sequence every reader of a landing table has covered, as written;
 * 0 when one has not, or has refreshes not written yet. */
static int64_t covered_by_all(struct live_ledger *l, const char *name)
{
	int64_t least = -1;

	for (size_t i = 0; i < l->p->nmodels; i++) {
		const struct ledger_model *lm = &l->models[i];
		int64_t v;
		int at;

		if (!l->tracked[i] || (at = source_index(&lm->in, name)) < 0)
			continue;
		if (!lm->covered_saved[at] || lm->dirty)
			return 0;
		v = reach(l, lm, name);
		if (least < 0 || v < least)
			least = v;
	}
	return least < 0 ? 0 : least;
}

int live_ledger_prune(struct live_ledger *l, struct wh *w, struct sl_err *err)
{
	struct buf sql = BUF_INIT;
	int rc = 0;

	pthread_mutex_lock(&l->mu);
	for (size_t i = 0; i < l->nsources; i++) {
		struct ledger_source *s = &l->sources[i];
		int64_t upto = covered_by_all(l, s->name);
		size_t drop = 0;

		if (upto <= s->pruned)
			continue;
		while (drop < s->narrivals && s->arrivals[drop].seq <= upto)
			drop++;
		if (drop) {
			memmove(s->arrivals, s->arrivals + drop,
				(s->narrivals - drop) * sizeof(*s->arrivals));
			s->narrivals -= drop;
		}
		s->pruned = upto;
		state_live_sql_prune(&sql, s->name, upto);
	}
	pthread_mutex_unlock(&l->mu);
	if (sql.len)
		rc = wh_exec(w, sql.buf, err);
	buf_release(&sql);
	return rc;
}
