/* The simulated BG/Q node: 17 cores x 4 hardware threads, each with its own
 * clock and activity, and the UPC_C scan that accumulates the 14-bit UPC_P
 * counters into 64-bit values every BGQ_SCAN cycles.
 *
 * Activity: every primary event (a non-opcode event, or one opcode class)
 * has a rate from the thread's activity profile, or a count from explicit
 * work; opcode-group events, PEVT_INST_ALL and the FP-operation events are
 * weighted sums of classes, so a group always equals the sum of its
 * members. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "bgq.h"

#define HW_MASK ((1u << BGQ_HW_BITS) - 1)
#define XU_CLASSES 0x0ffffff8u
#define AXU_CLASSES 0x003ffffeu

static int is_class(int e)
{
	const bgq_attr *a = &bgq_punit_attr[e];
	uint32_t m = a->src == BGQ_SRC_OP_XU ? XU_CLASSES
		   : a->src == BGQ_SRC_OP_AXU ? AXU_CLASSES : 0;
	return m && (a->sel & m) && !(a->sel & (a->sel - 1));
}

/* Primary events carry their own rate; the rest are sums of classes. */
static int is_primary(int e)
{
	const bgq_attr *a = &bgq_punit_attr[e];
	if (e == BGQ_EV_CYCLES)
		return 1;
	switch (a->src) {
	case BGQ_SRC_OP_FP_OPS: case BGQ_SRC_OP_FP_INSTR: case BGQ_SRC_OP_ALL:
		return 0;
	case BGQ_SRC_OP_XU: case BGQ_SRC_OP_AXU:
		/* the MATCH events are primaries; masks of several classes not */
		return is_class(e) || (a->sel && !(a->sel & (a->sel - 1)));
	default:
		return 1;
	}
}

/* Floating-point operations per instruction of an AXU class: fused
 * multiply-add does two, quad (4-wide) instructions four times as many. */
static uint8_t flops(int e)
{
	const char *n = bgq_punit_natives[e].name + strlen("PEVT_INST_QFPU_");
	int quad = n[0] == 'Q';
	int fma = strcmp(n + 1, "MA") == 0;
	return (uint8_t)((quad ? 4 : 1) * (fma ? 2 : 1));
}

static int add_classes(uint8_t src, uint32_t mask, int weighted, uint16_t *term,
		       uint8_t *weight, int n)
{
	for (int e = 0; e < BGQ_N_PUNIT; e++)
		if (is_class(e) && bgq_punit_attr[e].src == src &&
		    (bgq_punit_attr[e].sel & mask)) {
			term[n] = (uint16_t)e;
			weight[n++] = weighted ? flops(e) : 1;
		}
	return n;
}

int bgq_terms_for(int ev, uint64_t mask, uint16_t *term, uint8_t *weight)
{
	const bgq_attr *a = &bgq_punit_attr[ev];
	uint32_t sel = a->sel;
	if (is_primary(ev)) {
		term[0] = (uint16_t)ev;
		weight[0] = 1;
		return 1;
	}
	if (bgq_punit_natives[ev].quals & (1u << BGQ_Q_MASK))
		sel = (uint32_t)mask; /* the *_GRP_MASK events */
	switch (a->src) {
	case BGQ_SRC_OP_XU: return add_classes(BGQ_SRC_OP_XU, sel, 0, term, weight, 0);
	case BGQ_SRC_OP_AXU: return add_classes(BGQ_SRC_OP_AXU, sel, 0, term, weight, 0);
	case BGQ_SRC_OP_FP_OPS: return add_classes(BGQ_SRC_OP_AXU, sel, 1, term, weight, 0);
	case BGQ_SRC_OP_FP_INSTR: return add_classes(BGQ_SRC_OP_AXU, sel, 0, term, weight, 0);
	default: { /* OP_ALL: every completed instruction */
		int n = add_classes(BGQ_SRC_OP_XU, XU_CLASSES, 0, term, weight, 0);
		return add_classes(BGQ_SRC_OP_AXU, AXU_CLASSES, 0, term, weight, n);
	}
	}
}

/* ---- activity profiles ------------------------------------------------- */

/* ---- node events ------------------------------------------------------- */

/* Hardware counter indices (l2_ctr_idx in data/bgq_events.csv) and CNK
 * per-thread counter numbers the model gives a meaning to. */
enum { L2C_HITS = 0, L2C_MISSES = 1, L2C_PREFETCH = 2, L2C_FETCH_LINE = 3,
       L2C_REQ_MISS_AND_EVICT = 8, L2C_MISS_AND_EVICT = 10 };
enum { CNKHWT_DECREMENTER = 3, CNKHWT_FIT = 4, CNKHWT_PERFMON = 7 };

/* L2 misses are some of the lookups, the L1p misses: they are counted as
 * lookups happen, `miss` of every `look` (the rates or counts of the piece
 * of activity or work they came in), so that hits = lookups - misses only
 * grows. Counted apart, each rounded down on its own, a miss could land
 * before its lookup and hits go back by one. */
#define NEV_MISS (BGQ_NEV_L2 + L2C_MISSES)

static uint64_t misses_of(uint64_t lookups, uint64_t miss, uint64_t look)
{
	return look ? (uint64_t)((unsigned __int128)lookups * miss / look) : 0;
}

static const clab_native *nev_native(int nev)
{
	if (nev < BGQ_NEV_L2)
		return &bgq_punit_natives[nev];
	if (nev < BGQ_NEV_IO) /* the combined events come first, in counter order */
		return &bgq_l2unit_natives[nev - BGQ_NEV_L2];
	if (nev < BGQ_NEV_CNK)
		return &bgq_iounit_natives[nev - BGQ_NEV_IO];
	return &bgq_cnkunit_natives[nev - BGQ_NEV_CNK];
}

static const bgq_attr *nev_attr(int nev)
{
	if (nev < BGQ_NEV_L2)
		return &bgq_punit_attr[nev];
	if (nev < BGQ_NEV_IO)
		return &bgq_l2unit_attr[nev - BGQ_NEV_L2];
	if (nev < BGQ_NEV_CNK)
		return &bgq_iounit_attr[nev - BGQ_NEV_IO];
	return &bgq_cnkunit_attr[nev - BGQ_NEV_CNK];
}

const char *bgq_nev_name(int nev) { return nev_native(nev)->name; }

int bgq_nev_of(enum bgq_unit unit, int ev)
{
	switch (unit) {
	case BGQ_UNIT_L2: /* combined and _SLICE events share counters */
		return BGQ_NEV_L2 + (int)bgq_l2unit_attr[ev].sel;
	case BGQ_UNIT_IO:
		return BGQ_NEV_IO + ev;
	case BGQ_UNIT_CNK:
		return BGQ_NEV_CNK + ev;
	default:
		return ev;
	}
}

