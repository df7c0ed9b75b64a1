/* The torus network model: topology, rank mapping, routing, packetization
 * and a flow-level timing model, for the Blue Gene torus machines.
 *
 * A machine's network facts come from a table (clab_netspec_find); a torus
 * of a chosen shape is a clab_torus; ranks sit on nodes by a clab_map; a
 * clab_net collects the traffic of phases and gives per-link counts and
 * each phase's modelled completion time. */
#ifndef COUNTERLAB_TORUS_H
#define COUNTERLAB_TORUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CLAB_TORUS_MAXD 6

/* Facts of a machine's torus network (sim_backends/torus/netspec.c). */
typedef struct clab_netspec {
	const char *name;          /* "bgq", "bgl", "torus" */
	const char *description;
	const char *letters;       /* dimension letters, then the on-node one
				    * (generic torus: "ABCDEF", T added) */
	int ndims;                 /* 0: as many as the shape gives */
	const char *shape;         /* default torus */
	int ppn, max_ppn;          /* default and largest ranks per node */
	int fixed_dim, fixed_size; /* a dimension of fixed size (BG/Q E=2), -1 */
	uint32_t header;           /* bytes of packet header */
	uint32_t chunk;            /* packets are whole chunks of this size */
	uint32_t max_payload;      /* payload bytes per packet */
	uint32_t min_packet;       /* smallest packet on the wire */
	uint32_t extra_per_packet; /* wire bytes a packet carries besides (CRC...) */
	double link_bytes_s;       /* per link and direction, raw */
	double net_hz;             /* network clock */
	double cpu_hz;             /* node clock (simulated cycles) */
	double hop_s;              /* router latency per hop */
	uint32_t eager_max;        /* MPI: larger messages go rendezvous, dynamic */
	uint32_t fifo_packets;     /* capacity of a link's receive FIFO, per
				    * VC, in largest packets */
	uint32_t dyn_chunks;       /* packet engine: the dynamic VC's receive
				    * buffer in chunks (BG/Q: 126 tokens of 32
				    * bytes); 0: fifo_packets largest packets */
	uint32_t dateline;         /* packet engine, dimension-ordered packets:
				    * 0 one VC with the bubble rule (BG/Q, BG/L),
				    * 1 two VCs per link, the second for packets
				    * whose way in a ring wraps round (Cray's
				    * routers, BookSim2's dim_order) */
	uint32_t round_robin;      /* packet engine: 1 a free link serves the
				    * waiting input ports in turn, 2 each input
				    * buffer (VC) and injection queue in turn
				    * (BookSim2's allocators), 0 the oldest
				    * waiting first */
	uint32_t tie;              /* packet engine, a way exactly half round an
				    * even ring: 0 (parity) the source's
				    * coordinate parity picks the direction per
				    * flow (BG/Q), 1 (random) a seeded draw per
				    * packet and dimension (BookSim2) */
	uint32_t flow_unit;        /* packet engine: 0 (packet) a buffer's room
				    * comes back when a packet's tail has left,
				    * 1 (chunk) chunk by chunk as it leaves */
	uint32_t ports;            /* packet engine: 0 (shared) one node port
				    * of drain_links links' worth, sending and
				    * receiving in turns, 1 (split) an injection
				    * and an ejection port of half that each */
	uint32_t speedup;          /* packet engine: 0 a link takes its packets
				    * straight from the input buffers, one at a
				    * time; k a router's crossbar moves packets
				    * at k links' worth into a queue per output
				    * link, which the link sends in order
				    * (BookSim2's internal_speedup) */
	uint32_t interleave;       /* packet engine: 0 one packet crosses a link
				    * at a time (virtual cut-through: BG/Q, BG/L),
				    * 1 packets bound for different buffers at
				    * the far end (VCs) share the link chunk by
				    * chunk, each no faster than it arrives
				    * (BookSim2's flit-level links; with
				    * speedup, a queue per lane fed by the
				    * crossbar) */
	uint32_t stay_on_bubble;   /* packet engine: 1 a dynamic packet that
				    * fell back to the escape VC keeps it to its
				    * destination, 0 it may take the dynamic VC
				    * again at the next router (BG/Q's header
				    * bit, which its MPI leaves 0) */
	uint32_t transit_ratio;    /* packet engine: k a link serves packets
				    * passing through before the node's own,
				    * but the node's next once it has passed k
				    * on in a row (BG/Q's sender arbiter: 16);
				    * 0 no preference (oldest first or the
				    * round_robin turn over both) */
	uint32_t inj_fifos;        /* messages a node's MU injects at once */
	uint32_t inj_vcs;          /* packet engine: 0 each injection FIFO holds
				    * the one packet read for it; k the packets
				    * read enter k injection queues of
				    * fifo_packets each, in turn (BookSim2's
				    * injection VCs) */
	uint32_t m2m_fifos;        /* MPI all-to-all as BG/Q's many-to-many:
				    * each rank deals its descriptors over this
				    * many injection FIFOs (0: ranks send to the
				    * next member, the one after, ... at once) */
	double drain_links;        /* links' worth of data a node moves between
				    * the torus and memory, sending and receiving
				    * together */
	int io_link;               /* has a link to an I/O node (last link) */
	int tree_net;              /* MPI collectives run on a separate tree
				    * network (BG/L), not on torus VCs */
	int leftmost_fastest;      /* map strings: 1 leftmost letter varies
				    * fastest (BG/L), 0 rightmost (BG/Q) */
	/* Message costs (LogGP-style, per rank): */
	double latency_s;          /* network interface latency of a message,
				    * besides its hops and bytes */
	double o_send_s, o_recv_s; /* CPU overhead per message sent, received */
	double gap_s;              /* least time between two messages of a rank */
	double local_bytes_s;      /* node's on-node copy bandwidth */
	/* Computation (per node; a rank gets 1/max(ranks, cores) of it): */
	int cores;                 /* cores that run ranks */
	double peak_flops;         /* FLOP/s */
	double flop_eff;           /* fraction of peak an application reaches */
	double mem_bytes_s;        /* memory bandwidth, peak */
	double mem_eff;            /* fraction of it reached */
} clab_netspec;

