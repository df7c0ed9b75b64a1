/* Multiplexing: a set's events are packed first-fit into groups that the
 * unit can count at once, each group with a hidden cycle counter (the
 * unit's cycles_native) that times its turns. Groups take turns round-robin
 * every `period` cycles of the set's thread clock, or on clab_evset_switch.
 * Reads scale each count by (cycles of all groups) / (cycles of its group).
 *
 * Every group is planned as a backend set of its own (CLAB_PLAN_SHARE: a
 * group leaves the counters of other hardware threads that have sets to
 * them, since it can take turns and they cannot); only the group whose
 * turn it is holds the unit's counters. A switch stops the group, banks
 * its counts and acquires the next group in its place (acquire with
 * replace), so the counters are free for other sets between turns; if the
 * unit refuses, the current group keeps counting. A switch allocates
 * nothing (it may run in a signal handler). The set is planned again at
 * every start, as the threads sharing the unit may have changed.
 *
 * mpx.c is a clab_evset_driver and a clock hook: evset.c and sim.c call
 * it without knowing it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/sim.h"
#include "internal.h"

_Static_assert(CLAB_EVSET_MAX == CLAB_EVSET_MAX_EVENTS,
	       "public and internal event-set sizes agree");

typedef struct mpx_group {
	uint64_t mask;    /* the set's requests the group counts */
	int nreq;         /* planned: mask's requests, then the cycles */
	void *bset;       /* the group's planned backend set */
	uint64_t *acc;    /* [nreq] counts of the group's finished turns */
	int8_t local[CLAB_EVSET_MAX]; /* set request -> index in the group, -1 */
	int cyc;          /* index of the hidden cycles in the group */
	int nevents;
	uint64_t turns;
} mpx_group;

struct clab_mpx {
	uint64_t period;
	int ng, cur;
	mpx_group *g;
	int group_of[CLAB_EVSET_MAX];
	uint64_t need[CLAB_EVSET_MAX]; /* requests of event i */
	clab_evreq cycles;
	int on;               /* counting */
	uint64_t deadline;    /* thread clock of the next switch */
	uint64_t switches, failed;
	int gmax;             /* user events a group takes at most, 0: no cap */
	int virt;             /* virtual clock: reads let the thread run tick */
	uint64_t tick;
	clab_evset *next;     /* the thread's next running multiplexed set */
};

static void groups_free(clab_component *c, mpx_group *g, int ng)
{
	for (int i = 0; i < ng; i++) {
		if (g[i].bset)
			c->ops->discard(c->unit, g[i].bset);
		free(g[i].acc);
	}
	free(g);
}

/* The requests of group mask `mask` in plan order, the hidden cycles
 * last unless one of the set's own requests already counts them. */
static int group_reqs(const struct clab_mpx *m, const clab_evreq *reqs,
		      uint64_t mask, clab_evreq *out, int8_t *local, int *cyc)
{
	int k = 0;
	*cyc = -1;
	for (int r = 0; r < CLAB_EVSET_MAX; r++) {
		if (local)
			local[r] = -1;
		if (!(mask & (1ull << r)))
			continue;
		if (memcmp(&reqs[r], &m->cycles, sizeof m->cycles) == 0)
			*cyc = k;
		if (local)
			local[r] = (int8_t)k;
		out[k++] = reqs[r];
	}
	if (*cyc < 0) {
		*cyc = k;
		out[k++] = m->cycles;
	}
	return k;
}

/* Plans group `mask` into *hold (reused; NULL: a new backend set). */
static int plan_group(clab_evset *s, const struct clab_mpx *m,
		      const clab_evreq *reqs, uint64_t mask, void **hold)
{
	clab_component *c = s->c;
	clab_evreq arr[CLAB_EVSET_MAX + 1];
	int cyc, n = group_reqs(m, reqs, mask, arr, NULL, &cyc);
	void *nb;
	int rc = c->ops->program(c->unit, s->t->hwthread, arr, n,
				 CLAB_PLAN_SHARE | clab_evset_plan_flags(s),
				 *hold, &nb);
	if (!rc)
		*hold = nb;
	return rc;
}

/* Packs events into groups: need[i] is the mask of requests (into reqs)
 * event i reads. On success the set's groups are the new ones (the set
 * is not running); on failure it is as before. */
