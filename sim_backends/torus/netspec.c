/* The torus machines' network facts (IBM's BG/Q and BG/L documentation) and
 * costs, and how a message is cut into packets on each. Every number says
 * where it comes from; "modeller's choice" marks the ones for which no
 * public figure was found (docs/torus.md lists them).
 * Figures marked "recalled" are quoted from the named publication without
 * the text at hand: approximate, worth re-checking. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "counterlab/torus.h"

static const clab_netspec specs[] = {
	{
		.name = "bgq",
		.description = "IBM Blue Gene/Q: 5D torus ABCDE (E = 2), 2 GB/s links, 500 MHz network",
		.letters = "ABCDET", .ndims = 5,
		.shape = "4x4x4x4x2", .ppn = 16, .max_ppn = 64,
		.fixed_dim = 4, .fixed_size = 2,
		.header = 32, .chunk = 32, .max_payload = 512, .min_packet = 32,
		.extra_per_packet = 0,
		.link_bytes_s = 2e9, .net_hz = 500e6, .cpu_hz = 1.6e9,
		/* IBM Redbook SG24-7872 (BG/Q hardware overview), ch. 2:
		 * "approximately 40 ns" per hop */
		.hop_s = 40e-9,
		.eager_max = 2048,       /* BG/Q MPI: eager up to about 2 KB */
		.fifo_packets = 7,       /* tokens of a bubble VC's receive buffer */
		/* the dynamic VC's: 126 tokens of a 32-byte chunk (the BG/Q
		 * driver's check of a link's sender tokens, 0x7E77777: 126
		 * dynamic, 7 for each other VC; the dynamic count can be cut
		 * by at most 104, to 22, at least a largest packet's 17) */
		.dyn_chunks = 126,
		.inj_fifos = 16,         /* modeller's choice */
		/* a link's sender arbiter grants the receivers (packets
		 * passing through) n + 1 times to the injection FIFOs' once
		 * while both wait: n = 15, the BG/Q driver's default
		 * personality (firmware/include/personality.h, with the ND
		 * register's description in hwi/include/bqc/nd_500_dcr.h) */
		.transit_ratio = 16,
		/* a dynamic packet that fell back to the bubble VC may go
		 * dynamic again at the next router: the header's
		 * Stay_On_Bubble bit is 0 (MU_Pt2PtNetworkHeader.h); PAMI's
		 * many-to-many sets its header to VC and zone only, and no
		 * MPI path of the driver sets the bit */
		.stay_on_bubble = 0,
		/* MPI_Alltoall(v) is PAMI's many-to-many: up to 10 injection
		 * FIFOs per rank (BG/Q driver V1R2M2, comm/sys/pami) */
		.m2m_fifos = 10,
		/* modeller's choice: the MU's injection and reception sides
		 * each keep up with all ten links (10 in + 10 out) */
		.drain_links = 20,
		.io_link = 1,
		.leftmost_fastest = 0,   /* BG/Q: ABCDET, T fastest */
		/* A zero-byte nearest-neighbour MPI message: 0.7 + 0.75 + 0.04
		 * + 0.016 + 0.7 = 2.2 us, the order of BG/Q's published MPI
		 * latency (Kumar et al., "PAMI", ICS 2012; recalled). The split
		 * between software overheads and MU latency is the modeller's
		 * choice. */
		.latency_s = 0.75e-6, .o_send_s = 0.7e-6, .o_recv_s = 0.7e-6,
		.gap_s = 0.2e-6,         /* modeller's choice (<= o: o limits) */
		/* on-node messages are copies through memory: DDR3 42.6 GB/s
		 * peak (IBM, BG/Q chip), read and written: half of it */
		.local_bytes_s = 21.3e9,
		/* 16 application cores x 4-wide FMA (8 flops) x 1.6 GHz */
		.cores = 16, .peak_flops = 204.8e9,
		.flop_eff = 0.10,        /* modeller's choice */
		.mem_bytes_s = 42.6e9,   /* DDR3 peak, two controllers (IBM) */
		.mem_eff = 0.65,         /* modeller's choice: STREAM-like share */
	},
	{
		.name = "bgl",
		.description = "IBM Blue Gene/L: 3D torus XYZ, 2 bits per cycle links, 700 MHz",
		.letters = "XYZT", .ndims = 3,
		.shape = "8x4x4", .ppn = 1, .max_ppn = 2,
		.fixed_dim = -1, .fixed_size = 0,
		.header = 16, .chunk = 32, .max_payload = 240, .min_packet = 32,
		.extra_per_packet = 14,  /* link protocol, ack, checksum */
		.link_bytes_s = 175e6, .net_hz = 700e6, .cpu_hz = 700e6,
		.hop_s = 100e-9,         /* modeller's choice */
		.eager_max = 1000,
		.fifo_packets = 4,       /* a 1 KB reception FIFO of 256-byte packets */
		.stay_on_bubble = 1,     /* modeller's choice (no public figure found) */
		.inj_fifos = 6,          /* modeller's choice */
		/* from the published receiver-congestion experiment: a node
		 * receiving 1 MB from 3 neighbours at once keeps up, from 4
		 * its senders count no-token cycles; so the CPU, polling the
		 * FIFOs, moves 3 links' worth (525 MB/s, 0.75 bytes per
		 * cycle), receiving and sending together */
		.drain_links = 3,
		.io_link = 0,
		/* BG/L's MPI runs broadcast, reductions and barriers on its
		 * collective (tree) network, which the torus events do not see */
		.tree_net = 1,
		.leftmost_fastest = 1,   /* BG/L: XYZT puts rank 1 at (1,0,0) */
		/* A zero-byte nearest-neighbour MPI message: 1.0 + 0.8 + 0.1 +
		 * 0.18 + 1.0 = 3.1 us, the order of BG/L's published MPI
		 * latency (Almasi et al., IBM J. R&D 49(2/3), 2005; recalled);
		 * the split is the modeller's choice. */
		.latency_s = 0.8e-6, .o_send_s = 1.0e-6, .o_recv_s = 1.0e-6,
		.gap_s = 0.3e-6,         /* modeller's choice */
		/* virtual-node mode: on-node messages are copies through the
		 * node's memory (5.6 GB/s), read and written: half of it */
		.local_bytes_s = 2.8e9,
		/* 2 PowerPC 440 cores x double FPU (2 FMA = 4 flops) x 700 MHz */
		.cores = 2, .peak_flops = 5.6e9,
		.flop_eff = 0.10,        /* modeller's choice */
		.mem_bytes_s = 5.6e9,    /* 16 bytes per cycle at 350 MHz DDR */
		.mem_eff = 0.5,          /* modeller's choice */
	},
	{
		/* A plain k-ary n-cube for studies: BG/Q's packet format and
		 * link, a router with one injection and one ejection channel
		 * (drain 2 links' worth), MPI costs and compute as BG/Q's. */
		.name = "torus",
		.description = "generic torus: any shape (--torus AxBx...), BG/Q-like links and packets",
		.letters = "ABCDEF", .ndims = 0,
		.shape = "8x8x8", .ppn = 1, .max_ppn = 64,
		.fixed_dim = -1, .fixed_size = 0,
		.header = 32, .chunk = 32, .max_payload = 512, .min_packet = 32,
		.extra_per_packet = 0,
		.link_bytes_s = 2e9, .net_hz = 500e6, .cpu_hz = 1.6e9,
		.hop_s = 40e-9, .eager_max = 2048,
		.fifo_packets = 7, .inj_fifos = 16,
		.stay_on_bubble = 1,
		.drain_links = 2,
		.io_link = 0, .leftmost_fastest = 0,
		.latency_s = 0.75e-6, .o_send_s = 0.7e-6, .o_recv_s = 0.7e-6,
		.gap_s = 0.2e-6, .local_bytes_s = 21.3e9,
		.cores = 16, .peak_flops = 204.8e9, .flop_eff = 0.10,
		.mem_bytes_s = 42.6e9, .mem_eff = 0.65,
	},
	{
		/* Cray Gemini: a torus position is a router
		 * with its two nodes (ppn = ranks per router, half on each
		 * node); the tiles, PUT/GET packets and compression are
		 * sim_backends/gemini's. For the flow engine's timing a packet
		 * is a PUT request: 64 bytes of data in 22 phits behind a
		 * 10-phit header (32 phits), and a link is 8 cable tiles. */
		.name = "gemini",
		.description = "Cray Gemini (XE6/XK7): 3D torus XYZ of routers, 2 nodes each, 48 tiles per router",
		.letters = "XYZT", .ndims = 3,
		.shape = "4x4x4", .ppn = 32, .max_ppn = 64,
		.fixed_dim = -1, .fixed_size = 0,
		.header = 30, .chunk = 3, .max_payload = 64, .min_packet = 24,
		.extra_per_packet = 0,
		/* 8 cable tiles x 1.17 GB/s (Cray's tile bandwidths); Z+ backplane
		 * (15 GB/s) and Y (9.4 / 4.7 GB/s) differ: the tiles' own
		 * pricing (clab_gemini_phase_end) uses the map */
		.link_bytes_s = 9.36e9, .net_hz = 800e6,
		.cpu_hz = 2.4e9,         /* Cielo's Opteron 6136 (AMD) */
		.hop_s = 100e-9,         /* modeller's choice (order of published router latencies) */
		/* Cray MPICH's default MPICH_GNI_MAX_EAGER_MSG_SIZE: eager
		 * messages are pushed (PUT), larger ones go rendezvous (gemini.h) */
		.eager_max = 8192,
		.fifo_packets = 4, .inj_fifos = 8,   /* modeller's choice */
		.stay_on_bubble = 1,
		/* a router's 8 host tiles x 1.33 GB/s each way, over a 9.36 GB/s link */
		.drain_links = 2.27,
		.io_link = 0, .leftmost_fastest = 0,
		/* about 1.3 us nearest-neighbour MPI latency: the order of
		 * published Gemini figures (recalled); the split is the
		 * modeller's choice */
		.latency_s = 0.5e-6, .o_send_s = 0.4e-6, .o_recv_s = 0.4e-6,
		.gap_s = 0.1e-6,
		/* two Cielo nodes per router: 2 x 2 Opteron 6136 (8 cores, 4
		 * flops/cycle, 2.4 GHz), DDR3-1333 4 channels per socket
		 * (85.3 GB/s a node); a copy reads and writes: half */
		.local_bytes_s = 85.3e9,
		.cores = 32, .peak_flops = 307.2e9, .flop_eff = 0.10,
		.mem_bytes_s = 170.6e9, .mem_eff = 0.65,
	},
};

