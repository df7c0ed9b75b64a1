/* The BG/Q network unit: 6 counters on each of the node's 11 links (10
 * torus links and the I/O link), node-wide.
 *
 * Model: the counts are what the torus model (sim_backends/torus) routes
 * over this node's links for the traffic of clab_sim_traffic: chunks sent
 * per virtual channel (counters 0-3, each with its own VC mask), packets
 * received (counter 4) and receive-FIFO occupancy (counter 5, both under
 * one VC mask), summed over the links the set attaches to. The network
 * cycles are the reading thread's cycles at the 500 MHz network clock.
 * Nothing travels on the I/O link of a compute node here. A live MPI
 * program (libcounterlab-mpi) adds the chunks and packets its messages
 * put on the node's links and the receive-FIFO occupancy the model's
 * timing gives its traffic (clab_live_block). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bgq.h"

#define NW_LINKS 11 /* the 10 torus links and the I/O link */
#define ALL_LINKS 0x7ffu
#define ALL_VCS 0x7fu
#define CTR_SENT 0xfull
#define CTR_RECV 0x10ull
#define CTR_FIFO 0x20ull
#define CTR_CYCLES 0x40ull

static const clab_qual_info nw_quals[] = {
	[BGQ_Q_LINKS] = {"links", "links the event counts on: bit l for link l (A- A+ B- B+ C- C+ D- D+ E- E+ IO), default 0x7ff", 1, ALL_LINKS},
	[BGQ_Q_VC] = {"vc", "virtual channels of a generic event: 0x40 user dynamic, 0x20 user escape, 0x10 user priority, 0x08 system, 0x04 world collective, 0x02 sub-communicator collective, 0x01 system collective; default 0x7f", 1, ALL_VCS},
};

/* ---- the unit ------------------------------------------------------------ */

static const char *name_of(int ev) { return bgq_nwunit_natives[ev].name; }
static uint64_t ctr_of(int ev) { return bgq_nwunit_natives[ev].ctr_mask; }
/* What the torus model counts for event ev (its hardware counter). */
static enum clab_netctr what_of(int ev)
{
	uint64_t c = ctr_of(ev);
	return c == CTR_SENT ? CLAB_NET_SENT_CHUNKS : c == CTR_RECV ? CLAB_NET_RECV_PACKETS
		: c == CTR_FIFO ? CLAB_NET_RECV_FIFO : CLAB_NET_CYCLES;
}
static unsigned links_of(int64_t arg) { return (unsigned)(arg & 0xffff); }
static unsigned vcs_of(int64_t arg) { return (unsigned)(arg >> 16); }

/* The links, and the VC mask: an event's own, a generic one's from :vc=. */
static int64_t nw_arg(const clab_evreq *r)
{
	uint64_t links = r->qual_set & (1u << BGQ_Q_LINKS) ? clab_evreq_qual(r, BGQ_Q_LINKS) : ALL_LINKS;
	uint64_t vc = bgq_nwunit_attr[r->native].sel;
	if (!vc)
		vc = r->qual_set & (1u << BGQ_Q_VC) ? clab_evreq_qual(r, BGQ_Q_VC) : ALL_VCS;
	return (int64_t)(links | vc << 16);
}

/* Each link has its own 6 counters: per link, at most 4 _SENT events, one
 * _RECV and one _RECV_FIFO (sharing one VC mask); PEVT_NW_CYCLES once. A
 * set may attach its events to different links (libbgpm reads each
 * attached link on its own). */
static int nw_check(const bgq_fixed_set *s)
{
	int cycles = 0;
	for (int l = 0; l < NW_LINKS; l++) {
		int sent = 0, recv = -1, fifo = -1;
		for (int i = 0; i < s->n; i++) {
			uint64_t c = ctr_of(s->ev[i]);
			if (c == CTR_CYCLES) {
				if (l == 0 && cycles++)
					return clab_seterr(CLAB_E_CONFLICT,
							   "%s: a network event set counts PEVT_NW_CYCLES once",
							   name_of(s->ev[i]));
				continue;
			}
			if (!(links_of(s->arg[i]) & (1u << l)))
				continue;
			if (c == CTR_SENT && ++sent > 4)
				return clab_seterr(CLAB_E_CONFLICT,
						   "%s: link %d counts at most 4 _SENT events (counters 0-3)",
						   name_of(s->ev[i]), l);
			if ((c == CTR_RECV && recv >= 0) || (c == CTR_FIFO && fifo >= 0))
				return clab_seterr(CLAB_E_CONFLICT,
						   "%s: link %d counts one _RECV and one _RECV_FIFO event",
						   name_of(s->ev[i]), l);
			if (c == CTR_RECV)
				recv = i;
			if (c == CTR_FIFO)
				fifo = i;
		}
		if (recv >= 0 && fifo >= 0 && vcs_of(s->arg[recv]) != vcs_of(s->arg[fifo]))
			return clab_seterr(CLAB_E_CONFLICT,
					   "%s (VC mask 0x%02x) and %s (0x%02x): receive counters 4 and 5 of link %d share one VC mask",
					   name_of(s->ev[recv]), vcs_of(s->arg[recv]),
					   name_of(s->ev[fifo]), vcs_of(s->arg[fifo]), l);
	}
	return CLAB_OK;
}

