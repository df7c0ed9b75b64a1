/* Traffic on the torus: link loads of each phase, its modelled time, and
 * the counters that measure waiting.
 *
 * Loads. A message's packets follow a dimension-ordered route: along each
 * dimension in turn, the shortest way round the ring. A phase's loads are
 * kept as difference arrays along every ring, so a route costs one update
 * per dimension it crosses however many hops it takes; the phase end turns
 * them into per-link counts with one prefix sum per ring. Dynamic routing
 * (BG/Q's adaptive routing over minimal paths) is modelled by spreading a
 * flow's messages evenly over the rotations of the order of the dimensions
 * it crosses, each rotation a minimal path. An all-to-all is reduced to
 * its nodes and how many member ranks each holds; groups with the same
 * nodes are merged, so an all-to-all costs one route per pair of nodes,
 * and groups that are moves of one another along the torus are routed
 * once. On BG/Q an all-to-all goes in its MPI's order (m2m_post): the
 * flow engine's loads do not depend on it, its contention term does.
 *
 * Time (docs/torus.md). Flows that share a link share
 * it fairly; the bytes of a phase of equal-sized flows are moved when its
 * busiest link, or its busiest node (which moves at most drain_links
 * links' worth between torus and memory, sending and receiving together),
 * is done: for unequal flows a lower bound. A deterministic point-to-point
 * phase runs at the share of that rate its routers' FIFO inputs keep up
 * with (head-of-line blocking, hol_share). Each message also costs its
 * ranks a send or receive overhead (at least the gap between messages);
 * the phase's network time is the longer of bytes (plus one message's
 * overheads) and the busiest rank's overheads, plus the longest message
 * latency (interface, hops, and a rendezvous round trip above eager_max).
 * On-node messages are copies at the node's local bandwidth with the same
 * overheads; compute is a roofline per kernel, its kernels one after
 * another; the phase takes the sum of the three.
 *
 * Waiting. A link busy a fraction rho of the phase keeps a mean receive
 * queue of rho + rho^2 / (2 (1 - rho)) packets (a queue with random
 * arrivals and fixed service), at most the FIFO's capacity. A node that
 * cannot drain its links as fast as they deliver slows the links that
 * bring it bytes, each by the bytes it brings (traffic passing through
 * is not held up): their queues fill, and their senders spend the lost
 * time with data but no token (BG/L's "no token" cycles). A link may count
 * more bytes than its phase lets it carry (rho > 1): dynamic messages are
 * counted whole on their rotations while the phase is timed on their
 * even split over all minimal paths. Such a link is saturated: busy all
 * the phase (rho = 1), its queue full, never free without a token; so a
 * link's no-token cycles stay within its phase's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "counterlab/torus.h"
#include "packet.h"

enum { T_CHUNKS, T_PACKETS, T_FIFO, T_N }; /* totals per node, link, VC */
enum { MU_PKT_INJ, MU_MSG_INJ, MU_PKT_RCV, MU_LOCAL, MU_N }; /* per node */

typedef struct group {
	struct group *next;
	uint64_t hash, weight, bytes;
	int vc;
	uint32_t n;
	uint32_t *node, *cnt;
	int done;              /* 0 to expand, 1 a translate of base, 2
				* expanded as a translate, 3 as a sub-torus */
	struct group *base;    /* a group it is a translate of, or NULL */
	int32_t shift[CLAB_TORUS_MAXD]; /* by this much */
} group;

#define NBUCKETS 4096

struct clab_net {
	const clab_torus *t;
	const clab_map *map;
	int nd, tl, nl;
	uint16_t *coord;       /* [node][nd] */
	cp_t *diff;            /* [node][tl][NVC], this phase */
	double *ej;            /* [node] wire bytes received, this phase */
	double *ejl;           /* [node][tl] of them, by the link they came in by */
	double *inj;           /* [node] wire bytes sent, this phase */
	double *lbytes;        /* [node] on-node bytes, this phase */
	double *dyn;           /* [node][tl] wire bytes of dynamic flows split
				  evenly per hop, this phase (time only) */
	double *box;           /* a dynamic flow's share at each node of its box */
	size_t nbox;
	int dyn_routes;        /* the split was too costly: this phase's dynamic
				  flows take their time from their rotated routes */
	uint64_t spread_work;  /* box nodes the split walked this phase */
	uint32_t a2a_nodes;    /* largest all-to-all group of this phase */
	struct clab_net *sym;  /* scratch loads of a sub-torus group's two sources */
	double *cpu;           /* [rank][2] overheads: torus, on-node, this phase */
	uint64_t *mu;          /* [node][MU_N] this phase, then [node][MU_N] totals */
	unsigned vcs;          /* VCs used this phase */
	int max_hops;
	int max_hops_proto[2]; /* longest route of eager [0], rendezvous [1] messages */
	double compute;        /* s per rank, this phase: its kernels' rooflines */
	int any_net, any_local;
	int capture;           /* open loop: phases keep their flows, unrun */
	uint64_t *tot;         /* [node][nl][NVC][T_N] */
	uint64_t *notoken;     /* [node][nl] */
	uint64_t cycles, local, phase_local, phases, phase_notoken;
	double time;
	clab_net_times totals;
	clab_net_record *rec;
	int nrec, caprec;
	char label[64];
	group *bucket[NBUCKETS];
	uint32_t *scratch;     /* ranks' nodes while grouping */
	size_t nscratch;
	void (*progress)(void *, double);
	void *progress_arg;
	enum clab_net_engine engine;
	enum clab_net_routing routing;
	uint64_t seed, events;
	void (*obs_msg)(void *, uint32_t, uint32_t, uint64_t, uint64_t);
	void (*obs_end)(void *, uint64_t);
	void *obs_arg;         /* clab_net_observe */
	pkt_flow *flows;       /* the packet engine's flows, this phase */
	size_t nflows, capflows;
	double *pfifo, *pnotoken; /* the packet engine's waiting, this phase */
	double *turn;          /* [node][tl + 1][tl + 1] wire bytes of
				* deterministic flows that enter the router by
				* input i (a link's direction, tl: injection)
				* and leave by output o (a link, tl: the node)
				* other than straight on, this phase (the
				* flow engine's head-of-line term) */
	int turns;             /* turn holds this phase's flows */
};

#define DIFF(n, node, link, vc) ((n)->diff[((size_t)(node) * (n)->tl + (link)) * CLAB_NVC + (vc)])
#define TOT(n, node, link, vc, k) ((n)->tot[(((size_t)(node) * (n)->nl + (link)) * CLAB_NVC + (vc)) * T_N + (k)])

clab_net *clab_net_new(const clab_torus *t, const clab_map *map, int *err)
{
	clab_net *n = calloc(1, sizeof *n);
	size_t nodes = t->nodes;
	if (n) {
		n->t = t;
		n->map = map;
		n->nd = t->ndims;
		n->tl = 2 * t->ndims;
		n->nl = t->nlinks;
		n->coord = malloc(nodes * (size_t)n->nd * sizeof *n->coord);
		n->diff = calloc(nodes * (size_t)n->tl * CLAB_NVC, sizeof *n->diff);
		n->ej = calloc(nodes, sizeof *n->ej);
		n->ejl = calloc(nodes * (size_t)n->tl, sizeof *n->ejl);
		n->inj = calloc(nodes, sizeof *n->inj);
		n->lbytes = calloc(nodes, sizeof *n->lbytes);
		n->dyn = calloc(nodes * (size_t)n->tl, sizeof *n->dyn);
		n->cpu = calloc(2 * (size_t)map->nranks + 1, sizeof *n->cpu);
		n->mu = calloc(2 * nodes * MU_N, sizeof *n->mu);
		n->tot = calloc(nodes * (size_t)n->nl * CLAB_NVC * T_N, sizeof *n->tot);
		n->notoken = calloc(nodes * (size_t)n->nl, sizeof *n->notoken);
	}
	if (!n || !n->coord || !n->diff || !n->ej || !n->ejl || !n->tot || !n->notoken || !n->inj ||
	    !n->lbytes || !n->cpu || !n->mu || !n->dyn) {
		clab_net_free(n);
		*err = clab_seterr(CLAB_E_NOMEM, "no memory for the traffic of %u nodes", t->nodes);
		return NULL;
	}
	for (uint32_t i = 0; i < t->nodes; i++) {
		int c[CLAB_TORUS_MAXD];
		clab_torus_coords(t, i, c);
		for (int d = 0; d < n->nd; d++)
			n->coord[(size_t)i * n->nd + d] = (uint16_t)c[d];
	}
	*err = CLAB_OK;
	return n;
}

static void groups_clear(clab_net *n)
{
	for (int b = 0; b < NBUCKETS; b++) {
		for (group *g = n->bucket[b], *next; g; g = next) {
			next = g->next;
			free(g->node);
			free(g);
		}
		n->bucket[b] = NULL;
	}
}

void clab_net_free(clab_net *n)
{
	if (!n)
		return;
	groups_clear(n);
	free(n->coord);
	free(n->diff);
	free(n->ej);
	free(n->inj);
	free(n->lbytes);
	free(n->dyn);
	free(n->box);
	clab_net_free(n->sym);
	free(n->cpu);
	free(n->mu);
	free(n->rec);
	free(n->tot);
	free(n->notoken);
	free(n->ejl);
	free(n->scratch);
	free(n->flows);
	free(n->pfifo);
	free(n->pnotoken);
	free(n->turn);
	free(n);
}