const clab_netspec *clab_netspec_find(const char *name);
/* Names of the known machines, NULL-ended. */
const char *const *clab_netspec_names(void);
/* Sets the parameter `key` of s (a copy of a machine's facts) from text:
 * CLAB_E_INVAL naming the key and its range when the key is unknown or the
 * value malformed or out of range. */
int clab_netspec_set(clab_netspec *s, const char *key, const char *value);
/* The settable parameters: name, meaning; i = 0.. until NULL. *value gets
 * the parameter's value in s. */
const char *clab_netspec_param(const clab_netspec *s, int i, const char **meaning,
			       double *value);
/* "leftmost letter fastest" or "rightmost letter fastest". */
const char *clab_netspec_convention(const clab_netspec *s);
/* Seconds one message of `bytes` takes from rank to rank over `hops`
 * hops alone on the network (hops 0: on one node):
 *   o_send + latency + hops * hop + wire / link + o_recv,
 * on-node: o_send + bytes / local_bytes_s + o_recv; a torus message larger
 * than eager_max adds the round trip of its rendezvous (a header-only request
 * and answer, each o_send + latency + hops * hop + header / link + o_recv). */
double clab_netspec_message_s(const clab_netspec *s, uint64_t bytes, int hops);

/* Packets, 32-byte chunks and wire bytes of one message of `bytes`
 * payload (an empty message is one header-only packet). */
typedef struct clab_packets {
	uint64_t packets, chunks, wire;
} clab_packets;
clab_packets clab_netspec_packetize(const clab_netspec *s, uint64_t bytes);

