/* The BG/Q I/O unit: 44 fixed counters of the message unit (MU), PCIe and
 * the device bus (DevBus), node-wide. The MU counts follow from the
 * messages the node's threads send and receive (mu.c models one message);
 * each port request is pending for `port_latency` cycles ([io] key), which
 * makes the PEND counts. PCIe and DevBus serve I/O nodes and stay zero on a
 * compute node. A live MPI program (libcounterlab-mpi) adds its messages'
 * packets injected and received (eager into a memory FIFO, rendezvous as
 * puts) and messages injected, from the node's live block. */
#include <stdlib.h>
#include "counterlab/sim.h"
#include "bgq.h"

static int io_values(bgq_fixed_unit *u, bgq_fixed_set *s, int only, uint64_t *v)
{
	uint64_t mu[MU_EVENTS];
	if (!s->sum[0].val) {
		int nev[MU_EVENTS];
		for (int i = 0; i < MU_EVENTS; i++)
			nev[i] = BGQ_NEV_IO + i;
		int rc = bgq_sum_init(&s->sum[0], nev, MU_EVENTS, -1);
		if (rc)
			return rc;
	}
	bgq_node_sum(u->node, &s->sum[0]);
	for (int i = 0; i < MU_EVENTS; i++)
		mu[i] = bgq_sum_count(&s->sum[0], only, i);
	/* a live MPI program's messages are the node's, no thread's */
	const clab_live_node *live = u->net && only < 0 ? clab_live_block(u->net->tn.node) : NULL;
	if (live) {
#define LIVE(k) __atomic_load_n(&live->mu[k], __ATOMIC_RELAXED)
		mu[MU_PKT_INJ] += LIVE(CLAB_LIVE_MU_PKT_INJ);
		mu[MU_MSG_INJ] += LIVE(CLAB_LIVE_MU_MSG_INJ);
		mu[MU_FIFO_PKT_RCV] += LIVE(CLAB_LIVE_MU_FIFO_RCV);
		mu[MU_PUT_PKT_RCV] += LIVE(CLAB_LIVE_MU_PUT_RCV);
#undef LIVE
	}
	for (int p = 0; p < 3; p++) {
		mu[MU_PEND0 + 2 * p] = mu[MU_PORT(p, MU_WRT16)] * u->latency;
		mu[MU_PEND0 + 2 * p + 1] = (mu[MU_PORT(p, MU_RD32)] + mu[MU_PORT(p, MU_RD64)] +
					    mu[MU_PORT(p, MU_RD128)]) * u->latency;
	}
	for (int i = 0; i < s->n; i++)
		v[i] = s->ev[i] < MU_EVENTS ? mu[s->ev[i]] : 0;
	return CLAB_OK;
}

/* Each counter counts its node event one for one, but the pending-request
 * counters, which the model computes from the port requests. */
static int io_overflow_nev(const bgq_fixed_set *s, int i)
{
	int ev = s->ev[i];
	if (ev >= MU_PEND0 && ev < MU_EVENTS)
		return clab_seterr(CLAB_E_NOSUPP,
				   "%s: the model computes pending-request cycles from the port requests and cannot interrupt on them; arm a port request event instead",
				   bgq_iounit_natives[ev].name);
	return BGQ_NEV_IO + ev;
}

static const bgq_fixed_kind io_kind = {
	.natives = bgq_iounit_natives,
	.values = io_values,
	.overflow_nev = io_overflow_nev,
};

static const char *const io_keys[] = {"port_latency", NULL};

static int io_open(clab_machine *m, const char *section, void **unit,
		   clab_unit_desc *d)
{
	bgq_fixed_unit *u;
	int rc = bgq_fixed_open(m, &io_kind, &u);
	if (rc)
		return rc;
	rc = clab_machine_unit_u64(m, section, "port_latency", 80, 1, 1u << 20, &u->latency);
	if (!rc) /* the node's place in the torus, for a live program's messages */
		u->net = bgq_net_get(m, &rc);
	if (rc) {
		bgq_fixed_close(u);
		return rc;
	}
	*unit = u;
	*d = (clab_unit_desc){
		.description = "Blue Gene/Q I/O unit, simulated: 44 message unit, PCIe and DevBus counters",
		.rules = "Node-wide. Every event has a fixed counter of its own, so any events and any number of event sets count at once. PCIe and DevBus read zero on a compute node.",
		.ncounters = BGQ_N_IOUNIT,
		.width = 64,
		.scope = CLAB_SCOPE_NODE,
		.overflow = CLAB_OVF_SLOW,
		.overflow_latency = BGQ_SCAN,
		.natives = bgq_iounit_natives,
		.nnative = BGQ_N_IOUNIT,
	};
	return CLAB_OK;
}

const clab_unit_ops clab_bgq_io_ops = BGQ_FIXED_OPS("bgq-io", io_keys, io_open);