enum bgq_feed bgq_nev_feed(int nev)
{
	const bgq_attr *a = nev_attr(nev);
	if (nev < BGQ_NEV_L2)
		return is_primary(nev) ? BGQ_FEED_RATE : BGQ_FEED_DERIVED;
	switch (a->src) {
	case BGQ_SRC_L2:
		switch (a->sel) {
		case L2C_HITS: case L2C_FETCH_LINE: case L2C_REQ_MISS_AND_EVICT:
		case L2C_MISS_AND_EVICT:
			return BGQ_FEED_DERIVED;
		default:
			return BGQ_FEED_RATE;
		}
	case BGQ_SRC_MU:
		return BGQ_FEED_MESSAGE;
	case BGQ_SRC_PCIE: case BGQ_SRC_DEVBUS:
		return BGQ_FEED_NONE;
	case BGQ_SRC_CNKHWT:
		if (a->sel == CNKHWT_FIT || a->sel == CNKHWT_DECREMENTER)
			return BGQ_FEED_CLOCK;
		if (a->sel == CNKHWT_PERFMON)
			return BGQ_FEED_OVERFLOW;
		return BGQ_FEED_RATE;
	default:
		return BGQ_FEED_RATE;
	}
}

/* Why a profile or work may not give node event nev a count (NULL: it may). */
static const char *feed_reason(int nev)
{
	if (nev == BGQ_EV_CYCLES)
		return "cycles pass with time";
	switch (bgq_nev_feed(nev)) {
	case BGQ_FEED_RATE:
		return NULL;
	case BGQ_FEED_DERIVED:
		return nev < BGQ_NEV_L2
		       ? "follows from other events (give the single opcode classes)"
		       : "follows from the L1p misses and L2 misses and prefetches";
	case BGQ_FEED_MESSAGE:
		return "follows from message traffic (clab_sim_message)";
	case BGQ_FEED_CLOCK:
		return "follows from the kernel timer periods ([kernel] fit_period, dec_period)";
	case BGQ_FEED_OVERFLOW:
		return "follows from performance-monitor interrupts (counter overflows)";
	default:
		return "is idle on a compute node (PCIe and DevBus serve I/O nodes)";
	}
}

static int find_event(const char *name)
{
	for (int e = 0; e < BGQ_N_NEV; e++)
		if (strcasecmp(nev_native(e)->name, name) == 0)
			return e;
	return -1;
}

/* The A2 core completes at most one XU and one AXU instruction per cycle per
 * thread, and a signal event fires at most once per cycle: with that, no
 * counter can move by 2^14 within one scan interval, so none ever wraps
 * unseen. */
static int check_rates(const uint64_t *ppm_or_count, uint64_t per,
		       const char *what)
{
	uint64_t xu = 0, axu = 0;
	for (int e = 0; e < BGQ_N_NEV; e++) {
		if (e == BGQ_EV_CYCLES)
			continue;
		if (ppm_or_count[e] > per)
			return clab_seterr(CLAB_E_RATE,
					   "%s: %s happens more than once per cycle",
					   what, bgq_nev_name(e));
		if (e < BGQ_NEV_L2 && is_class(e) && bgq_punit_attr[e].src == BGQ_SRC_OP_XU)
			xu += ppm_or_count[e];
		if (e < BGQ_NEV_L2 && is_class(e) && bgq_punit_attr[e].src == BGQ_SRC_OP_AXU)
			axu += ppm_or_count[e];
	}
	if (xu > per || axu > per)
		return clab_seterr(CLAB_E_RATE,
				   "%s: more than one %s instruction per cycle (the A2 completes at most one)",
				   what, xu > per ? "XU" : "AXU");
	/* L2 sees only the loads the L1 prefetcher could not serve */
	if (ppm_or_count[BGQ_NEV_L2 + L2C_MISSES] > ppm_or_count[BGQ_EV_L1P_MISS])
		return clab_seterr(CLAB_E_RATE,
				   "%s: more L2 misses (%s) than L1p misses reaching L2 (%s)",
				   what, bgq_nev_name(BGQ_NEV_L2 + L2C_MISSES),
				   bgq_nev_name(BGQ_EV_L1P_MISS));
	return CLAB_OK;
}

static void profile_free(bgq_profile *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->cycles);
	free(p->ppm);
	free(p->prefix);
	free(p);
}

static int profile_resolve(const clab_activity *a, const char *name,
			   bgq_profile **out)
{
	bgq_profile *p = calloc(1, sizeof *p);
	int np = a->nphase, rc = CLAB_OK;
	if (!p || !(p->name = strdup(name)) ||
	    !(p->cycles = calloc((size_t)np, sizeof *p->cycles)) ||
	    !(p->ppm = calloc((size_t)np * BGQ_N_NEV, sizeof *p->ppm)) ||
	    !(p->prefix = calloc((size_t)(np + 1) * BGQ_N_NEV, sizeof *p->prefix))) {
		profile_free(p);
		return CLAB_E_NOMEM;
	}
	p->nphase = np;
	p->period = a->period;
	for (int ph = 0; ph < np && !rc; ph++) {
		uint64_t *ppm = p->ppm + (size_t)ph * BGQ_N_NEV;
		p->cycles[ph] = a->phase[ph].cycles;
		for (int r = 0; r < a->phase[ph].nrate && !rc; r++) {
			const clab_rate *rt = &a->phase[ph].rate[r];
			int e = find_event(rt->event);
			if (e < 0)
				rc = clab_seterr(CLAB_E_ACTIVITY,
						 "%s: phase %s: unknown BG/Q event '%s'",
						 name, a->phase[ph].name, rt->event);
			else if (feed_reason(e))
				rc = clab_seterr(CLAB_E_ACTIVITY,
						 "%s: phase %s: %s %s",
						 name, a->phase[ph].name, rt->event,
						 feed_reason(e));
			else
				ppm[e] = rt->ppm;
		}
		ppm[BGQ_EV_CYCLES] = CLAB_PPM;
		if (!rc) {
			char what[256];
			snprintf(what, sizeof what, "%s: phase %s", name, a->phase[ph].name);
			rc = check_rates(ppm, CLAB_PPM, what);
		}
		uint64_t *pre = p->prefix + (size_t)ph * BGQ_N_NEV;
		for (int e = 0; e < BGQ_N_NEV; e++)
			pre[BGQ_N_NEV + e] = pre[e] + clab_rate_count(ppm[e], p->cycles[ph]);
		pre[BGQ_N_NEV + NEV_MISS] =
			pre[NEV_MISS] + misses_of(pre[BGQ_N_NEV + BGQ_EV_L1P_MISS] - pre[BGQ_EV_L1P_MISS],
						  ppm[NEV_MISS], ppm[BGQ_EV_L1P_MISS]);
	}
	int sys = find_event("PEVT_CNKHWT_SYSCALL");
	if (!rc && sys >= 0)
		p->sys_ppb = p->period
			? (uint64_t)((unsigned __int128)p->prefix[(size_t)np * BGQ_N_NEV + (size_t)sys] *
				     1000000000u / p->period)
			: p->ppm[sys] * 1000;
	if (rc)
		profile_free(p);
	else
		*out = p;
	return rc;
}

