/* The BG/Q L2 unit: 16 slices x 16 fixed counters, read combined (the
 * hardware sums the slices) or per slice. The first running L2 event set
 * of the node fixes the mode; the node cannot count both at once.
 *
 * Model: the loads the L1 prefetcher could not serve (PEVT_L1P_BAS_MISS)
 * and the stores (the L1D writes through) of every thread are the L2's
 * lookups; the thread's activity says how many of them miss
 * (PEVT_L2_MISSES) and how many lines L2 prefetches. Misses
 * and prefetches fetch lines from memory. Consecutive lines are spread over
 * the slices: the j-th event of a kind caused by hardware thread h falls in
 * slice (h + j) mod 16. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bgq.h"

static const clab_qual_info l2_quals[] = {
	[BGQ_Q_SLICE] = {"slice", "L2 slice whose counter a _SLICE event reads (default 0)", 0, BGQ_L2_SLICES - 1},
};

static int is_slice(int ev) { return bgq_l2unit_attr[ev].src == BGQ_SRC_L2_SLICE; }
static const char *name_of(int ev) { return bgq_l2unit_natives[ev].name; }

static int l2_check(const bgq_fixed_set *s)
{
	for (int i = 0; i < s->n; i++) {
		if (is_slice(s->ev[i]) != is_slice(s->ev[0]))
			return clab_seterr(CLAB_E_CONFLICT,
					   "%s and %s cannot be counted together: the L2 unit counts either combined or per slice (_SLICE) events",
					   name_of(s->ev[0]), name_of(s->ev[i]));
	}
	return CLAB_OK;
}

static int l2_admit(bgq_fixed_unit *u, const bgq_fixed_set *s,
		    const bgq_fixed_set *replace)
{
	int sliced = s->n && is_slice(s->ev[0]);
	int others = u->l2_sets - (replace != NULL);
	if (others > 0 && sliced != u->l2_sliced)
		return clab_seterr(CLAB_E_CONFLICT,
				   "cannot start: %s needs the node's L2 unit in %s mode, but a running event set (with %s) holds it in %s mode; the first running L2 event set fixes the mode for the node",
				   name_of(s->ev[0]), sliced ? "sliced" : "combined",
				   u->l2_first, u->l2_sliced ? "sliced" : "combined");
	if (others == 0) {
		u->l2_sliced = sliced;
		snprintf(u->l2_first, sizeof u->l2_first, "%s", name_of(s->ev[0]));
	}
	u->l2_sets++;
	return CLAB_OK;
}

/* The slice a _SLICE event reads (slice 0 without :slice=N), -1: combined */
static int64_t l2_arg(const clab_evreq *r)
{
	return !is_slice((int)r->native) ? -1 : (int64_t)clab_evreq_qual(r, BGQ_Q_SLICE);
}

static void l2_retire(bgq_fixed_unit *u, const bgq_fixed_set *s)
{
	(void)s;
	u->l2_sets--;
}

/* Of n events of one kind caused by thread h, those that land in slice sl. */
static uint64_t slice_share(uint64_t n, int h, int sl)
{
	unsigned r = (unsigned)(sl - h % BGQ_L2_SLICES + BGQ_L2_SLICES) % BGQ_L2_SLICES;
	return (n + BGQ_L2_SLICES - 1 - r) / BGQ_L2_SLICES;
}

static int l2_values(bgq_fixed_unit *u, bgq_fixed_set *s, int only, uint64_t *v)
{
	bgq_sum *sum = &s->sum[0];
	if (!sum->val) {
		int nev[BGQ_SET_MAX];
		for (int i = 0; i < s->n; i++)
			nev[i] = bgq_nev_of(BGQ_UNIT_L2, s->ev[i]);
		int rc = bgq_sum_init(sum, nev, s->n, -1);
		if (rc)
			return rc;
	}
	bgq_node_sum(u->node, sum);
	int h0 = only < 0 ? 0 : only, h1 = only < 0 ? BGQ_HWTHREADS : only + 1;
	for (int i = 0; i < s->n; i++) {
		/* another thread summing the same set may move these */
		if (s->arg[i] < 0 && only < 0) {
			v[i] = bgq_sum_count(sum, -1, i);
			continue;
		}
		v[i] = 0;
		for (int h = h0; h < h1; h++) {
			uint64_t n = bgq_sum_count(sum, h, i);
			v[i] += s->arg[i] < 0 ? n : slice_share(n, h, (int)s->arg[i]);
		}
	}
	return CLAB_OK;
}

/* The L2 unit interrupts only in combined mode. */
static int l2_overflow_nev(const bgq_fixed_set *s, int i)
{
	if (is_slice(s->ev[i]))
		return clab_seterr(CLAB_E_NOSUPP,
				   "%s: the L2 unit interrupts on overflow only when it counts combined; arm the event without _SLICE",
				   name_of(s->ev[i]));
	return bgq_nev_of(BGQ_UNIT_L2, s->ev[i]);
}

static const bgq_fixed_kind l2_kind = {
	.natives = bgq_l2unit_natives,
	.arg = l2_arg,
	.check = l2_check,
	.admit = l2_admit,
	.retire = l2_retire,
	.values = l2_values,
	.overflow_nev = l2_overflow_nev,
};

static int l2_open(clab_machine *m, const char *section, void **unit,
		   clab_unit_desc *d)
{
	(void)section;
	bgq_fixed_unit *u;
	int rc = bgq_fixed_open(m, &l2_kind, &u);
	if (rc)
		return rc;
	*unit = u;
	*d = (clab_unit_desc){
		.description = "Blue Gene/Q L2 unit, simulated: 16 slices x 16 fixed counters, combined or per slice",
		.rules = "Node-wide. Group L2 reads the slices combined, group L2_SLICE one slice (:slice=N); the first running L2 event set of the node fixes which, and the two cannot be counted at once.",
		.ncounters = BGQ_L2_CTRS,
		.width = 64,
		.scope = CLAB_SCOPE_NODE,
		.overflow = CLAB_OVF_SLOW,
		.overflow_latency = BGQ_SCAN,
		.natives = bgq_l2unit_natives,
		.nnative = BGQ_N_L2UNIT,
		.quals = l2_quals,
		.nquals = 1,
	};
	return CLAB_OK;
}

const clab_unit_ops clab_bgq_l2_ops = BGQ_FIXED_OPS("bgq-l2", NULL, l2_open);
