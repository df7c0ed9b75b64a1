/* The BG/Q processor unit (UPC_P): 24 counters per core in four groups of
 * six (group g = counters c with c % 4 == g, owned by hardware thread g),
 * with the A2 signal, L1p and counter-mask rules of IBM's BG/Q documentation. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bgq.h"

#define GROUP_CTRS(g) (0x111111u << (g))
#define MAX_STEPS 200000 /* bound on the placement search */

/* A planned set. Its counters are the core's only while it is acquired
 * (bgq_core.ctr[].set, .group[]); values and arming live here meanwhile. */
typedef struct punit_set {
	/* first: the unit's read op is the node's read of it (bgq_plan_read);
	 * its hardware thread, requests, whether the set is acquired, and
	 * where request i's count is: ctr[i]'s acc while acquired, val[i]
	 * else */
	bgq_read_plan rp;
	int core, smt;
	int ev[BGQ_CTRS];        /* native event of request i */
	uint64_t mask[BGQ_CTRS]; /* its opcode-mask qualifier */
	int ctr[BGQ_CTRS];       /* counter of request i: planned, or held */
	uint8_t groups;          /* counter groups planned, or held */
	int exclude;             /* CLAB_PLAN_EXCLUDE_* of the plan */
	int l1p;                 /* holds the core's L1p mode (acquired) */
	uint64_t val[BGQ_CTRS];  /* counts as of the last release */
	uint64_t ovf_period[BGQ_CTRS]; /* overflow arming, applied at acquire */
	void *ovf_cookie;
} punit_set;
_Static_assert(offsetof(punit_set, rp) == 0, "a set is read as its read plan");

typedef struct punit {
	bgq_node *node;
} punit;

static const clab_qual_info punit_quals[] = {
	[BGQ_Q_MASK] = {"mask", "opcode-group mask selecting which instruction classes count", 0, 0xffffffffull},
};

enum { A2_UNITS = BGQ_SRC_A2_MMU + 1 };
static int is_a2(int src) { return src <= BGQ_SRC_A2_MMU; }
static int is_l1p_mode(int src)
{
	return src == BGQ_SRC_L1P_SWITCH || src == BGQ_SRC_L1P_STREAM ||
	       src == BGQ_SRC_L1P_LIST;
}
static const char *src_name(int e) { return bgq_punit_natives[e].group; }

/* The A2 signal a counter listens to. */
static int signal_of(int c)
{
	static const int map[8] = {0, 2, 4, 6, 1, 3, 5, 7};
	return map[c % 8];
}

/* Counters event e may use when counted for thread smt. */
static uint32_t allowed(int e, int smt)
{
	const bgq_attr *a = &bgq_punit_attr[e];
	uint32_t m = bgq_punit_natives[e].ctr_mask;
	int threaded = bgq_punit_natives[e].scope == CLAB_SCOPE_THREAD;
	if (is_a2(a->src) && threaded)
		m &= smt < 2 ? 0x333333u : 0xccccccu;
	if ((a->src >= BGQ_SRC_L1P_BASE && a->src <= BGQ_SRC_WAKEUP) && threaded)
		m &= GROUP_CTRS(smt); /* one counter per thread per conflict set */
	return m;
}

/* ---- placement --------------------------------------------------------- */

typedef struct place {
	const bgq_core *k;
	const void *replace;  /* acquired set whose holdings count as free */
	int alone;            /* a plan: other sets hold nothing */
	uint8_t reserved;     /* groups left to sibling threads (CLAB_PLAN_SHARE) */
	int n, smt;
	int ev[BGQ_CTRS];
	uint32_t cand[BGQ_CTRS];
	int order[BGQ_CTRS];
	int ctr[BGQ_CTRS];
	uint32_t used;        /* counters taken */
	uint8_t sig[A2_UNITS]; /* A2 signals taken per unit */
	long steps;
} place;

static int others(const place *p, const void *set)
{
	return !p->alone && set && set != p->replace;
}

