/* The CNK unit: software counters the compute-node kernel keeps, 2 per
 * node and 27 per hardware thread. An event set reads the node counters
 * and those of its own hardware thread, as deltas since its start.
 *
 * Model: the fixed-interval timer fires every `fit_period` cycles of a
 * thread's clock and the decrementer every `dec_period` ([kernel] keys; 0
 * turns a timer off). A message-unit interrupt comes every `irq_packets`
 * memory-FIFO packets the node receives (0: the messaging layer polls, as
 * PAMI does by default); a live MPI program's eager packets
 * (libcounterlab-mpi) count among them. Performance-monitor interrupts
 * come from counter overflows. System calls and the other interrupt classes come from the
 * threads' activity profiles and explicit work (clab_sim_work).
 * `syscall_cycles` and `irq_cycles` are what the kernel costs per system
 * call and per timer interrupt: its share of the PUnit's counts
 * (truth.c, the contexts). */
#include "bgq.h"

enum { CNK_MUINT = 0, CNK_HWT0 = 2 }; /* table positions: node events first */
enum { HWT_DECREMENTER = 3, HWT_FIT = 4 }; /* CNK per-thread counter numbers */

static int cnk_values(bgq_fixed_unit *u, bgq_fixed_set *s, int only, uint64_t *v)
{
	if (!s->sum[0].val) {
		int node_nev[2] = {BGQ_NEV_IO + MU_FIFO_PKT_RCV, BGQ_NEV_CNK + 1};
		/* the thread's cycles, and its own count of each event that
		 * is neither a node event nor a timer (those read node[] and
		 * the cycles: -1 keeps their place uncounted) */
		int hwt_nev[BGQ_SET_MAX_NEV];
		hwt_nev[0] = BGQ_EV_CYCLES;
		for (int i = 0; i < s->n; i++) {
			int nev = bgq_nev_of(BGQ_UNIT_CNK, s->ev[i]);
			s->timer[i] = s->ev[i] >= CNK_HWT0 && bgq_nev_feed(nev) == BGQ_FEED_CLOCK;
			hwt_nev[i + 1] = s->ev[i] < CNK_HWT0 || s->timer[i] ? -1 : nev;
		}
		int rc = bgq_sum_init(&s->sum[0], node_nev, 2, -1);
		if (!rc)
			rc = bgq_sum_init(&s->sum[1], hwt_nev, s->n + 1, s->hw);
		if (rc)
			return rc;
	}
	int need_node = 0;
	for (int i = 0; i < s->n; i++)
		need_node |= s->ev[i] < CNK_HWT0;
	if (need_node)
		bgq_node_sum(u->node, &s->sum[0]);
	bgq_node_sum(u->node, &s->sum[1]);
	/* thread `only`'s part: its share of the node counts, and the set's
	 * thread counts if they are its own */
	uint64_t node[2], hwt[BGQ_SET_MAX_NEV] = {0};
	for (int j = 0; j < 2; j++)
		node[j] = bgq_sum_count(&s->sum[0], only, j);
	if (only < 0 || only == s->hw)
		for (int i = 0; i <= s->n; i++)
			hwt[i] = bgq_sum_count(&s->sum[1], -1, i);
	/* a live MPI program's eager packets interrupt too (the node's) */
	const clab_live_node *live = u->net && only < 0 ? clab_live_block(u->net->tn.node) : NULL;
	uint64_t live_fifo = live ? __atomic_load_n(&live->mu[CLAB_LIVE_MU_FIFO_RCV], __ATOMIC_RELAXED) : 0;
	for (int i = 0; i < s->n; i++) {
		int ev = s->ev[i];
		uint32_t sel = bgq_cnkunit_attr[ev].sel;
		uint64_t period = sel == HWT_FIT ? u->fit_period
				: sel == HWT_DECREMENTER ? u->dec_period : 0;
		if (ev == CNK_MUINT)
			v[i] = u->irq_packets ? (node[0] + live_fifo) / u->irq_packets : 0;
		else if (ev < CNK_HWT0)
			v[i] = node[1];
		else if (s->timer[i])
			v[i] = period ? hwt[0] / period : 0;
		else
			v[i] = hwt[i + 1];
	}
	return CLAB_OK;
}

static const bgq_fixed_kind cnk_kind = {
	.natives = bgq_cnkunit_natives,
	.values = cnk_values,
};

static const char *const cnk_keys[] = {"fit_period", "dec_period", "irq_packets",
				       "syscall_cycles", "irq_cycles", NULL};

static int cnk_open(clab_machine *m, const char *section, void **unit,
		    clab_unit_desc *d)
{
	bgq_fixed_unit *u;
	int rc = bgq_fixed_open(m, &cnk_kind, &u);
	if (rc)
		return rc;
	rc = clab_machine_unit_u64(m, section, "fit_period", 1u << 24, 0, UINT64_MAX,
				   &u->fit_period);
	if (!rc)
		rc = clab_machine_unit_u64(m, section, "dec_period", 0, 0, UINT64_MAX,
					   &u->dec_period);
	if (!rc)
		rc = clab_machine_unit_u64(m, section, "irq_packets", 0, 0, UINT64_MAX,
					   &u->irq_packets);
	uint64_t sys_cycles = 0, irq_cycles = 0;
	if (!rc)
		rc = clab_machine_unit_u64(m, section, "syscall_cycles", 1500, 0, 1u << 30,
					   &sys_cycles);
	if (!rc)
		rc = clab_machine_unit_u64(m, section, "irq_cycles", 600, 0, 1u << 30,
					   &irq_cycles);
	if (!rc) /* the node's place in the torus, for a live program's messages */
		u->net = bgq_net_get(m, &rc);
	if (rc) {
		bgq_fixed_close(u);
		return rc;
	}
	bgq_node_set_kernel(u->node, sys_cycles, irq_cycles, u->fit_period, u->dec_period);
	*unit = u;
	*d = (clab_unit_desc){
		.description = "Blue Gene/Q compute node kernel (CNK) software counters, simulated",
		.rules = "Software counters. Group CNKNODE counts the whole node, group CNKHWT the event set's own hardware thread; each set reads deltas since its start.",
		.ncounters = BGQ_N_CNKUNIT,
		.width = 64,
		.scope = CLAB_SCOPE_THREAD,
		.overflow = CLAB_OVF_NONE,
		.natives = bgq_cnkunit_natives,
		.nnative = BGQ_N_CNKUNIT,
	};
	return CLAB_OK;
}

const clab_unit_ops clab_bgq_cnk_ops = BGQ_FIXED_OPS("bgq-cnk", cnk_keys, cnk_open);