/* A torus (or mesh, per dimension) of nodes. Node index: coordinates with
 * the last dimension varying fastest. Links of a node: 2d is the minus and
 * 2d+1 the plus link of dimension d; the I/O link, when the machine has
 * one, is link 2*ndims. */
typedef struct clab_torus {
	const clab_netspec *spec;
	int ndims;
	int size[CLAB_TORUS_MAXD];
	uint8_t wrap[CLAB_TORUS_MAXD];   /* 1: ring, 0: line (mesh) */
	uint32_t stride[CLAB_TORUS_MAXD];
	uint32_t nodes;
	int ppn;
	int order[CLAB_TORUS_MAXD];      /* deterministic routing order */
	int nlinks;
	char letters[CLAB_TORUS_MAXD + 2]; /* dimension letters, then the slot's */
} clab_torus;

/* shape: sizes joined by 'x', "4x4x4x4x2"; a size followed by 'm' is a
 * mesh dimension (no wrap-around link). A machine of ndims 0 (the
 * generic "torus") takes 1..CLAB_TORUS_MAXD sizes, lettered A, B, ... order: dimension letters in
 * routing order, or NULL/"" for longest dimension first. Returns 0 or a
 * negative clab error with a message (clab_errmsg). */
int clab_torus_init(clab_torus *t, const clab_netspec *spec,
		    const char *shape, int ppn, const char *order);
void clab_torus_coords(const clab_torus *t, uint32_t node, int *c);
uint32_t clab_torus_node(const clab_torus *t, const int *c);
/* Signed hops from a to b along dimension d the shortest way. Half way
 * round a ring of even size goes plus from a node whose coordinates sum to
 * an even number (odd = 0), minus otherwise, as BG/Q's routers do. */
int clab_torus_delta(const clab_torus *t, int d, int a, int b, int odd);
int clab_torus_hops(const clab_torus *t, uint32_t a, uint32_t b);
/* The node across link l of node n (n itself past a mesh edge). */
uint32_t clab_torus_neighbor(const clab_torus *t, uint32_t n, int link);
/* Walks a dimension-ordered route hop by hop, the order rotated by rot:
 * calls fn(arg, node, link) for every link crossed; returns the hops. */
int clab_torus_route(const clab_torus *t, uint32_t src, uint32_t dst, int rot,
		     void (*fn)(void *arg, uint32_t node, int link), void *arg);
/* The shape as clab_torus_init takes it ("4x4x4x4x2", "8x4mx4"). */
const char *clab_torus_shape(const clab_torus *t, char *buf, size_t len);

/* Ranks on nodes: rank r runs on node[r] as on-node slot slot[r]. */
typedef struct clab_map {
	uint32_t nranks;
	uint32_t *node;
	uint16_t *slot;
} clab_map;

/* A permutation of the machine's letters ("ABCDET", "TXYZ"; the rightmost
 * letter varies fastest on BG/Q, the leftmost on BG/L: spec->
 * leftmost_fastest) over every slot of the torus, or the path of a map
 * file (one line per rank: the coordinates then the slot, e.g.
 * "a b c d e t"; '#' starts a comment). A spec of letters only is taken
 * as a permutation. Every slot is used at most once. */
int clab_map_init(clab_map *m, const clab_torus *t, const char *spec);
void clab_map_free(clab_map *m);
/* An unfilled map of n ranks (for generators); CLAB_E_NOMEM. */
int clab_map_alloc(clab_map *m, uint32_t n);

/* Virtual channels of the traffic (BG/Q's seven; VC mask bit 0x40 >> vc). */
enum clab_vc {
	CLAB_VC_DYNAMIC, CLAB_VC_ESCAPE, CLAB_VC_PRIORITY, CLAB_VC_SYSTEM,
	CLAB_VC_WORLD_COLL, CLAB_VC_SUBCOMM_COLL, CLAB_VC_SYSTEM_COLL,
	CLAB_NVC,
	CLAB_VC_MPI = -1, /* as MPI would: by message size (clab_net_send) */
};
#define CLAB_VC_BIT(vc) (0x40u >> (vc))