int clab_net_configure(clab_net *n, enum clab_net_engine engine,
		       enum clab_net_routing routing, uint64_t seed)
{
	if ((engine != CLAB_NET_FLOW && engine != CLAB_NET_PACKET) ||
	    (routing != CLAB_ROUTE_MPI && routing != CLAB_ROUTE_DETERMINISTIC &&
	     routing != CLAB_ROUTE_ADAPTIVE))
		return clab_seterr(CLAB_E_INVAL, "engine %d, routing %d: no such engine or routing",
				   (int)engine, (int)routing);
	if (n->phases || n->any_net || n->any_local)
		return clab_seterr(CLAB_E_STATE, "the engine is chosen before the first phase");
	if (engine == CLAB_NET_PACKET && !n->pfifo) {
		size_t k = (size_t)n->t->nodes * (size_t)n->tl;
		n->pfifo = calloc(k * CLAB_NVC, sizeof *n->pfifo);
		n->pnotoken = calloc(k, sizeof *n->pnotoken);
		if (!n->pfifo || !n->pnotoken)
			return clab_seterr(CLAB_E_NOMEM, "no memory for the packet engine's counters");
	}
	n->engine = engine;
	n->routing = routing;
	n->seed = seed;
	return CLAB_OK;
}

const char *clab_net_engine_name(const clab_net *n)
{
	return n->engine == CLAB_NET_PACKET ? "packet" : "flow";
}

uint64_t clab_net_events(const clab_net *n)
{
	return n->events;
}

void clab_net_observe(clab_net *n,
		      void (*message)(void *, uint32_t, uint32_t, uint64_t, uint64_t),
		      void (*phase_end)(void *, uint64_t), void *arg)
{
	n->obs_msg = message;
	n->obs_end = phase_end;
	n->obs_arg = arg;
}

void clab_net_progress(clab_net *n, void (*fn)(void *, double), void *arg)
{
	n->progress = fn;
	n->progress_arg = arg;
}

/* Adds (c, p) to the links of k hops (k != 0) along dimension d from
 * coordinate a on the ring through node `at`. */
static inline void segment(clab_net *n, uint32_t at, int d, int a, int k,
			   int vc, int64_t c, int64_t p)
{
	const clab_torus *t = n->t;
	int size = t->size[d], len = abs(k), link = 2 * d + (k > 0);
	int start = k > 0 ? a : a + k + 1;
	if (start < 0)
		start += size;
	uint32_t base = at - (uint32_t)a * t->stride[d], st = t->stride[d];
	cp_t *x = &DIFF(n, base + (uint32_t)start * st, link, vc);
	x->c += c, x->p += p;
	int end = start + len;
	if (end > size) {
		x = &DIFF(n, base, link, vc);
		x->c += c, x->p += p;
		end -= size;
	}
	if (end < size) {
		x = &DIFF(n, base + (uint32_t)end * st, link, vc);
		x->c -= c, x->p -= p;
	}
}

/* The time of a dynamic flow's bytes: adaptive routing picks per packet
 * among the minimal next hops by free tokens, which on a balanced network
 * is an even split. So `wire` bytes leave s and, at every node of the
 * box of minimal routes, split evenly over the dimensions still to cross;
 * each link gets its expected share. (Counts stay on whole messages over
 * the rotations below; this is the busiest link's load for the time.) */
/* The split costs a walk over each flow's box, which at machine scale
 * is more than the model may spend (Sequoia's FFT: 283 s instead of 16):
 * past SPREAD_MAX nodes in one box, or SPREAD_BUDGET box nodes in one
 * phase, the phase's dynamic flows are timed on the routes their counts
 * take (rotations of the dimension order), as before the split. The
 * 512-node validation runs stay within both (their largest all-to-all
 * walks about 6 million box nodes). Returns 0 then. */
#define SPREAD_MAX 2048
#define SPREAD_BUDGET 50000000u

static int spread_even(clab_net *n, uint32_t s, const uint16_t *cs, int k,
		       const int *dim, const int *delta, double wire)
{
	const clab_torus *t = n->t;
	size_t vol = 1;
	for (int j = 0; j < k; j++)
		vol *= (size_t)abs(delta[j]) + 1;
	if (vol > SPREAD_MAX || (n->spread_work += vol) > SPREAD_BUDGET)
		return 0;
	if (vol > n->nbox) {
		double *b = realloc(n->box, vol * sizeof *b);
		if (!b) { /* no room: the share goes to the dimension-ordered route */
			for (int j = 0, at = (int)s; j < k; j++) {
				int d = dim[j], len = abs(delta[j]), dir = delta[j] > 0 ? 1 : -1;
				for (int h = 0, c = cs[d]; h < len; h++) {
					n->dyn[(size_t)at * n->tl + 2 * d + (dir > 0)] += wire;
					int c2 = (c + dir + t->size[d]) % t->size[d];
					at += (c2 - c) * (int)t->stride[d];
					c = c2;
				}
			}
			return 1;
		}
		n->box = b;
		n->nbox = vol;
	}
	memset(n->box, 0, vol * sizeof *n->box);
	n->box[0] = wire;
	int step[CLAB_TORUS_MAXD] = {0};
	/* mixed-radix order: every point comes after the points it is reached from */
	for (size_t i = 0; i < vol; i++) {
		double share = n->box[i];
		int left = 0;
		for (int j = 0; j < k; j++)
			left += step[j] < abs(delta[j]);
		if (share > 0 && left) {
			uint32_t at = s;
			for (int j = 0; j < k; j++) {
				int d = dim[j], c = (cs[d] + (delta[j] > 0 ? step[j] : -step[j]) + t->size[d] * 8) % t->size[d];
				at += (uint32_t)(c - (int)cs[d]) * t->stride[d];
			}
			share /= left;
			size_t radix = 1;
			for (int j = 0; j < k; j++) {
				if (step[j] < abs(delta[j])) {
					n->dyn[(size_t)at * n->tl + 2 * dim[j] + (delta[j] > 0)] += share;
					n->box[i + radix] += share;
				}
				radix *= (size_t)abs(delta[j]) + 1;
			}
		}
		for (int j = 0; j < k && ++step[j] > abs(delta[j]); j++)
			step[j] = 0;
	}
	return 1;
}

#define TURN(n, x, i, o) ((n)->turn[(((size_t)(x) * ((n)->tl + 1)) + (size_t)(i)) * ((n)->tl + 1) + (size_t)(o)])

/* A deterministic flow's wire bytes where it changes course: from the
 * injection onto its first ring, from each ring onto the next, from the
 * last into its node (the head-of-line term of clab_net_phase_end). */
static void add_turns(clab_net *n, uint32_t s, const uint16_t *cs, const uint16_t *cr, int k,
		      const int *dim, const int *delta, double wire)
{
	if (!n->turn) {
		n->turn = calloc((size_t)n->t->nodes * (size_t)(n->tl + 1) * (size_t)(n->tl + 1), sizeof *n->turn);
		if (!n->turn) /* no room: the phase goes without the term */
			return;
	}
	n->turns = 1;
	uint32_t at = s;
	int in = n->tl;
	for (int j = 0; j < k; j++) {
		int d = dim[j], out = 2 * d + (delta[j] > 0);
		TURN(n, at, in, out) += wire;
		at += (uint32_t)((int)cr[d] - (int)cs[d]) * n->t->stride[d];
		in = out;
	}
	TURN(n, at, in, n->tl) += wire;
}

/* nmsg messages of `bytes` from node s to node r (s != r). */
static void add_flow(clab_net *n, uint32_t s, uint32_t r, uint64_t nmsg,
		     uint64_t bytes, int vc)
{
	const clab_torus *t = n->t;
	const uint16_t *cs = n->coord + (size_t)s * n->nd, *cr = n->coord + (size_t)r * n->nd;
	int dim[CLAB_TORUS_MAXD], delta[CLAB_TORUS_MAXD], k = 0, hops = 0, odd = 0;
	for (int i = 0; i < n->nd; i++)
		odd ^= cs[i] & 1;
	for (int i = 0; i < n->nd; i++) {
		int d = t->order[i];
		int x = clab_torus_delta(t, d, cs[d], cr[d], odd);
		if (x) {
			dim[k] = d;
			delta[k++] = x;
			hops += abs(x);
		}
	}
	if (vc == CLAB_VC_MPI) /* eager and one-line messages go deterministic */
		vc = n->routing == CLAB_ROUTE_DETERMINISTIC ? CLAB_VC_ESCAPE
			: n->routing == CLAB_ROUTE_ADAPTIVE ? CLAB_VC_DYNAMIC
			: bytes > t->spec->eager_max && k > 1 ? CLAB_VC_DYNAMIC : CLAB_VC_ESCAPE;
	clab_packets pk = clab_netspec_packetize(t->spec, bytes);
	n->ej[r] += (double)(nmsg * pk.wire);
	n->inj[s] += (double)(nmsg * pk.wire);
	n->mu[(size_t)s * MU_N + MU_PKT_INJ] += nmsg * pk.packets;
	n->mu[(size_t)s * MU_N + MU_MSG_INJ] += nmsg;
	n->mu[(size_t)r * MU_N + MU_PKT_RCV] += nmsg * pk.packets;
	n->vcs |= 1u << vc;
	n->any_net = 1;
	if (hops > n->max_hops)
		n->max_hops = hops;
	/* the longest route of each protocol: its latency is priced at the
	 * phase end (this loop is hot at machine scale) */
	int *mh = &n->max_hops_proto[bytes > t->spec->eager_max];
	if (hops > *mh)
		*mh = hops;
	if (n->engine == CLAB_NET_PACKET) { /* simulated at the phase end */
		if (n->capflows == SIZE_MAX) /* out of memory already */
			return;
		if (n->nflows == n->capflows) {
			size_t cap = n->capflows ? 2 * n->capflows : 1024;
			pkt_flow *f = realloc(n->flows, cap * sizeof *f);
			if (!f) { /* reported at the phase end */
				n->capflows = SIZE_MAX;
				return;
			}
			n->flows = f;
			n->capflows = cap;
		}
		n->flows[n->nflows++] = (pkt_flow){s, r, nmsg, bytes, vc, 0, 0};
		return;
	}
	if (vc == CLAB_VC_DYNAMIC && !n->dyn_routes &&
	    !spread_even(n, s, cs, k, dim, delta, (double)(nmsg * pk.wire)))
		n->dyn_routes = 1;
	if (vc != CLAB_VC_DYNAMIC && !n->a2a_nodes)
		add_turns(n, s, cs, cr, k, dim, delta, (double)(nmsg * pk.wire));
	int routes = vc == CLAB_VC_DYNAMIC && (uint64_t)k > 1 ? (nmsg < (uint64_t)k ? (int)nmsg : k) : 1;
	for (int rot = 0; rot < routes; rot++) {
		uint64_t m = nmsg / (uint64_t)routes + ((uint64_t)rot < nmsg % (uint64_t)routes);
		int64_t c = (int64_t)(m * pk.chunks), p = (int64_t)(m * pk.packets);
		uint32_t at = s;
		for (int i = 0; i < k; i++) {
			int j = (i + rot) % k, d = dim[j];
			segment(n, at, d, cs[d], delta[j], vc, c, p);
			at += (uint32_t)((int)cr[d] - (int)cs[d]) * t->stride[d];
		}
		/* the link it arrives by: the last dimension's, from behind */
		int last = (k - 1 + rot) % k;
		n->ejl[(size_t)r * n->tl + 2 * dim[last] + (delta[last] < 0)] += (double)(m * pk.wire);
	}
}