static int search(place *p, int i)
{
	if (i == p->n)
		return 1;
	if (++p->steps > MAX_STEPS)
		return 0;
	int r = p->order[i], e = p->ev[r], src = bgq_punit_attr[e].src;
	for (uint32_t m = p->cand[r] & ~p->used; m; m &= m - 1) {
		int c = __builtin_ctz(m);
		uint8_t bit = (uint8_t)(1u << signal_of(c));
		if (is_a2(src) && (p->sig[src] & bit))
			continue;
		p->used |= 1u << c;
		if (is_a2(src))
			p->sig[src] |= bit;
		p->ctr[r] = c;
		if (search(p, i + 1))
			return 1;
		p->used &= ~(1u << c);
		if (is_a2(src))
			p->sig[src] &= (uint8_t)~bit;
	}
	return 0;
}

/* Tries to place events ev[0..n) on the counters of `groups`. */
static int try_place(place *p, const int *ev, int n, uint8_t groups)
{
	uint32_t gm = 0;
	for (int g = 0; g < BGQ_TPC; g++)
		if (groups & (1u << g))
			gm |= GROUP_CTRS(g);
	p->n = n;
	p->used = 0;
	p->steps = 0;
	memset(p->sig, 0, sizeof p->sig);
	/* signals held by other sets of the core */
	for (int c = 0; c < BGQ_CTRS; c++) {
		const bgq_ctr *k = &p->k->ctr[c];
		/* (a lone term may be a CNK count: no signal) */
		if (others(p, k->set) && k->nterm == 1 && k->term[0] < BGQ_N_PUNIT) {
			int src = bgq_punit_attr[k->term[0]].src;
			if (is_a2(src))
				p->sig[src] |= (uint8_t)(1u << signal_of(c));
		}
	}
	for (int i = 0; i < n; i++) {
		p->ev[i] = ev[i];
		p->cand[i] = allowed(ev[i], p->smt) & gm;
		p->order[i] = i;
	}
	/* more events than their counters, or than the free signals of
	 * their A2 unit, cannot fit: said at once, not after a search of
	 * every order (kernel multiplexing asks at every start) */
	uint32_t any = 0, unit_ctrs[A2_UNITS] = {0};
	int per_unit[A2_UNITS] = {0};
	for (int i = 0; i < n; i++) {
		int src = bgq_punit_attr[ev[i]].src;
		any |= p->cand[i];
		if (is_a2(src)) {
			per_unit[src]++;
			unit_ctrs[src] |= p->cand[i];
		}
	}
	if (__builtin_popcount(any) < n)
		return 0;
	for (int src = 0; src < A2_UNITS; src++) {
		uint8_t sigs = 0;
		for (uint32_t m = unit_ctrs[src]; m; m &= m - 1)
			sigs |= (uint8_t)(1u << signal_of(__builtin_ctz(m)));
		if (per_unit[src] > __builtin_popcount(sigs & (uint8_t)~p->sig[src]))
			return 0;
	}
	/* most constrained first */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && __builtin_popcount(p->cand[p->order[j]]) <
					 __builtin_popcount(p->cand[p->order[j - 1]]); j--) {
			int t = p->order[j];
			p->order[j] = p->order[j - 1];
			p->order[j - 1] = t;
		}
	return search(p, 0);
}

/* Group sets thread smt may hold, smallest first, given the other sets. */
static int group_choices(const place *p, int need_all, uint8_t *choice)
{
	uint8_t own = (uint8_t)(1u << p->smt);
	uint8_t opts[3] = {own, (uint8_t)(own | 1u << (p->smt ^ 1)), 0xf};
	int n = 0;
	for (int i = need_all ? 2 : 0; i < 3; i++) {
		int free_ = 1;
		for (int g = 0; g < BGQ_TPC; g++)
			if ((opts[i] & (1u << g)) &&
			    (others(p, p->k->group[g]) || (p->reserved & (1u << g))))
				free_ = 0;
		if (free_)
			choice[n++] = opts[i];
	}
	return n;
}