static int pack(clab_evset *s, const clab_evreq *reqs, const uint64_t *need,
		int n)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	uint64_t gmask[CLAB_EVSET_MAX];
	int gof[CLAB_EVSET_MAX], gn[CLAB_EVSET_MAX], ng = 0, rc = CLAB_OK;
	void *scratch = NULL;
	char why[512] = "";

	/* first fit: an event joins the first group the unit can still count
	 * with it (and the group's cycles), else opens a group */
	for (int i = 0; i < n && !rc; i++) {
		int g;
		for (g = 0; g < ng; g++) {
			uint64_t want = gmask[g] | need[i];
			if (m->gmax && gn[g] >= m->gmax)
				continue;
			if (want == gmask[g] ||
			    plan_group(s, m, reqs, want, &scratch) == CLAB_OK) {
				gmask[g] = want;
				break;
			}
		}
		if (g == ng) {
			rc = plan_group(s, m, reqs, need[i], &scratch);
			if (rc) {
				snprintf(why, sizeof why,
					 "event %d of the set cannot be counted even in a group of its own beside the hidden cycle counter: %s",
					 i, clab_errmsg());
				break;
			}
			gn[ng] = 0;
			gmask[ng++] = need[i];
		}
		gn[g]++;
		gof[i] = g;
	}
	if (scratch)
		c->ops->discard(c->unit, scratch);

	mpx_group *grp = NULL;
	if (!rc && ng && !(grp = calloc((size_t)ng, sizeof *grp)))
		rc = CLAB_E_NOMEM;
	for (int g = 0; g < ng && !rc; g++) {
		clab_evreq arr[CLAB_EVSET_MAX + 1];
		grp[g].mask = gmask[g];
		grp[g].nreq = group_reqs(m, reqs, gmask[g], arr, grp[g].local, &grp[g].cyc);
		grp[g].acc = calloc((size_t)grp[g].nreq, sizeof *grp[g].acc);
		if (!grp[g].acc) {
			rc = CLAB_E_NOMEM;
			break;
		}
		rc = plan_group(s, m, reqs, gmask[g], &grp[g].bset);
		if (rc)
			snprintf(why, sizeof why, "%s", clab_errmsg());
	}
	if (rc) {
		groups_free(c, grp, grp ? ng : 0);
		return why[0] ? clab_seterr(rc, "%s", why) : rc;
	}
	for (int i = 0; i < n; i++)
		grp[gof[i]].nevents++;
	groups_free(c, m->g, m->ng);
	m->g = grp;
	m->ng = ng;
	m->cur = 0;
	memcpy(m->group_of, gof, (size_t)n * sizeof *gof);
	memmove(m->need, need, (size_t)n * sizeof *need); /* may be m->need */
	s->bset = ng ? grp[0].bset : NULL;
	return CLAB_OK;
}

static int drv_program(clab_evset *s, const clab_evreq *reqs, int nreq,
		       const uint64_t *need, int n)
{
	(void)nreq;
	return pack(s, reqs, need, n);
}

/* ---- the thread's running sets --------------------------------------- */

static void link_running(clab_evset *s, struct clab_mpx *m, clab_thread *t)
{
	m->next = t->mpx_running;
	/* a timer signal may walk the list: publish a complete entry */
	__atomic_store_n(&t->mpx_running, s, __ATOMIC_RELEASE);
}

static void unlink_running(clab_evset *s, struct clab_mpx *m, clab_thread *t)
{
	for (clab_evset **p = &t->mpx_running; *p; p = &(*p)->mpx->next)
		if (*p == s) {
			__atomic_store_n(p, m->next, __ATOMIC_RELEASE);
			break;
		}
	m->next = NULL;
}

static void drv_poll(clab_evset *s);

/* Switches groups of every running multiplexed set of t whose period has
 * passed (sim.c calls it as t's time passes). */
static void poll_thread(clab_thread *t)
{
	for (clab_evset *s = __atomic_load_n(&t->mpx_running, __ATOMIC_ACQUIRE); s;
	     s = s->mpx->next)
		drv_poll(s);
}

/* The earliest switch deadline of t's running multiplexed sets. */
static uint64_t deadline(const clab_thread *t)
{
	uint64_t d = UINT64_MAX;
	for (clab_evset *s = __atomic_load_n(&t->mpx_running, __ATOMIC_ACQUIRE); s;
	     s = s->mpx->next)
		if (s->mpx->deadline < d)
			d = s->mpx->deadline;
	return d;
}

/* ---- counting ---------------------------------------------------------- */

static void arm(struct clab_mpx *m, clab_thread *t)
{
	m->deadline = m->ng > 1 ? clab_thread_now(t) + m->period : UINT64_MAX;
}