/* nmsg on-node messages of `bytes` on node x: copies, counted by the
 * node's message unit, never by a torus link. */
static void add_local(clab_net *n, uint32_t x, uint64_t nmsg, uint64_t bytes)
{
	uint64_t pk = clab_netspec_packetize(n->t->spec, bytes).packets * nmsg;
	n->phase_local += bytes * nmsg;
	n->lbytes[x] += (double)(bytes * nmsg);
	n->mu[(size_t)x * MU_N + MU_PKT_INJ] += pk;
	n->mu[(size_t)x * MU_N + MU_MSG_INJ] += nmsg;
	n->mu[(size_t)x * MU_N + MU_PKT_RCV] += pk;
	n->mu[(size_t)x * MU_N + MU_LOCAL] += pk;
	n->any_local |= nmsg > 0;
}

/* Overheads of rank r: `sends` and `recvs` messages, on the torus (0) or
 * on its node (1); each costs at least the gap. */
static void add_cpu(clab_net *n, uint32_t r, int local, double sends, double recvs)
{
	const clab_netspec *s = n->t->spec;
	double os = s->o_send_s > s->gap_s ? s->o_send_s : s->gap_s;
	double orv = s->o_recv_s > s->gap_s ? s->o_recv_s : s->gap_s;
	n->cpu[2 * (size_t)r + (size_t)local] += sends * os + recvs * orv;
}

static int check_rank(const clab_net *n, uint32_t r)
{
	return r < n->map->nranks ? CLAB_OK
		: clab_seterr(CLAB_E_PATTERN, "rank %u does not exist: the map places %u ranks",
			      r, n->map->nranks);
}

int clab_net_send(clab_net *n, uint32_t src, uint32_t dst, uint64_t bytes,
		  uint64_t count, int vc)
{
	int rc = check_rank(n, src);
	if (!rc)
		rc = check_rank(n, dst);
	if (rc || !count)
		return rc;
	if (vc < CLAB_VC_MPI || vc >= CLAB_NVC)
		return clab_seterr(CLAB_E_INVAL, "virtual channel %d does not exist", vc);
	if (n->obs_msg)
		n->obs_msg(n->obs_arg, src, dst, bytes, count);
	uint32_t s = n->map->node[src], r = n->map->node[dst];
	if (s == r)
		add_local(n, s, count, bytes);
	else
		add_flow(n, s, r, count, bytes, vc);
	add_cpu(n, src, s == r, (double)count, 0);
	add_cpu(n, dst, s == r, 0, (double)count);
	return CLAB_OK;
}

/* BG/Q's MPI_Alltoall(v): PAMI's many-to-many (BG/Q driver V1R2M2). Each
 * member s of the k ranks posts one descriptor per destination, its
 * whole payload, in the order (c + s b + j) mod k for j = 0, 1, ... (at
 * most 2048 bytes each) or (c + s b + j a) mod k (more), a, b, c fixed
 * residues mod k: the senders start at spread points, not in lockstep.
 * The descriptors are dealt round-robin over m2m_fifos injection FIFOs,
 * 16 per FIFO per turn up to 2 KB, 4 up to 8 KB, 1 above, all posted at
 * once; the node's MU serves all its ranks' FIFOs in turn. The packet
 * engine gets each descriptor in its FIFO (slot x m2m_fifos + FIFO). */