static int l1p_conflict(const place *p, const int *ev, int n)
{
	int mode = -1;
	/* the core's mode binds unless the set being replaced is its only user */
	if (!p->alone && p->k->l1p_mode >= 0 &&
	    !(p->k->l1p_users == 1 && p->replace && ((const punit_set *)p->replace)->l1p))
		mode = p->k->l1p_mode;
	for (int i = 0; i < n; i++) {
		int src = bgq_punit_attr[ev[i]].src;
		if (!is_l1p_mode(src))
			continue;
		if (mode >= 0 && mode != src)
			return i;
		mode = src;
	}
	return -1;
}

static int fits(place *p, const int *ev, int n, uint8_t *groups)
{
	int need_all = 0;
	for (int i = 0; i < n; i++)
		need_all |= bgq_punit_attr[ev[i]].core_shared;
	if (l1p_conflict(p, ev, n) >= 0)
		return 0;
	uint8_t choice[3];
	int nc = group_choices(p, need_all, choice);
	for (int i = 0; i < nc; i++)
		if (try_place(p, ev, n, choice[i])) {
			*groups = choice[i];
			return 1;
		}
	return 0;
}

static void list_ctrs(uint32_t m, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (; m && o < len; m &= m - 1)
		o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? " " : "",
				      __builtin_ctz(m));
}

/* Names the events that cannot go together and why. */
static int explain(place *p, const int *ev, int n)
{
	const clab_native *N = bgq_punit_natives;
	uint8_t g;
	char buf[128];
	for (int i = 0; i < n; i++) {
		if (fits(p, &ev[i], 1, &g))
			continue;
		const bgq_attr *a = &bgq_punit_attr[ev[i]];
		if (l1p_conflict(p, &ev[i], 1) >= 0)
			return clab_seterr(CLAB_E_CONFLICT,
					   "%s needs the core's L1p unit in %s mode, but another event set holds it in %s mode",
					   N[ev[i]].name, src_name(ev[i]),
					   p->k->l1p_mode == BGQ_SRC_L1P_SWITCH ? "L1P_SWITCH"
					   : p->k->l1p_mode == BGQ_SRC_L1P_STREAM ? "L1P_STREAM"
					   : "L1P_LIST");
		if (a->core_shared)
			return clab_seterr(CLAB_E_CONFLICT,
					   "%s counts for the whole core and needs all four counter groups, but other threads' event sets hold some of them",
					   N[ev[i]].name);
		list_ctrs(allowed(ev[i], p->smt), buf, sizeof buf);
		return clab_seterr(CLAB_E_CONFLICT,
				   "%s can only use counters %s for hardware thread %d, and those are held by other event sets or their A2 signals are taken",
				   N[ev[i]].name, buf, p->smt);
	}
	for (int i = n - 1; i > 0; i--)
		for (int j = 0; j < i; j++) {
			int pair[2] = {ev[j], ev[i]};
			if (fits(p, pair, 2, &g))
				continue;
			int a = bgq_punit_attr[ev[j]].src, b = bgq_punit_attr[ev[i]].src;
			if (is_l1p_mode(a) && is_l1p_mode(b) && a != b)
				return clab_seterr(CLAB_E_CONFLICT,
						   "%s (%s) and %s (%s): the core's L1p unit runs one mode at a time",
						   N[ev[j]].name, src_name(ev[j]), N[ev[i]].name,
						   src_name(ev[i]));
			uint32_t cj = allowed(ev[j], p->smt), ci = allowed(ev[i], p->smt);
			if (__builtin_popcount(cj & ci) <= 1 && __builtin_popcount(cj) == 1 &&
			    __builtin_popcount(ci) == 1) {
				list_ctrs(ci, buf, sizeof buf);
				return clab_seterr(CLAB_E_CONFLICT,
						   "%s and %s both need counter %s, the only one hardware thread %d has in their conflict set",
						   N[ev[j]].name, N[ev[i]].name, buf, p->smt);
			}
			if (is_a2(a) && a == b)
				return clab_seterr(CLAB_E_CONFLICT,
						   "%s and %s are both %s events whose counters listen to the same A2 signal, and each signal feeds one counter",
						   N[ev[j]].name, N[ev[i]].name, src_name(ev[i]));
			return clab_seterr(CLAB_E_CONFLICT,
					   "%s and %s cannot be placed on distinct counters together",
					   N[ev[j]].name, N[ev[i]].name);
		}
	uint8_t choice[3];
	int nc = group_choices(p, 0, choice);
	int most = nc ? __builtin_popcount(choice[nc - 1]) * 6 : 0;
	return clab_seterr(CLAB_E_CONFLICT,
			   "%d events do not fit the counters hardware thread %d can hold (%d: %s); %s",
			   n, p->smt, most,
			   most == 24 ? "all four groups" : most == 12 ? "its own and its sibling's group"
							      : "its own group, the others are held by other event sets",
			   "the A2 signal and counter-mask rules leave no placement for all of them");
}