/* Ends the current group's turn: stops it and banks its counts. */
static int bank(clab_evset *s, struct clab_mpx *m)
{
	clab_component *c = s->c;
	mpx_group *g = &m->g[m->cur];
	uint64_t live[CLAB_EVSET_MAX + 1];
	int rc = c->ops->stop(c->unit, g->bset);
	if (!rc)
		rc = c->ops->peek(c->unit, g->bset, live); /* exact: stopping drains */
	if (rc)
		return rc;
	for (int k = 0; k < g->nreq; k++)
		g->acc[k] += live[k];
	return CLAB_OK;
}

/* Ends the current group's turn and begins group `next`'s, which takes the
 * current group's counters in its place. A group the unit refuses (another
 * set holds the counters) leaves the current group counting for another
 * period; the refusal is counted. */
static int mpx_switch(clab_evset *s, struct clab_mpx *m, int next)
{
	clab_component *c = s->c;
	int rc = bank(s, m);
	if (rc)
		return rc;
	rc = c->ops->acquire(c->unit, m->g[next].bset, m->g[m->cur].bset);
	if (rc) {
		m->failed++;
	} else {
		m->cur = next;
		m->switches++;
		s->bset = m->g[next].bset;
	}
	int rc2 = c->ops->start(c->unit, s->bset); /* from zero: the turn is banked */
	m->g[m->cur].turns++;
	arm(m, s->t);
	return rc ? rc : rc2;
}

static void drv_poll(clab_evset *s)
{
	struct clab_mpx *m = s ? s->mpx : NULL;
	if (!m || !m->on || m->ng < 2)
		return;
	if (clab_thread_now(s->t) >= m->deadline)
		mpx_switch(s, m, (m->cur + 1) % m->ng);
}

static int drv_start(clab_evset *s)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	/* planned again: other threads of the unit may have sets by now
	 * (if that fails, the old plan stays) */
	pack(s, s->req, m->need, s->n);
	if (!m->ng)
		return clab_seterr(CLAB_E_STATE, "event set is empty");
	/* every run begins with the first group, for reproducible turns */
	m->cur = 0;
	s->bset = m->g[0].bset;
	int rc = c->ops->acquire(c->unit, s->bset, NULL);
	if (rc)
		return rc;
	rc = c->ops->start(c->unit, s->bset);
	if (rc) {
		c->ops->release(c->unit, s->bset);
		return rc;
	}
	for (int g = 0; g < m->ng; g++) {
		memset(m->g[g].acc, 0, (size_t)m->g[g].nreq * sizeof *m->g[g].acc);
		m->g[g].turns = 0;
	}
	m->g[0].turns = 1;
	m->switches = m->failed = 0;
	m->on = 1;
	arm(m, s->t);
	link_running(s, m, s->t);
	return CLAB_OK;
}

static int drv_stop(clab_evset *s)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	drv_poll(s);
	int rc = bank(s, m);
	c->ops->release(c->unit, m->g[m->cur].bset);
	m->on = 0;
	unlink_running(s, m, s->t);
	return rc;
}

static int drv_reset(clab_evset *s)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	if (!m->ng)
		return CLAB_OK;
	for (int g = 0; g < m->ng; g++) {
		memset(m->g[g].acc, 0, (size_t)m->g[g].nreq * sizeof *m->g[g].acc);
		m->g[g].turns = g == m->cur && m->on;
	}
	return m->on ? c->ops->reset(c->unit, m->g[m->cur].bset) : CLAB_OK;
}

/* count * total / own, rounded; 0 for a group that has not counted yet */
static uint64_t scale(uint64_t count, uint64_t total, uint64_t own)
{
	if (!own)
		return 0;
	unsigned __int128 v = (unsigned __int128)count * total + own / 2;
	v /= own;
	return v > INT64_MAX ? INT64_MAX : (uint64_t)v;
}