static void m2m_post(clab_net *n, const uint32_t *ranks, uint32_t k, uint64_t bytes, int vc)
{
	const uint64_t A = 1346567, B = 17032781;
	uint64_t a = A % k, b = B % k, c = (A + B) % k;
	uint64_t per = bytes <= 2048 ? 16 : bytes <= 8192 ? 4 : 1, step = bytes <= 2048 ? 1 : a;
	uint32_t fifos = n->t->spec->m2m_fifos < k ? n->t->spec->m2m_fifos : k;
	for (uint64_t s = 0; s < k; s++) {
		uint32_t x = n->map->node[ranks[s]];
		uint32_t lane0 = n->map->slot[ranks[s]] * fifos + 1;
		for (uint64_t j = 0; j < k; j++) {
			uint32_t y = n->map->node[ranks[(c + s * b + j * step) % k]];
			if (y == x) { /* itself, or a rank of its node: a copy */
				if ((c + s * b + j * step) % k != s)
					add_local(n, x, 1, bytes);
				continue;
			}
			size_t before = n->nflows;
			add_flow(n, x, y, 1, bytes, vc);
			if (n->nflows > before)
				n->flows[before].lane = lane0 + (uint32_t)(j / per % fifos);
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int clab_net_alltoall(clab_net *n, const uint32_t *ranks, uint32_t k,
		      uint64_t bytes, int vc)
{
	if (vc < CLAB_VC_MPI || vc >= CLAB_NVC)
		return clab_seterr(CLAB_E_INVAL, "virtual channel %d does not exist", vc);
	int m2m = vc == CLAB_VC_MPI && n->t->spec->m2m_fifos;
	if (m2m) /* the many-to-many routes dynamically (zone 1; zone 0 above 512 nodes) */
		vc = n->routing == CLAB_ROUTE_DETERMINISTIC ? CLAB_VC_ESCAPE : CLAB_VC_DYNAMIC;
	if (k > n->nscratch) {
		uint32_t *s = realloc(n->scratch, (size_t)k * sizeof *s);
		if (!s)
			return clab_seterr(CLAB_E_NOMEM, "no memory for a group of %u ranks", k);
		n->scratch = s;
		n->nscratch = k;
	}
	for (uint32_t i = 0; i < k; i++) {
		int rc = check_rank(n, ranks[i]);
		if (rc)
			return rc;
		n->scratch[i] = n->map->node[ranks[i]];
	}
	if (n->obs_msg)
		for (uint32_t i = 0; i < k; i++)
			for (uint32_t j = 0; j < k; j++)
				if (i != j)
					n->obs_msg(n->obs_arg, ranks[i], ranks[j], bytes, 1);
	qsort(n->scratch, k, sizeof *n->scratch, cmp_u32);
	/* the group as distinct nodes and counts, written over scratch */
	uint32_t m = 0, *cnt = malloc((size_t)k * sizeof *cnt);
	if (!cnt && k)
		return clab_seterr(CLAB_E_NOMEM, "no memory for a group of %u ranks", k);
	for (uint32_t i = 0; i < k; i++) {
		if (m && n->scratch[m - 1] == n->scratch[i]) {
			cnt[m - 1]++;
		} else {
			n->scratch[m] = n->scratch[i];
			cnt[m++] = 1;
		}
	}
	/* each member sends to and receives from the k - 1 others: those on
	 * its node on-node, the rest over the torus */
	for (uint32_t i = 0; i < k; i++) {
		uint32_t lo = 0, hi = m, x = n->map->node[ranks[i]];
		while (hi - lo > 1) {
			uint32_t mid = (lo + hi) / 2;
			if (n->scratch[mid] <= x)
				lo = mid;
			else
				hi = mid;
		}
		double here = cnt[lo] - 1.0, away = (double)k - cnt[lo];
		add_cpu(n, ranks[i], 0, away, away);
		add_cpu(n, ranks[i], 1, here, here);
	}
	if (m2m && n->engine == CLAB_NET_PACKET) { /* the order matters: posted now */
		if (m > n->a2a_nodes)
			n->a2a_nodes = m;
		free(cnt);
		m2m_post(n, ranks, k, bytes, vc);
		return CLAB_OK;
	}
	uint64_t h = 1469598103934665603ull ^ bytes ^ ((uint64_t)(vc + 1) << 56);
	for (uint32_t i = 0; i < m; i++)
		h = (h ^ n->scratch[i] ^ ((uint64_t)cnt[i] << 32)) * 1099511628211ull;
	group **b = &n->bucket[h % NBUCKETS];
	for (group *g = *b; g; g = g->next) {
		if (g->hash == h && g->n == m && g->bytes == bytes && g->vc == vc &&
		    !memcmp(g->node, n->scratch, m * sizeof *g->node) &&
		    !memcmp(g->cnt, cnt, m * sizeof *cnt)) {
			g->weight++;
			free(cnt);
			return CLAB_OK;
		}
	}
	group *g = calloc(1, sizeof *g);
	uint32_t *nodes = malloc(2 * (size_t)m * sizeof *nodes + 1);
	if (!g || !nodes) {
		free(g);
		free(nodes);
		free(cnt);
		return clab_seterr(CLAB_E_NOMEM, "no memory for a group of %u ranks", k);
	}
	memcpy(nodes, n->scratch, m * sizeof *nodes);
	memcpy(nodes + m, cnt, m * sizeof *cnt);
	free(cnt);
	*g = (group){*b, h, 1, bytes, vc, m, nodes, nodes + m, 0, NULL, {0}};
	*b = g;
	return CLAB_OK;
}

static void prefix_sums(clab_net *n);

static int parity(const clab_net *n, uint32_t x)
{
	int odd = 0;
	for (int d = 0; d < n->nd; d++)
		odd ^= n->coord[(size_t)x * n->nd + d] & 1;
	return odd;
}

/* What the scratch loads S of a group leave besides the loads: the VCs
 * and routes used; S is ready for the next group. */
static void sym_merge(clab_net *n, clab_net *S)
{
	n->vcs |= S->vcs;
	n->any_net |= S->any_net;
	n->dyn_routes |= S->dyn_routes;
	for (int k = 0; k < 2; k++)
		if (S->max_hops_proto[k] > n->max_hops_proto[k])
			n->max_hops_proto[k] = S->max_hops_proto[k];
	if (S->max_hops > n->max_hops)
		n->max_hops = S->max_hops;
	S->vcs = 0;
	S->any_net = 0;
	S->dyn_routes = 0;
	S->spread_work = 0;
	S->max_hops = S->max_hops_proto[0] = S->max_hops_proto[1] = 0;
}

/* A group that fills a sub-torus (every node of some rings of even size,
 * the same number of members on each) loads every link of a node as it
 * loads that link of any other node of the same parity: routes depend
 * only on where they go and on the source's parity (the half-way rule).
 * So two sources, one of each parity, are routed to all the others on
 * scratch arrays, and each node of the group gets the sum of those loads
 * over the nodes of its own parity: exact, and m times less work than
 * the m^2 flows. Returns 0 when the group is not such a sub-torus. */
static int expand_subtorus(clab_net *n, const group *g)
{
	const clab_torus *t = n->t;
	uint32_t m = g->n, vol = 1, rep[2] = {UINT32_MAX, UINT32_MAX};
	if (m < 64 || n->engine != CLAB_NET_FLOW)
		return 0;
	const uint16_t *c0 = n->coord + (size_t)g->node[0] * n->nd;
	for (int d = 0; d < n->nd; d++) {
		int free = 0;
		for (uint32_t i = 1; i < m && !free; i++)
			free = n->coord[(size_t)g->node[i] * n->nd + d] != c0[d];
		if (free) {
			if (!t->wrap[d] || t->size[d] % 2)
				return 0;
			vol *= (uint32_t)t->size[d];
		}
	}
	for (uint32_t i = 0; i < m; i++) {
		if (g->cnt[i] != g->cnt[0])
			return 0;
		if (rep[parity(n, g->node[i])] == UINT32_MAX)
			rep[parity(n, g->node[i])] = g->node[i];
	}
	if (vol != m || rep[0] == UINT32_MAX || rep[1] == UINT32_MAX)
		return 0;
	int err;
	if (!n->sym && (!(n->sym = clab_net_new(t, n->map, &err)) ||
			clab_net_configure(n->sym, CLAB_NET_FLOW, n->routing, n->seed)))
		return 0; /* no memory: the slow way */
	clab_net *S = n->sym;
	uint64_t c = g->cnt[0], nmsg = c * g->weight * c;
	for (int p = 0; p < 2; p++)
		for (uint32_t j = 0; j < m; j++)
			if (g->node[j] != rep[p])
				add_flow(S, rep[p], g->node[j], nmsg, g->bytes, g->vc);
	prefix_sums(S);
	/* per parity, link and VC: the loads summed over that parity's nodes */
	size_t per = (size_t)n->tl * CLAB_NVC;
	cp_t *A = calloc(2 * per, sizeof *A);
	double *D = calloc(4 * (size_t)n->tl, sizeof *D), *E = D + 2 * n->tl;
	if (!A || !D) {
		free(A);
		free(D);
		return 0;
	}
	for (uint32_t i = 0; i < m; i++) {
		uint32_t y = g->node[i];
		int q = parity(n, y);
		for (int l = 0; l < n->tl; l++) {
			for (int vc = 0; vc < CLAB_NVC; vc++) {
				cp_t *v = &DIFF(S, y, l, vc);
				A[q * per + (size_t)l * CLAB_NVC + vc].c += v->c;
				A[q * per + (size_t)l * CLAB_NVC + vc].p += v->p;
				*v = (cp_t){0, 0};
			}
			D[q * n->tl + l] += S->dyn[(size_t)y * S->tl + l];
			S->dyn[(size_t)y * S->tl + l] = 0;
			E[q * n->tl + l] += S->ejl[(size_t)y * S->tl + l];
			S->ejl[(size_t)y * S->tl + l] = 0;
		}
		S->ej[y] = S->inj[y] = 0;
		memset(S->mu + (size_t)y * MU_N, 0, MU_N * sizeof *S->mu);
	}
	clab_packets pk = clab_netspec_packetize(t->spec, g->bytes);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t x = g->node[i];
		int q = parity(n, x);
		const uint16_t *cx = n->coord + (size_t)x * n->nd;
		for (int l = 0; l < n->tl; l++) {
			for (int vc = 0; vc < CLAB_NVC; vc++) {
				cp_t a = A[q * per + (size_t)l * CLAB_NVC + vc];
				if (a.c || a.p) /* this one link: a segment of one hop */
					segment(n, x, l / 2, cx[l / 2], l & 1 ? 1 : -1, vc, a.c, a.p);
			}
			n->dyn[(size_t)x * n->tl + l] += D[q * n->tl + l];
			n->ejl[(size_t)x * n->tl + l] += E[q * n->tl + l];
		}
		n->ej[x] += (double)((m - 1) * nmsg * pk.wire);
		n->inj[x] += (double)((m - 1) * nmsg * pk.wire);
		n->mu[(size_t)x * MU_N + MU_PKT_INJ] += (m - 1) * nmsg * pk.packets;
		n->mu[(size_t)x * MU_N + MU_MSG_INJ] += (m - 1) * nmsg;
		n->mu[(size_t)x * MU_N + MU_PKT_RCV] += (m - 1) * nmsg * pk.packets;
		add_local(n, x, c * g->weight * (c - 1), g->bytes);
	}
	free(A);
	free(D);
	sym_merge(n, S);
	return 1;
}

/* Node members of group g to the others, the next member first. */
static void route_group(clab_net *n, const group *g)
{
	for (uint32_t i = 0; i < g->n; i++) {
		uint64_t ci = g->cnt[i] * g->weight;
		for (uint32_t s = 1; s < g->n; s++) { /* MPI's order: i + 1, i + 2, ... */
			uint32_t j = (i + s) % g->n;
			add_flow(n, g->node[i], g->node[j], ci * g->cnt[j], g->bytes, g->vc);
		}
	}
}

/* Whether h is g moved along the torus by v (the same members in the
 * same order, the same counts and messages): v keeps mesh dimensions
 * and the parity of every node (routes take half-way ties by it), so h's
 * loads are g's moved by v. */
static int translate_of(const clab_net *n, const group *g, const group *h, int32_t *v)
{
	const clab_torus *t = n->t;
	if (g->n != h->n || g->bytes != h->bytes || g->vc != h->vc || g->weight != h->weight ||
	    memcmp(g->cnt, h->cnt, g->n * sizeof *g->cnt))
		return 0;
	int sum = 0;
	for (int d = 0; d < n->nd; d++) {
		int a = n->coord[(size_t)g->node[0] * n->nd + d], b = n->coord[(size_t)h->node[0] * n->nd + d];
		v[d] = (b - a + t->size[d]) % t->size[d];
		if (v[d] && !t->wrap[d])
			return 0;
		sum += v[d];
	}
	if (sum & 1)
		return 0;
	for (uint32_t i = 1; i < g->n; i++)
		for (int d = 0; d < n->nd; d++)
			if ((n->coord[(size_t)g->node[i] * n->nd + d] + v[d]) % t->size[d] !=
			    n->coord[(size_t)h->node[i] * n->nd + d])
				return 0;
	return 1;
}

/* Groups that are translates of another (BG/Q's FFT columns on Sequoia:
 * 96 groups of 1024 nodes, 16 moves of 6 shapes) are routed once, on
 * scratch arrays, and every translate gets those loads moved: exact,
 * and as many times less work as there are translates. */
static void expand_translates(clab_net *n)
{
	const clab_torus *t = n->t;
	size_t ng = 0, cap = 64;
	for (int b = 0; b < NBUCKETS; b++)
		for (group *g = n->bucket[b]; g; g = g->next)
			ng += !g->done && g->n > 1;
	if (ng < 2 || n->engine != CLAB_NET_FLOW)
		return;
	while (cap < 2 * ng)
		cap *= 2;
	/* bases by a key of their shape: open addressing, each slot a chain */
	group **slot = calloc(cap, sizeof *slot);
	uint64_t *key = calloc(cap, sizeof *key);
	group **bases = malloc(ng * sizeof *bases);
	uint32_t *touched = malloc((size_t)t->nodes * sizeof *touched);
	int err;
	if (!slot || !key || !bases || !touched ||
	    (!n->sym && (!(n->sym = clab_net_new(t, n->map, &err)) ||
			 clab_net_configure(n->sym, CLAB_NET_FLOW, n->routing, n->seed)))) {
		free(slot);
		free(key);
		free(bases);
		free(touched);
		return; /* no memory: the slow way */
	}
	size_t nb = 0;
	for (int b = 0; b < NBUCKETS; b++)
		for (group *g = n->bucket[b]; g; g = g->next) {
			if (g->done || g->n < 2)
				continue;
			uint64_t k = 1469598103934665603ull ^ g->bytes ^ g->weight << 20 ^ (uint64_t)g->vc << 56;
			for (uint32_t i = 0; i < g->n; i++)
				k = (k ^ (g->node[i] - g->node[0]) ^ (uint64_t)g->cnt[i] << 32) * 1099511628211ull;
			size_t at = k & (cap - 1);
			while (slot[at] && key[at] != k)
				at = (at + 1) & (cap - 1);
			group *base = NULL;
			for (group *c = slot[at]; c && !base; c = c->base) /* the chain of bases */
				if (translate_of(n, c, g, g->shift))
					base = c;
			if (base) {
				g->done = 1;
				g->base = base; /* moved by g->shift; counted below */
				continue;
			}
			/* a new base: chained in front (its base field links the chain) */
			g->base = slot[at];
			slot[at] = g;
			key[at] = k;
			bases[nb++] = g;
		}
	free(key);
	free(slot);
	clab_net *S = n->sym;
	size_t per = (size_t)t->nodes * (size_t)n->tl;
	for (size_t i = 0; i < nb; i++) {
		group *g = bases[i];
		size_t moves = 0;
		for (int b = 0; b < NBUCKETS; b++)
			for (group *h = n->bucket[b]; h; h = h->next)
				moves += h->done == 1 && h->base == g;
		if (!moves)
			continue; /* alone: routed as usual */
		S->dyn_routes = n->dyn_routes;
		S->spread_work = 0;
		route_group(S, g);
		prefix_sums(S);
		/* the split's budget counts every translate's walk */
		n->spread_work += S->spread_work * (moves + 1);
		if (S->dyn_routes || n->spread_work > SPREAD_BUDGET)
			n->dyn_routes = 1;
		g->done = 2;
		memset(g->shift, 0, sizeof g->shift);
		/* the nodes the base's traffic touched: all a translate moves */
		size_t nt = 0;
		for (uint32_t y = 0; y < t->nodes; y++) {
			int any = S->ej[y] != 0 || S->inj[y] != 0;
			for (int k = 0; k < MU_N && !any; k++)
				any = S->mu[(size_t)y * MU_N + k] != 0;
			for (int l = 0; l < n->tl && !any; l++) {
				any = S->dyn[(size_t)y * S->tl + l] != 0;
				for (int vc = 0; vc < CLAB_NVC && !any; vc++)
					any = (S->vcs >> vc & 1) && (DIFF(S, y, l, vc).c || DIFF(S, y, l, vc).p);
			}
			if (any)
				touched[nt++] = y;
		}
		for (int b = 0; b < NBUCKETS; b++)
			for (group *h = n->bucket[b]; h; h = h->next) {
				if (h != g && !(h->done == 1 && h->base == g))
					continue;
				for (size_t ti = 0; ti < nt; ti++) {
					uint32_t y = touched[ti];
					const uint16_t *cy = n->coord + (size_t)y * n->nd;
					uint32_t z = 0;
					for (int d = 0; d < n->nd; d++)
						z += (uint32_t)((cy[d] + h->shift[d]) % t->size[d]) * t->stride[d];
					const uint16_t *cz = n->coord + (size_t)z * n->nd;
					for (int l = 0; l < n->tl; l++) {
						for (int vc = 0; vc < CLAB_NVC; vc++) {
							cp_t a = DIFF(S, y, l, vc);
							if ((S->vcs >> vc & 1) && (a.c || a.p)) /* one link: a segment of one hop */
								segment(n, z, l / 2, cz[l / 2], l & 1 ? 1 : -1, vc, a.c, a.p);
						}
						n->dyn[(size_t)z * n->tl + l] += S->dyn[(size_t)y * S->tl + l];
					}
					n->ej[z] += S->ej[y];
					n->inj[z] += S->inj[y];
					for (int k = 0; k < MU_N; k++)
						n->mu[(size_t)z * MU_N + k] += S->mu[(size_t)y * MU_N + k];
				}
				for (uint32_t j = 0; j < h->n; j++)
					add_local(n, h->node[j], h->cnt[j] * h->weight * (h->cnt[j] - 1), h->bytes);
				h->done = 2;
			}
		memset(S->diff, 0, per * CLAB_NVC * sizeof *S->diff);
		memset(S->dyn, 0, per * sizeof *S->dyn);
		memset(S->ej, 0, t->nodes * sizeof *S->ej);
		memset(S->inj, 0, t->nodes * sizeof *S->inj);
		memset(S->mu, 0, (size_t)t->nodes * MU_N * sizeof *S->mu);
		sym_merge(n, S);
	}
	free(bases);
	free(touched);
	/* a translate whose base was routed as usual: undo, route it too */
	for (int b = 0; b < NBUCKETS; b++)
		for (group *g = n->bucket[b]; g; g = g->next)
			if (g->done == 1)
				g->done = 0;
}

/* Every member node of every group sends to every other, the next
 * member first. */
static void expand_groups(clab_net *n)
{
	double total = 0, done = 0;
	for (int b = 0; b < NBUCKETS; b++)
		for (group *g = n->bucket[b]; g; g = g->next)
			total += (double)g->n * g->n;
	for (int b = 0; b < NBUCKETS; b++)
		for (group *g = n->bucket[b]; g; g = g->next) {
			if (g->n > n->a2a_nodes)
				n->a2a_nodes = g->n;
			if (expand_subtorus(n, g)) {
				done += (double)g->n * g->n;
				g->done = 3;
			}
		}
	for (int b = 0; b < NBUCKETS; b++)
		for (group *g = n->bucket[b]; g; g = g->next)
			g->base = NULL;
	expand_translates(n);
	for (int b = 0; b < NBUCKETS; b++) {
		for (group *g = n->bucket[b]; g; g = g->next) {
			if (g->done)
				continue;
			/* (out of memory for flows: the phase fails, its end says so) */
			for (uint32_t i = 0; i < g->n && n->capflows != SIZE_MAX; i++) {
				uint64_t ci = g->cnt[i] * g->weight;
				add_local(n, g->node[i], ci * (g->cnt[i] - 1), g->bytes);
				for (uint32_t s = 1; s < g->n; s++) { /* MPI's order: i + 1, i + 2, ... */
					uint32_t j = (i + s) % g->n;
					add_flow(n, g->node[i], g->node[j], ci * g->cnt[j], g->bytes, g->vc);
				}
				done += g->n;
				if (n->progress && (i & 63) == 63)
					n->progress(n->progress_arg, done / total);
			}
		}
	}
	groups_clear(n);
}

/* Turns the difference arrays into per-link loads: a prefix sum along
 * every ring, for both directions and every VC used. */
static void prefix_sums(clab_net *n)
{
	const clab_torus *t = n->t;
	for (int d = 0; d < n->nd; d++) {
		uint32_t st = t->stride[d], size = (uint32_t)t->size[d];
		for (uint32_t outer = 0; outer < t->nodes; outer += size * st)
			for (uint32_t inner = 0; inner < st; inner++)
				for (int link = 2 * d; link <= 2 * d + 1; link++)
					for (int vc = 0; vc < CLAB_NVC; vc++) {
						if (!(n->vcs & (1u << vc)))
							continue;
						cp_t run = {0, 0};
						for (uint32_t p = 0; p < size; p++) {
							cp_t *x = &DIFF(n, outer + inner + p * st, link, vc);
							run.c += x->c, run.p += x->p;
							*x = run;
						}
					}
	}
}

/* Wire bytes on a link of the VCs in mask. */
static double wire_vcs(const clab_net *n, uint32_t node, int link, unsigned mask)
{
	const clab_netspec *s = n->t->spec;
	int64_t c = 0, p = 0;
	for (int vc = 0; vc < CLAB_NVC; vc++)
		if (n->vcs & mask & (1u << vc)) {
			c += DIFF(n, node, link, vc).c;
			p += DIFF(n, node, link, vc).p;
		}
	double b = (double)c * s->chunk;
	return b + (double)p * s->extra_per_packet;
}

static double wire_bytes(const clab_net *n, uint32_t node, int link)
{
	return wire_vcs(n, node, link, ~0u);
}

/* Contention: how many times its busiest link's bytes a phase takes, as
 * the packet engine measures it (head-of-line blocking in finite buffers,
 * dimension turns) and a busiest-link bound cannot see.
 *
 * BG/Q's many-to-many spreads every node's packets over all its
 * destinations at once, so every router sees traffic bound anywhere.
 * Routed in dimension order, only the head packet of an input buffer
 * moves, on its one next link, and with uniform destinations a
 * FIFO-input switch saturates at 2 - sqrt(2) = 58.6% of its links' rate
 * (Karol, Hluchyj, Morgan, IEEE Trans. Commun. 1987). Routed dynamically
 * (MPI's default) a head packet may take any link towards its
 * destination and links pass packets on before taking their node's own,
 * so that limit does not hold: the phase runs at its busiest link.
 *
 * All-to-alls sent in lockstep (each rank to the next member, the one
 * after, ...: BG/L's and Gemini's models) keep an empirical fit against
 * the packet engine on the 512-node runs of bench/netsim_validation.c:
 * they lose more the more nodes a group spans (about m^0.2 under
 * deterministic routing, m^0.14 adaptive: 16 nodes 1.7 and 1.5, 512 nodes
 * 3.5 and 2.4). Point-to-point phases get none here: routed in dimension
 * order, their routers' inputs are priced one by one (hol_share). */
static double contention(const clab_net *n, int dynamic)
{
	if (n->a2a_nodes > 1 && n->t->spec->m2m_fifos)
		return dynamic ? 1 : 1 / (2 - sqrt(2));
	if (n->a2a_nodes > 1)
		return pow((double)n->a2a_nodes, dynamic ? 0.137 : 0.2);
	return 1;
}

/* M/D/1: the mean wait, in service times, for a server busy a share a
 * of the time with others' work arriving at random. */
static double md1_wait(double a)
{
	return a >= 1 ? HUGE_VAL : a / (2 * (1 - a));
}

/* The share of input `in` of node x's time (in: a link's direction,
 * tl: the node's own packets; l_in: its link's bytes) its packets take
 * when every load is scaled so that `busiest` bytes keep their link busy
 * a share u: each holds the input while it waits for its output behind
 * the output's other traffic (M/D/1) and while it crosses. With `waited`,
 * adds the bytes' waits and bytes to waited[0] and waited[1]. */
static double input_busy(const clab_net *n, uint32_t x, int in, double l_in, double u, double busiest,
			 double *waited)
{
	const clab_netspec *s = n->t->spec;
	double busy = 0, left = l_in;
	unsigned det = ~(1u << CLAB_VC_DYNAMIC);
	for (int o = 0; o <= n->tl; o++) {
		double b = o == in ? 0 : TURN(n, x, in, o);
		if (o == in || b <= 0)
			continue;
		left -= b;
		double serve = 1, others;
		if (o == n->tl) { /* into the node: its drain port */
			serve = 1 / s->drain_links;
			others = (n->ej[x] + n->inj[x] - b) * serve;
		} else {
			others = wire_vcs(n, x, o, det) - b;
		}
		double w = serve * md1_wait(u * others / busiest), b_busy = u * b / busiest * (serve + w);
		if (in == n->tl) /* the node's own: a FIFO per link they take, not one queue */
			busy = b_busy > busy ? b_busy : busy;
		else
			busy += b_busy;
		if (waited)
			waited[0] += b * w, waited[1] += b;
	}
	if (in < n->tl && left > 0) { /* straight on */
		double w = md1_wait(u * (wire_vcs(n, x, in, det) - left) / busiest);
		busy += u * left / busiest * (1 + w);
		if (waited)
			waited[0] += left * w, waited[1] += left;
	}
	return busy;
}

/* Head-of-line blocking in a point-to-point phase's routers: the share u
 * of its bound's rate (busiest, in link bytes: its busiest link's or
 * node's drain) the phase runs at, the largest at which every input's
 * packets take at most all of its time (input_busy); and in *wait the
 * mean wait of a packet at a router at that share, over all packets and
 * routers, in largest packets' times. Only an input buffer's head moves
 * and it holds the input while it waits, so an input that feeds several
 * outputs, each busy with others' traffic, falls behind its link: a
 * FIFO-input switch's saturation (Karol, Hluchyj, Morgan 1987), with
 * each wait M/D/1's at the output's load. */
static double hol_share(const clab_net *n, double busiest, double *wait)
{
	const clab_torus *t = n->t;
	double share = 1, waited[2] = {0, 0};
	/* the share, input by input; then the waits at it */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t x = 0; x < t->nodes; x++)
			for (int in = 0; in <= n->tl; in++) {
				double l_in = 0; /* its link's bytes (injection: unused) */
				if (in < n->tl) {
					uint32_t y = clab_torus_neighbor(t, x, in ^ 1);
					if (y == x)
						continue;
					l_in = wire_vcs(n, y, in, ~(1u << CLAB_VC_DYNAMIC));
				}
				if (pass) {
					input_busy(n, x, in, l_in, share, busiest, waited);
					continue;
				}
				if (input_busy(n, x, in, l_in, share, busiest, NULL) <= 1)
					continue;
				double lo = 0, hi = share;
				for (int it = 0; it < 40; it++) {
					double m = (lo + hi) / 2;
					if (input_busy(n, x, in, l_in, m, busiest, NULL) <= 1)
						lo = m;
					else
						hi = m;
				}
				share = lo;
			}
	*wait = waited[1] > 0 ? waited[0] / waited[1] : 0;
	return share;
}

/* The roofline of one kernel: one rank's share of its node. */
static double roofline_s(const clab_net *n, double flops, double bytes)
{
	const clab_netspec *s = n->t->spec;
	int ppn = n->t->ppn, share = ppn > s->cores ? ppn : s->cores;
	double f = flops / (s->peak_flops * s->flop_eff / share);
	double m = bytes / (s->mem_bytes_s * s->mem_eff / ppn);
	return f > m ? f : m;
}

/* Each call is a kernel, priced by its own roofline; a phase's kernels
 * run one after another (a copy and an FFT of a step do not overlap). */
int clab_net_compute(clab_net *n, double flops, double bytes)
{
	if (!(flops >= 0) || !(bytes >= 0) || flops > 1e30 || bytes > 1e30)
		return clab_seterr(CLAB_E_INVAL, "compute step of %g flops and %g bytes", flops, bytes);
	n->compute += roofline_s(n, flops, bytes);
	return CLAB_OK;
}

void clab_net_label(clab_net *n, const char *label)
{
	snprintf(n->label, sizeof n->label, "%s", label ? label : "");
}

/* The record of the current label, added at the end when new. */
static clab_net_record *record_of(clab_net *n)
{
	const char *l = n->label[0] ? n->label : "phase";
	for (int i = n->nrec - 1; i >= 0; i--)
		if (!strcmp(n->rec[i].label, l))
			return &n->rec[i];
	if (n->nrec == n->caprec) {
		int cap = n->caprec ? 2 * n->caprec : 16;
		clab_net_record *r = realloc(n->rec, (size_t)cap * sizeof *r);
		if (!r)
			return NULL;
		n->rec = r;
		n->caprec = cap;
	}
	clab_net_record *r = &n->rec[n->nrec++];
	memset(r, 0, sizeof *r);
	snprintf(r->label, sizeof r->label, "%s", l);
	return r;
}

static double wire_s_of(const clab_netspec *s, uint64_t bytes)
{
	return (double)clab_netspec_packetize(s, bytes).wire / s->link_bytes_s;
}

int clab_net_phase_end(clab_net *n, uint64_t times, double *time_s)
{
	const clab_torus *t = n->t;
	const clab_netspec *s = t->spec;
	if (n->capture) { /* the traffic only (clab_net_openloop) */
		expand_groups(n);
		return n->capflows == SIZE_MAX ? clab_seterr(CLAB_E_NOMEM, "no memory for the flows of phase \"%s\"", n->label) : CLAB_OK;
	}
	clab_net_record *rec = record_of(n);
	if (!rec)
		return clab_seterr(CLAB_E_NOMEM, "no memory for the record of phase \"%s\"", n->label);
	expand_groups(n);
	if (n->obs_end)
		n->obs_end(n->obs_arg, times);
	double sim_s = 0;
	if (n->engine == CLAB_NET_PACKET) {
		if (n->capflows == SIZE_MAX)
			return clab_seterr(CLAB_E_NOMEM, "no memory for the flows of phase \"%s\"", n->label);
		pkt_result res = {.sent = n->diff, .fifo = n->pfifo, .notoken = n->pnotoken};
		int rc = clab_packet_run(t, n->flows, n->nflows, n->seed + n->phases,
					 n->progress, n->progress_arg, &res);
		n->nflows = 0;
		n->events += res.events;
		if (rc)
			return rc;
		sim_s = res.time;
	} else {
		prefix_sums(n);
	}
	/* the busiest link, its bytes weighted by contention, and the busiest
	 * node (its drain) set the pace */
	double busiest = 0, drain_bw = s->drain_links * s->link_bytes_s, copy = 0;
	double k_det = contention(n, 0), k_dyn = contention(n, 1);
	for (uint32_t x = 0; n->engine == CLAB_NET_FLOW && x < t->nodes; x++) {
		for (int l = 0; l < n->tl; l++) {
			size_t xl = (size_t)x * n->tl + (size_t)l;
			double dyn = n->dyn_routes ? wire_vcs(n, x, l, 1u << CLAB_VC_DYNAMIC) : n->dyn[xl];
			double w = k_det * wire_vcs(n, x, l, ~(1u << CLAB_VC_DYNAMIC)) + k_dyn * dyn;
			n->dyn[xl] = 0;
			if (w > busiest)
				busiest = w;
		}
	}
	for (uint32_t x = 0; x < t->nodes; x++) {
		double node = (n->ej[x] + n->inj[x]) / drain_bw * s->link_bytes_s;
		if (node > busiest)
			busiest = node;
		if (n->lbytes[x] > copy)
			copy = n->lbytes[x];
	}
	/* a deterministic point-to-point phase: head-of-line blocking at
	 * its routers' inputs (hol_share) */
	double hol_wait = 0;
	if (n->turns && !n->a2a_nodes && !(n->vcs & (1u << CLAB_VC_DYNAMIC)) && busiest > 0) {
		double share = hol_share(n, busiest, &hol_wait);
		busiest /= share;
		if (share >= 1) /* at its bound: latency as before */
			hol_wait = 0;
	}
	if (n->turns) {
		memset(n->turn, 0, (size_t)t->nodes * (size_t)(n->tl + 1) * (size_t)(n->tl + 1) * sizeof *n->turn);
		n->turns = 0;
	}
	double transfer = busiest / s->link_bytes_s;
	double cpu_net = 0, cpu_local = 0;
	for (uint32_t r = 0; r < n->map->nranks; r++) {
		if (n->cpu[2 * (size_t)r] > cpu_net)
			cpu_net = n->cpu[2 * (size_t)r];
		if (n->cpu[2 * (size_t)r + 1] > cpu_local)
			cpu_local = n->cpu[2 * (size_t)r + 1];
		n->cpu[2 * (size_t)r] = n->cpu[2 * (size_t)r + 1] = 0;
	}
	clab_net_times pt = {0, 0, 0, 0};
	double ovh = s->o_send_s + s->o_recv_s;
	if (n->any_net) {
		/* the longest message latency: all of a message's time but its
		 * bytes' and its overheads' */
		double lat = 0;
		for (int rdv = 0; rdv < 2; rdv++) {
			int h = n->max_hops_proto[rdv];
			uint64_t b = rdv ? (uint64_t)s->eager_max + 1 : 0;
			double l = h ? clab_netspec_message_s(s, b, h) - ovh - wire_s_of(s, b) : 0;
			if (h) /* waits at every router of the way, the first's and the last's too */
				l += (h + 1) * hol_wait * wire_s_of(s, s->max_payload);
			if (l > lat)
				lat = l;
		}
		if (n->engine == CLAB_NET_PACKET) /* its time has the hops in it */
			transfer = sim_s, lat -= n->max_hops * s->hop_s;
		pt.network = (transfer + ovh > cpu_net ? transfer + ovh : cpu_net) + lat;
	}
	if (n->any_local) {
		double c = copy / s->local_bytes_s + ovh;
		pt.onnode = c > cpu_local ? c : cpu_local;
	}
	pt.compute = n->compute;
	pt.total = pt.network + pt.onnode + pt.compute;
	/* the network unit's clock runs through the whole phase */
	double net_cycles = pt.total * s->net_hz;
	uint64_t notoken = 0;
	if (n->engine == CLAB_NET_PACKET) { /* measured, not estimated */
		for (uint32_t x = 0; x < t->nodes; x++)
			for (int l = 0; l < n->tl; l++) {
				size_t xl = (size_t)x * n->tl + (size_t)l;
				uint64_t nt = (uint64_t)(n->pnotoken[xl] + 0.5) * times;
				n->notoken[(size_t)x * n->nl + l] += nt;
				notoken += nt;
				n->pnotoken[xl] = 0;
				for (int vc = 0; vc < CLAB_NVC; vc++) {
					double *f = &n->pfifo[xl * CLAB_NVC + vc];
					if (*f) { /* (a VC the phase did not use stays untouched) */
						TOT(n, x, l, vc, T_FIFO) += (uint64_t)(*f + 0.5) * times;
						*f = 0;
					}
				}
			}
	}
	/* queues and waits over the phase's whole time, of which its links
	 * are busy a fraction (Waiting, at the top) */
	double phase_s = pt.total;
	for (uint32_t x = 0; n->engine == CLAB_NET_FLOW && phase_s > 0 && x < t->nodes; x++) {
		/* node x: how much slower than its links it drains, its
		 * capacity shared by what it sends and what it receives;
		 * the slowdown reaches each link by the bytes it brings x */
		const double *el = n->ejl + (size_t)x * n->tl;
		double in_busy = 0;
		for (int l = 0; l < n->tl; l++)
			if (el[l] / s->link_bytes_s > in_busy)
				in_busy = el[l] / s->link_bytes_s;
		double drain = (n->ej[x] + n->inj[x]) / drain_bw;
		double slow = in_busy > 0 && drain > in_busy ? drain / in_busy : 1;
		for (int l = 0; l < n->tl; l++) {
			uint32_t y = clab_torus_neighbor(t, x, l);
			if (y == x)
				continue;
			double rho = wire_bytes(n, y, l ^ 1) / s->link_bytes_s / phase_s;
			if (rho > 1) /* saturated (Waiting, at the top) */
				rho = 1;
			double eff = rho + el[l] / s->link_bytes_s / phase_s * (slow - 1);
			if (eff > 1)
				eff = 1;
			double q = eff >= 1 ? s->fifo_packets : eff + eff * eff / (2 * (1 - eff));
			if (q > s->fifo_packets)
				q = s->fifo_packets;
			uint64_t nt = (uint64_t)((eff - rho) * phase_s * s->net_hz) * times;
			n->notoken[(size_t)y * n->nl + (l ^ 1)] += nt;
			notoken += nt;
			int64_t pk = 0;
			for (int vc = 0; vc < CLAB_NVC; vc++)
				pk += DIFF(n, y, l ^ 1, vc).p;
			for (int vc = 0; pk && vc < CLAB_NVC; vc++) {
				int64_t p = DIFF(n, y, l ^ 1, vc).p;
				if (p)
					TOT(n, x, l, vc, T_FIFO) += (uint64_t)
						(q * phase_s * s->net_hz * (double)p / (double)pk) * times;
			}
		}
	}
	uint64_t *mt = n->mu + (size_t)t->nodes * MU_N;
	for (uint32_t x = 0; x < t->nodes; x++) {
		for (int l = 0; l < n->tl; l++)
			for (int vc = 0; vc < CLAB_NVC; vc++) {
				cp_t *v = &DIFF(n, x, l, vc);
				if (v->c || v->p) {
					TOT(n, x, l, vc, T_CHUNKS) += (uint64_t)v->c * times;
					TOT(n, x, l, vc, T_PACKETS) += (uint64_t)v->p * times;
					*v = (cp_t){0, 0};
				}
			}
		for (int k = 0; k < MU_N; k++) {
			mt[(size_t)x * MU_N + k] += n->mu[(size_t)x * MU_N + k] * times;
			n->mu[(size_t)x * MU_N + k] = 0;
		}
		n->ej[x] = n->inj[x] = n->lbytes[x] = 0;
		memset(n->ejl + (size_t)x * n->tl, 0, (size_t)n->tl * sizeof *n->ejl);
	}
	double k = (double)times;
	n->cycles += (uint64_t)(net_cycles + 0.5) * times;
	n->local += n->phase_local * times;
	n->phase_local = 0;
	n->time += pt.total * k;
	n->phases += times;
	n->totals.network += pt.network * k;
	n->totals.onnode += pt.onnode * k;
	n->totals.compute += pt.compute * k;
	n->totals.total += pt.total * k;
	rec->phases += times;
	rec->t.network += pt.network * k;
	rec->t.onnode += pt.onnode * k;
	rec->t.compute += pt.compute * k;
	rec->t.total += pt.total * k;
	rec->no_token += notoken;
	n->vcs = 0;
	n->a2a_nodes = 0;
	n->dyn_routes = 0;
	n->spread_work = 0;
	n->max_hops = 0;
	n->max_hops_proto[0] = n->max_hops_proto[1] = 0;
	n->compute = 0;
	n->any_net = n->any_local = 0;
	if (time_s)
		*time_s = pt.total * k;
	return CLAB_OK;
}

const clab_net_record *clab_net_records(const clab_net *n, int *count)
{
	*count = n->nrec;
	return n->rec;
}

clab_net_times clab_net_totals(const clab_net *n)
{
	return n->totals;
}

uint64_t clab_net_count(const clab_net *n, uint32_t node, int link,
			enum clab_netctr what, unsigned vcmask)
{
	if (node >= n->t->nodes || link >= n->nl)
		return 0;
	if (what == CLAB_NET_CYCLES)
		return n->cycles;
	if (what >= CLAB_NET_MU_PKT_INJ) /* the node's message unit */
		return n->mu[((size_t)n->t->nodes + node) * MU_N + (what - CLAB_NET_MU_PKT_INJ)];
	if (link < 0) {
		uint64_t sum = 0;
		for (int l = 0; l < n->tl; l++)
			sum += clab_net_count(n, node, l, what, vcmask);
		return sum;
	}
	if (what == CLAB_NET_NO_TOKEN)
		return n->notoken[(size_t)node * n->nl + link];
	int k = what == CLAB_NET_SENT_CHUNKS || what == CLAB_NET_RECV_CHUNKS ? T_CHUNKS
		: what == CLAB_NET_RECV_FIFO ? T_FIFO : T_PACKETS;
	uint32_t from = node;
	if (what == CLAB_NET_RECV_CHUNKS || what == CLAB_NET_RECV_PACKETS) {
		/* what arrives here was sent by the neighbour on its opposite link */
		if (link >= n->tl || (from = clab_torus_neighbor(n->t, node, link)) == node)
			return 0;
		link ^= 1;
	}
	uint64_t sum = 0;
	for (int vc = 0; vc < CLAB_NVC; vc++)
		if (vcmask & CLAB_VC_BIT(vc))
			sum += TOT(n, from, link, vc, k);
	return sum;
}

double clab_net_time(const clab_net *n) { return n->time; }
uint64_t clab_net_phases(const clab_net *n) { return n->phases; }
uint64_t clab_net_local_bytes(const clab_net *n) { return n->local; }
uint32_t clab_net_nranks(const clab_net *n) { return n->map->nranks; }
const clab_torus *clab_net_torus(const clab_net *n) { return n->t; }
const clab_map *clab_net_map(const clab_net *n) { return n->map; }
uint32_t clab_net_node_of(const clab_net *n, uint32_t r) { return n->map->node[r]; }

int64_t clab_net_rank_at(const clab_net *n, uint32_t node)
{
	for (uint32_t r = 0; r < n->map->nranks; r++)
		if (n->map->node[r] == node)
			return r;
	return -1;
}

uint64_t clab_netevent_count(const clab_net *n, const clab_netevent *e,
			     uint32_t node)
{
	return clab_net_count(n, node, e->link, e->what, e->vcmask);
}

/* ---- open loop ----------------------------------------------------------- */

static uint64_t ol_draw(uint64_t *x) /* splitmix64 */
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* BookSim2's steady state (clab_openloop, period > 0), followed period
 * by period as the packet engine runs: its verdict from each packet's
 * making, reading from memory and delivery up to the time looked at. */
typedef struct steady {
	const pkt_flow *f;   /* in order of making */
	const double *start, *done; /* done < 0: not delivered */
	size_t nf, senders;
	double cyc, P, W, H; /* s: a chunk time, a period, the warm-up, the arrivals' end */
	double chunks, thr, limit;
	uint32_t wp, maxp;
	uint32_t j;          /* the period under way */
	int running, clear_last, converged, draining, verdict; /* verdict: 1 stable, -1 unstable */
	double clear_t, D;   /* s: statistics last cleared, the drain began (+inf: not yet) */
	double prev_lat, prev_acc, acc;
} steady;

static double steady_tick(void *arg, double t)
{
	steady *q = arg;
	double psum = 0, pn = 0, isum = 0, in = 0, got = 0;
	int outstanding = 0;
	for (size_t i = 0; i < q->nf && q->f[i].at <= t; i++) {
		double at = q->f[i].at, rd = q->start[i], dn = q->done[i] < 0 ? HUGE_VAL : q->done[i];
		if (dn <= t) {
			if (dn > q->clear_t) {
				got += q->chunks;
				/* in the warm-up every packet, then the window's */
				if (dn <= q->W || (rd >= q->W && at < q->D))
					psum += (dn - at) / q->cyc, pn++;
			}
		} else if (rd <= t) { /* in flight: each chunk one sample of its age */
			isum += q->chunks * (t - at) / q->cyc;
			in += q->chunks;
		}
		outstanding |= dn > t && at < q->D && rd >= q->W; /* a window's packet (unread: rd +inf) */
	}
	if ((psum + isum) / (pn + in) > q->limit || (q->draining && outstanding && t >= q->H)) {
		q->verdict = -1;
		return t;
	}
	if (q->draining) {
		if (!outstanding)
			q->verdict = 1;
		return outstanding ? t + 1000 * q->cyc : t;
	}
	/* period j has ended: has it converged (0/0 compares false, as
	 * in BookSim2) */
	double lat = psum / pn, acc = got / ((t - q->clear_t) / q->cyc) / (double)q->senders;
	double dl = fabs((lat - q->prev_lat) / lat), da = fabs((acc - q->prev_acc) / acc);
	q->prev_lat = lat;
	q->prev_acc = q->acc = acc;
	if (!q->running)
		q->running = q->clear_last = q->j + 1 >= q->wp;
	else
		q->converged = !(dl > q->thr) && !(da > q->thr) ? q->converged + 1 : 0;
	q->j++;
	if (q->j >= q->maxp || (q->running && q->converged >= 3)) {
		q->draining = 1;
		q->D = t;
		return t + 1000 * q->cyc;
	}
	if (q->clear_last || (!q->running && q->j % 2 == 0)) {
		q->clear_last = 0;
		q->clear_t = t;
	}
	return t + q->P;
}

int clab_net_openloop(clab_net *n, const char *pattern, clab_openloop *o)
{
	const clab_torus *t = n->t;
	const clab_netspec *s = t->spec;
	uint32_t wp = o->warmup_periods ? o->warmup_periods : 3, maxp = o->max_periods ? o->max_periods : 10;
	if (!(o->load > 0 && o->load <= 64) || (!o->period && !o->measure))
		return clab_seterr(CLAB_E_INVAL, "open loop: load %g (want 0 < load <= 64 chunks per chunk time per node) and a measurement window of at least one chunk time",
				   o->load);
	if (o->period && (wp >= maxp || maxp > 1000 || o->period > 100000000 || o->converge < 0 || o->latency_limit < 0))
		return clab_seterr(CLAB_E_INVAL, "open loop: steady state of %u warm-up and %u periods in all, of %llu chunk times (want fewer warm-up periods than periods, at most 1000 periods of at most 1e8), converge %g and latency limit %g (want >= 0)",
				   wp, maxp, (unsigned long long)o->period, o->converge, o->latency_limit);
	/* the pattern's traffic: who sends to whom, by bytes */
	int err;
	clab_net *c = clab_net_new(t, n->map, &err);
	if (!c)
		return err;
	int rc = clab_net_configure(c, CLAB_NET_PACKET, n->routing, n->seed);
	c->capture = 1;
	if (!rc)
		rc = clab_net_pattern(c, pattern);
	size_t N = t->nodes, nf = 0, cap = 0;
	uint64_t *first = calloc(N + 1, sizeof *first); /* c's flows by source */
	size_t *bysrc = malloc(c->nflows * sizeof *bysrc + 1);
	double *cum = malloc(c->nflows * sizeof *cum + 1);
	uint32_t *senders = malloc(N * sizeof *senders + 1);
	pkt_flow *f = NULL;
	double *lat = NULL;
	if (!rc && (!first || !bysrc || !cum || !senders))
		rc = clab_seterr(CLAB_E_NOMEM, "no memory for the open loop's traffic");
	if (!rc && !c->nflows)
		rc = clab_seterr(CLAB_E_PATTERN, "open loop: %s sends nothing between nodes", pattern);
	for (size_t i = 0; !rc && i < c->nflows; i++)
		first[c->flows[i].src + 1]++;
	for (size_t x = 0; !rc && x < N; x++)
		first[x + 1] += first[x];
	for (size_t i = 0; !rc && i < c->nflows; i++) { /* a counting sort, stable */
		size_t at = first[c->flows[i].src]++;
		bysrc[at] = i;
	}
	for (size_t x = N; !rc && x > 0; x--)
		first[x] = first[x - 1];
	if (!rc)
		first[0] = 0;
	/* each node's destinations, weighted by the bytes the pattern sends */
	size_t ns = 0;
	for (size_t x = 0; !rc && x < N; x++) {
		double w = 0;
		for (uint64_t i = first[x]; i < first[x + 1]; i++) {
			const pkt_flow *g = &c->flows[bysrc[i]];
			w += (double)g->nmsg * (double)(g->bytes ? g->bytes : 1);
			cum[i] = w;
		}
		if (first[x + 1] > first[x])
			senders[ns++] = (uint32_t)x;
	}
	/* Bernoulli arrivals per chunk time, packets of max_payload, made
	 * in time order: for the warm-up, the window and as long again after
	 * it (the window's packets meet the same load until they are
	 * delivered), or (steady state) twice the most periods */
	uint64_t chunks = (s->header + s->max_payload + s->chunk - 1) / s->chunk;
	if (chunks * s->chunk < s->min_packet)
		chunks = s->min_packet / s->chunk;
	double p = o->load / (double)chunks, cyc = s->chunk / s->link_bytes_s;
	uint64_t gen = o->period ? 2 * (uint64_t)maxp * o->period : o->warmup + 2 * o->measure;
	uint64_t seed = n->seed * 0x2545f4914f6cdd1dull + 7;
	int vc = n->routing == CLAB_ROUTE_ADAPTIVE ? CLAB_VC_DYNAMIC : CLAB_VC_ESCAPE;
	for (uint64_t k = 0; !rc && k < gen; k++) {
		for (size_t si = 0; si < ns; si++) {
			size_t x = senders[si];
			if ((double)(ol_draw(&seed) >> 11) * 0x1p-53 >= p)
				continue;
			double w = (double)(ol_draw(&seed) >> 11) * 0x1p-53 * cum[first[x + 1] - 1];
			uint64_t lo = first[x], hi = first[x + 1] - 1;
			while (lo < hi) { /* the first destination whose sum passes w */
				uint64_t mid = (lo + hi) / 2;
				if (cum[mid] > w)
					hi = mid;
				else
					lo = mid + 1;
			}
			if (nf == cap) {
				cap = cap ? 2 * cap : 4096;
				pkt_flow *g = realloc(f, cap * sizeof *g);
				if (!g) {
					rc = clab_seterr(CLAB_E_NOMEM, "no memory for the open loop's packets");
					break;
				}
				f = g;
			}
			/* one injection FIFO in the order made: a source queue */
			f[nf++] = (pkt_flow){(uint32_t)x, c->flows[bysrc[lo]].dst, 1, s->max_payload, vc, 1,
					     (double)k * cyc};
		}
	}
	size_t k = N * (size_t)n->tl;
	cp_t *sent = rc ? NULL : calloc(k * CLAB_NVC, sizeof *sent);
	double *fifo = rc ? NULL : calloc(k * CLAB_NVC, sizeof *fifo);
	double *notoken = rc ? NULL : calloc(k, sizeof *notoken);
	double *done = rc ? NULL : malloc((nf + 1) * sizeof *done);
	double *start = rc ? NULL : malloc((nf + 1) * sizeof *start);
	lat = rc ? NULL : malloc((nf + 1) * sizeof *lat);
	if (!rc && (!sent || !fifo || !notoken || !done || !start || !lat))
		rc = clab_seterr(CLAB_E_NOMEM, "no memory for the open loop's results");
	for (size_t i = 0; !rc && i < nf; i++)
		done[i] = -1, start[i] = HUGE_VAL;
	pkt_result res = {.sent = sent, .fifo = fifo, .notoken = notoken, .done = done, .start = start};
	steady q = {f, start, done, nf, ns, cyc, (double)o->period * cyc, (double)wp * (double)o->period * cyc,
		    (double)gen * cyc, (double)chunks, o->converge > 0 ? o->converge : 0.05,
		    o->latency_limit > 0 ? o->latency_limit : 500, wp, maxp, 0, 0, 0, 0, 0, 0, 0, HUGE_VAL, 0, 0, 0};
	if (o->period) {
		res.tick = steady_tick;
		res.tick_arg = &q;
		res.tick_at = q.P;
	}
	if (!rc)
		rc = clab_packet_run(t, f, nf, n->seed, NULL, NULL, &res);
	/* all delivered before the verdict: it follows from what is known */
	for (double at = res.tick_at; !rc && o->period && !q.verdict;)
		at = steady_tick(&q, at);
	if (!rc) {
		/* latency: making to delivery of the window's packets (steady
		 * state: read in it, made before it closed); accepted: chunks
		 * delivered in it (steady state: in its last period) */
		double w0 = (double)o->warmup * cyc, w1 = (double)(o->warmup + o->measure) * cyc, sum = 0;
		uint64_t m = 0, got = 0;
		for (size_t i = 0; i < nf; i++) {
			int in = o->period ? start[i] >= q.W && f[i].at < q.D && done[i] >= 0
				: f[i].at >= w0 && f[i].at < w1;
			if (in) {
				lat[m] = (done[i] - f[i].at) / cyc;
				sum += lat[m++];
			}
			got += done[i] >= w0 && done[i] < w1;
		}
		qsort(lat, m, sizeof *lat, cmp_double);
		o->packets = m;
		o->latency_mean = m ? sum / (double)m : 0;
		o->latency_p99 = m ? lat[(m * 99 + 99) / 100 - 1] : 0;
		o->accepted = o->period ? q.acc : (double)(got * chunks) / ((double)o->measure * (double)ns);
		o->events = res.events;
		o->unstable = q.verdict < 0;
		o->periods = q.j;
	}
	free(sent);
	free(fifo);
	free(notoken);
	free(done);
	free(start);
	free(lat);
	free(f);
	free(first);
	free(bysrc);
	free(cum);
	free(senders);
	clab_net_free(c);
	return rc;
}