/* Profiles are loaded once per node and shared by its threads. */
static int profile_get(bgq_node *n, const char *name, const bgq_profile **out)
{
	int rc = CLAB_OK;
	pthread_mutex_lock(&n->prof_lock);
	for (int i = 0; i < n->nprof; i++)
		if (strcmp(n->profs[i]->name, name) == 0) {
			*out = n->profs[i];
			goto out;
		}
	char *path = clab_machine_file(n->m, "activity", name, ".ini");
	clab_activity *a = NULL;
	bgq_profile *p = NULL;
	bgq_profile **grown = realloc(n->profs, (size_t)(n->nprof + 1) * sizeof *grown);
	if (!path || !grown) {
		free(path);
		rc = CLAB_E_NOMEM;
		goto out;
	}
	n->profs = grown;
	rc = clab_activity_load(path, &a);
	if (!rc)
		rc = profile_resolve(a, name, &p);
	clab_activity_free(a);
	free(path);
	if (!rc)
		*out = n->profs[n->nprof++] = p;
out:
	pthread_mutex_unlock(&n->prof_lock);
	return rc;
}

/* Where `act` cycles of profile p end: completed laps, phase, offset. */
typedef struct prof_pos {
	const bgq_profile *p;
	uint64_t laps, r;
	int ph;
} prof_pos;

static prof_pos profile_pos(const bgq_profile *p, uint64_t act)
{
	prof_pos pos = {p, 0, act, 0};
	if (p && p->period) {
		pos.laps = act / p->period;
		pos.r = act % p->period;
		while (pos.ph < p->nphase - 1 && pos.r >= p->cycles[pos.ph])
			pos.r -= p->cycles[pos.ph++];
	}
	return pos;
}

/* Count of primary e at position pos of its profile. */
static uint64_t profile_count_at(const prof_pos *pos, int e)
{
	const bgq_profile *p = pos->p;
	if (!p) /* a thread without a profile idles: only cycles pass */
		return e == BGQ_EV_CYCLES ? pos->r : 0;
	size_t row = (size_t)pos->ph * BGQ_N_NEV + (size_t)e;
	uint64_t c = clab_rate_count(p->ppm[row], pos->r);
	if (p->period == 0)
		return c;
	return pos->laps * p->prefix[(size_t)p->nphase * BGQ_N_NEV + (size_t)e] +
	       p->prefix[row] + c;
}

/* The L2 misses of position pos of a profile (misses_of). */
static uint64_t miss_count_at(const prof_pos *pos)
{
	const bgq_profile *p = pos->p;
	if (!p)
		return 0;
	size_t row = (size_t)pos->ph * BGQ_N_NEV;
	uint64_t c = misses_of(clab_rate_count(p->ppm[row + BGQ_EV_L1P_MISS], pos->r),
			       p->ppm[row + NEV_MISS], p->ppm[row + BGQ_EV_L1P_MISS]);
	if (p->period == 0)
		return c;
	return pos->laps * p->prefix[(size_t)p->nphase * BGQ_N_NEV + NEV_MISS] +
	       p->prefix[row + NEV_MISS] + c;
}

/* What el of len cycles of a work segment of counts c[] did of e. */
static uint64_t work_part(const uint64_t *c, int e, uint64_t el, uint64_t len)
{
	uint64_t v = (uint64_t)((unsigned __int128)c[e == NEV_MISS ? BGQ_EV_L1P_MISS : e] * el / len);
	return e == NEV_MISS ? misses_of(v, c[e], c[BGQ_EV_L1P_MISS]) : v;
}

/* Count of primary e of thread t at position pos of its profile, its
 * clock standing at `now` (not the L2 misses: miss_truth_at). */
static uint64_t prim_truth_at(const bgq_hwt *t, const prof_pos *pos, int e,
			      uint64_t now)
{
	uint64_t v = profile_count_at(pos, e) + t->work[e];
	if (t->wcount)
		v += (uint64_t)((unsigned __int128)t->wcount[e] * (now - t->w0) / t->wlen);
	return v;
}

static uint64_t miss_truth_at(const bgq_hwt *t, const prof_pos *pos, uint64_t now)
{
	uint64_t v = miss_count_at(pos) + t->work[NEV_MISS];
	if (t->wcount)
		v += work_part(t->wcount, NEV_MISS, now - t->w0, t->wlen);
	return v;
}

/* Where thread t's profile would stand with its clock at `at` (in_work:
 * within its work segment, whose cycles do not run the profile). */
static prof_pos pos_at(const bgq_hwt *t, uint64_t at, int in_work)
{
	return profile_pos(t->prof, in_work ? t->act : t->act + (at - t->now));
}

/* Thread truth of node event nev at pos (PUnit opcode groups excepted:
 * the PUnit counts those through bgq_terms_for). */
static uint64_t nev_truth_at(const bgq_hwt *t, const prof_pos *pos, int nev,
			     uint64_t now)
{
	if (nev >= BGQ_NEV_CNK && bgq_nev_feed(nev) == BGQ_FEED_OVERFLOW)
		return __atomic_load_n(&t->perfmon, __ATOMIC_RELAXED);
	if (nev == NEV_MISS)
		return miss_truth_at(t, pos, now);
	if (nev < BGQ_NEV_L2 || nev >= BGQ_NEV_IO ||
	    bgq_nev_feed(nev) != BGQ_FEED_DERIVED)
		return prim_truth_at(t, pos, nev, now);
	uint64_t miss = miss_truth_at(t, pos, now);
	switch (nev - BGQ_NEV_L2) {
	case L2C_HITS: /* every load the L1p could not serve is looked up */
		return prim_truth_at(t, pos, BGQ_EV_L1P_MISS, now) - miss;
	case L2C_REQ_MISS_AND_EVICT: /* a full cache evicts on every miss */
		return miss;
	default: /* FETCH_LINE, MISS_AND_EVICT: demand misses and prefetches */
		return miss + prim_truth_at(t, pos, BGQ_NEV_L2 + L2C_PREFETCH, now);
	}
}

/* ---- contexts -----------------------------------------------------------
 * The CNK runs on the thread's own cycles: every system call (at the
 * profile's rate) and every FIT or decrementer interrupt costs it a fixed
 * number of cycles ([kernel] syscall_cycles, irq_cycles). That sets the
 * kernel's share of the thread's time, and the model gives the kernel the
 * same share of every count: kernel code is taken to have the program's
 * event mix (an approximation; README "Processor contexts"). */

#define PPB 1000000000u

static uint64_t kernel_ppb(const bgq_node *n, const bgq_profile *p)
{
	unsigned __int128 k = 0;
	if (p)
		k += (unsigned __int128)p->sys_ppb * n->sys_cycles;
	if (n->fit_period)
		k += (unsigned __int128)PPB * n->irq_cycles / n->fit_period;
	if (n->dec_period)
		k += (unsigned __int128)PPB * n->irq_cycles / n->dec_period;
	return k > PPB ? PPB : (uint64_t)k;
}