/* ---- what running sets hold --------------------------------------------- */

static const char *l1p_mode_name(int src)
{
	return src == BGQ_SRC_L1P_SWITCH ? "L1P_SWITCH"
	       : src == BGQ_SRC_L1P_STREAM ? "L1P_STREAM" : "L1P_LIST";
}

/* "hardware thread H (EV1, EV2, ...)" for an acquired set. */
static size_t describe_holder(const punit_set *h, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "hardware thread %d (", h->rp.hw);
	for (int i = 0; i < h->rp.n && i < 3 && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
				      bgq_punit_natives[h->ev[i]].name);
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s)", h->rp.n > 3 ? ", ..." : "");
	return o;
}

/* Why acquired sets of the core keep s from its counters. Core lock held. */
static int explain_held(place *p, const punit_set *s)
{
	const bgq_core *k = p->k;
	char buf[512];
	size_t o = 0;
	const punit_set *seen[BGQ_TPC] = {0};
	int nseen = 0;
	if (l1p_conflict(p, s->ev, s->rp.n) >= 0) {
		for (int c = 0; c < BGQ_CTRS; c++) {
			const punit_set *h = k->ctr[c].set;
			if (h && h != p->replace && h->l1p) {
				describe_holder(h, buf, sizeof buf);
				break;
			}
		}
		int i = l1p_conflict(p, s->ev, s->rp.n);
		return clab_seterr(CLAB_E_CONFLICT,
				   "cannot start: %s needs the core's L1p unit in %s mode, but the running event set of %s holds it in %s mode; stop that set first",
				   bgq_punit_natives[s->ev[i]].name, src_name(s->ev[i]),
				   buf, l1p_mode_name(k->l1p_mode));
	}
	/* the counter groups the plan needs, then the A2 signals */
	for (int g = 0; g < BGQ_TPC; g++) {
		const punit_set *h = k->group[g];
		if (!(s->groups & (1u << g)) || !others(p, h))
			continue;
		int dup = 0;
		for (int j = 0; j < nseen; j++)
			dup |= seen[j] == h;
		if (dup)
			continue;
		seen[nseen++] = h;
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", o ? "; " : "");
		if (o < sizeof buf)
			o += describe_holder(h, buf + o, sizeof buf - o);
	}
	if (nseen)
		return clab_seterr(CLAB_E_CONFLICT,
				   "cannot start: the set's %d events need %d counter group%s of core %d (%d counters), which the running event set%s of %s hold%s; stop %s first or count in turns (multiplexing)",
				   s->rp.n, __builtin_popcount(s->groups),
				   __builtin_popcount(s->groups) > 1 ? "s" : "", s->core,
				   6 * __builtin_popcount(s->groups), nseen > 1 ? "s" : "",
				   buf, nseen > 1 ? "" : "s", nseen > 1 ? "them" : "it");
	for (int c = 0; c < BGQ_CTRS; c++) {
		const punit_set *h = k->ctr[c].set;
		if (!others(p, h) || k->ctr[c].nterm != 1)
			continue;
		int dup = 0;
		for (int j = 0; j < nseen; j++)
			dup |= seen[j] == h;
		if (dup || nseen == BGQ_TPC)
			continue;
		seen[nseen++] = h;
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", o ? "; " : "");
		if (o < sizeof buf)
			o += describe_holder(h, buf + o, sizeof buf - o);
	}
	return clab_seterr(CLAB_E_CONFLICT,
			   "cannot start: the set's %d events find no placement on core %d beside the running event sets of %s (their counter groups and A2 signals); stop them first or count in turns (multiplexing)",
			   s->rp.n, s->core, nseen ? buf : "other threads");
}