/* What the model counts, per node and link (and per VC where it says). */
enum clab_netctr {
	CLAB_NET_SENT_CHUNKS,   /* chunks sent on the link, per VC */
	CLAB_NET_SENT_PACKETS,  /* packets sent on the link, per VC */
	CLAB_NET_RECV_CHUNKS,   /* chunks received on the link, per VC */
	CLAB_NET_RECV_PACKETS,  /* packets received on the link, per VC */
	CLAB_NET_RECV_FIFO,     /* receive-FIFO occupancy summed per net cycle, per VC */
	CLAB_NET_NO_TOKEN,      /* net cycles the link was free but had no token */
	CLAB_NET_CYCLES,        /* network cycles of all phases */
	/* per node (link and VCs ignored), the node's message unit: */
	CLAB_NET_MU_PKT_INJ,    /* packets injected, torus and on-node */
	CLAB_NET_MU_MSG_INJ,    /* messages injected, torus and on-node */
	CLAB_NET_MU_PKT_RCV,    /* packets received, torus and on-node */
	CLAB_NET_LOCAL_PACKETS, /* on-node packets (never on a torus link) */
};

typedef struct clab_net clab_net;

clab_net *clab_net_new(const clab_torus *t, const clab_map *map, int *err);
void clab_net_free(clab_net *n);

/* Two engines behind this one interface (docs/torus.md): flow (default) prices a phase from its link loads; packet
 * simulates its packets, event by event, through VC buffers with tokens.
 * Routing: MPI's choice by message size (default), all deterministic
 * (escape VC, dimension order) or all adaptive (dynamic VC). seed orders
 * adaptive routing's ties. Chosen before the first phase. */
enum clab_net_engine { CLAB_NET_FLOW, CLAB_NET_PACKET };
enum clab_net_routing { CLAB_ROUTE_MPI, CLAB_ROUTE_DETERMINISTIC, CLAB_ROUTE_ADAPTIVE };
int clab_net_configure(clab_net *n, enum clab_net_engine engine,
		       enum clab_net_routing routing, uint64_t seed);
const char *clab_net_engine_name(const clab_net *n);
/* Events the packet engine handled (0 for flow). */
uint64_t clab_net_events(const clab_net *n);

/* A phase is a set of messages in flight together; it ends, is timed and
 * added to the totals by clab_net_phase_end. */
/* count messages of `bytes` from rank src to rank dst. */
int clab_net_send(clab_net *n, uint32_t src, uint32_t dst, uint64_t bytes,
		  uint64_t count, int vc);
/* Every member of ranks[0..k) sends `bytes` to every other member. */
int clab_net_alltoall(clab_net *n, const uint32_t *ranks, uint32_t k,
		      uint64_t bytes, int vc);
/* A kernel every rank runs in the open phase: flops and bytes of memory
 * traffic per rank, priced by the roofline of the machine's profile:
 * max(flops / rank's FLOP/s x flop_eff, bytes / rank's share of memory
 * bandwidth x mem_eff). A phase's kernels run one after another: their
 * times add. */
int clab_net_compute(clab_net *n, double flops, double bytes);
/* Names the phases that follow (reports sum phases of one label). */
void clab_net_label(clab_net *n, const char *label);
/* Ends the phase: times it (seconds, via *time_s), repeats it `times`
 * times (identical iterations), adds it to the totals. */
int clab_net_phase_end(clab_net *n, uint64_t times, double *time_s);

/* Time of phases, seconds (docs/torus.md, "Time"):
 *   network  max(busiest link or node drain + o_send + o_recv, busiest
 *            rank's messages x max(o, gap)) + the longest message latency
 *   on-node  max(busiest node's on-node bytes / local_bytes_s + o_send +
 *            o_recv, busiest rank's on-node messages x max(o, gap))
 *   compute  the sum of its clab_net_compute kernels' rooflines
 *   total    their sum (no overlap). */
