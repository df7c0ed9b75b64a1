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
static inline void scan(bgq_ctr *c, int skipped, uint64_t v)
{
	if (skipped)
		c->acc = v; /* acc always equals v at the last scan */
	else
		c->acc += ((v & HW_MASK) - c->last14) & HW_MASK;
	c->last14 = v & HW_MASK;
}

/* The scan of thread t (hardware thread smt of core k) when its plan holds
 * all its held counters and knows the offset at hand: 0 when not, and the
 * long way (scan_all) takes it. */
static inline int scan_planned(bgq_core *k, unsigned smt, const bgq_hwt *t,
			       int skipped)
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
	int w = bgq_core_scanning(k);
	if (skipped)
		for (; e < end; e++, m++)
			scan(e->c, 1, e->base + e->pp * laps + *m);
	else
		for (; e < end; e++, m++)
			scan(e->c, 0, e->base + e->pp * laps + *m);
	bgq_core_written(k, w);
	return 1;
}

/* The scan of every held counter of thread h: by its plan where the plan
 * covers them (rebuilt or filled when it does not hold the offset at hand),
 * the others one by one. Out of line: the planned scan is the common one. */
static __attribute__((noinline)) void scan_all(bgq_node *n, int core, unsigned smt,
					       int skipped)
{
	bgq_core *k = &n->core[core];
	uint32_t rest = k->held[smt];
	const bgq_hwt *t = &n->hwt[core * BGQ_TPC + (int)smt];
	int w = bgq_core_scanning(k);
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
				scan(e[j].c, skipped, e[j].base + e[j].pp * laps + m[j]);
		}
		rest = pl->rest;
	}
	if (rest) {
		prof_pos pos = bgq_profile_pos(t->prof, t->act); /* the thread's counters share it */
		uint32_t own = 1u << smt;
		for (; rest; rest &= rest - 1) {
			bgq_ctr *c = &k->ctr[__builtin_ctz(rest)];
			if (c->running)
				scan(c, skipped, (c->contrib == own ? bgq_ctr_truth_own(c, (int)smt, t, &pos)
								    : bgq_ctr_truth(n, core, c)) - c->start);
		}
	}
	bgq_core_written(k, w);
}

/* Moves thread h's clock to `to`, running the scan at the core's last scan
 * point on the way. When several scan points passed, the ones before the
 * last follow in closed form: with the rate limits above each would have
 * added exactly the counter's movement. */
void bgq_move_to(bgq_node *n, int h, uint64_t to, int in_work)
{
	bgq_hwt *t = &n->hwt[h];
	unsigned core = (unsigned)h / BGQ_TPC, smt = (unsigned)h % BGQ_TPC;
	bgq_core *k = &n->core[core];
	uint64_t ph = k->phase; /* < BGQ_SCAN */
	uint64_t from = t->now, act = t->act;
	if (to == from)
		return;
	if (!in_work)
		act += to - from;
	/* scan points are ph + j x BGQ_SCAN (j >= 0): the last one not after
	 * `to` is run when it comes after `from`; an earlier one passed too
	 * when it also does */
	if (to >= ph && k->held[smt]) {
		uint64_t last = to - (to - ph) % BGQ_SCAN;
		if (last > from) {
			int skipped = last - ph >= BGQ_SCAN && last - BGQ_SCAN > from;
			t->now = last;
			t->act = in_work ? act : act - (to - last);
			if (!scan_planned(k, smt, t, skipped))
				scan_all(n, (int)core, smt, skipped);
		}
	}
	t->act = act;
	t->now = to;
	bgq_changed(n, h);
}