/* The kernel's part of count v of primary e of thread t. */
static uint64_t kernel_part(const bgq_hwt *t, int e, uint64_t v)
{
	uint64_t k = 0;
	if (t->kbank) {
		k = t->kbank[e];
		v -= t->kbank[BGQ_N_NEV + e];
	}
	return k + (uint64_t)((unsigned __int128)v * t->kppb / PPB);
}

/* v of primary e of thread t in the contexts a counter counts. */
static uint64_t in_context(const bgq_hwt *t, int e, uint64_t v, int exclude)
{
	if (!exclude)
		return v;
	if (exclude == (CLAB_PLAN_EXCLUDE_USER | CLAB_PLAN_EXCLUDE_KERNEL))
		return 0;
	uint64_t k = kernel_part(t, e, v);
	return exclude & CLAB_PLAN_EXCLUDE_USER ? k : v - k;
}

/* Every change of a thread's counts happens under its core lock and ends
 * here. */
static void changed(bgq_node *n, int h)
{
	__atomic_fetch_add(&n->version[h], 1, __ATOMIC_RELEASE);
	__atomic_fetch_or(&n->live[h / 64], 1ull << (h % 64), __ATOMIC_RELAXED);
}

int bgq_sum_init(bgq_sum *s, const int *nev, int k, int only)
{
	memset(s, 0, sizeof *s);
	s->val = calloc((size_t)BGQ_HWTHREADS * (size_t)(k ? k : 1), sizeof *s->val);
	if (!s->val)
		return CLAB_E_NOMEM;
	s->k = k;
	s->only = only;
	memcpy(s->nev, nev, (size_t)k * sizeof *nev);
	memset(s->seen, 0xff, sizeof s->seen); /* no version yet */
	return CLAB_OK;
}

void bgq_sum_free(bgq_sum *s)
{
	free(s->val);
	s->val = NULL;
}

void bgq_node_sum(bgq_node *n, bgq_sum *s)
{
	for (int w = 0; w < 2; w++) {
		uint64_t bits = __atomic_load_n(&n->live[w], __ATOMIC_RELAXED);
		if (s->only >= 0)
			bits &= s->only / 64 == w ? 1ull << (s->only % 64) : 0;
		for (; bits; bits &= bits - 1) {
			int h = w * 64 + __builtin_ctzll(bits);
			if (__atomic_load_n(&n->version[h], __ATOMIC_ACQUIRE) == s->seen[h])
				continue;
			bgq_core *k = &n->core[h / BGQ_TPC];
			pthread_mutex_lock(&k->lock);
			const bgq_hwt *t = &n->hwt[h];
			prof_pos pos = profile_pos(t->prof, t->act);
			uint64_t *v = s->val + (size_t)h * (size_t)s->k;
			for (int i = 0; i < s->k; i++) {
				/* another thread may sum the same set: its threads
				 * take turns per h (the core lock), the totals
				 * add atomically */
				uint64_t x = nev_truth_at(t, &pos, s->nev[i], t->now);
				__atomic_fetch_add(&s->total[i], x - v[i], __ATOMIC_RELAXED);
				__atomic_store_n(&v[i], x, __ATOMIC_RELAXED);
			}
			s->seen[h] = n->version[h];
			pthread_mutex_unlock(&k->lock);
		}
	}
}

/* Counter c's truth with thread h's clock at `at` (h < 0: as things are). */
static uint64_t ctr_truth_at(const bgq_node *n, int core, const bgq_ctr *c,
			     int h, uint64_t at, int in_work)
{
	uint64_t v = 0;
	for (int s = 0; s < BGQ_TPC; s++)
		if (c->contrib & (1u << s)) {
			int g = core * BGQ_TPC + s;
			const bgq_hwt *t = &n->hwt[g];
			uint64_t now = g == h ? at : t->now;
			prof_pos pos = g == h ? pos_at(t, at, in_work)
					      : profile_pos(t->prof, t->act);
			for (int k = 0; k < c->nterm; k++)
				v += c->weight[k] *
				     in_context(t, c->term[k],
						prim_truth_at(t, &pos, c->term[k], now),
						c->exclude);
		}
	return v;
}

uint64_t bgq_ctr_truth(const bgq_node *n, int core, const bgq_ctr *c)
{
	return ctr_truth_at(n, core, c, -1, 0, 0);
}

/* ---- time -------------------------------------------------------------- */

/* The UPC_C scan adds the 14-bit counter's movement since the last scan.
 * `skipped`: the scans between the previous one and this were not run one by
 * one; each would have added its interval's movement (less than 2^14, see
 * check_rates), so together they add the whole movement. */
static void scan(bgq_node *n, int core, bgq_ctr *c, int skipped)
{
	uint64_t v = bgq_ctr_truth(n, core, c) - c->start;
	if (skipped)
		c->acc = v; /* acc always equals v at the last scan */
	else
		c->acc += ((v & HW_MASK) - c->last14) & HW_MASK;
	c->last14 = v & HW_MASK;
}

static void scan_all(bgq_node *n, int core, unsigned smt, int skipped)
{
	bgq_core *k = &n->core[core];
	for (int i = 0; i < BGQ_CTRS; i++)
		if (k->ctr[i].running && (k->ctr[i].contrib & (1u << smt)))
			scan(n, core, &k->ctr[i], skipped);
}

/* Moves thread h's clock to `to`, running the scan at the core's last scan
 * point on the way. When several scan points passed, the ones before the
 * last follow in closed form: with the rate limits above each would have
 * added exactly the counter's movement. */
static void move_to(bgq_node *n, int h, uint64_t to, int in_work)
{
	bgq_hwt *t = &n->hwt[h];
	int core = h / BGQ_TPC;
	unsigned smt = (unsigned)(h % BGQ_TPC);
	uint64_t ph = n->core[core].phase;
	uint64_t from = t->now;
	/* first scan point after `from`, last one not after `to` */
	uint64_t first = from + 1 + (BGQ_SCAN + ph - (from + 1) % BGQ_SCAN) % BGQ_SCAN;
	uint64_t last = to >= ph ? to - (to - ph) % BGQ_SCAN : 0;
	if (to >= ph && first <= last) {
		if (!in_work)
			t->act += last - t->now;
		t->now = last;
		scan_all(n, core, smt, last > first);
	}
	if (!in_work)
		t->act += to - t->now;
	t->now = to;
	if (to != from)
		changed(n, h);
}

/* ---- overflow ---------------------------------------------------------- */

#define NONE UINT64_MAX

/* First cycle in (from, to] at which thread h's part of a count reaches
 * goal (counts only grow with time): `from` when it already has, NONE when
 * it does not by `to`. */
typedef struct reach {
	const bgq_node *n;
	int h, in_work;
	const bgq_ctr *c; /* a PUnit counter of h's core, or */
	int nev;          /* a node event of h */
} reach;

static uint64_t reach_value(const reach *r, uint64_t at)
{
	const bgq_hwt *t = &r->n->hwt[r->h];
	if (r->c)
		return ctr_truth_at(r->n, r->h / BGQ_TPC, r->c, r->h, at, r->in_work);
	prof_pos pos = pos_at(t, at, r->in_work);
	return nev_truth_at(t, &pos, r->nev, at);
}