static const char *const names[] = {"bgq", "bgl", "torus", "gemini", NULL};

const clab_netspec *clab_netspec_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof specs / sizeof *specs; i++)
		if (!strcmp(specs[i].name, name))
			return &specs[i];
	return NULL;
}

const char *const *clab_netspec_names(void)
{
	return names;
}

/* On the wire a packet is its header and payload rounded up to whole
 * chunks (at least min_packet), plus extra_per_packet bytes. */
static void one_packet(const clab_netspec *s, uint64_t payload, uint64_t times,
		       clab_packets *p)
{
	uint64_t size = (s->header + payload + s->chunk - 1) / s->chunk * s->chunk;
	if (size < s->min_packet)
		size = s->min_packet;
	p->packets += times;
	p->chunks += times * (size / s->chunk);
	p->wire += times * (size + s->extra_per_packet);
}

clab_packets clab_netspec_packetize(const clab_netspec *s, uint64_t bytes)
{
	clab_packets p = {0, 0, 0};
	uint64_t full = bytes / s->max_payload, last = bytes % s->max_payload;
	one_packet(s, s->max_payload, full, &p);
	if (last || !bytes)
		one_packet(s, last, 1, &p);
	return p;
}

/* The parameters clab_netspec_set can change, for what-if studies. */
typedef struct param {
	const char *name, *meaning;
	size_t off;
	int is_u32;
	double min, max;
	const char *words; /* "a|b": names of the values 0, 1 (or NULL) */
} param;

