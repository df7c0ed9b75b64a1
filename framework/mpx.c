/* Multiplexing: a set's events are packed first-fit into groups that the
 * unit can count at once, each group with a hidden cycle counter (the
 * unit's cycles_native) that times its turns. Groups take turns round-robin
 * every `period` cycles of the set's thread clock, or on clab_evset_switch.
 * Reads scale each count by (cycles of all groups) / (cycles of its group).
 *
 * Only one group holds the unit's counters at a time: a switch stops the
 * group, banks its counts, and reprograms the unit through program(...,
 * replace = the group's backend set), so the counters are free for other
 * threads between turns. A switch allocates nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/sim.h"
#include "internal.h"

_Static_assert(CLAB_EVSET_MAX == CLAB_EVSET_MAX_EVENTS,
	       "public and internal event-set sizes agree");

typedef struct mpx_group {
	uint64_t mask;    /* the set's requests the group counts */
	int nreq;         /* programmed: mask's requests, then the cycles */
	clab_evreq *req;
	uint64_t *acc;    /* [nreq] counts of the group's finished turns */
	int8_t local[CLAB_EVSET_MAX]; /* set request -> index in req, -1 */
	int cyc;          /* index of the hidden cycles in req */
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
	int virt;             /* virtual clock: reads let the thread run tick */
	uint64_t tick;
	clab_evset *next;     /* the thread's next running multiplexed set */
};


static void groups_free(mpx_group *g, int ng)
{
	for (int i = 0; i < ng; i++) {
		free(g[i].req);
		free(g[i].acc);
	}
	free(g);
}

/* The requests of group mask `mask` in program order, the hidden cycles
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

/* Programs group `mask` in place of *hold (the set keeps one backend set
 * at a time); CLAB_OK when the unit can count it. */
static int try_group(clab_component *c, clab_thread *t, const struct clab_mpx *m,
		     const clab_evreq *reqs, uint64_t mask, void **hold,
		     int *touched)
{
	clab_evreq arr[CLAB_EVSET_MAX + 1];
	int cyc, n = group_reqs(m, reqs, mask, arr, NULL, &cyc);
	void *nb;
	int rc = c->ops->program(c->unit, t->hwthread, arr, n, *hold, &nb);
	if (!rc) {
		*hold = nb;
		*touched = 1;
	}
	return rc;
}

int clab_mpx_pack(clab_evset *s, void **bset, const clab_evreq *reqs, int nreq,
		  const uint64_t *need, int n, const clab_evreq *old, int nold)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	clab_thread *t = s->t;
	uint64_t gmask[CLAB_EVSET_MAX];
	int gof[CLAB_EVSET_MAX], ng = 0, touched = 0, rc = CLAB_OK;
	void *hold = *bset;
	char why[512] = "";
	(void)nreq;

	/* first fit: an event joins the first group the unit can still count
	 * with it (and the group's cycles), else opens a group */
	for (int i = 0; i < n && !rc; i++) {
		int g;
		for (g = 0; g < ng; g++) {
			uint64_t want = gmask[g] | need[i];
			if (want == gmask[g] ||
			    try_group(c, t, m, reqs, want, &hold, &touched) == CLAB_OK) {
				gmask[g] = want;
				break;
			}
		}
		if (g == ng) {
			rc = try_group(c, t, m, reqs, need[i], &hold, &touched);
			if (rc) {
				snprintf(why, sizeof why,
					 "event %d of the set cannot be counted even in a group of its own beside the hidden cycle counter: %s",
					 i, clab_errmsg());
				break;
			}
			gmask[ng++] = need[i];
		}
		gof[i] = g;
	}

	mpx_group *grp = NULL;
	if (!rc && ng && !(grp = calloc((size_t)ng, sizeof *grp)))
		rc = CLAB_E_NOMEM;
	for (int g = 0; g < ng && !rc; g++) {
		grp[g].mask = gmask[g];
		grp[g].req = calloc(CLAB_EVSET_MAX + 1, sizeof *grp[g].req);
		if (!grp[g].req) {
			rc = CLAB_E_NOMEM;
			break;
		}
		grp[g].nreq = group_reqs(m, reqs, gmask[g], grp[g].req, grp[g].local,
					 &grp[g].cyc);
		grp[g].acc = calloc((size_t)grp[g].nreq, sizeof *grp[g].acc);
		if (!grp[g].acc)
			rc = CLAB_E_NOMEM;
	}
	for (int i = 0; i < n && !rc; i++)
		grp[gof[i]].nevents++;
	/* the first group takes the counters */
	if (!rc && ng) {
		void *nb;
		rc = c->ops->program(c->unit, t->hwthread, grp[0].req, grp[0].nreq,
				     hold, &nb);
		if (!rc) {
			hold = nb;
			touched = 1;
		} else {
			snprintf(why, sizeof why, "%s", clab_errmsg());
		}
	}

	if (rc) {
		groups_free(grp, grp ? ng : 0);
		if (!touched)
			return why[0] ? clab_seterr(rc, "%s", why) : rc;
		/* put back what the set held before */
		const clab_evreq *back = old;
		int nback = nold;
		if (m->ng) {
			back = m->g[m->cur].req;
			nback = m->g[m->cur].nreq;
		}
		void *nb = NULL;
		if (nback && c->ops->program(c->unit, t->hwthread, back, nback, hold,
					     &nb) == CLAB_OK) {
			*bset = nb;
		} else { /* another thread took the counters meanwhile */
			c->ops->release(c->unit, hold);
			*bset = NULL;
			groups_free(m->g, m->ng);
			m->g = NULL;
			m->ng = m->cur = 0;
		}
		return why[0] ? clab_seterr(rc, "%s", why) : rc;
	}

	if (!ng && hold) {
		c->ops->release(c->unit, hold);
		hold = NULL;
	}
	groups_free(m->g, m->ng);
	m->g = grp;
	m->ng = ng;
	m->cur = 0;
	memcpy(m->group_of, gof, (size_t)n * sizeof *gof);
	memcpy(m->need, need, (size_t)n * sizeof *need);
	*bset = hold;
	return CLAB_OK;
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