static uint64_t first_reach(const reach *r, uint64_t from, uint64_t to,
			    uint64_t goal)
{
	if (reach_value(r, from) >= goal)
		return from;
	if (reach_value(r, to) < goal)
		return NONE;
	uint64_t lo = from, hi = to; /* value(lo) < goal <= value(hi) */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (reach_value(r, mid) >= goal)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Slow units see a crossing on their next accumulation scan. */
static uint64_t scan_after(uint64_t tc)
{
	return (tc + BGQ_SCAN - 1) / BGQ_SCAN * BGQ_SCAN;
}

static uint64_t slow_others(const bgq_slow *e, int h)
{
	uint64_t v = 0;
	for (int g = 0; g < BGQ_HWTHREADS; g++)
		if (g != h)
			v += e->part[g];
	return v;
}

/* The first overflow interrupt while thread h moves to `to` (NONE: none
 * by then). The crossings that happen by the move's end are noted, with
 * their interrupt time. Core lock of h held. */
static uint64_t next_interrupt(bgq_node *n, int h, uint64_t to, int in_work)
{
	bgq_hwt *t = &n->hwt[h];
	bgq_core *k = &n->core[h / BGQ_TPC];
	unsigned smt = (unsigned)(h % BGQ_TPC);
	uint64_t when = NONE, tc[BGQ_CTRS], stc[BGQ_SLOW_MAX];
	for (int i = 0; i < BGQ_CTRS; i++) {
		bgq_ctr *c = &k->ctr[i];
		tc[i] = NONE;
		if (!c->ovf_period || c->ovf_hit || !c->running ||
		    !(c->contrib & (1u << smt)))
			continue;
		if (c->ovf_fire) {
			when = c->ovf_fire < when ? c->ovf_fire : when;
			continue;
		}
		reach r = {n, h, in_work, c, 0};
		tc[i] = first_reach(&r, t->now, to, c->start + c->ovf_next);
		if (tc[i] != NONE && tc[i] + BGQ_OVF_LATENCY < when)
			when = tc[i] + BGQ_OVF_LATENCY;
	}
	int nslow = __atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE);
	if (nslow)
		pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; nslow && j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		stc[j] = NONE;
		if (!e->set || !e->running || e->hit)
			continue;
		if (e->detect) {
			when = e->detect < when ? e->detect : when;
			continue;
		}
		uint64_t others = slow_others(e, h);
		reach r = {n, h, in_work, NULL, e->nev};
		stc[j] = e->next <= others ? t->now
			 : first_reach(&r, t->now, to, e->next - others);
		if (stc[j] != NONE && scan_after(stc[j]) < when)
			when = scan_after(stc[j]);
	}
	uint64_t end = when < to ? when : to;
	for (int i = 0; i < BGQ_CTRS; i++)
		if (tc[i] <= end)
			k->ctr[i].ovf_fire = tc[i] + BGQ_OVF_LATENCY;
	for (int j = 0; nslow && j < BGQ_SLOW_MAX; j++)
		if (n->slow[j].set && stc[j] <= end)
			n->slow[j].detect = scan_after(stc[j]);
	if (nslow)
		pthread_mutex_unlock(&n->slow_lock);
	return when;
}

static void perfmon(bgq_node *n, int hw)
{
	__atomic_fetch_add(&n->hwt[hw].perfmon, 1, __ATOMIC_RELAXED);
	changed(n, hw);
}

void bgq_ctr_freeze(bgq_node *n, int core, bgq_ctr *c)
{
	if (!c->running)
		return;
	c->acc = bgq_ctr_truth(n, core, c) - c->start; /* drained: exact */
	c->running = 0;
	c->frozen = 1;
}

void bgq_ctr_thaw(bgq_node *n, int core, bgq_ctr *c)
{
	if (!c->frozen)
		return;
	c->start = bgq_ctr_truth(n, core, c) - c->acc;
	c->last14 = c->acc & HW_MASK;
	c->running = 1;
	c->frozen = 0;
}

/* Interrupts due at thread h's cycle `at`: a PUnit set freezes and reports
 * every armed counter past its threshold; a slow counter reports alone.
 * Returns whether any fired. Core lock of h held. */
static int fire(bgq_node *n, int h, uint64_t at)
{
	int core = h / BGQ_TPC, fired = 0;
	bgq_core *k = &n->core[core];
	for (int i = 0; i < BGQ_CTRS; i++) {
		bgq_ctr *c = &k->ctr[i];
		if (!c->ovf_fire || c->ovf_fire > at || c->ovf_hit || !c->running)
			continue;
		void *set = c->set;
		for (int j = 0; j < BGQ_CTRS; j++)
			if (k->ctr[j].set == set)
				bgq_ctr_freeze(n, core, &k->ctr[j]);
		uint64_t reqs = 0;
		for (int j = 0; j < BGQ_CTRS; j++) {
			bgq_ctr *d = &k->ctr[j];
			if (d->set == set && d->ovf_period && !d->ovf_hit &&
			    d->acc >= d->ovf_next) {
				d->ovf_hit = 1;
				d->ovf_fire = 0;
				reqs |= 1ull << d->ovf_req;
			}
		}
		if (reqs) {
			clab_overflow_raise(c->ovf_cookie, reqs);
			perfmon(n, c->owner);
			fired = 1;
		}
	}
	if (!__atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		return fired;
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		if (e->set && e->running && !e->hit && e->detect && e->detect <= at) {
			e->hit = 1;
			e->detect = 0;
			clab_overflow_raise(e->cookie, 1ull << e->req);
			perfmon(n, e->owner);
			fired = 1;
		}
	}
	pthread_mutex_unlock(&n->slow_lock);
	return fired;
}

/* Thread h's share of the armed node-wide counters after it moved or
 * received counts at once (a message: a crossing then is seen on the next
 * scan). Core lock of h held. */
static void slow_note(bgq_node *n, int h)
{
	if (!__atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		return;
	const bgq_hwt *t = &n->hwt[h];
	prof_pos pos = profile_pos(t->prof, t->act);
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		if (!e->set)
			continue;
		e->part[h] = nev_truth_at(t, &pos, e->nev, t->now);
		if (e->running && !e->hit && !e->detect &&
		    slow_others(e, -1) >= e->next)
			e->detect = scan_after(t->now);
	}
	pthread_mutex_unlock(&n->slow_lock);
}