#define P_D(f, lo, hi, m) {#f, m, offsetof(clab_netspec, f), 0, lo, hi, NULL}
#define P_U(f, lo, hi, m) {#f, m, offsetof(clab_netspec, f), 1, lo, hi, NULL}
#define P_W(f, w, m) {#f, m, offsetof(clab_netspec, f), 1, 0, 1, w}
static const param params[] = {
	P_D(link_bytes_s, 1e3, 1e13, "bytes per second per link and direction (raw)"),
	P_D(hop_s, 0, 1e-3, "router latency per hop, s"),
	P_D(latency_s, 0, 1e-3, "network interface latency of a message, s"),
	P_D(o_send_s, 0, 1e-3, "CPU overhead per message sent, s"),
	P_D(o_recv_s, 0, 1e-3, "CPU overhead per message received, s"),
	P_D(gap_s, 0, 1e-3, "least time between two messages of a rank, s"),
	P_U(eager_max, 0, 1e9, "largest eager message, bytes (larger: rendezvous)"),
	P_D(drain_links, 0.01, 1000, "links' worth a node moves to and from memory, send + receive"),
	P_U(fifo_packets, 2, 1e4, "largest packets a link's receive buffer holds per VC"),
	P_U(dyn_chunks, 0, 1e6, "packet engine: chunks of a link's dynamic-VC receive buffer (0: fifo_packets largest packets)"),
	P_U(dateline, 0, 1, "packet engine: 1 two dateline VCs per link for dimension-ordered packets, 0 one bubble VC"),
	P_U(round_robin, 0, 2, "packet engine: a link serves waiting inputs oldest first (0), input ports in turn (1), input VCs in turn (2)"),
	P_W(tie, "parity|random", "packet engine, half way round an even ring: parity (0) of the source per flow, random (1) per packet"),
	P_W(flow_unit, "packet|chunk", "packet engine: a buffer's room comes back per packet (0, its tail gone) or per chunk (1)"),
	P_W(ports, "shared|split", "packet engine: one node port for sending and receiving in turns (0), or one each of half drain_links (1)"),
	P_U(speedup, 0, 8, "packet engine: 0 a link takes packets straight from its router's input buffers; k a crossbar at k links' worth fills a queue per output link"),
	P_U(interleave, 0, 1, "packet engine: 1 packets on different VCs share a link chunk by chunk, 0 one packet crosses at a time"),
	P_U(stay_on_bubble, 0, 1, "packet engine: 1 a dynamic packet that fell back to the escape VC keeps it, 0 it may go dynamic again at the next router"),
	P_U(transit_ratio, 0, 255, "packet engine: k a link serves packets passing through first, the node's own once it has passed k on in a row; 0 no preference"),
	P_U(inj_fifos, 1, 1024, "messages a node injects at once (packet engine)"),
	P_U(inj_vcs, 0, 64, "packet engine: 0 a packet read waits in its message's FIFO; k packets read enter k injection queues in turn"),
	P_U(m2m_fifos, 0, 64, "all-to-all as BG/Q's many-to-many over this many injection FIFOs per rank (0: each rank to the next members in turn)"),
	P_U(header, 0, 4096, "packet header bytes"),
	P_U(chunk, 1, 4096, "bytes of a chunk (packets are whole chunks)"),
	P_U(max_payload, 1, 65536, "payload bytes per packet, at most"),
	P_U(min_packet, 1, 65536, "smallest packet on the wire, bytes"),
	P_U(extra_per_packet, 0, 4096, "wire bytes per packet besides its chunks"),
	P_D(local_bytes_s, 1e3, 1e14, "on-node copy bandwidth of a node, bytes/s"),
	P_D(peak_flops, 1e3, 1e16, "node's peak FLOP/s"),
	P_D(flop_eff, 1e-6, 1, "fraction of peak FLOP/s reached"),
	P_D(mem_bytes_s, 1e3, 1e14, "node's peak memory bandwidth, bytes/s"),
	P_D(mem_eff, 1e-6, 1, "fraction of memory bandwidth reached"),
};
#define NPARAMS (int)(sizeof params / sizeof *params)