void clab_mpx_poll_thread(clab_thread *t)
{
	for (clab_evset *s = __atomic_load_n(&t->mpx_running, __ATOMIC_ACQUIRE); s;
	     s = s->mpx->next)
		clab_mpx_poll(s);
}

uint64_t clab_mpx_deadline(const clab_thread *t)
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

/* Ends the current group's turn and begins group `next`'s. A group the unit
 * refuses (another thread holds the counters) leaves the current group
 * counting for another period; the refusal is counted. */
static int mpx_switch(clab_evset *s, struct clab_mpx *m, int next)
{
	clab_component *c = s->c;
	clab_thread *t = s->t;
	void **bset = &s->bset;
	mpx_group *g = &m->g[m->cur];
	uint64_t live[CLAB_EVSET_MAX + 1];
	int rc = c->ops->stop(c->unit, *bset);
	if (!rc)
		rc = c->ops->peek(c->unit, *bset, live); /* exact: stopping drains */
	if (rc)
		return rc;
	for (int k = 0; k < g->nreq; k++)
		g->acc[k] += live[k];
	void *nb;
	rc = c->ops->program(c->unit, t->hwthread, m->g[next].req, m->g[next].nreq,
			     *bset, &nb);
	if (rc) {
		m->failed++;
	} else {
		*bset = nb;
		m->cur = next;
		m->switches++;
	}
	int rc2 = c->ops->start(c->unit, *bset); /* from zero: the turn is banked */
	m->g[m->cur].turns++;
	arm(m, t);
	return rc ? rc : rc2;
}

void clab_mpx_poll(clab_evset *s)
{
	struct clab_mpx *m = s ? s->mpx : NULL;
	if (!m || !m->on || m->ng < 2)
		return;
	if (clab_thread_now(s->t) >= m->deadline)
		mpx_switch(s, m, (m->cur + 1) % m->ng);
}

int clab_mpx_start(clab_evset *s)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	clab_thread *t = s->t;
	void **bset = &s->bset;
	/* every run begins with the first group, for reproducible turns */
	if (m->cur != 0) {
		void *nb;
		if (c->ops->program(c->unit, t->hwthread, m->g[0].req, m->g[0].nreq,
				    *bset, &nb) == CLAB_OK) {
			*bset = nb;
			m->cur = 0;
		}
	}
	int rc = c->ops->start(c->unit, *bset);
	if (rc)
		return rc;
	for (int g = 0; g < m->ng; g++) {
		memset(m->g[g].acc, 0, (size_t)m->g[g].nreq * sizeof *m->g[g].acc);
		m->g[g].turns = 0;
	}
	m->g[m->cur].turns = 1;
	m->switches = m->failed = 0;
	m->on = 1;
	arm(m, t);
	link_running(s, m, t);
	return CLAB_OK;
}

int clab_mpx_stop(clab_evset *s)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	void **bset = &s->bset;
	uint64_t live[CLAB_EVSET_MAX + 1];
	clab_mpx_poll(s);
	int rc = c->ops->stop(c->unit, *bset);
	if (!rc)
		rc = c->ops->peek(c->unit, *bset, live);
	if (rc)
		return rc;
	mpx_group *g = &m->g[m->cur];
	for (int k = 0; k < g->nreq; k++)
		g->acc[k] += live[k];
	m->on = 0;
	unlink_running(s, m, s->t);
	return CLAB_OK;
}

int clab_mpx_reset(clab_evset *s)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	if (!m->ng)
		return CLAB_OK;
	for (int g = 0; g < m->ng; g++) {
		memset(m->g[g].acc, 0, (size_t)m->g[g].nreq * sizeof *m->g[g].acc);
		m->g[g].turns = g == m->cur && m->on;
	}
	return c->ops->reset(c->unit, s->bset);
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