static int drv_read(clab_evset *s, int64_t *vals, int64_t *raw_vals)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	clab_thread *t = s->t;
	uint64_t live[CLAB_EVSET_MAX + 1] = {0};
	int rc = CLAB_OK;
	if (m->on) {
		/* a read lets the thread run, as for any set, but through
		 * clab_thread_run so that switches fall inside the run */
		if (m->virt && m->tick)
			rc = clab_thread_run(t, m->tick);
		else if (!m->virt) /* host clock: bring the thread's time up to date */
			rc = c->ops->read(c->unit, m->g[m->cur].bset, live);
		if (rc)
			return rc;
		drv_poll(s);
		rc = c->ops->peek(c->unit, m->g[m->cur].bset, live);
		if (rc)
			return rc;
	}
	uint64_t cyc[CLAB_EVSET_MAX], total = 0;
	for (int g = 0; g < m->ng; g++) {
		const mpx_group *G = &m->g[g];
		cyc[g] = G->acc[G->cyc] + (m->on && g == m->cur ? live[G->cyc] : 0);
		total += cyc[g];
	}
	uint64_t scaled[CLAB_EVSET_MAX], raw[CLAB_EVSET_MAX];
	for (int g = 0; g < m->ng; g++) {
		const mpx_group *G = &m->g[g];
		for (int r = 0; r < CLAB_EVSET_MAX; r++) {
			int k = G->local[r];
			if (k < 0)
				continue;
			raw[r] = G->acc[k] + (m->on && g == m->cur ? live[k] : 0);
			scaled[r] = scale(raw[r], total, cyc[g]);
		}
		for (int i = 0; i < clab_evset_size(s); i++)
			if (m->group_of[i] == g) {
				vals[i] = clab_evset_fold_one(s, i, scaled);
				raw_vals[i] = clab_evset_fold_one(s, i, raw);
			}
	}
	return CLAB_OK;
}

static uint64_t drv_counters(const clab_evset *s, int i)
{
	const struct clab_mpx *m = s->mpx;
	const clab_component *c = s->c;
	if (!m->ng || m->group_of[i] != m->cur)
		return 0;
	void *bset = m->g[m->cur].bset;
	uint64_t mask = 0;
	for (uint64_t b = m->need[i]; b; b &= b - 1)
		mask |= c->ops->counters(c->unit, bset,
					 m->g[m->cur].local[__builtin_ctzll(b)]);
	return mask;
}

static void drv_free(clab_evset *s)
{
	struct clab_mpx *m = s->mpx;
	if (!m)
		return;
	if (m->on)
		unlink_running(s, m, s->t);
	for (int g = 0; g < m->ng; g++)
		if (s->bset == m->g[g].bset)
			s->bset = NULL;
	groups_free(s->c, m->g, m->ng);
	free(m);
	s->mpx = NULL;
}

static const clab_clock_hooks mpx_clock = {.due = poll_thread, .deadline = deadline};

/* sim.c stops a thread's run at every switch deadline of its sets */
__attribute__((constructor)) static void mpx_register(void)
{
	clab_clock_hook(&mpx_clock);
}

static const clab_evset_driver mpx_driver = {
	.program = drv_program,
	.start = drv_start,
	.stop = drv_stop,
	.read = drv_read,
	.reset = drv_reset,
	.counters = drv_counters,
	.poll = drv_poll,
	.free = drv_free,
};

/* ---- public API -------------------------------------------------------- */

static int set_multiplex(clab_evset *s, uint64_t period);

int clab_evset_set_multiplex(clab_evset *s, uint64_t period)
{
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("changing multiplexing"));
	return clab_leave(set_multiplex(s, period));
}

static int set_multiplex(clab_evset *s, uint64_t period)
{
	if (!s)
		return clab_seterr(CLAB_E_INVAL, "set_multiplex: NULL event set");
	clab_component *c = s->c;
	struct clab_mpx **mp = &s->mpx;
	if (s->running)
		return clab_seterr(CLAB_E_STATE,
				   "multiplexing changes only on a stopped event set");
	if (period == 0) {
		if (!*mp)
			return CLAB_OK;
		int rc = clab_evset_drive(s, NULL); /* frees our state on success */
		if (rc) {
			char why[512];
			snprintf(why, sizeof why, "%s", clab_errmsg());
			return clab_seterr(rc,
					   "multiplexing stays on: without it the set's %d events do not fit (%s)",
					   clab_evset_size(s), why);
		}
		return CLAB_OK;
	}
	if (c->desc.self_multiplex)
		return CLAB_OK; /* the unit multiplexes every set already */
	if (!c->desc.can_multiplex || !c->ops->peek)
		return clab_seterr(CLAB_E_NOSUPP,
				   "component %s (%s) cannot multiplex: its unit counts all its events at once, with no counters to share in turns; only the processor unit's components can",
				   c->name, c->ops->name);
	for (int i = 0; i < clab_evset_size(s); i++)
		if (clab_evset_overflow_period(s, i))
		return clab_seterr(CLAB_E_NOSUPP,
				   "the set has events armed for overflow; a multiplexed set cannot interrupt (disarm them first)");
	if (period < CLAB_MPX_MIN_PERIOD)
		return clab_seterr(CLAB_E_INVAL,
				   "multiplexing period %llu cycles is below the floor of %d cycles (a group must count longer than a switch takes)",
				   (unsigned long long)period, CLAB_MPX_MIN_PERIOD);
	if (*mp) {
		(*mp)->period = period; /* from the next switch on */
		return CLAB_OK;
	}
	struct clab_mpx *m = calloc(1, sizeof *m);
	if (!m)
		return CLAB_E_NOMEM;
	m->period = period;
	m->cycles.native = (uint32_t)c->desc.cycles_native;
	clab_machine *mach = clab_component_machine(c);
	const char *clock = clab_machine_setting(mach, "clock");
	m->virt = clock && strcmp(clock, "virtual") == 0;
	int rc = clab_machine_setting_u64(mach, "tick", 0, 0, UINT64_MAX / 4, &m->tick);
	if (rc) {
		free(m);
		return rc;
	}
	*mp = m;
	rc = clab_evset_drive(s, &mpx_driver);
	if (rc) {
		*mp = NULL;
		free(m); /* a failed pack leaves no groups */
	}
	return rc;
}