/* ---- the unit ---------------------------------------------------------- */

/* Gives s's counters back to the core, keeping their counts. Core lock held. */
/* Keeps the core's masks of armed counters (the overflow search's list)
 * and of held ones per contributor (the scan's) after counter c's arming
 * or holder changed. */
static void note_armed(bgq_core *k, const bgq_ctr *c)
{
	uint32_t bit = 1u << (c - k->ctr);
	k->armed = c->ovf_period ? k->armed | bit : k->armed & ~bit;
	for (int t = 0; t < BGQ_TPC; t++)
		k->held[t] = c->set && (c->contrib >> t & 1) ? k->held[t] | bit
				: k->held[t] & ~bit;
}

static void release_locked(bgq_node *n, bgq_core *k, punit_set *s)
{
	if (!s->rp.acquired)
		return;
	int w = bgq_core_writing(k);
	for (int i = 0; i < s->rp.n; i++) {
		bgq_ctr *c = &k->ctr[s->ctr[i]];
		if (c->running) /* drain: exact */
			bgq_count_set(&c->acc, bgq_ctr_truth(n, s->core, c) - c->start);
		bgq_count_set(&s->val[i], c->acc);
		s->rp.at[i] = &s->val[i];
		memset(c, 0, sizeof *c);
		note_armed(k, c);
	}
	for (int g = 0; g < BGQ_TPC; g++)
		if (k->group[g] == s)
			k->group[g] = NULL;
	if (s->l1p && --k->l1p_users == 0)
		k->l1p_mode = -1;
	s->l1p = 0;
	s->rp.acquired = 0;
	bgq_core_written(k, w);
}