typedef struct clab_net_times {
	double network, onnode, compute, total;
} clab_net_times;
/* The phases of one label, in order of first use. */
typedef struct clab_net_record {
	char label[64];
	uint64_t phases;
	clab_net_times t;
	uint64_t no_token;  /* no-token cycles of all links in these phases */
} clab_net_record;
const clab_net_record *clab_net_records(const clab_net *n, int *count);
clab_net_times clab_net_totals(const clab_net *n);

/* Totals. vcmask: which VCs to sum (ignored for NO_TOKEN and CYCLES);
 * link -1: all torus links of the node. */
uint64_t clab_net_count(const clab_net *n, uint32_t node, int link,
			enum clab_netctr what, unsigned vcmask);
double clab_net_time(const clab_net *n);      /* seconds, all phases (total) */
uint64_t clab_net_phases(const clab_net *n);
uint32_t clab_net_nranks(const clab_net *n);
const clab_torus *clab_net_torus(const clab_net *n);
const clab_map *clab_net_map(const clab_net *n);
/* The node of rank r (r < clab_net_nranks). */
uint32_t clab_net_node_of(const clab_net *n, uint32_t r);
/* The lowest rank the map places on node, or -1 when none. */
int64_t clab_net_rank_at(const clab_net *n, uint32_t node);
/* Bytes that stayed on their node (never touched the torus). */
uint64_t clab_net_local_bytes(const clab_net *n);
/* Observer of the messages of every phase (a machine model beside the
 * torus one, e.g. Gemini's tiles): message() for each clab_net_send and
 * for every pair of an all-to-all, phase_end() with the phase's repeat
 * count. NULL functions: none. */
void clab_net_observe(clab_net *n,
		      void (*message)(void *arg, uint32_t src, uint32_t dst,
				      uint64_t bytes, uint64_t count),
		      void (*phase_end)(void *arg, uint64_t times), void *arg);
/* Progress callback for long runs: done/total of the current phase. */
void clab_net_progress(clab_net *n, void (*fn)(void *, double), void *arg);

/* A network event of a machine's network unit, as the model counts it:
 * `what` summed over the VCs of vcmask on link `link` (-1: every torus
 * link of the node). From the machine's backend (clab_netevents). */
typedef struct clab_netevent {
	const char *name;
	const char *descr;
	enum clab_netctr what;
	unsigned vcmask;
	int link;
	int main;     /* shown by default in per-node tables */
	const char *unit; /* what one count is, where not what `what` counts
			     (NULL: that) */
} clab_netevent;
/* The network events of machine `machine` ("bgq", "bgl"), NULL if none. */
const clab_netevent *clab_netevents(const char *machine, int *n);
uint64_t clab_netevent_count(const clab_net *n, const clab_netevent *e,
			     uint32_t node);

/* Traffic patterns (sim_backends/torus/pattern.c): "NAME:key=value,...";
 * perm takes a bare first item as its kind ("perm:bitcomp").
 * Runs the pattern's phases on n; prints nothing. */
int clab_net_pattern(clab_net *n, const char *spec);
/* One line per pattern: name, keys and what it does (for --help). */
const char *clab_net_pattern_help(void);