static double param_get(const clab_netspec *s, const param *p)
{
	const char *at = (const char *)s + p->off;
	return p->is_u32 ? *(const uint32_t *)at : *(const double *)at;
}

const char *clab_netspec_param(const clab_netspec *s, int i, const char **meaning,
			       double *value)
{
	if (i < 0 || i >= NPARAMS)
		return NULL;
	if (meaning)
		*meaning = params[i].meaning;
	if (value)
		*value = param_get(s, &params[i]);
	return params[i].name;
}

int clab_netspec_set(clab_netspec *s, const char *key, const char *value)
{
	const param *p = NULL;
	for (int i = 0; i < NPARAMS; i++)
		if (!strcmp(params[i].name, key))
			p = &params[i];
	if (!p) {
		char names[512] = "";
		for (int i = 0; i < NPARAMS; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
				 i ? ", " : "", params[i].name);
		return clab_seterr(CLAB_E_INVAL, "unknown network parameter \"%s\"; known: %s",
				   key, names);
	}
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	/* a named value: its number */
	if (p->words && end == value) {
		v = 0;
		for (const char *w = p->words; end == value; v++) {
			size_t len = strcspn(w, "|");
			if (strlen(value) == len && !strncmp(w, value, len))
				end = (char *)value + len;
			else if (!w[len])
				break;
			else
				w += len + 1;
		}
		v--;
	}
	if (end == value || *end || errno || !isfinite(v) || v < p->min || v > p->max ||
	    (p->is_u32 && v != floor(v)))
		return p->words ? clab_seterr(CLAB_E_INVAL, "%s=%s: want %s (or 0..%g)", key, value,
					      p->words, p->max)
			: clab_seterr(CLAB_E_INVAL, "%s=%s: want a %s in %g..%g", key, value,
				      p->is_u32 ? "whole number" : "number", p->min, p->max);
	clab_netspec t = *s;
	char *at = (char *)&t + p->off;
	if (p->is_u32)
		*(uint32_t *)at = (uint32_t)v;
	else
		*(double *)at = v;
	/* a packet is at most 65535 chunks (the packet engine's counters) */
	if ((t.header + t.max_payload + t.chunk - 1) / t.chunk > 65535 ||
	    t.min_packet > t.header + t.max_payload)
		return clab_seterr(CLAB_E_INVAL,
				   "%s=%s: packets of %u header + %u payload bytes in %u-byte chunks (at least %u) do not fit: at most 65535 chunks, min_packet at most header + payload",
				   key, value, t.header, t.max_payload, t.chunk, t.min_packet);
	*s = t;
	return CLAB_OK;
}