int clab_mpx_read(clab_evset *s, int64_t *vals, int scaled)
{
	struct clab_mpx *m = s->mpx;
	clab_component *c = s->c;
	clab_thread *t = s->t;
	void **bset = &s->bset;
	uint64_t live[CLAB_EVSET_MAX + 1] = {0};
	int rc = CLAB_OK;
	if (m->on) {
		/* a read lets the thread run, as for any set, but through
		 * clab_thread_advance so that switches fall inside the run */
		if (m->virt && m->tick)
			rc = clab_thread_advance(t, m->tick);
		else if (!m->virt) /* host clock: bring the thread's time up to date */
			rc = c->ops->read(c->unit, *bset, live);
		if (rc)
			return rc;
		clab_mpx_poll(s);
		rc = c->ops->peek(c->unit, *bset, live);
		if (rc)
			return rc;
	}
	uint64_t cyc[CLAB_EVSET_MAX], total = 0;
	for (int g = 0; g < m->ng; g++) {
		const mpx_group *G = &m->g[g];
		cyc[g] = G->acc[G->cyc] + (m->on && g == m->cur ? live[G->cyc] : 0);
		total += cyc[g];
	}
	uint64_t raw[CLAB_EVSET_MAX];
	for (int g = 0; g < m->ng; g++) {
		const mpx_group *G = &m->g[g];
		for (int r = 0; r < CLAB_EVSET_MAX; r++) {
			int k = G->local[r];
			if (k < 0)
				continue;
			uint64_t v = G->acc[k] + (m->on && g == m->cur ? live[k] : 0);
			raw[r] = scaled ? scale(v, total, cyc[g]) : v;
		}
		for (int i = 0; i < clab_evset_size(s); i++)
			if (m->group_of[i] == g)
				vals[i] = clab_evset_fold_one(s, i, raw);
	}
	return CLAB_OK;
}

uint64_t clab_mpx_counters(const clab_evset *s, int i)
{
	const struct clab_mpx *m = s->mpx;
	const clab_component *c = s->c;
	if (!m->ng || m->group_of[i] != m->cur)
		return 0;
	void *bset = s->bset;
	uint64_t mask = 0;
	for (uint64_t b = m->need[i]; b; b &= b - 1)
		mask |= c->ops->counters(c->unit, bset,
					 m->g[m->cur].local[__builtin_ctzll(b)]);
	return mask;
}

void clab_mpx_free(clab_evset *s)
{
	struct clab_mpx *m = s->mpx;
	if (!m)
		return;
	if (m->on)
		unlink_running(s, m, s->t);
	groups_free(m->g, m->ng);
	free(m);
	s->mpx = NULL;
}

/* ---- public API -------------------------------------------------------- */

int clab_evset_set_multiplex(clab_evset *s, uint64_t period)
{
	if (!s)
		return clab_seterr(CLAB_E_INVAL, "set_multiplex: NULL event set");
	clab_component *c = s->c;
	struct clab_mpx **mp = &s->mpx;
	if (s->running)
		return clab_seterr(CLAB_E_STATE,
				   "multiplexing changes only on a stopped event set");
	if (period == 0) {
		struct clab_mpx *old = *mp;
		if (!old)
			return CLAB_OK;
		*mp = NULL;
		int rc = clab_evset_repack(s);
		if (rc) {
			char why[512];
			snprintf(why, sizeof why, "%s", clab_errmsg());
			*mp = old;
			return clab_seterr(rc,
					   "multiplexing stays on: without it the set's %d events do not fit (%s)",
					   clab_evset_size(s), why);
		}
		groups_free(old->g, old->ng);
		free(old);
		return CLAB_OK;
	}
	if (!c->desc.can_multiplex || !c->ops->peek)
		return clab_seterr(CLAB_E_NOSUPP,
				   "component %s (%s) cannot multiplex: its unit counts all its events at once, with no counters to share in turns; only the processor unit's components can",
				   c->name, c->ops->name);
	if (clab_ovf_armed(s))
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
	rc = clab_evset_repack(s);
	if (rc) {
		*mp = NULL;
		groups_free(m->g, m->ng);
		free(m);
	}
	return rc;
}

int clab_evset_get_multiplex(const clab_evset *s, uint64_t *period)
{
	if (!s || !period)
		return clab_seterr(CLAB_E_INVAL, "get_multiplex: NULL argument");
	const struct clab_mpx *m = s->mpx;
	*period = m ? m->period : 0;
	return CLAB_OK;
}

int clab_evset_switch(clab_evset *s)
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

int clab_evset_read_raw(clab_evset *s, int64_t *vals)
{
	if (!s || !vals)
		return clab_seterr(CLAB_E_INVAL, "read_raw: NULL argument");
	if (!s->mpx)
		return clab_evset_read(s, vals);
	if (!s->bset)
		return clab_seterr(CLAB_E_STATE, "event set is empty");
	return clab_mpx_read(s, vals, 0);
}

int clab_evset_mpx_stats(const clab_evset *s, clab_mpx_stats *st)
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
		if (c->ops->peek(c->unit, s->bset, live) == CLAB_OK)
			st->cycles[m->cur] += live[m->g[m->cur].cyc];
	}
	for (int g = 0; g < m->ng; g++)
		st->elapsed += st->cycles[g];
	memcpy(st->group_of, m->group_of, (size_t)n * sizeof *m->group_of);
	return CLAB_OK;
}