static int punit_program(void *unit, int hw, const clab_evreq *reqs, int n,
			 int flags, void *replace, void **out)
{
	punit *u = unit;
	bgq_node *node = u->node;
	punit_set *r = replace;
	if (hw < 0 || hw >= BGQ_HWTHREADS)
		return clab_seterr(CLAB_E_INVAL, "no hardware thread %d", hw);
	if (r && r->rp.acquired)
		return clab_seterr(CLAB_E_STATE, "cannot replan a set that holds counters");
	if (n > BGQ_CTRS)
		return clab_seterr(CLAB_E_CONFLICT,
				   "%d events, but a core has %d counters (multiplex to count more)",
				   n, BGQ_CTRS);
	int core = hw / BGQ_TPC, smt = hw % BGQ_TPC;
	bgq_core *k = &node->core[core];
	int ev[BGQ_CTRS] = {0};
	for (int i = 0; i < n; i++)
		ev[i] = (int)reqs[i].native;
	place p = {.k = k, .alone = 1, .smt = smt};
	uint8_t groups = 0;
	/* A replaced set's memory is reused. Allocated before the lock: a
	 * reader waiting for it may have interrupted malloc (docs/papi.md, "Reading
	 * from a signal handler") */
	punit_set *s = r ? r : calloc(1, sizeof *s);
	if (!s)
		return CLAB_E_NOMEM;
	/* so is the thread's scan plan, the first time */
	bgq_scan_plan *plan = NULL;
	if (!__atomic_load_n(&k->plan[smt], __ATOMIC_RELAXED) &&
	    !(plan = calloc(1, sizeof *plan))) {
		if (s != r)
			free(s);
		return CLAB_E_NOMEM;
	}
	bgq_lock_take(&k->lock);
	if (plan && !k->plan[smt]) {
		__atomic_store_n(&k->plan[smt], plan, __ATOMIC_RELAXED);
		plan = NULL;
	}
	if (flags & CLAB_PLAN_SHARE)
		for (int g = 0; g < BGQ_TPC; g++)
			if (g != smt && k->nsets[g] > 0)
				p.reserved |= (uint8_t)(1u << g);
	if (!fits(&p, ev, n, &groups)) {
		int rc = explain(&p, ev, n);
		bgq_lock_drop(&k->lock);
		if (s != r)
			free(s);
		free(plan);
		return rc;
	}
	if (r)
		node->core[r->core].nsets[r->smt]--; /* same core: one lock */
	memset(s, 0, sizeof *s);
	k->nsets[smt]++;
	s->rp.node = node;
	s->rp.hw = hw;
	s->core = core;
	s->smt = smt;
	s->rp.n = n;
	s->groups = groups;
	s->exclude = flags & (CLAB_PLAN_EXCLUDE_USER | CLAB_PLAN_EXCLUDE_KERNEL);
	for (int i = 0; i < n; i++) {
		s->ev[i] = ev[i];
		s->mask[i] = clab_evreq_qual(&reqs[i], BGQ_Q_MASK);
		s->ctr[i] = p.ctr[i];
		s->rp.at[i] = &s->val[i];
	}
	bgq_lock_drop(&k->lock);
	free(plan); /* another set's call installed one first */
	*out = s;
	return CLAB_OK;
}

