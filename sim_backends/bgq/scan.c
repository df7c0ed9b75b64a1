/* Time: a thread's clock moves, and the UPC_C scan adds the 14-bit UPC_P
 * counters' movement into 64-bit values every BGQ_SCAN cycles. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "node.h"

/* The scan of every held counter of thread h: by its plan where the plan
 * covers them (rebuilt or filled when it does not hold the offset at hand),
 * the others one by one. */
void bgq_scan_all(bgq_node *n, int core, unsigned smt, int skipped)
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