int bgq_slow_arm(bgq_node *n, void *set, int hw, int req, int nev,
		 uint64_t period, void *cookie, const char *what)
{
	int rc = CLAB_OK, free_ = -1, mine = -1;
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		if (!e->set) {
			free_ = free_ < 0 ? j : free_;
		} else if (e->set == set && e->req == req) {
			mine = j;
		} else if (period && e->nev == nev && e->period != period) {
			rc = clab_seterr(CLAB_E_CONFLICT,
					 "%s already overflows every %llu events for another event set; thresholds of node-wide counters are per counter, so %llu cannot be set too",
					 what, (unsigned long long)e->period,
					 (unsigned long long)period);
			break;
		}
	}
	if (!rc && period && mine < 0 && free_ < 0)
		rc = clab_seterr(CLAB_E_CONFLICT, "more than %d node-wide counters armed for overflow",
				 BGQ_SLOW_MAX);
	if (!rc && !period && mine >= 0) {
		memset(&n->slow[mine], 0, sizeof n->slow[mine]);
		n->nslow--;
	} else if (!rc && period) {
		if (mine < 0) {
			mine = free_;
			memset(&n->slow[mine], 0, sizeof n->slow[mine]);
			__atomic_store_n(&n->nslow, n->nslow + 1, __ATOMIC_RELEASE);
		}
		bgq_slow *e = &n->slow[mine];
		e->set = set;
		e->cookie = cookie;
		e->req = req;
		e->nev = nev;
		e->owner = hw;
		e->period = period;
		e->running = 0; /* counts from the set's next start */
	}
	pthread_mutex_unlock(&n->slow_lock);
	return rc;
}

/* The set's entries start counting from every thread's share now, stop,
 * or resume after the handler: those that overflowed re-arm a period from
 * now, the others wait as many more events as the node counted meanwhile.
 * Takes each thread's core lock in turn, then the slow lock. */
void bgq_slow_run(bgq_node *n, void *set, enum bgq_slow_mode mode)
{
	if (!__atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		return;
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		pthread_mutex_lock(&n->slow_lock);
		int nev = n->slow[j].set == set ? n->slow[j].nev : -1;
		pthread_mutex_unlock(&n->slow_lock);
		if (nev < 0)
			continue;
		uint64_t part[BGQ_HWTHREADS], total = 0;
		for (int g = 0; g < BGQ_HWTHREADS; g++) {
			bgq_core *k = &n->core[g / BGQ_TPC];
			pthread_mutex_lock(&k->lock);
			const bgq_hwt *t = &n->hwt[g];
			prof_pos pos = profile_pos(t->prof, t->act);
			part[g] = nev_truth_at(t, &pos, nev, t->now);
			total += part[g];
			pthread_mutex_unlock(&k->lock);
		}
		pthread_mutex_lock(&n->slow_lock);
		bgq_slow *e = &n->slow[j];
		if (e->set == set) {
			memcpy(e->part, part, sizeof part);
			if (mode == BGQ_SLOW_STOP)
				e->stopped_at = total;
			else if (mode == BGQ_SLOW_START || e->hit)
				e->next = total + e->period;
			else
				e->next += total - e->stopped_at;
			e->running = mode != BGQ_SLOW_STOP;
			if (mode != BGQ_SLOW_STOP)
				e->hit = e->detect = 0;
		}
		pthread_mutex_unlock(&n->slow_lock);
	}
}

void bgq_slow_drop(bgq_node *n, void *set)
{
	if (!__atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++)
		if (n->slow[j].set == set) {
			memset(&n->slow[j], 0, sizeof n->slow[j]);
			n->nslow--;
		}
	pthread_mutex_unlock(&n->slow_lock);
}

/* Moves thread h toward `to`, stopping at the first overflow interrupt on
 * the way; returns whether one fired. Core lock of h held. */
static int move_until(bgq_node *n, int h, uint64_t to, int in_work)
{
	uint64_t when = next_interrupt(n, h, to, in_work);
	move_to(n, h, when < to ? when : to, in_work);
	slow_note(n, h);
	return when <= to && fire(n, h, n->hwt[h].now);
}

/* Delivers raised interrupts: the handler runs in this or the set's own
 * thread while the core lock is dropped. Returns the cycles the handler
 * moved thread h's clock itself. */
static uint64_t deliver(bgq_node *n, int h)
{
	bgq_core *k = &n->core[h / BGQ_TPC];
	bgq_hwt *t = &n->hwt[h];
	uint64_t before = t->now;
	t->in_handler++;
	pthread_mutex_unlock(&k->lock);
	clab_overflow_flush();
	pthread_mutex_lock(&k->lock);
	t->in_handler--;
	t->handled = 1;
	return t->now - before;
}

/* Runs thread h's activity up to `end`, interrupts included; time a
 * handler spends on the thread comes on top when `extend`. */
static void run_to(bgq_node *n, int h, uint64_t end, int extend)
{
	while (n->hwt[h].now < end)
		if (move_until(n, h, end, 0)) {
			uint64_t d = deliver(n, h);
			if (extend)
				end += d;
		}
}

static int node_advance(void *sim, int h, uint64_t cycles)
{
	bgq_node *n = sim;
	if (h < 0 || h >= BGQ_HWTHREADS)
		return clab_seterr(CLAB_E_INVAL, "no hardware thread %d", h);
	bgq_core *k = &n->core[h / BGQ_TPC];
	pthread_mutex_lock(&k->lock);
	run_to(n, h, n->hwt[h].now + cycles, 1);
	pthread_mutex_unlock(&k->lock);
	return CLAB_OK;
}

/* Counts of named events into c[] (zeroed first), checked as a work
 * segment of `cycles`; what = the caller, for messages. */
static int work_counts(uint64_t cycles, const char *const *events, const uint64_t *counts,
		       int nev, uint64_t *c, const char *what)
{
	memset(c, 0, BGQ_N_NEV * sizeof *c);
	if (cycles == 0)
		return clab_seterr(CLAB_E_INVAL, "%s needs at least one cycle", what);
	for (int i = 0; i < nev; i++) {
		int e = find_event(events[i]);
		if (e < 0)
			return clab_seterr(CLAB_E_NOEVENT, "%s: unknown BG/Q event '%s'", what,
					   events[i]);
		if (feed_reason(e))
			return clab_seterr(CLAB_E_INVAL, "%s: %s %s", what, events[i],
					   feed_reason(e));
		c[e] += counts[i];
	}
	int rc = check_rates(c, cycles, what);
	c[BGQ_EV_CYCLES] = cycles;
	return rc;
}

/* Thread h does the work c[] over c[BGQ_EV_CYCLES] cycles, interrupts
 * included; its core's lock is held. */
static void work_locked(bgq_node *n, int h, uint64_t *c)
{
	bgq_hwt *t = &n->hwt[h];
	uint64_t cycles = c[BGQ_EV_CYCLES];
	uint64_t end = t->now + cycles;
	t->w0 = t->now;
	t->wlen = cycles;
	t->wcount = c;
	while (t->now < end) {
		if (!move_until(n, h, end, 1))
			continue;
		/* an interrupt: the segment's done part joins the tally and the
		 * rest resumes after the handler, which may work on its own */
		uint64_t el = t->now - t->w0, d[BGQ_N_NEV];
		for (int e = 0; e < BGQ_N_NEV; e++)
			d[e] = work_part(c, e, el, t->wlen);
		for (int e = 0; e < BGQ_N_NEV; e++) {
			t->work[e] += d[e];
			c[e] -= d[e];
		}
		t->wlen -= el;
		t->wcount = NULL;
		changed(n, h);
		end += deliver(n, h);
		t->w0 = t->now;
		t->wcount = t->wlen ? c : NULL;
	}
	t->wcount = NULL;
	for (int e = 0; e < BGQ_N_NEV; e++)
		t->work[e] += c[e];
	changed(n, h); /* the tally moved from the segment to work[] */
}

