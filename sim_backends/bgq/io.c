/* The BG/Q I/O unit: 44 fixed counters of the message unit (MU), PCIe and
 * the device bus (DevBus), node-wide.
 *
 * Model: the MU counts follow from the messages the node's threads send and
 * receive (clab_sim_message). A message is cut into packets of up to 512
 * payload bytes. Sending reads the 64-byte descriptor and then each
 * packet's payload from memory in 128-byte reads, the tail in one 64- and/or
 * 32-byte read; the core writes the injection FIFO's tail pointer through
 * the MU slave port. Receiving writes what arrives in 16-byte writes: memory
 * FIFO packets with their 32-byte header, puts and remote-get descriptors
 * without; polling a reception FIFO reads its tail and writes its head
 * through the slave port, a put's completion counter is polled once.
 * Messages take the MU's three master ports in turn. Each port request is
 * pending for `port_latency` cycles ([io] key), which makes the PEND counts.
 * PCIe and DevBus serve I/O nodes and stay zero on a compute node.
 * A live MPI program (libcounterlab-mpi) adds its messages' packets
 * injected and received (eager into a memory FIFO, rendezvous as puts)
 * and messages injected, from the node's live block. */
#include <stdlib.h>
#include <string.h>
#include "counterlab/sim.h"
#include "bgq.h"

enum { WRT16, RD32, RD64, RD128 };
#define PORT(p, what) (MU_PORT0 + 4 * (p) + (what))
#define PACKET_PAYLOAD 512
#define HEADER 32
#define DESCRIPTOR 64

/* Reads of one payload of p bytes from memory. */
static void payload_reads(uint64_t p, uint64_t times, int port, uint64_t *c)
{
	uint64_t tail32 = (p % 128 + 31) / 32; /* 32-byte pieces past the last 128 */
	c[PORT(port, RD128)] += times * (p / 128 + (tail32 == 4));
	c[PORT(port, RD64)] += times * (tail32 == 2 || tail32 == 3);
	c[PORT(port, RD32)] += times * (tail32 == 1 || tail32 == 3);
}

int bgq_mu_message(uint64_t seq, int kind, uint64_t bytes, uint64_t *c)
{
	int port = (int)(seq % 3);
	uint64_t full = bytes / PACKET_PAYLOAD, last = bytes % PACKET_PAYLOAD;
	uint64_t packets = full + (last || !bytes);
	uint64_t hdr = kind == CLAB_MSG_RECV_FIFO ? HEADER : 0;
	switch (kind) {
	case CLAB_MSG_SEND:
		c[MU_MSG_INJ] += 1;
		c[MU_PKT_INJ] += packets;
		c[MU_SLV_PORT_WRT] += 1;
		payload_reads(DESCRIPTOR, 1, port, c);
		payload_reads(PACKET_PAYLOAD, full, port, c);
		if (last)
			payload_reads(last, 1, port, c);
		return CLAB_OK;
	case CLAB_MSG_RECV_FIFO: case CLAB_MSG_RECV_PUT: case CLAB_MSG_RECV_RGET:
		c[kind == CLAB_MSG_RECV_FIFO ? MU_FIFO_PKT_RCV
		  : kind == CLAB_MSG_RECV_PUT ? MU_PUT_PKT_RCV : MU_RGET_PKT_RCV] += packets;
		c[PORT(port, WRT16)] += full * ((hdr + PACKET_PAYLOAD + 15) / 16) +
					(last || !bytes) * ((hdr + last + 15) / 16);
		c[MU_SLV_PORT_RD] += kind != CLAB_MSG_RECV_RGET;
		c[MU_SLV_PORT_WRT] += kind == CLAB_MSG_RECV_FIFO;
		return CLAB_OK;
	default:
		return clab_seterr(CLAB_E_INVAL, "message kind %d is not a clab_msg", kind);
	}
}

static int io_values(bgq_fixed_unit *u, bgq_fixed_set *s, uint64_t *v)
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
	memcpy(mu, s->sum[0].total, sizeof mu);
	const clab_live_node *live = u->net ? clab_live_block(u->net->tn.node) : NULL;
	if (live) { /* a live MPI program's messages */
#define LIVE(k) __atomic_load_n(&live->mu[k], __ATOMIC_RELAXED)
		mu[MU_PKT_INJ] += LIVE(CLAB_LIVE_MU_PKT_INJ);
		mu[MU_MSG_INJ] += LIVE(CLAB_LIVE_MU_MSG_INJ);
		mu[MU_FIFO_PKT_RCV] += LIVE(CLAB_LIVE_MU_FIFO_RCV);
		mu[MU_PUT_PKT_RCV] += LIVE(CLAB_LIVE_MU_PUT_RCV);
#undef LIVE
	}
	for (int p = 0; p < 3; p++) {
		mu[MU_PEND0 + 2 * p] = mu[PORT(p, WRT16)] * u->latency;
		mu[MU_PEND0 + 2 * p + 1] = (mu[PORT(p, RD32)] + mu[PORT(p, RD64)] +
					    mu[PORT(p, RD128)]) * u->latency;
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