const char *clab_netspec_convention(const clab_netspec *s)
{
	return s->leftmost_fastest ? "leftmost letter fastest" : "rightmost letter fastest";
}

/* One header-only message there and back: a rendezvous's request and
 * answer. */
static double round_trip(const clab_netspec *s, int hops)
{
	clab_packets h = clab_netspec_packetize(s, 0);
	return 2 * (s->o_send_s + s->latency_s + hops * s->hop_s +
		    (double)h.wire / s->link_bytes_s + s->o_recv_s);
}

double clab_netspec_message_s(const clab_netspec *s, uint64_t bytes, int hops)
{
	double t = s->o_send_s + s->o_recv_s;
	if (hops <= 0)
		return t + (double)bytes / s->local_bytes_s;
	clab_packets p = clab_netspec_packetize(s, bytes);
	t += s->latency_s + hops * s->hop_s + (double)p.wire / s->link_bytes_s;
	return bytes > s->eager_max ? t + round_trip(s, hops) : t;
}

/* The generic torus's network events: the model's counters summed over a
 * node's torus links (it has no hardware counter unit to imitate). */
#define ALLVC 0x7fu
#define DYN CLAB_VC_BIT(CLAB_VC_DYNAMIC)
#define ESC CLAB_VC_BIT(CLAB_VC_ESCAPE)
static const clab_netevent torus_events[] = {
	{"TORUS_SENT_CHUNKS", "chunks sent on the node's torus links, all VCs", CLAB_NET_SENT_CHUNKS, ALLVC, -1, 1, NULL},
	{"TORUS_SENT_PACKETS", "packets sent on the node's torus links, all VCs", CLAB_NET_SENT_PACKETS, ALLVC, -1, 1, NULL},
	{"TORUS_SENT_DYNAMIC_CHUNKS", "chunks sent on dynamic (adaptive) VCs", CLAB_NET_SENT_CHUNKS, DYN, -1, 0, NULL},
	{"TORUS_SENT_ESCAPE_CHUNKS", "chunks sent on the escape (deterministic, bubble) VC", CLAB_NET_SENT_CHUNKS, ESC, -1, 0, NULL},
	{"TORUS_RECV_CHUNKS", "chunks received on the node's torus links", CLAB_NET_RECV_CHUNKS, ALLVC, -1, 0, NULL},
	{"TORUS_RECV_PACKETS", "packets received on the node's torus links", CLAB_NET_RECV_PACKETS, ALLVC, -1, 1, NULL},
	{"TORUS_RECV_FIFO", "receive-buffer occupancy (packets) summed every network cycle", CLAB_NET_RECV_FIFO, ALLVC, -1, 1, NULL},
	{"TORUS_NO_TOKEN", "cycles a link was free with a packet waiting but no token downstream", CLAB_NET_NO_TOKEN, ALLVC, -1, 1, NULL},
	{"TORUS_CYCLES", "network cycles of all phases", CLAB_NET_CYCLES, 0, -1, 0, NULL},
	{"TORUS_PKT_INJ", "packets the node injected", CLAB_NET_MU_PKT_INJ, 0, -1, 0, NULL},
	{"TORUS_PKT_RCV", "packets the node received", CLAB_NET_MU_PKT_RCV, 0, -1, 0, NULL},
};

const clab_netevent *clab_torus_netevents(int *n)
{
	*n = (int)(sizeof torus_events / sizeof *torus_events);
	return torus_events;
}