static int node_work(void *sim, int h, uint64_t cycles,
		     const char *const *events, const uint64_t *counts, int nev)
{
	bgq_node *n = sim;
	uint64_t c[BGQ_N_NEV];
	if (h < 0 || h >= BGQ_HWTHREADS)
		return clab_seterr(CLAB_E_INVAL, "no hardware thread %d", h);
	int rc = work_counts(cycles, events, counts, nev, c, "work");
	if (rc)
		return rc;
	bgq_core *k = &n->core[h / BGQ_TPC];
	pthread_mutex_lock(&k->lock);
	work_locked(n, h, c);
	pthread_mutex_unlock(&k->lock);
	return CLAB_OK;
}

static uint64_t node_now(void *sim, int h)
{
	bgq_node *n = sim;
	return h >= 0 && h < BGQ_HWTHREADS ? n->hwt[h].now : 0;
}

static int node_set_activity(void *sim, int h, const char *name)
{
	bgq_node *n = sim;
	if (n->follow_host)
		return clab_seterr(CLAB_E_STATE,
				   "activity = host: threads do what the program does (its own counts); "
				   "a rate profile does not apply");
	const bgq_profile *p;
	int rc = profile_get(n, name, &p);
	if (rc)
		return rc;
	bgq_core *k = &n->core[h / BGQ_TPC];
	bgq_hwt *t = &n->hwt[h];
	uint64_t kppb = kernel_ppb(n, p);
	uint64_t *bank = NULL;
	if (kppb != t->kppb && !t->kbank &&
	    !(bank = calloc(2 * BGQ_N_NEV, sizeof *bank)))
		return CLAB_E_NOMEM;
	pthread_mutex_lock(&k->lock);
	if (kppb != t->kppb) {
		/* the kernel keeps what it had; the new share applies from now */
		if (!t->kbank) {
			t->kbank = bank;
			bank = NULL;
		}
		prof_pos pos = profile_pos(t->prof, t->act);
		for (int e = 0; e < BGQ_N_NEV; e++) {
			uint64_t v = prim_truth_at(t, &pos, e, t->now);
			t->kbank[e] = kernel_part(t, e, v);
			t->kbank[BGQ_N_NEV + e] = v;
		}
		t->kppb = kppb;
	}
	/* fold what the old profile produced into the work tally */
	prof_pos at = profile_pos(t->prof, t->act);
	for (int e = 0; e < BGQ_N_NEV; e++)
		t->work[e] += e == NEV_MISS ? miss_count_at(&at) : profile_count_at(&at, e);
	t->act = 0;
	t->prof = p;
	changed(n, h);
	pthread_mutex_unlock(&k->lock);
	free(bank); /* not under the lock, as no allocation is (punit_program) */
	return CLAB_OK;
}

/* A message through the node's message unit: counts arrive at once. */
static int node_message(void *sim, int h, int kind, uint64_t bytes)
{
	bgq_node *n = sim;
	uint64_t c[BGQ_N_IOUNIT] = {0};
	if (h < 0 || h >= BGQ_HWTHREADS)
		return clab_seterr(CLAB_E_INVAL, "no hardware thread %d", h);
	uint64_t seq = __atomic_fetch_add(&n->msg_seq, 1, __ATOMIC_RELAXED);
	int rc = bgq_mu_message(seq, kind, bytes, c);
	if (rc)
		return rc;
	bgq_core *k = &n->core[h / BGQ_TPC];
	pthread_mutex_lock(&k->lock);
	for (int i = 0; i < BGQ_N_IOUNIT; i++)
		n->hwt[h].work[BGQ_NEV_IO + i] += c[i];
	changed(n, h);
	slow_note(n, h);
	pthread_mutex_unlock(&k->lock);
	return CLAB_OK;
}

/* Traffic over the torus: the thread waits (runs on) the modelled time. */
static int node_traffic(void *sim, int h, const char *pattern, double *seconds)
{
	bgq_node *n = sim;
	int rc;
	double s = 0;
	bgq_net *b = bgq_net_get(n->m, &rc);
	if (b)
		rc = clab_machine_net_traffic(b, pattern, &s);
	if (!rc)
		rc = node_advance(sim, h, (uint64_t)(s * BGQ_MHZ * 1e6 + 0.5));
	if (seconds)
		*seconds = s;
	return rc;
}

static void node_sync(void *sim, int h);

/* The OS thread of h is gone: the next one binds its own CPU clock. */
static void node_detach(void *sim, int h)
{
	bgq_node *n = sim;
	if (h < 0 || h >= BGQ_HWTHREADS)
		return;
	/* no lock: a thread's exit may take a signal whose handler reads */
	__atomic_store_n(&n->hwt[h].bound, 0, __ATOMIC_RELEASE);
}

static void node_forked(void *sim)
{
	bgq_node *n = sim;
	pthread_mutex_init(&n->prof_lock, NULL);
	pthread_mutex_init(&n->slow_lock, NULL);
	for (int c = 0; c < BGQ_CORES; c++)
		pthread_mutex_init(&n->core[c].lock, NULL);
}

