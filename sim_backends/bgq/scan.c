/* Time: a thread's clock moves, and the UPC_C scan adds the 14-bit UPC_P
 * counters' movement into 64-bit values every BGQ_SCAN cycles. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "node.h"

/* The UPC_C scan adds the 14-bit counter's movement since the last scan;
 * v: the counter's count since its start. `skipped`: the scans between the
 * previous one and this were not run one by one; each would have added its
 * interval's movement (less than 2^14, see check_rates), so together they
 * add the whole movement. */
static inline void bgq_scan(bgq_ctr *c, int skipped, uint64_t v)
{
	if (skipped)
		bgq_count_set(&c->acc, v); /* acc always equals v at the last scan */
	else
		bgq_count_set(&c->acc, c->acc + (((v & HW_MASK) - (c->acc & HW_MASK)) & HW_MASK));
}

/* The scan of thread t (hardware thread smt of core k) when its plan holds
 * all its held counters and knows the offset at hand: 0 when not, and the
 * long way (scan_all) takes it. */
static inline int bgq_scan_planned(const bgq_node *n, bgq_core *k, unsigned smt,
				   const bgq_hwt *t, int skipped)
{
	const bgq_scan_plan *pl = k->plan[smt];
	if (!pl || !pl->whole || t->wcount)
		return 0;
	uint64_t r = t->act - pl->act0; /* offset in the plan's phase lap */
	if (r >= pl->span || pl->wver != __atomic_load_n(&t->wver, __ATOMIC_ACQUIRE) ||
	    pl->cfg != k->cfg)
		return 0;
	uint64_t laps = r / pl->period, x = r - laps * pl->period;
	uint32_t i = (uint32_t)x / pl->step;
	if (pl->key[i] != x + 1)
		return 0;
	const uint32_t *m = pl->val[i];
	const struct bgq_plan_entry *e = pl->e, *end = e + pl->n;
	int w = bgq_core_scanning(n, k);
	if (skipped)
		for (; e < end; e++, m++)
			bgq_scan(e->c, 1, e->base + e->pp * laps + *m);
	else
		for (; e < end; e++, m++)
			bgq_scan(e->c, 0, e->base + e->pp * laps + *m);
	bgq_core_written(k, w);
	return 1;
}

/* The scan of every held counter of thread h: by its plan where the plan
 * covers them (rebuilt or filled when it does not hold the offset at hand),
 * the others one by one. */
static __attribute__((noinline)) void bgq_scan_all(bgq_node *n, int core, unsigned smt, int skipped)
{
	bgq_core *k = &n->core[core];
	uint32_t rest = k->held[smt];
	const bgq_hwt *t = &n->hwt[core * BGQ_TPC + (int)smt];
	int w = bgq_core_scanning(n, k);
	/* the thread's own counters by its plan (never with contexts or a work
	 * segment in progress, which split their terms); the others after */
	bgq_scan_plan *pl = k->plan[smt];
	if (t->prof && !t->wcount && pl) {
		uint64_t wver = __atomic_load_n(&t->wver, __ATOMIC_ACQUIRE);
		uint64_t r = t->act - pl->act0;
		if (r >= pl->span || pl->wver != wver || pl->cfg != k->cfg) {
			prof_pos pos = bgq_profile_pos(t->prof, t->act);
			bgq_plan_build(k, (int)smt, t, &pos, wver);
			r = pos.r;
		}
		if (pl->n > 0) {
			uint64_t laps = r / pl->period, x = r - laps * pl->period;
			uint32_t i = (uint32_t)x / pl->step;
			if (pl->key[i] != x + 1) {
				prof_pos pos = bgq_profile_pos(t->prof, t->act);
				bgq_plan_fill(k, (int)smt, t, &pos);
			}
			const uint32_t *m = pl->val[i];
			const struct bgq_plan_entry *e = pl->e;
			for (int j = 0, nj = pl->n; j < nj; j++)
				bgq_scan(e[j].c, skipped, e[j].base + e[j].pp * laps + m[j]);
		}
		rest = pl->rest;
	}
	if (rest) {
		prof_pos pos = bgq_profile_pos(t->prof, t->act); /* the thread's counters share it */
		uint32_t own = 1u << smt;
		for (; rest; rest &= rest - 1) {
			bgq_ctr *c = &k->ctr[__builtin_ctz(rest)];
			if (c->running)
				bgq_scan(c, skipped, (c->contrib == own ? bgq_ctr_truth_own(c, (int)smt, t, &pos)
								    : bgq_ctr_truth(n, core, c)) - c->start);
		}
	}
	bgq_core_written(k, w);
}

/* bgq_move_to reaching a scan point (from < next_scan <= to): scan points
 * are BGQ_SCAN apart, the last one not after `to` is run; an earlier one
 * passed too when it is not the first after `from` (next). */
void bgq_move_scan(bgq_node *n, int h, uint64_t to, int in_work)
{
	bgq_hwt *t = &n->hwt[h];
	unsigned core = (unsigned)h / BGQ_TPC, smt = (unsigned)h % BGQ_TPC;
	bgq_core *k = &n->core[core];
	uint64_t from = t->now, act = t->act, next = t->next_scan;
	if (!in_work)
		act += to - from;
	uint64_t past = to - next; /* most moves pass one scan point: no division */
	uint64_t last = past < BGQ_SCAN ? next : to - past % BGQ_SCAN;
	t->next_scan = last + BGQ_SCAN;
	if (k->held[smt]) {
		t->now = last;
		t->act = in_work ? act : act - (to - last);
		if (!bgq_scan_planned(n, k, smt, t, last != next))
			bgq_scan_all(n, (int)core, smt, last != next);
	}
	t->act = act;
	t->now = to;
	bgq_changed(n, h);
}