/* Open loop (packet engine): every node that sends in `pattern` makes a
 * packet of max_payload bytes with probability load / chunks-per-packet
 * every chunk time (a link's chunk), to a destination drawn by the bytes
 * the pattern sends it, queued in one injection FIFO; after `warmup`
 * chunk times, the packets made in the next `measure` are timed from
 * making to delivery (arrivals go on for as long again after it, and the
 * run drains all). Uses n's torus, map, routing and seed; n's counters
 * are left alone.
 *
 * Steady state, as BookSim2's (sim_type = latency), when period > 0
 * (warmup and measure are then not used): the run is cut in sample
 * periods of `period` chunk times. Statistics are cleared at the start
 * of the warm-up's even periods and of the window; a period's mean
 * latency is that of the packets delivered since (in the window, only
 * packets read from memory in it: its own). The window opens after
 * warmup_periods and closes once three periods in a row each changed
 * the mean latency and the accepted load (chunks delivered since the
 * clear) by at most `converge` of their value, or after max_periods in
 * all; its packets then drain, arrivals going on. The run is unstable
 * when, at the end of a period or every 1000 chunk times of the drain,
 * the mean of those latencies and of the age of every chunk in flight
 * (read from memory, not yet delivered; each counted as one sample)
 * exceeds latency_limit chunk times, or when the drain is not over by
 * twice max_periods periods. Zeros: BookSim2's defaults (3, 10, 0.05,
 * 500). The figures out are the window's: its packets' latency (made
 * before it closed; unstable: those delivered), and the accepted load
 * of its last period. */
typedef struct clab_openloop {
	double load;           /* offered chunks per chunk time per sender */
	uint64_t warmup, measure; /* chunk times */
	uint64_t period;       /* steady state: chunk times of a sample period */
	uint32_t warmup_periods, max_periods;
	double converge, latency_limit;
	double accepted;       /* out: chunks delivered per chunk time per
				* sender in the window */
	double latency_mean, latency_p99; /* out: chunk times */
	uint64_t packets;      /* out: packets made in the window */
	uint64_t events;       /* out: the run's events */
	int unstable;          /* out, steady state: given up (saturated) */
	uint32_t periods;      /* out, steady state: sample periods run */
} clab_openloop;
int clab_net_openloop(clab_net *n, const char *pattern, clab_openloop *o);

/* ---- live traffic (sim_backends/torus/live.c) ------------------------------
 * A live MPI program's messages (libcounterlab-mpi, docs/mpi.md) are routed one by one, exactly as clab_net routes them, and
 * land in per-node blocks of counters that the live layer keeps in memory
 * shared between processes; a machine's network unit adds a node's block
 * to what the model counted for clab_sim_traffic. */

/* The torus network of a machine profile, as its network unit built it:
 * [machine] torus, ppn, map; [network] order, rank and model parameters.
 * node: where this process's rank sits. */
typedef struct clab_torus_net {
	clab_netspec spec;
	clab_torus torus;
	clab_map map;
	uint32_t rank, node;
} clab_torus_net;

typedef struct clab_machine clab_machine;
/* Fills tn from machine m's profile for the network of netspec `machine`
 * ([machine] torus, ppn, map; [network] rank, default the MPI launcher's,
 * and model parameters), routed in `order` (NULL: longest first). An error
 * with its detail in clab_errmsg; tn's map is to be freed either way. */
int clab_torus_net_setup(clab_torus_net *tn, clab_machine *m, const char *machine,
			 const char *order);
/* rc again, its detail (clab_errmsg) prefixed with the machine and the
 * kind of network ("torus", "Gemini") whose setup failed. */
int clab_torus_net_error(clab_machine *m, int rc, const char *network);
/* The machine's torus network (shared by its units), or NULL with
 * CLAB_E_NOCOMP in *err when the machine has no torus network unit. */
const clab_torus_net *clab_machine_torus(clab_machine *m, int *err);

#define CLAB_LIVE_LINKS 11
/* Counters of a link, per VC. */
enum clab_live_link { CLAB_LIVE_SENT_CHUNKS, CLAB_LIVE_SENT_PACKETS,
		      CLAB_LIVE_RECV_CHUNKS, CLAB_LIVE_RECV_PACKETS, CLAB_LIVE_NLINKCTR };
/* The node's message unit: packets and messages injected and the on-node
 * share of the injected packets (written by senders), packets received
 * into a memory FIFO (eager messages) or as direct puts (rendezvous data;
 * written for receivers). */