static const clab_sim_ops node_sim_ops = {
	.advance = node_advance,
	.work = node_work,
	.now = node_now,
	.set_activity = node_set_activity,
	.message = node_message,
	.traffic = node_traffic,
	.sync = node_sync,
	.detach = node_detach,
	.forked = node_forked,
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Host clock: the thread's CPU time. Reading it is a system call, as costly
 * as the counter read it serves, so it is sampled every BGQ_CPU_SAMPLE_NS of
 * wall time; in between, a thread that is calling us is running, and its
 * CPU time moves with the (vDSO) wall clock. The clock never goes back: when
 * a sample shows the thread was off the CPU, time waits for it.
 *
 * Overflow handlers do not move it: while a handler runs (a read inside it
 * syncs) the thread's simulated time holds still, as on the virtual clock,
 * and a catch-up that ran handlers restarts the clock from the CPU time at
 * its end. Else the CPU time of each delivery (a signal, the handler: here
 * some 10 us, 16,000 cycles) would become program cycles, cross further
 * thresholds, and at periods below that cost never catch up. */
/* activity = host: thread h does what its OS thread did since the last
 * sample, as the host counted it (hostmap.c maps the counts). */
static void follow_host(bgq_node *n, int h)
{
	bgq_hwt *t = &n->hwt[h];
	pthread_t self = pthread_self();
	if (t->in_handler)
		return;
	if (!t->hs || !__atomic_load_n(&t->bound, __ATOMIC_ACQUIRE) ||
	    !pthread_equal(t->owner, self)) {
		/* counting starts in the thread that owns h now */
		clab_host_sampler_close(t->hs);
		t->hs = NULL;
		__atomic_store_n(&t->bound, 1, __ATOMIC_RELAXED);
		t->owner = self;
		if (clab_host_sampler_open(n->emulated, n->fp_event, &t->hs) == CLAB_OK &&
		    clab_host_sampler_read(t->hs, &t->hlast) != CLAB_OK) {
			clab_host_sampler_close(t->hs);
			t->hs = NULL;
		}
		clab_host_sampler_resume(t->hs);
		return;
	}
	clab_host_sample now, d = {0};
	if (clab_host_sampler_read(t->hs, &now))
		return;
	d.cpu_ns = now.cpu_ns - t->hlast.cpu_ns;
	d.have = now.have & t->hlast.have;
	for (int q = 0; q < CLAB_HQ_N; q++)
		d.q[q] = now.q[q] - t->hlast.q[q];
	t->hlast = now;
	clab_hostmap_out m;
	clab_hostmap(&d, BGQ_MHZ, &m);
	uint64_t c[BGQ_N_NEV];
	if (m.cycles && work_counts(m.cycles, m.event, m.count, m.n, c, "activity = host") == CLAB_OK)
		work_locked(n, h, c);
	clab_host_sampler_resume(t->hs);
}

void bgq_node_sync(bgq_node *n, int h, int is_read)
{
	bgq_hwt *t = &n->hwt[h];
	if (n->follow_host) {
		follow_host(n, h);
	} else if (n->host_clock) {
		if (t->in_handler)
			return;
		uint64_t wall = now_ns(CLOCK_MONOTONIC), cpu;
		pthread_t self = pthread_self();
		if (!__atomic_load_n(&t->bound, __ATOMIC_ACQUIRE) ||
		    !pthread_equal(t->owner, self)) {
			__atomic_store_n(&t->bound, 1, __ATOMIC_RELAXED);
			t->owner = self;
			t->origin_ns = t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
			t->origin_cycles = t->now;
			t->sample_wall = wall;
		}
		if (wall - t->sample_wall >= BGQ_CPU_SAMPLE_NS) {
			t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
			t->sample_wall = wall;
			if (t->cpu_ns < t->origin_ns) { /* another CPU clock (a forked child) */
				t->origin_ns = t->cpu_ns;
				t->origin_cycles = t->now;
			}
		}
		cpu = t->cpu_ns + (wall - t->sample_wall);
		uint64_t target = t->origin_cycles + (cpu - t->origin_ns) * BGQ_MHZ / 1000;
		if (target <= t->now)
			return;
		t->handled = 0;
		run_to(n, h, target, 0);
		if (t->handled && pthread_equal(t->owner, self)) {
			t->origin_ns = t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
			t->sample_wall = now_ns(CLOCK_MONOTONIC);
			t->origin_cycles = t->now;
		}
	} else if (is_read && n->tick) {
		run_to(n, h, t->now + n->tick, 1);
	}
}

static void node_sync(void *sim, int h)
{
	bgq_node_sync_thread(sim, h, 0);
}

void bgq_node_sync_thread(bgq_node *n, int h, int is_read)
{
	pthread_mutex_lock(&n->core[h / BGQ_TPC].lock);
	bgq_node_sync(n, h, is_read);
	pthread_mutex_unlock(&n->core[h / BGQ_TPC].lock);
}

/* ---- the node ---------------------------------------------------------- */

static void node_destroy(void *p)
{
	bgq_node *n = p;
	for (int i = 0; i < n->nprof; i++)
		profile_free(n->profs[i]);
	for (int h = 0; h < BGQ_HWTHREADS; h++) {
		free(n->hwt[h].kbank);
		clab_host_sampler_close(n->hwt[h].hs);
	}
	free(n->profs);
	for (int c = 0; c < BGQ_CORES; c++)
		pthread_mutex_destroy(&n->core[c].lock);
	pthread_mutex_destroy(&n->prof_lock);
	pthread_mutex_destroy(&n->slow_lock);
	free(n);
}

static void *node_create(clab_machine *m, int *err)
{
	if (clab_machine_nhwthreads(m) != BGQ_HWTHREADS ||
	    clab_machine_threads_per_core(m) != BGQ_TPC) {
		*err = clab_seterr(CLAB_E_PROFILE,
				   "machine %s: a BG/Q node is topology = pack:1 core:%d pu:%d",
				   clab_machine_name(m), BGQ_CORES, BGQ_TPC);
		return NULL;
	}
	bgq_node *n = calloc(1, sizeof *n);
	if (!n) {
		*err = CLAB_E_NOMEM;
		return NULL;
	}
	n->m = m;
	pthread_mutex_init(&n->prof_lock, NULL);
	pthread_mutex_init(&n->slow_lock, NULL);
	for (int c = 0; c < BGQ_CORES; c++) {
		pthread_mutex_init(&n->core[c].lock, NULL);
		n->core[c].l1p_mode = -1;
		/* cores sit at different places on the scan ring */
		n->core[c].phase = (uint32_t)(c * BGQ_SCAN / BGQ_CORES);
	}
	const char *clock = clab_machine_setting(m, "clock");
	n->host_clock = clock && strcmp(clock, "host") == 0;
	int rc = clab_machine_setting_u64(m, "tick", 0, 0, UINT64_MAX / 4, &n->tick);
	const char *act = clab_machine_setting(m, "activity");
	const bgq_profile *p = NULL;
	/* activity = emulated: the program's counts come from the emulator,
	 * through the same path as the host's */
	n->emulated = act && strcmp(act, "emulated") == 0;
	n->follow_host = n->emulated || (act && strcmp(act, "host") == 0);
	n->fp_event = clab_machine_setting(m, "host_fp_event");
	if (!rc && n->follow_host) { /* can this thread be counted? say now if not */
		clab_host_sampler *hs = NULL;
		rc = clab_host_sampler_open(n->emulated, n->fp_event, &hs);
		clab_host_sampler_close(hs);
	} else if (!rc && act && *act && strcmp(act, "none") != 0) {
		rc = profile_get(n, act, &p); /* none: threads only do explicit work */
	}
	if (rc) {
		node_destroy(n);
		*err = rc;
		return NULL;
	}
	for (int h = 0; h < BGQ_HWTHREADS; h++)
		n->hwt[h].prof = p;
	clab_machine_set_sim(m, &node_sim_ops, n);
	return n;
}

void bgq_node_set_kernel(bgq_node *n, uint64_t sys_cycles, uint64_t irq_cycles,
			 uint64_t fit_period, uint64_t dec_period)
{
	n->sys_cycles = sys_cycles;
	n->irq_cycles = irq_cycles;
	n->fit_period = fit_period;
	n->dec_period = dec_period;
	for (int h = 0; h < BGQ_HWTHREADS; h++)
		n->hwt[h].kppb = kernel_ppb(n, n->hwt[h].prof);
}

bgq_node *bgq_node_get(clab_machine *m, int *err)
{
	return clab_machine_shared(m, "bgq-node", node_create, node_destroy, err);
}
