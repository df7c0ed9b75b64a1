/* Private to the node's rooms (node.c and the files it names): what they
 * share. The units see only bgq.h. */
#ifndef CLAB_BGQ_NODE_H
#define CLAB_BGQ_NODE_H

#include "bgq.h"

#define HW_MASK ((1u << BGQ_HW_BITS) - 1)

/* Hardware counter indices (l2_ctr_idx in data/bgq_events.csv) and CNK
 * per-thread counter numbers the model gives a meaning to. */
enum { L2C_HITS = 0, L2C_MISSES = 1, L2C_PREFETCH = 2, L2C_FETCH_LINE = 3,
       L2C_REQ_MISS_AND_EVICT = 8, L2C_MISS_AND_EVICT = 10 };
enum { CNKHWT_DECREMENTER = 3, CNKHWT_FIT = 4, CNKHWT_PERFMON = 7 };

/* L2 misses are some of the lookups, the L1p misses and the stores: they
 * are counted as lookups happen, `miss` of every `look` (the rates or
 * counts of the piece of activity or work they came in), so that hits =
 * lookups - misses only grows. Counted apart, each rounded down on its
 * own, a miss could land before its lookup and hits go back by one. */
#define NEV_MISS (BGQ_NEV_L2 + L2C_MISSES)
static const int bgq_l2_looks[] = {BGQ_EV_L1P_MISS, BGQ_EV_ST, BGQ_EV_FST, BGQ_EV_QST};
#define BGQ_L2_LOOKS (int)(sizeof bgq_l2_looks / sizeof bgq_l2_looks[0])
/* The lookups among counts (or rates) v[] of node events. */
static inline uint64_t bgq_l2_lookups(const uint64_t *v)
{
	uint64_t n = 0;
	for (int i = 0; i < BGQ_L2_LOOKS; i++)
		n += v[bgq_l2_looks[i]];
	return n;
}

/* Where `act` cycles of profile p end: completed laps, phase, offset. */
typedef struct prof_pos {
	const bgq_profile *p;
	uint64_t laps, r;
	int ph;
} prof_pos;

/* events.c */
uint64_t bgq_misses_of(uint64_t lookups, uint64_t miss, uint64_t look);
const char *bgq_feed_reason(int nev);
int bgq_find_event(const char *name);

/* profile.c */
int bgq_check_rates(const uint64_t *ppm_or_count, uint64_t per,
		    const char *what);
void bgq_profile_free(bgq_profile *p);
int bgq_profile_get(bgq_node *n, const char *name, const bgq_profile **out);
prof_pos bgq_profile_pos_lap(const bgq_profile *p, uint64_t act);
/* Activity cycles of pos's phase lap (UINT64_MAX: endless). */
static inline uint64_t bgq_phase_cycles(const prof_pos *pos)
{
	return pos->p && pos->p->period ? pos->p->cycles[pos->ph] : UINT64_MAX;
}
/* Inline: a profile of one endless phase (or none) needs no division. */
static inline prof_pos bgq_profile_pos(const bgq_profile *p, uint64_t act)
{
	if (!p || !p->period)
		return (prof_pos){p, 0, act, 0};
	return bgq_profile_pos_lap(p, act);
}
uint64_t bgq_profile_count_at(const prof_pos *pos, int e);
uint64_t bgq_miss_count_at(const prof_pos *pos);

/* truth.c */
uint64_t bgq_work_part(const uint64_t *c, int e, uint64_t el, uint64_t len);
uint64_t bgq_prim_truth_at(const bgq_hwt *t, const prof_pos *pos, int e,
			   uint64_t now);
prof_pos bgq_pos_at(const bgq_hwt *t, uint64_t at, int in_work);
uint64_t bgq_nev_truth_at(const bgq_hwt *t, const prof_pos *pos, int nev,
			  uint64_t now);
int bgq_nev_kind(int nev);
uint64_t bgq_kernel_ppb(const bgq_node *n, const bgq_profile *p);
uint64_t bgq_kernel_part(const bgq_hwt *t, int e, uint64_t v);
/* Every change of a thread's counts happens under its core lock and ends
 * here (inline: every move of a clock does). */
static inline void bgq_changed(bgq_node *n, int h)
{
	__atomic_fetch_add(&n->version[h], 1, __ATOMIC_RELEASE);
	uint64_t q = __atomic_fetch_add(&n->changes, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&n->change_log[q % BGQ_CHANGE_LOG],
			 q << 8 | (uint64_t)h, __ATOMIC_RELEASE);
	if (__builtin_expect(!n->hwt[h].lived, 0)) { /* once set, never cleared */
		n->hwt[h].lived = 1;
		__atomic_fetch_or(&n->live[(unsigned)h / 64], 1ull << ((unsigned)h % 64),
				  __ATOMIC_RELAXED);
	}
}
uint64_t bgq_ctr_truth_at(const bgq_node *n, int core, const bgq_ctr *c,
			  int h, uint64_t at, int in_work);
uint64_t bgq_ctr_truth_own(bgq_ctr *c, int s, const bgq_hwt *t, const prof_pos *pos);
void bgq_plan_build(bgq_core *k, int s, const bgq_hwt *t, const prof_pos *pos,
		    uint64_t wver);
void bgq_plan_fill(bgq_core *k, int s, const bgq_hwt *t, const prof_pos *pos);

/* Moves thread h's clock to `to`, running the scan at the core's last scan
 * point on the way. When several scan points passed, the ones before the
 * last follow in closed form: with the rate limits above each would have
 * added exactly the counter's movement. Most moves of a read reach no scan
 * point (BGQ_SCAN cycles apart): inline; the others go to bgq_move_scan. */
void bgq_move_scan(bgq_node *n, int h, uint64_t to, int in_work);
static inline void bgq_move_to(bgq_node *n, int h, uint64_t to, int in_work)
{
	bgq_hwt *t = &n->hwt[h];
	uint64_t from = t->now;
	if (to == from)
		return;
	if (to >= t->next_scan) {
		bgq_move_scan(n, h, to, in_work);
		return;
	}
	if (!in_work)
		t->act += to - from;
	t->now = to;
	bgq_changed(n, h);
}

/* overflow.c */
uint64_t bgq_next_interrupt(bgq_node *n, int h, uint64_t to, int in_work);
int bgq_fire(bgq_node *n, int h, uint64_t at);
void bgq_slow_note(bgq_node *n, int h);

/* run.c */
void bgq_run_armed(bgq_node *n, int h, uint64_t end, int extend);
/* Runs thread h's activity up to `end`, interrupts included; time a
 * handler spends on the thread comes on top when `extend`. Inline: with
 * nothing armed (the common read) no interrupt stops the move. */
static inline void bgq_run_to(bgq_node *n, int h, uint64_t end, int extend)
{
	if (n->core[(unsigned)h / BGQ_TPC].armed || __atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		bgq_run_armed(n, h, end, extend);
	else if (n->hwt[h].now < end)
		bgq_move_to(n, h, end, 0);
}
int bgq_work_counts(uint64_t cycles, const char *const *events, const uint64_t *counts,
		    int nev, uint64_t *c, const char *what);
void bgq_work_locked(bgq_node *n, int h, uint64_t *c);

#endif