static int punit_acquire(void *unit, void *set, void *replace)
{
	punit *u = unit;
	punit_set *s = set, *r = replace;
	bgq_core *k = &u->node->core[s->core];
	if (r && r->core != s->core)
		return clab_seterr(CLAB_E_INVAL, "acquire: the replaced set is on another core");
	bgq_lock_take(&k->lock);
	if (s->rp.acquired) {
		bgq_lock_drop(&k->lock);
		return CLAB_OK;
	}
	place p = {.k = k, .replace = r && r->rp.acquired ? r : NULL, .smt = s->smt};
	uint8_t groups = 0;
	if (!fits(&p, s->ev, s->rp.n, &groups)) {
		int rc = explain_held(&p, s);
		bgq_lock_drop(&k->lock);
		return rc;
	}
	int w = bgq_core_writing(k);
	if (r)
		release_locked(u->node, k, r);
	s->groups = groups;
	for (int g = 0; g < BGQ_TPC; g++)
		if (groups & (1u << g))
			k->group[g] = s;
	for (int i = 0; i < s->rp.n; i++) {
		bgq_ctr *c = &k->ctr[p.ctr[i]];
		s->ctr[i] = p.ctr[i];
		memset(c, 0, sizeof *c);
		c->set = s;
		c->nterm = bgq_terms_for(s->ev[i], s->mask[i], c->term, c->weight);
		c->contrib = bgq_punit_natives[s->ev[i]].scope == CLAB_SCOPE_THREAD
			     ? (uint8_t)(1u << s->smt) : 0xf;
		c->owner = s->rp.hw;
		c->exclude = s->exclude;
		bgq_count_set(&c->acc, s->val[i]);
		c->ovf_period = c->ovf_next = s->ovf_period[i];
		c->ovf_cookie = s->ovf_cookie;
		c->ovf_req = i;
		s->rp.at[i] = &c->acc;
		note_armed(k, c);
		int src = bgq_punit_attr[s->ev[i]].src;
		if (is_l1p_mode(src) && !s->l1p) {
			s->l1p = 1;
			k->l1p_mode = src;
			k->l1p_users++;
		}
	}
	s->rp.acquired = 1;
	bgq_core_written(k, w);
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

static void punit_release(void *unit, void *set)
{
	punit *u = unit;
	punit_set *s = set;
	bgq_core *k = &u->node->core[s->core];
	bgq_lock_take(&k->lock);
	release_locked(u->node, k, s);
	bgq_lock_drop(&k->lock);
}

static void punit_discard(void *unit, void *set)
{
	punit *u = unit;
	punit_set *s = set;
	if (!s)
		return;
	bgq_core *k = &u->node->core[s->core];
	bgq_lock_take(&k->lock);
	release_locked(u->node, k, s);
	k->nsets[s->smt]--;
	bgq_lock_drop(&k->lock);
	free(s);
}

static void zero_locked(bgq_node *n, punit_set *s, int run)
{
	bgq_core *k = &n->core[s->core];
	int w = bgq_core_writing(k);
	for (int i = 0; i < s->rp.n; i++) {
		bgq_ctr *c = &k->ctr[s->ctr[i]];
		c->start = bgq_ctr_truth(n, s->core, c);
		bgq_count_set(&c->acc, 0);
		c->ovf_next = c->ovf_period;
		c->ovf_hit = 0;
		c->ovf_fire = 0;
		if (run >= 0) {
			c->running = run;
			c->frozen = 0;
		}
	}
	bgq_core_written(k, w);
}

static int punit_start(void *unit, void *set)
{
	punit *u = unit;
	punit_set *s = set;
	bgq_core *k = &u->node->core[s->core];
	bgq_lock_take(&k->lock);
	if (!s->rp.acquired) {
		bgq_lock_drop(&k->lock);
		return clab_seterr(CLAB_E_STATE, "start: the set holds no counters (acquire first)");
	}
	bgq_node_sync(u->node, s->rp.hw, 0);
	/* activity = host or emulated: a thread its source cannot count (the
	 * emulator's slots all taken) would read zeros; say why instead */
	if (u->node->follow_host && !u->node->hwt[s->rp.hw].hs) {
		clab_host_sampler *hs = NULL;
		int rc = clab_host_sampler_open(u->node->emulated, u->node->fp_event, &hs);
		clab_host_sampler_close(hs);
		if (rc) {
			bgq_lock_drop(&k->lock);
			return rc;
		}
	}
	zero_locked(u->node, s, 1);
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

static int punit_reset(void *unit, void *set)
{
	punit *u = unit;
	punit_set *s = set;
	bgq_core *k = &u->node->core[s->core];
	bgq_lock_take(&k->lock);
	if (s->rp.acquired) {
		bgq_node_sync(u->node, s->rp.hw, 0);
		zero_locked(u->node, s, -1);
	}
	int w = bgq_core_writing(k);
	for (int i = 0; i < BGQ_CTRS; i++)
		bgq_count_set(&s->val[i], 0);
	bgq_core_written(k, w);
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

/* Stopping drains the hardware counters into UPC_C: final counts are exact. */
static int punit_stop(void *unit, void *set)
{
	punit *u = unit;
	punit_set *s = set;
	bgq_core *k = &u->node->core[s->core];
	bgq_lock_take(&k->lock);
	if (!s->rp.acquired) {
		bgq_lock_drop(&k->lock);
		return CLAB_OK;
	}
	bgq_node_sync(u->node, s->rp.hw, 0);
	int w = bgq_core_writing(k);
	for (int i = 0; i < s->rp.n; i++) {
		bgq_ctr *c = &k->ctr[s->ctr[i]];
		if (c->running)
			bgq_count_set(&c->acc, bgq_ctr_truth(u->node, s->core, c) - c->start);
		c->running = 0;
		c->frozen = 0;
		bgq_count_set(&s->val[i], c->acc);
	}
	bgq_core_written(k, w);
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

/* Fast overflow: the counter interrupts BGQ_OVF_LATENCY cycles after it
 * crosses its threshold, and the set's counters freeze until the handler
 * returns (overflow.c finds the crossings as time moves). The arming is the
 * set's; its counters get it when acquired. */
static int punit_overflow(void *unit, void *set, int i, uint64_t period,
			  void *cookie)
{
	punit *u = unit;
	punit_set *s = set;
	bgq_core *k = &u->node->core[s->core];
	bgq_lock_take(&k->lock);
	s->ovf_period[i] = period;
	s->ovf_cookie = cookie;
	if (s->rp.acquired) {
		bgq_ctr *c = &k->ctr[s->ctr[i]];
		c->ovf_period = period;
		c->ovf_next = period;
		c->ovf_cookie = cookie;
		c->ovf_req = i;
		c->ovf_hit = 0;
		c->ovf_fire = 0;
		note_armed(k, c);
	}
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

static int punit_handler(void *unit, void *set, int on)
{
	punit *u = unit;
	punit_set *s = set;
	bgq_core *k = &u->node->core[s->core];
	bgq_lock_take(&k->lock);
	for (int i = 0; i < s->rp.n && s->rp.acquired; i++) {
		bgq_ctr *c = &k->ctr[s->ctr[i]];
		if (on) {
			bgq_ctr_freeze(u->node, s->core, c);
			continue;
		}
		bgq_ctr_thaw(u->node, s->core, c);
		if (c->ovf_hit) {
			c->ovf_next = c->acc + c->ovf_period;
			c->ovf_hit = 0;
			c->ovf_fire = 0;
		}
	}
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

/* Multiplexing reads groups at their switch: no time passes here. */
static int punit_peek(void *unit, void *set, uint64_t *vals)
{
	punit *u = unit;
	punit_set *s = set;
	bgq_core *k = &u->node->core[s->core];
	bgq_lock_take(&k->lock);
	for (int i = 0; i < s->rp.n; i++)
		vals[i] = *s->rp.at[i];
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

static uint64_t punit_counters(void *unit, void *set, int i)
{
	(void)unit;
	punit_set *s = set;
	return i >= 0 && i < s->rp.n ? 1ull << s->ctr[i] : 0;
}

static int punit_open(clab_machine *m, const char *section, void **unit,
		      clab_unit_desc *d)
{
	(void)section;
	int err;
	bgq_node *node = bgq_node_get(m, &err);
	if (!node)
		return err;
	punit *u = calloc(1, sizeof *u);
	if (!u)
		return CLAB_E_NOMEM;
	u->node = node;
	*unit = u;
	*d = (clab_unit_desc){
		.description = "Blue Gene/Q processor unit (UPC_P), simulated: 24 counters per core",
		.rules = "Per core: 24 counters in four groups of six (counter c belongs to hardware thread c % 4); a set borrows its sibling's group, then all four. Each event lists the counters it may use.",
		.ncounters = BGQ_CTRS,
		.width = BGQ_HW_BITS,
		.scope = CLAB_SCOPE_CORE,
		.overflow = CLAB_OVF_FAST,
		.overflow_latency = BGQ_OVF_LATENCY,
		.can_multiplex = 1,
		.contexts = 1,
		.cycles_native = BGQ_EV_CYCLES,
		.clock_mhz = BGQ_MHZ,
		.natives = bgq_punit_natives,
		.nnative = BGQ_N_PUNIT,
		.quals = punit_quals,
		.nquals = 1,
	};
	return CLAB_OK;
}

static void punit_close(void *unit)
{
	free(unit);
}

const clab_unit_ops clab_bgq_punit_ops = {
	.name = "bgq-punit",
	.open = punit_open,
	.close = punit_close,
	.program = punit_program,
	.discard = punit_discard,
	.acquire = punit_acquire,
	.release = punit_release,
	.start = punit_start,
	.stop = punit_stop,
	.read = bgq_plan_read,
	.reader = bgq_plan_reader,
	.reset = punit_reset,
	.peek = punit_peek,
	.counters = punit_counters,
	.overflow = punit_overflow,
	.handler = punit_handler,
};