int clab_evset_set_mpx_group_max(clab_evset *s, int max)
{
	if (!s || max < 0)
		return clab_seterr(CLAB_E_INVAL, "set_mpx_group_max: NULL set or negative cap");
	if (!s->mpx)
		return clab_seterr(CLAB_E_STATE, "set_mpx_group_max: the set is not multiplexed (set the period first)");
	if (s->running)
		return clab_seterr(CLAB_E_STATE, "set_mpx_group_max: the set is running");
	s->mpx->gmax = max;
	return CLAB_OK;
}

int clab_evset_get_multiplex(const clab_evset *s, uint64_t *period)
{
	if (!s || !period)
		return clab_seterr(CLAB_E_INVAL, "get_multiplex: NULL argument");
	const struct clab_mpx *m = s->mpx;
	*period = m ? m->period : 0;
	return CLAB_OK;
}

static int switch_(clab_evset *s);

int clab_evset_switch(clab_evset *s)
{
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("switching groups"));
	return clab_leave(switch_(s));
}

static int switch_(clab_evset *s)
{
	if (!s)
		return clab_seterr(CLAB_E_INVAL, "switch: NULL event set");
	struct clab_mpx *m = s->mpx;
	if (!m)
		return clab_seterr(CLAB_E_STATE, "event set is not multiplexed");
	if (!m->on)
		return clab_seterr(CLAB_E_STATE, "event set is not running");
	if (m->ng < 2)
		return CLAB_OK; /* one group: nothing to take turns with */
	return mpx_switch(s, m, (m->cur + 1) % m->ng);
}

static int mpx_stats(const clab_evset *s, clab_mpx_stats *st);

int clab_evset_mpx_stats(const clab_evset *s, clab_mpx_stats *st)
{
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("multiplexing statistics"));
	return clab_leave(mpx_stats(s, st));
}

static int mpx_stats(const clab_evset *s, clab_mpx_stats *st)
{
	if (!s || !st)
		return clab_seterr(CLAB_E_INVAL, "mpx_stats: NULL argument");
	const struct clab_mpx *m = s->mpx;
	memset(st, 0, sizeof *st);
	int n = clab_evset_size(s);
	if (!m) {
		st->ngroups = n ? 1 : 0;
		st->nevents[0] = n;
		return CLAB_OK;
	}
	st->period = m->period;
	st->ngroups = m->ng;
	st->current = m->cur;
	st->switches = m->switches;
	st->failed_switches = m->failed;
	for (int g = 0; g < m->ng; g++) {
		const mpx_group *G = &m->g[g];
		st->cycles[g] = G->acc[G->cyc];
		st->turns[g] = G->turns;
		st->nevents[g] = G->nevents;
	}
	/* the running group's current turn, as far as the unit has seen it */
	if (m->on && m->ng) {
		clab_component *c = s->c;
		uint64_t live[CLAB_EVSET_MAX + 1];
		if (c->ops->peek(c->unit, m->g[m->cur].bset, live) == CLAB_OK)
			st->cycles[m->cur] += live[m->g[m->cur].cyc];
	}
	for (int g = 0; g < m->ng; g++)
		st->elapsed += st->cycles[g];
	memcpy(st->group_of, m->group_of, (size_t)n * sizeof *m->group_of);
	return CLAB_OK;
}