static int nw_admit(bgq_fixed_unit *u, const bgq_fixed_set *s,
		    const bgq_fixed_set *replace)
{
	if (u->nw_sets - (replace != NULL) > 0)
		return clab_seterr(CLAB_E_CONFLICT,
				   "cannot start: %s: a running event set of hardware thread %d holds the node's network unit; one set at a time programs its counters",
				   s->n ? name_of(s->ev[0]) : "this set", u->nw_holder);
	u->nw_sets++;
	u->nw_holder = s->hw;
	return CLAB_OK;
}

static void nw_retire(bgq_fixed_unit *u, const bgq_fixed_set *s)
{
	(void)s;
	u->nw_sets--;
}

/* The links count the node's traffic, no thread's own; the cycles are the
 * reader's. */
static int nw_values(bgq_fixed_unit *u, bgq_fixed_set *s, int only, uint64_t *v)
{
	bgq_net *b = u->net;
	const clab_live_node *live = clab_live_block(b->tn.node);
	for (int i = 0; i < s->n; i++) { /* no lock (clab_machine_net_count) */
		enum clab_netctr what = what_of(s->ev[i]);
		v[i] = 0;
		if (what == CLAB_NET_CYCLES) { /* the reader's clock at 500 of 1600 MHz */
			v[i] = only < 0 || only == s->hw ? u->node->hwt[s->hw].now * 5 / 16 : 0;
			continue;
		}
		if (only >= 0)
			continue;
		for (int l = 0; l < b->tn.torus.nlinks; l++)
			if (links_of(s->arg[i]) & (1u << l))
				v[i] += clab_machine_net_count(b, live, l, what, vcs_of(s->arg[i]));
	}
	return CLAB_OK;
}

static const bgq_fixed_kind nw_kind = {
	.natives = bgq_nwunit_natives,
	.arg = nw_arg,
	.check = nw_check,
	.admit = nw_admit,
	.retire = nw_retire,
	.values = nw_values,
};

static int nw_open(clab_machine *m, const char *section, void **unit,
		   clab_unit_desc *d)
{
	(void)section;
	bgq_fixed_unit *u;
	int rc = bgq_fixed_open(m, &nw_kind, &u);
	if (rc)
		return rc;
	if (!(u->net = bgq_net_get(m, &rc))) {
		bgq_fixed_close(u);
		return rc;
	}
	*unit = u;
	*d = (clab_unit_desc){
		.description = "Blue Gene/Q network unit, simulated: 11 links x 6 counters, counts from the torus model",
		.rules = "Node-wide; one running event set at a time. On each link a set counts at most 4 _SENT events (counters 0-3), one _RECV (counter 4) and one _RECV_FIFO (counter 5; 4 and 5 share one VC mask); an event counts on the links of its :links=MASK (default all 11); PEVT_NW_CYCLES once; generic PEVT_NW_SENT/RECV/RECV_FIFO take :vc=MASK. No overflow.",
		/* every link's 6 and the cycle counter: a set may hold events
		 * on links apart beyond one link's 7 (PAPI's num_cntrs) */
		.ncounters = NW_LINKS * 6 + 1,
		.width = 64,
		.scope = CLAB_SCOPE_NODE,
		.overflow = CLAB_OVF_NONE,
		.natives = bgq_nwunit_natives,
		.nnative = BGQ_N_NWUNIT,
		.quals = nw_quals,
		.nquals = 2,
	};
	return CLAB_OK;
}

const clab_unit_ops clab_bgq_nw_ops = BGQ_FIXED_OPS("bgq-nw", clab_machine_net_keys, nw_open);

/* ---- the unit's events for counterlab-netsim ----------------------------- */

/* The I/O unit's message-unit counters the torus model keeps per node:
 * where BG/Q counts on-node transfers (they never reach a torus link). */
static const clab_netevent mu_events[] = {
	{"PEVT_MU_PKT_INJ", "packets the node's message unit injected (torus and on-node)",
	 CLAB_NET_MU_PKT_INJ, 0, -1, 1, NULL},
	{"PEVT_MU_MSG_INJ", "messages the node's message unit injected (torus and on-node)",
	 CLAB_NET_MU_MSG_INJ, 0, -1, 0, NULL},
	{"PEVT_MU_PUT_PKT_RCV", "packets the node's message unit received as direct puts (torus and on-node)",
	 CLAB_NET_MU_PKT_RCV, 0, -1, 0, NULL},
	{"CLAB_LOCAL_PKTS", "model (no such hardware counter): packets of on-node transfers, part of PEVT_MU_PKT_INJ",
	 CLAB_NET_LOCAL_PACKETS, 0, -1, 1, NULL},
};
#define N_MU (int)(sizeof mu_events / sizeof *mu_events)

static clab_netevent nw_events[BGQ_N_NWUNIT + N_MU];
static pthread_once_t nw_events_once = PTHREAD_ONCE_INIT;

static void nw_events_build(void)
{
	for (int i = 0; i < BGQ_N_NWUNIT; i++) {
		unsigned vc = bgq_nwunit_attr[i].sel;
		nw_events[i] = (clab_netevent){
			.name = name_of(i),
			.descr = bgq_nwunit_natives[i].descr,
			.what = what_of(i),
			.vcmask = vc ? vc : ALL_VCS,
			.link = -1,
			.main = vc == 0x70,
		};
	}
	for (int i = 0; i < N_MU; i++)
		nw_events[BGQ_N_NWUNIT + i] = mu_events[i];
}

const clab_netevent *clab_bgq_netevents(int *n)
{
	pthread_once(&nw_events_once, nw_events_build);
	*n = BGQ_N_NWUNIT + N_MU;
	return nw_events;
}