enum clab_live_mu { CLAB_LIVE_MU_PKT_INJ, CLAB_LIVE_MU_MSG_INJ, CLAB_LIVE_MU_LOCAL,
		    CLAB_LIVE_MU_FIFO_RCV = 8, CLAB_LIVE_MU_PUT_RCV, CLAB_LIVE_NMU = 16 };
/* Words of one side (sent or received) of all links: [link][vc][chunks,
 * packets], padded to whole 64-byte lines. */
#define CLAB_LIVE_SIDE 160
/* A node's block. What a link's senders add and what its receivers add lie
 * in different cache lines (and so do the message unit's two sides): two
 * ranks exchanging messages each write lines of their own, rather than
 * taking the same lines from each other on every message. */
typedef struct clab_live_node {
	uint64_t link[2][CLAB_LIVE_SIDE];     /* [0] sent, [1] received */
	uint64_t mu[CLAB_LIVE_NMU];
	/* Waiting, from the torus model's timing of the observed traffic
	 * (totals, written by the block's owner at world barriers): no-token
	 * cycles per link, receive-FIFO occupancy per link and VC. */
	uint64_t no_token[16];
	uint64_t fifo[CLAB_LIVE_LINKS * CLAB_NVC + 3];
} clab_live_node;
/* Word k of a node's block (a clab_live_node seen as uint64_t[]). */
#define CLAB_LIVE_LINK_WORD(link, vc, ctr) \
	((size_t)((ctr) >> 1) * CLAB_LIVE_SIDE + \
	 ((size_t)(link) * CLAB_NVC + (size_t)(vc)) * 2 + (size_t)((ctr) & 1))
#define CLAB_LIVE_MU_WORD(k) ((size_t)2 * CLAB_LIVE_SIDE + (size_t)(k))
/* The block's first CLAB_LIVE_ADDED words are sums of adds (the waiting
 * after them are totals the model writes): what ranks on several hosts
 * added to a node sums word by word. */
#define CLAB_LIVE_ADDED ((size_t)2 * CLAB_LIVE_SIDE + CLAB_LIVE_NMU)
_Static_assert(CLAB_LIVE_ADDED * sizeof(uint64_t) == offsetof(clab_live_node, no_token),
	       "the added words come first in a live block");

/* Adds v to word k of node x's block. */
typedef void (*clab_live_add)(void *arg, uint32_t x, size_t k, uint64_t v);
/* One message of `bytes` from rank src to rank dst (vc: CLAB_VC_MPI picks
 * by size as clab_net_send does): its packets' chunks along the route and
 * the message units of both ends, through add. rot: which minimal path a
 * dynamically routed message takes (the rotation of the order of the
 * dimensions it crosses; clab_net spreads count messages over rotations
 * 0, 1, ...); deterministic messages ignore it. buf: the message's bytes
 * when the caller has them in one piece, or NULL; only Gemini's counts
 * depend on them (payload compression). */
int clab_live_message(const clab_torus *t, const clab_map *map, uint32_t src,
		      uint32_t dst, uint64_t bytes, const void *buf, int vc, unsigned rot,
		      clab_live_add add, void *arg);
/* What clab_net_count would give for a node whose traffic is all in b
 * (link -1: all torus links). The receive FIFO and no-token counters are
 * what the live layer's timing of the traffic left in the block (its
 * world barriers end the phases); network cycles are not kept: 0. */
uint64_t clab_live_count(const clab_live_node *b, const clab_torus *t, int link,
			 enum clab_netctr what, unsigned vcmask);
/* The live layer of this process says where the block of node x is
 * (get(arg, x), current up to every message completed before the call);
 * NULL: no live layer. Process-wide. */
typedef const clab_live_node *(*clab_live_get)(void *arg, uint32_t x);
void clab_live_attach(clab_live_get get, void *arg);
/* Node x's live block, NULL when no live layer is attached. */
const clab_live_node *clab_live_block(uint32_t x);

#ifdef __cplusplus
}
#endif
#endif
