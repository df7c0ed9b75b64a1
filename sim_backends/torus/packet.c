/* The packet engine: a discrete-event simulation of a phase's messages as
 * packets crossing the torus (docs/torus.md, Packet
 * engine). Only what happens is simulated (an event when a packet's head
 * is ready at a router, a link or a node's message unit comes free, or a
 * buffer's room comes back), never a sweep over all routers per cycle.
 *
 * A node's message unit (MU) works through its messages inj_fifos at a
 * time, one packet at a time from each; reading a packet from memory, and
 * writing a received one to memory, take the node's one drain port for
 * wire bytes / (drain_links x link rate), sending and receiving taking
 * turns (the flow engine's "sending and receiving together"). A packet
 * read waits at its injection FIFO's head for an output link.
 *
 * Each link's far end keeps an input buffer per VC of fifo_packets
 * largest packets (the dynamic VC's: dyn_chunks chunks, when set); a
 * packet may cross only when the buffer has room for
 * all of it (virtual cut-through; room is the sender's tokens), it is
 * ready at the next router hop_s after it started (its head), and its room
 * comes back when its tail has left that buffer. Only the head packet of
 * a buffer is routed (head-of-line blocking); an input sends one packet at
 * a time. Deterministic packets go dimension-ordered on their VC (the
 * escape VC for MPI's small messages, BG/Q's other VCs kept apart);
 * dynamic packets may take any minimal direction on the dynamic VC,
 * choosing among free links the one with most free tokens (ties by a
 * seeded draw), or the escape VC in dimension order, which they keep to
 * their destination with `stay_on_bubble` (else they may go dynamic
 * again at the next router: BG/Q's header bit as its MPI leaves it).
 * The escape VC obeys the bubble rule: a packet entering a ring (from
 * injection, another dimension or another VC) needs room for itself and
 * one more largest packet; deterministic routing plus the bubble keeps
 * the escape VC free of deadlock, and dynamic packets can always fall
 * back to it (Duato's condition), so no run deadlocks. With the dateline
 * (netspec `dateline`), dimension-ordered packets need no bubble: a
 * packet whose way along a ring wraps round (crosses from k-1 to 0 or
 * back) takes a second buffer of the link for that whole ring, the others
 * the first, which breaks every ring's cycle. A free link serves the
 * oldest waiting head that can take it (with `transit_ratio` k, heads
 * from its router's input buffers before the node's own, which take
 * their turn once it has passed k on in a row: BG/Q's sender arbiter),
 * or with `round_robin` 1 the input
 * ports in turn, 2 each input buffer (VC) and injection queue in turn, as
 * a flit-level router's allocator (with `interleave`, each lane of the
 * link takes its turns apart, as each output VC of BookSim2's router has
 * an arbiter of its own; with round_robin or transit_ratio a dynamic
 * head goes by the first free link that chooses it, not by the most
 * tokens).
 *
 * Every choice waits for the end of its instant: the instant's events
 * (heads arriving, ports coming free, room coming back) all happen
 * first, in any order, then each port they concern chooses among all
 * the heads ready then, node by node, a node's links in order, then its
 * drain port (choose); what that frees at once makes a next round of the
 * instant. Oldest first means: by the instant a head began to wait, heads
 * of one instant by queue (input links' buffers, then injection). A
 * node's choices read only its own queues and the room its links take
 * at their far ends, and each node draws from its own seeded stream, so
 * nothing depends on the order the queue hands an instant's events out
 * in (clab_packet_shuffle tests it). With
 * `inj_vcs` k the packets a node reads go into k injection queues in turn (each of fifo_packets
 * largest packets; the MU reads on while one has room), as BookSim2's
 * injection VCs, instead of waiting in their message's FIFO. With `speedup` k (BookSim2's internal speedup) a link's
 * crossbar port, not the link, takes the head: it moves the packet in
 * 1/k of the link's time into the link's output queue (the room it needs
 * beyond taken as before), which the link sends in order; the input's
 * next head no longer waits for the link; with split ports the same
 * holds for the ejection port (the crossbar moves a packet for the node
 * into its queue in 1/k of a link's time, the port writes the queue in
 * order), as BookSim2's ejection is one more crossbar output. With
 * `interleave` a link
 * carries a packet per lane (each VC's buffer at the far end) at once,
 * sharing its rate equally among those still sending (chunk by chunk, as
 * a flit-level router's link), and a crossing ends no sooner than the
 * packet's tail has arrived at its router; the lane, the input that sent
 * it and its room there stay taken until it ends. With both (BookSim2's
 * router: a crossbar at speedup times the link's rate filling an output
 * queue whose link interleaves the flits of packets moved together), a
 * lane takes the next packet, and the input that sent it is free, once
 * the crossbar has moved it whole, which is no sooner than its tail has
 * arrived; the link shares its rate among its lanes' first packets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "packet.h"

#define NONE UINT32_MAX
#define NV CLAB_NVC
enum { EV_HEAD, EV_LINK, EV_NODE, EV_ROOM, EV_RELEASE, EV_TX, EV_TXROOM, EV_SWEND };

typedef struct packet {
	double t;          /* its head is ready at this router */
	double tail;       /* its tail has arrived here */
	uint32_t dst, next;
	uint32_t flow;
	uint16_t chunks;
	uint16_t held;     /* chunks of room it holds in its input buffer */
	uint8_t vc, dyn, indim; /* indim: dimension it came along, 0xff injected */
	uint8_t tie;       /* bit d: half way round ring d it goes the - way */
	uint8_t dori;      /* dimension-ordered: the index in the torus's order
			    * of its first dimension still to go */
	uint8_t wraps;     /* dateline: its way along dimension indim wraps */
	uint8_t pend;      /* interleave: written to memory (by t) before its
			    * tail arrived */
	uint32_t tx;       /* interleave: its last crossing under way, NONE */
} packet;

/* A head waiting at its router: its queue and its routes there (routes),
 * fixed while it waits. The ports' scans read these, not the packet: a
 * blocked head is read again at every choice of a link it wants. */
typedef struct waiter {
	uint16_t qi;
	uint16_t want;     /* the links it may take (0: at its destination) */
	uint16_t dorq, need; /* its dimension-ordered link's buffer at the far
			    * end and the room it needs there */
	uint16_t chunks;
	int8_t dor;        /* that link, -1 at its destination */
	uint8_t dorv, dyn; /* the VC it would take there; adaptive */
} waiter;

typedef struct queue {   /* an input buffer of one VC, or an injection FIFO */
	uint32_t head, tail, npk;
	int32_t room;      /* chunks (tokens) left; injection FIFOs: unused */
	uint8_t waiting;   /* its head waits for an output */
	uint8_t busy;      /* interleave: its last packet out is still crossing */
} queue;

/* interleave: a packet crossing a link, sharing it with the crossings
 * on the link's other lanes (one lane per buffer at the far end) */
typedef struct tx {
	double work;       /* s of the link's whole rate still to send */
	double floor;      /* it ends no sooner: its tail's arrival (+inf:
			    * the crossing before has not ended); with
			    * speedup, its tail's move into the queue */
	uint32_t pk, next; /* the packet; its crossing of the next link */
	uint32_t x, qi;    /* the node and input queue it left */
	uint16_t held, gen; /* room to give back there (0: given) */
	uint8_t o, lane;
	/* speedup: when the crossbar began to move it, the next crossing
	 * queued on its lane, its buffer at the far end, whether it has
	 * been moved whole (the lane and its input are free again) */
	double start, mv;  /* mv: its link time / speedup */
	uint32_t lnext, dqi;
	uint8_t switched;
} tx;

typedef struct qocc {    /* a queue's occupancy integral: packets x s (apart
			  * from the queues, which the routing reads often) */
	double since, occ;
} qocc;

typedef struct injq {    /* an injection FIFO's messages */
	uint64_t pos;      /* next flow of the FIFO's list */
	uint64_t msgs;     /* messages of the current flow left */
	uint64_t pkts;     /* packets of the current message left */
	uint32_t flow;     /* the current flow, NONE: none */
} injq;

typedef struct ev { /* events of one instant leave in any order (the
		     * choices wait for the end of the instant) */
	uint32_t node;
	uint16_t q;
	uint8_t kind;
} ev;

typedef struct sim {
	const clab_torus *t;
	const clab_netspec *s;
	int nd, tl, nq, ninj, maxc, minc; /* chunks of the largest, smallest packet */
	int nv;              /* buffers per link: one per VC the run uses (the
			      * dynamic and the escape VC always) */
	uint8_t vbuf[NV], bufvc[NV]; /* a VC's buffer on its link, and back */
	int nlq;             /* link buffers per node: tl x nv, then with the
			      * dateline tl more (each link's wrapping packets) */
	uint8_t *qlink, *qlane; /* [nlq] a buffer's link, and its lane there */
	double link_spb, node_spb, hop; /* s per wire byte on a link, at a node */
	uint16_t *coord;     /* [node][nd] */
	int16_t *ways;       /* clab_torus_delta by dimension, offset and tie */
	const int16_t *way[CLAB_TORUS_MAXD]; /* [d][2 x offset + tie], offset
			      * (b - a) from -(size - 1) to size - 1 */
	uint32_t *nb;        /* [node][tl] */
	uint8_t *odd;        /* [node] coordinate sum parity */
	queue *q;            /* [node][nq]: nlq input buffers, ninj FIFOs */
	qocc *occ;           /* [node][nq] */
	injq *iq;            /* [node][ninj] */
	double *link_free, *nt_since, *node_free; /* [node][tl], [node][tl], [node] */
	double *wire_free;   /* speedup: [node][tl] the link has sent its output
			      * queue (link_free: the crossbar may fill it) */
	/* interleave: [node][tl][nl] each lane's crossing (NONE: free);
	 * [node][tl] crossings still sending, when their work was last
	 * brought up to date, the time of the link's next EV_TX */
	int nl;
	uint32_t *lane_tx, *lane_last; /* speedup: a queue per lane, last */
	uint8_t *lanes;      /* [node][tl] bit l: lane l has a crossing (the
			      * scans of a link's lanes visit only those) */
	uint8_t *nact;
	double *lupd, *lsched;
	tx *tx;
	uint32_t ntx, captx, freetx;
	uint16_t gen;
	double *rx_free;     /* [node] the ejection port: node_free when shared */
	double *rx_wire;     /* [node] speedup, split ports: the ejection
			      * port has written its queue (NULL: no queue) */
	/* the room a link's or the drain port's last packet gives back when
	 * it is free again: [node][tl + 1] its queue (NONE: none), chunks */
	uint32_t *back_q;
	uint16_t *back_chunks;
	double *back_t;      /* flow_unit chunk: when that room is back */
	waiter *wait;        /* [node][nq]: the heads that wait, oldest first;
			      * with transit_ratio two lists, heads passing
			      * through in the first nlq places, the node's
			      * injected ones after */
	uint16_t *nwait;     /* [node][2] their counts */
	uint16_t *nwant;     /* [node][tl]: of those heads, how many may take
			      * the link (none: its scan need not start) */
	uint16_t *nhere;     /* [node] of those, heads that have arrived */
	uint8_t *last_rcv;   /* [node] the drain port last served a reception */
	uint32_t *inj_rr;    /* [node] */
	uint64_t *ready;     /* [node][rw] bit k: injection FIFO k is empty and
			      * may have messages left (the MU's scan skips
			      * the others: a node may have hundreds) */
	int rw;
	uint16_t *last_port; /* [node][tl] the input port (round_robin 2: the
			      * queue) a link served last; interleave:
			      * [node][tl][nl] each lane's own (the lanes
			      * are BookSim2's output VCs, each with its
			      * own arbiter) */
	int ninjv;           /* inj_vcs: the node's injection queues */
	uint8_t *inj_vc;     /* [node] inj_vcs: the queue it filled last */
	packet *pk;
	uint32_t npk, cappk, freepk;
	/* the events: a bucket per instant, a list of events each (an
	 * event: node << 32 | q << 8 | kind); the buckets in a heap by time
	 * (hkey: time bits, hval: bucket) and a hash table by time (bucket
	 * + 1, 0: empty) */
	struct evnode {
		uint64_t v;
		uint32_t next;   /* the next in its list, or in the free list */
	} *ev;
	uint32_t nev, capev, freeev;
	struct bucket {
		uint64_t t;      /* its time's bits */
		uint32_t head, tail;
	} *bk;
	uint32_t nbk, capbk, freebk;
	uint64_t *hkey, *hval;
	size_t nheap, capheap;
	uint32_t *bhash;
	int hbits;
	uint32_t last_bk[EV_SWEND + 1]; /* by kind: the bucket its last event
			      * went to (an event's delay mostly depends on
			      * its kind, so the next is often at the same
			      * time), NONE */
	uint64_t *nowq;      /* events at the current instant (no bucket) */
	size_t nnow, inow, capnow;
	uint64_t delivered, total;
	pkt_flow *flows;
	uint32_t *order;     /* flows by source, then injection FIFO, in turn */
	uint64_t *start;     /* [node x ninj + 1] into order */
	pkt_result *r;
	double now;
	int nomem;
	int arb;             /* in an arbitration round (links may choose) */
	uint16_t *asks;      /* [node] ports that choose at the end of this
			      * instant: bit o link o, bit tl the node's
			      * drain port */
	uint32_t *asking, *choosing; /* nodes with asks, in any order; the
			      * round being worked through */
	size_t nasking;
	uint64_t *nrng;      /* [node] its seeded draws */
	double *since;       /* [node][nq] when the queue's head began to wait */
	double *out_at;      /* [node][nq] when the queue's input has sent its last */
	uint8_t *transit;    /* transit_ratio: [node][tl] packets the link has
			      * passed on since it last took an injected one */
} sim;

/* Test hook: nonzero shuffles the order in which events of one instant
 * leave the queue and nodes choose in a round (results must not change). */
int clab_packet_shuffle;

#define Q(S, x, i) (&(S)->q[(size_t)(x) * (S)->nq + (i)])
#define LQ(l, v) ((l) * S->nv + S->vbuf[v])
#define READY_SET(S, x, k) ((S)->ready[(size_t)(x) * (S)->rw + (k) / 64] |= 1ull << ((k) % 64))
#define READY_CLR(S, x, k) ((S)->ready[(size_t)(x) * (S)->rw + (k) / 64] &= ~(1ull << ((k) % 64)))
#define WRAPQ(l) ((uint32_t)(S->tl * S->nv + (l))) /* the dateline buffer of link l */

/* The link whose input buffer queue qi is. */
static int link_of(const struct sim *S, uint32_t qi)
{
	return S->qlink[qi];
}

/* The input port of queue qi: its link, or tl for the injection FIFOs. */
static int port_of(const struct sim *S, uint32_t qi)
{
	return qi < (uint32_t)S->nlq ? link_of(S, qi) : S->tl;
}

/* ---- events -------------------------------------------------------------- */

/* The events of one instant may be handled in any order (every choice
 * waits for the instant's end), so each instant's events are a list in a
 * bucket of its own, found by its time in a hash table, and only the
 * buckets, far fewer than the events, are kept in a heap by time. Events
 * of the current instant go to a list of their own. */

static uint64_t t_bits(double t)
{
	uint64_t b;
	t += 0.0; /* (-0 as +0) */
	memcpy(&b, &t, sizeof b);
	return b;
}

/* Times are >= 0, whose bits order as they do. */
static double ev_time(uint64_t key)
{
	double t;
	memcpy(&t, &key, sizeof t);
	return t;
}

static size_t t_slot(const sim *S, uint64_t b)
{
	return (size_t)((b * 0x9e3779b97f4a7c15ull) >> (64 - S->hbits));
}

/* The heap of buckets: their times and ids in two arrays (the
 * comparisons read only times); a key UINT64_MAX past the last
 * (hkey[nheap]), so a pop picks the earlier child without checking that
 * there are two. */
static int heap_push(sim *S, uint64_t key, uint64_t val)
{
	if (S->nheap + 1 >= S->capheap) {
		size_t cap = S->capheap ? 2 * S->capheap : 1024;
		uint64_t *k = realloc(S->hkey, cap * sizeof *k), *v = k ? realloc(S->hval, cap * sizeof *v) : NULL;
		if (k)
			S->hkey = k;
		if (!k || !v) {
			S->nomem = 1;
			return -1;
		}
		S->hval = v;
		S->capheap = cap;
	}
	uint64_t *hk = S->hkey, *hv = S->hval;
	size_t i = S->nheap++;
	hk[S->nheap] = UINT64_MAX;
	while (i && key < hk[(i - 1) / 2]) {
		hk[i] = hk[(i - 1) / 2];
		hv[i] = hv[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	hk[i] = key;
	hv[i] = val;
	return 0;
}

/* The last takes the first's place: the smaller children move up along
 * their path to its end, then back down from there to where the last
 * belongs (one comparison a level on the way down instead of two). */
static void heap_pop(sim *S)
{
	uint64_t *hk = S->hkey, *hv = S->hval;
	size_t i = 0, n = --S->nheap, c;
	uint64_t lk = hk[n], lv = hv[n];
	hk[n] = UINT64_MAX;
	while ((c = 2 * i + 1) < n) {
		c += hk[c + 1] < hk[c]; /* hkey[n] is never taken */
		hk[i] = hk[c];
		hv[i] = hv[c];
		i = c;
	}
	while (i && hk[(i - 1) / 2] >= lk) {
		hk[i] = hk[(i - 1) / 2];
		hv[i] = hv[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	if (n)
		hk[i] = lk, hv[i] = lv;
}

/* Twice the hash table, its live buckets (the heap's) entered again. */
static int hash_grow(sim *S)
{
	int bits = S->hbits ? S->hbits + 1 : 10;
	uint32_t *h = calloc((size_t)1 << bits, sizeof *h);
	if (!h) {
		S->nomem = 1;
		return -1;
	}
	free(S->bhash);
	S->bhash = h;
	S->hbits = bits;
	size_t mask = ((size_t)1 << bits) - 1;
	for (size_t k = 0; k < S->nheap; k++) {
		size_t i = t_slot(S, S->hkey[k]);
		while (h[i])
			i = (i + 1) & mask;
		h[i] = (uint32_t)S->hval[k] + 1;
	}
	return 0;
}

/* The bucket of instant t (a new one if it has none), or NONE. */
static uint32_t bucket_of(sim *S, double t)
{
	uint64_t b = t_bits(t);
	size_t mask = ((size_t)1 << S->hbits) - 1, i = t_slot(S, b);
	for (; S->bhash[i]; i = (i + 1) & mask)
		if (S->bk[S->bhash[i] - 1].t == b)
			return S->bhash[i] - 1;
	if (2 * (S->nheap + 1) > ((size_t)1 << S->hbits)) { /* a new instant: the table at most half full */
		if (hash_grow(S))
			return NONE;
		mask = ((size_t)1 << S->hbits) - 1;
		for (i = t_slot(S, b); S->bhash[i]; i = (i + 1) & mask)
			;
	}
	uint32_t id = S->freebk;
	if (id != NONE) {
		S->freebk = S->bk[id].head;
	} else {
		if (S->nbk == S->capbk) {
			uint32_t cap = S->capbk ? 2 * S->capbk : 1024;
			struct bucket *a = realloc(S->bk, cap * sizeof *a);
			if (!a) {
				S->nomem = 1;
				return NONE;
			}
			S->bk = a;
			S->capbk = cap;
		}
		id = S->nbk++;
	}
	if (heap_push(S, b, id))
		return NONE;
	S->bk[id] = (struct bucket){b, NONE, NONE};
	S->bhash[i] = id + 1;
	return id;
}

/* Bucket id is empty: out of the hash table (the entries after it in
 * its run move back where their probe allows), its id free again. */
static void bucket_drop(sim *S, uint32_t id)
{
	size_t mask = ((size_t)1 << S->hbits) - 1, i = t_slot(S, S->bk[id].t);
	while (S->bhash[i] != id + 1)
		i = (i + 1) & mask;
	for (size_t j = (i + 1) & mask; S->bhash[j]; j = (j + 1) & mask) {
		size_t home = t_slot(S, S->bk[S->bhash[j] - 1].t);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			S->bhash[i] = S->bhash[j];
			i = j;
		}
	}
	S->bhash[i] = 0;
	S->bk[id].t = UINT64_MAX; /* (no time: last_bk cannot name it) */
	S->bk[id].head = S->freebk;
	S->freebk = id;
}

static void ev_push(sim *S, int kind, uint32_t node, uint32_t q, double t)
{
	uint64_t val = (uint64_t)node << 32 | (uint64_t)(uint16_t)q << 8 | (uint8_t)kind;
	if (t == S->now && !clab_packet_shuffle) {
		if (S->nnow == S->capnow) {
			size_t cap = S->capnow ? 2 * S->capnow : 1024;
			uint64_t *a = realloc(S->nowq, cap * sizeof *a);
			if (!a) {
				S->nomem = 1;
				return;
			}
			S->nowq = a;
			S->capnow = cap;
		}
		S->nowq[S->nnow++] = val;
		return;
	}
	uint32_t e = S->freeev;
	if (e != NONE) {
		S->freeev = S->ev[e].next;
	} else {
		if (S->nev == S->capev) {
			uint32_t cap = S->capev ? 2 * S->capev : 4096;
			struct evnode *a = realloc(S->ev, cap * sizeof *a);
			if (!a) {
				S->nomem = 1;
				return;
			}
			S->ev = a;
			S->capev = cap;
		}
		e = S->nev++;
	}
	uint32_t b = S->last_bk[kind];
	if (b == NONE || S->bk[b].t != t_bits(t)) {
		if ((b = bucket_of(S, t)) == NONE)
			return;
		S->last_bk[kind] = b;
	}
	S->ev[e].v = val;
	if (clab_packet_shuffle && ((S->r->events * 31 + e) * 0x9e3779b97f4a7c15ull * (uint64_t)clab_packet_shuffle) >> 63) {
		S->ev[e].next = S->bk[b].head; /* first instead of last */
		if (S->bk[b].head == NONE)
			S->bk[b].tail = e;
		S->bk[b].head = e;
		return;
	}
	S->ev[e].next = NONE;
	if (S->bk[b].tail == NONE)
		S->bk[b].head = e;
	else
		S->ev[S->bk[b].tail].next = e;
	S->bk[b].tail = e;
}

/* The next event: of this instant's list, or of the earliest bucket. */
static ev ev_pop(sim *S)
{
	uint64_t v;
	if (S->inow < S->nnow) {
		v = S->nowq[S->inow++];
		if (S->inow == S->nnow)
			S->inow = S->nnow = 0;
	} else {
		uint32_t b = (uint32_t)S->hval[0], e = S->bk[b].head;
		v = S->ev[e].v;
		if ((S->bk[b].head = S->ev[e].next) == NONE) {
			heap_pop(S);
			bucket_drop(S, b);
		}
		S->ev[e].next = S->freeev;
		S->freeev = e;
	}
	return (ev){(uint32_t)(v >> 32), (uint16_t)(v >> 8), (uint8_t)v};
}

/* ---- packets and buffers ------------------------------------------------- */

static uint32_t pk_new(sim *S)
{
	if (S->freepk != NONE) {
		uint32_t i = S->freepk;
		S->freepk = S->pk[i].next;
		return i;
	}
	if (S->npk == S->cappk) {
		uint32_t cap = S->cappk ? 2 * S->cappk : 4096;
		packet *p = realloc(S->pk, (size_t)cap * sizeof *p);
		if (!p) {
			S->nomem = 1;
			return NONE;
		}
		S->pk = p;
		S->cappk = cap;
	}
	return S->npk++;
}

static void occ_touch(sim *S, queue *q)
{
	qocc *o = &S->occ[q - S->q];
	o->occ += q->npk * (S->now - o->since);
	o->since = S->now;
}

static void q_push(sim *S, queue *q, uint32_t i)
{
	S->pk[i].next = NONE;
	if (q->tail == NONE)
		q->head = i;
	else
		S->pk[q->tail].next = i;
	q->tail = i;
}

/* The waiting list of queue qi's heads (1: the node's injected packets,
 * with transit_ratio) and where list k of node x starts. */
static int wlist(const sim *S, uint32_t qi)
{
	return S->transit && qi >= (uint32_t)S->nlq;
}

static size_t wbase(const sim *S, uint32_t x, int k)
{
	return (size_t)x * S->nq + (size_t)(k ? S->nlq : 0);
}

static void wait_add(sim *S, uint32_t x, uint32_t qi, const waiter *h)
{
	queue *q = Q(S, x, qi);
	if (!q->waiting) {
		q->waiting = 1;
		S->nhere[x] += h->dor < 0;
		int k = wlist(S, qi);
		/* oldest first; heads that began to wait at the same instant
		 * by queue (input link and VC, then the injection queues) */
		size_t b = wbase(S, x, k), at = b + S->nwait[2 * (size_t)x + k]++;
		const double *since = S->since + (size_t)x * S->nq;
		for (; at > b && since[S->wait[at - 1].qi] == S->now && S->wait[at - 1].qi > qi; at--)
			S->wait[at] = S->wait[at - 1];
		S->since[(size_t)x * S->nq + qi] = S->now;
		S->wait[at] = *h;
		S->wait[at].qi = (uint16_t)qi;
		for (unsigned m = h->want; m; m &= m - 1)
			S->nwant[(size_t)x * S->tl + __builtin_ctz(m)]++;
	}
}

static void wait_del(sim *S, uint32_t x, uint32_t qi)
{
	queue *q = Q(S, x, qi);
	if (!q->waiting)
		return;
	q->waiting = 0;
	int k = wlist(S, qi);
	waiter *w = S->wait + wbase(S, x, k);
	int n = S->nwait[2 * (size_t)x + k]--, i = 0;
	while (w[i].qi != qi)
		i++;
	S->nhere[x] -= w[i].dor < 0;
	for (unsigned m = w[i].want; m; m &= m - 1)
		S->nwant[(size_t)x * S->tl + __builtin_ctz(m)]--;
	for (; i < n - 1; i++) /* (lists are short: no memmove call) */
		w[i] = w[i + 1];
}

/* ---- routing ------------------------------------------------------------- */

/* Node x's next seeded draw (each node its own stream: draws do not
 * depend on the order in which nodes choose). */
static uint64_t xorshift(sim *S, uint32_t x)
{
	uint64_t *r = &S->nrng[x];
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

static int delta(const sim *S, uint32_t x, const packet *p, int d)
{
	int off = S->coord[(size_t)p->dst * S->nd + d] - S->coord[(size_t)x * S->nd + d];
	return S->way[d][2 * off + ((p->tie >> d) & 1)];
}

/* The dimension-ordered next link, -1 at the destination (a packet that
 * never went dynamic has gone the dimensions before dori). */
static int dor_link(const sim *S, uint32_t x, packet *p)
{
	for (int i = p->dyn ? 0 : p->dori; i < S->nd; i++) {
		int d = S->t->order[i], k = delta(S, x, p, d);
		if (k) {
			if (!p->dyn)
				p->dori = (uint8_t)i;
			return 2 * d + (k > 0);
		}
	}
	return -1;
}

/* Whether p's way from x along link o's dimension wraps round the ring. */
static int wraps(const sim *S, uint32_t x, const packet *p, int o)
{
	int d = o / 2, c = S->coord[(size_t)x * S->nd + d], t = S->coord[(size_t)p->dst * S->nd + d];
	return o & 1 ? c > t : c < t;
}

/* The input buffer at the far end of link o that p would enter on VC v. */
static uint32_t next_queue(const sim *S, uint32_t x, const packet *p, int o, int v)
{
	if (!S->s->dateline || v == CLAB_VC_DYNAMIC)
		return LQ(o ^ 1, v);
	int w = p->indim == o / 2 && p->vc == v ? p->wraps : wraps(S, x, p, o);
	return w ? WRAPQ(o ^ 1) : (uint32_t)LQ(o ^ 1, v);
}

/* Head p's routes at router x (it has just become a head there): its
 * minimal links, and its dimension-ordered hop (fixed while it waits). */
static waiter routes(const sim *S, uint32_t x, packet *p)
{
	waiter h = {0, 0, 0, 0, p->chunks, (int8_t)dor_link(S, x, p), 0, p->dyn};
	if (h.dor < 0)
		return h;
	for (int d = 0; p->dyn && d < S->nd; d++) {
		int k = delta(S, x, p, d);
		if (k)
			h.want |= (uint16_t)(1u << (2 * d + (k > 0)));
	}
	if (!p->dyn)
		h.want = (uint16_t)(1u << h.dor);
	int o = h.dor, v = p->dyn ? CLAB_VC_ESCAPE : p->vc;
	h.dorv = (uint8_t)v;
	h.dorq = (uint16_t)next_queue(S, x, p, o, v);
	if (S->s->dateline) /* a packet's room, no bubble */
		h.need = (uint16_t)(S->s->flow_unit ? p->chunks : S->maxc);
	else /* a packet holds a largest packet's room on a deterministic
	      * VC (no room lost to odd sizes), and the bubble: entering a
	      * ring leaves room for one more */
		h.need = (uint16_t)(S->maxc * (p->vc == v && p->indim == o / 2 ? 1 : 2));
	return h;
}

/* The VC waiting head h at x may take on free link o now, or -1 (no
 * tokens); *dqi: the buffer at the far end it would enter (its callers
 * need it too). */
static int vc_for(const sim *S, uint32_t x, const waiter *h, int o, uint32_t *dqi)
{
	uint32_t y = S->nb[(size_t)x * S->tl + o];
	if (h->dyn && Q(S, y, *dqi = LQ(o ^ 1, CLAB_VC_DYNAMIC))->room >= h->chunks)
		return CLAB_VC_DYNAMIC;
	if (o != h->dor)
		return -1;
	*dqi = h->dorq;
	return Q(S, y, h->dorq)->room >= h->need ? h->dorv : -1;
}

static void nt_open(sim *S, uint32_t x, int o)
{
	double *s = &S->nt_since[(size_t)x * S->tl + o];
	if (*s < 0)
		*s = S->now;
}

static void nt_close(sim *S, uint32_t x, int o)
{
	double *s = &S->nt_since[(size_t)x * S->tl + o];
	if (*s >= 0) {
		S->r->notoken[(size_t)x * S->tl + o] += (S->now - *s) * S->s->net_hz;
		*s = -1;
	}
}

static void link_asks(sim *S, uint32_t x, int o);

/* Port o of node x (a link, or tl: its drain port) chooses at the end
 * of this instant, once however many ask. */
static void arb_later(sim *S, uint32_t x, int o)
{
	if (!S->asks[x])
		S->asking[S->nasking++] = x;
	S->asks[x] |= (uint16_t)(1u << o);
}

/* Gives back `chunks` of room of input buffer qi of node x; the feeding
 * link tries at once, or (in an arbitration round) by an event at this
 * time. */
static void room_give(sim *S, uint32_t x, uint32_t qi, int chunks)
{
	queue *q = Q(S, x, qi);
	occ_touch(S, q);
	q->npk--;
	q->room += chunks;
	int l = link_of(S, qi); /* the link it came in by */
	uint32_t up = S->nb[(size_t)x * S->tl + l];
	if (S->arb)
		ev_push(S, EV_LINK, up, (uint32_t)(l ^ 1), S->now);
	else
		link_asks(S, up, l ^ 1);
}

/* Gives back the room noted in slot b of node x. */
static void room_back(sim *S, uint32_t x, size_t b)
{
	uint32_t qi = S->back_q[b];
	S->back_q[b] = NONE;
	room_give(S, x, qi, S->back_chunks[b]);
}

static void try_head(sim *S, uint32_t x, uint32_t qi);

/* The head of queue qi of node x (unless it is still to cross) is ready
 * no sooner than `from`: it waits now, or its event comes (also now in an
 * arbitration round: the next round takes it). */
static void head_ready(sim *S, uint32_t x, uint32_t qi, double from)
{
	const queue *q = Q(S, x, qi);
	if (q->head == NONE || S->pk[q->head].t == HUGE_VAL)
		return;
	double ready = S->pk[q->head].t > from ? S->pk[q->head].t : from;
	if (ready == S->now && !S->arb)
		try_head(S, x, qi);
	else
		ev_push(S, EV_HEAD, x, qi, ready);
}

/* Packet i is in memory at `done`. */
static void delivered(sim *S, uint32_t i, double done)
{
	packet *p = &S->pk[i];
	if (done > S->r->time)
		S->r->time = done;
	if (S->r->done && done > S->r->done[p->flow])
		S->r->done[p->flow] = done;
	S->delivered++;
	p->next = S->freepk;
	S->freepk = i;
}

/* ---- interleave: crossings sharing a link, a lane each ------------------- */

/* The lane of a link whose far-end buffer is dqi: its VC's, or the
 * dateline buffer's own. */
static int lane_of(const sim *S, uint32_t dqi)
{
	return S->qlane[dqi];
}

static int lane_busy(const sim *S, uint32_t x, int o, uint32_t dqi)
{
	size_t l = ((size_t)x * S->tl + (size_t)o) * (size_t)S->nl + (size_t)lane_of(S, dqi);
	if (S->s->speedup) /* until the crossbar has moved its last packet */
		return S->lane_last[l] != NONE && !S->tx[S->lane_last[l]].switched;
	return S->lane_tx[l] != NONE;
}

static void tx_sched(sim *S, uint32_t x, int o);
static void tx_progress(sim *S, size_t xo);

/* speedup: crossing id's packet has its tail at this router by `tail`:
 * the crossbar has moved it whole at the later of that and its start
 * plus its link time / speedup; the link cannot send its tail before. */
static void sw_known(sim *S, uint32_t id, double tail)
{
	tx *t = &S->tx[id];
	double end = t->start + t->mv > tail ? t->start + t->mv : tail;
	t->floor = end;
	ev_push(S, EV_SWEND, id, t->gen, end);
	tx_progress(S, (size_t)t->x * S->tl + t->o);
	tx_sched(S, t->x, t->o);
}

/* speedup: crossing id has been moved whole: its lane may take the next
 * packet, its input may send again, its room there comes back. */
static void sw_end(sim *S, uint32_t id)
{
	tx *t = &S->tx[id];
	t->switched = 1;
	if (t->held) {
		room_give(S, t->x, t->qi, t->held);
		t->held = 0;
	}
	Q(S, t->x, t->qi)->busy = 0;
	head_ready(S, t->x, t->qi, S->now);
	link_asks(S, t->x, t->o);
}

/* Brings the work of link xo's crossings up to now: those still sending
 * had equal shares of the link since the last time (none of them can
 * have ended in between: an EV_TX comes at the first end). */
static void tx_progress(sim *S, size_t xo)
{
	double dt = S->now - S->lupd[xo];
	S->lupd[xo] = S->now;
	int n = S->nact[xo];
	if (dt <= 0 || !n)
		return;
	double eps = 1e-6 * S->s->chunk * S->link_spb;
	for (unsigned m = S->lanes[xo]; m; m &= m - 1) {
		uint32_t id = S->lane_tx[xo * (size_t)S->nl + (size_t)__builtin_ctz(m)];
		if (S->tx[id].work <= 0)
			continue;
		if ((S->tx[id].work -= dt / n) <= eps) {
			S->tx[id].work = 0;
			S->nact[xo]--;
		}
	}
}

/* An EV_TX at the first of link o's crossings to end or stop sending
 * (ones before it in the heap go stale: lsched no longer names them). */
static void tx_sched(sim *S, uint32_t x, int o)
{
	size_t xo = (size_t)x * S->tl + (size_t)o;
	double next = HUGE_VAL;
	for (unsigned m = S->lanes[xo]; m; m &= m - 1) {
		uint32_t id = S->lane_tx[xo * (size_t)S->nl + (size_t)__builtin_ctz(m)];
		const tx *t = &S->tx[id];
		double at = t->work > 0 ? S->now + t->work * S->nact[xo] : t->floor > S->now ? t->floor : S->now;
		if (at < next)
			next = at;
	}
	if (next < HUGE_VAL && next != S->lsched[xo]) {
		S->lsched[xo] = next;
		ev_push(S, EV_TX, x, (uint32_t)o, next);
	}
}

/* Crossing id has ended: its lane is free, its tail is at the next
 * router hop_s later (the packet's next crossing may end from then), its
 * room at the node it left comes back, and that input may send again. */
static void tx_done(sim *S, uint32_t id)
{
	tx *t = &S->tx[id];
	size_t xo = (size_t)t->x * S->tl + t->o, xl = xo * (size_t)S->nl + t->lane;
	if (S->s->speedup && !t->switched) /* its EV_SWEND is due at this same time */
		sw_end(S, id);
	S->lane_tx[xl] = NONE;
	S->lanes[xo] &= (uint8_t)~(1u << t->lane);
	packet *p = &S->pk[t->pk];
	if (S->s->speedup) { /* the next packet queued on the lane goes on */
		if (S->lane_last[xl] == id)
			S->lane_last[xl] = NONE;
		uint32_t nid = t->lnext;
		if (nid != NONE) {
			tx *n = &S->tx[nid];
			S->lane_tx[xl] = nid;
			S->lanes[xo] |= (uint8_t)(1u << t->lane);
			S->nact[xo]++;
			packet *np = &S->pk[n->pk];
			np->t = S->now + S->hop;
			uint32_t y = S->nb[xo];
			queue *dq = Q(S, y, n->dqi);
			if (dq->head == n->pk && !dq->busy)
				ev_push(S, EV_HEAD, y, n->dqi, np->t);
		}
	}
	if (t->next != NONE) {
		tx *n = &S->tx[t->next];
		if (S->s->speedup) {
			sw_known(S, t->next, S->now + S->hop);
		} else {
			n->floor = S->now + S->hop;
			tx_progress(S, (size_t)n->x * S->tl + n->o);
			tx_sched(S, n->x, n->o);
		}
	} else {
		p->tx = NONE;
		p->tail = S->now + S->hop;
		if (p->pend) /* written already: done when its tail is in */
			delivered(S, t->pk, p->t > p->tail ? p->t : p->tail);
	}
	if (!S->s->speedup) { /* (with speedup: when it was moved whole) */
		if (t->held)
			room_give(S, t->x, t->qi, t->held);
		Q(S, t->x, t->qi)->busy = 0;
		head_ready(S, t->x, t->qi, S->now);
	}
	t->next = S->freetx;
	S->freetx = id;
}

/* Link o of node x: crossings that have sent their work and whose tail
 * is in end; free lanes take waiting heads. */
static void tx_link(sim *S, uint32_t x, int o)
{
	size_t xo = (size_t)x * S->tl + (size_t)o;
	int ended = 0;
	tx_progress(S, xo);
	for (int l = 0; l < S->nl; l++) { /* (a crossing that ends starts the next on its own lane only) */
		unsigned m = S->lanes[xo] >> l;
		if (!m)
			break;
		l += __builtin_ctz(m);
		uint32_t id = S->lane_tx[xo * (size_t)S->nl + (size_t)l];
		if (S->tx[id].work <= 0 && S->tx[id].floor <= S->now) {
			tx_done(S, id);
			ended = 1;
		}
	}
	/* a lane is free (the link's share of its rate changes no choice;
	 * with speedup a lane is free once its crossing has been moved
	 * whole, which asks then) */
	if (ended && !S->s->speedup)
		link_asks(S, x, o);
	tx_sched(S, x, o);
}

/* Packet i starts across link o of node x into buffer dqi, having left
 * input queue qi (room `held` there). */
static void tx_start(sim *S, uint32_t x, int o, uint32_t dqi, uint32_t i, uint32_t qi, uint16_t held, double ser)
{
	uint32_t id = S->freetx;
	if (id != NONE) {
		S->freetx = S->tx[id].next;
	} else {
		if (S->ntx == S->captx) {
			uint32_t cap = S->captx ? 2 * S->captx : 1024;
			tx *a = realloc(S->tx, (size_t)cap * sizeof *a);
			if (!a) {
				S->nomem = 1;
				return;
			}
			S->tx = a;
			S->captx = cap;
		}
		id = S->ntx++;
	}
	packet *p = &S->pk[i];
	tx *t = &S->tx[id];
	size_t xo = (size_t)x * S->tl + (size_t)o;
	int k = (int)S->s->speedup;
	*t = (tx){ser, HUGE_VAL, i, NONE, x, qi, qi < (uint32_t)S->nlq ? held : 0, ++S->gen, (uint8_t)o,
		  (uint8_t)lane_of(S, dqi), S->now, k ? ser / k : 0, NONE, dqi, 0};
	int known = p->tx == NONE; /* its tail's arrival here (else: when the crossing before ends) */
	if (!known)
		S->tx[p->tx].next = id;
	p->tx = id;
	tx_progress(S, xo);
	size_t xl = xo * (size_t)S->nl + t->lane;
	if (k && S->lane_tx[xl] != NONE) { /* queued behind its lane's packets */
		S->tx[S->lane_last[xl]].lnext = id;
		S->pk[i].t = HUGE_VAL; /* its head is at the next router when it goes */
	} else {
		S->lane_tx[xl] = id;
		S->lanes[xo] |= (uint8_t)(1u << t->lane);
		S->nact[xo]++;
	}
	if (k)
		S->lane_last[xl] = id;
	if (qi < (uint32_t)S->nlq || S->ninjv) /* (an injection FIFO is refilled when its packet leaves) */
		Q(S, x, qi)->busy = 1;
	/* chunk by chunk: its room is free in time once its first chunk has
	 * left, a chunk time per crossing sharing the link (speedup: moved
	 * at speedup times the link's rate) */
	if (S->s->flow_unit && t->held)
		ev_push(S, EV_TXROOM, id, t->gen,
			S->now + S->s->chunk * S->link_spb * (k ? 1.0 / k : S->nact[xo]));
	if (known && k) {
		sw_known(S, id, p->tail); /* (which schedules the link) */
		return;
	}
	if (known)
		t->floor = p->tail;
	tx_sched(S, x, o);
}

/* A packet of `chunks` has left injection queue qi of node x: its FIFO
 * may read the next (inj_vcs: the queue has its room back). */
static void inj_left(sim *S, uint32_t x, uint32_t qi, int chunks)
{
	if (S->ninjv)
		Q(S, x, qi)->room += chunks;
	else
		READY_SET(S, x, qi - (uint32_t)S->nlq);
	if (S->node_free[x] <= S->now)
		ev_push(S, EV_NODE, x, 0, S->now);
}

/* Moves the head of queue qi of node x out: across link o on VC v into
 * buffer dqi at the far end, or into memory (o < 0). */
static void send(sim *S, uint32_t x, uint32_t qi, int o, int v, uint32_t dqi)
{
	queue *q = Q(S, x, qi);
	uint32_t i = q->head;
	packet *p = &S->pk[i];
	q->head = p->next;
	if (q->head == NONE)
		q->tail = NONE;
	wait_del(S, x, qi);
	uint16_t chunks = p->chunks, held = p->held;
	double wire = (double)chunks * S->s->chunk + S->s->extra_per_packet, ser;
	if (o < 0) { /* delivered: written to memory through the drain port */
		ser = wire * S->node_spb;
		double done = S->now + ser;
		if (S->rx_wire) {
			/* speedup, split ports: the crossbar moves it into the
			 * ejection port's queue at speedup links' worth, the
			 * port writes that queue in order */
			double start = S->rx_wire[x] > S->now ? S->rx_wire[x] : S->now;
			S->rx_wire[x] = done = start + ser;
			ser = wire * S->link_spb / S->s->speedup;
		}
		S->rx_free[x] = S->now + ser;
		S->last_rcv[x] = 1;
		ev_push(S, EV_NODE, x, 0, S->now + ser);
		if (p->tx != NONE) { /* its tail is still crossing */
			p->pend = 1;
			p->t = done;
		} else {
			delivered(S, i, done > p->tail ? done : p->tail);
		}
	} else {
		size_t xl = (size_t)x * S->tl + (size_t)o;
		ser = wire * S->link_spb;
		/* speedup: the crossbar moves it into the link's output
		 * queue in ser / speedup, the link sends it when those before
		 * it have gone */
		double start = S->now;
		if (S->s->speedup && !S->s->interleave) {
			start = S->wire_free[xl] > S->now ? S->wire_free[xl] : S->now;
			S->wire_free[xl] = start + ser;
			ser /= S->s->speedup;
		}
		if (!S->s->interleave) {
			S->link_free[xl] = S->now + ser;
			ev_push(S, EV_LINK, x, (uint32_t)o, S->now + ser);
		}
		nt_close(S, x, o);
		if (S->transit) { /* the sender arbiter's count */
			uint8_t *n = &S->transit[xl];
			*n = qi >= (uint32_t)S->nlq ? 0 : *n < UINT8_MAX ? *n + 1 : *n;
		}
		S->r->sent[xl * NV + (size_t)v].c += chunks;
		S->r->sent[xl * NV + (size_t)v].p += 1;
		uint32_t y = S->nb[xl];
		queue *dq = Q(S, y, dqi);
		p->wraps = (uint8_t)(dqi >= (uint32_t)(S->tl * S->nv));
		occ_touch(S, dq);
		dq->npk++;
		p->held = v == CLAB_VC_DYNAMIC || (S->s->dateline && S->s->flow_unit) ? chunks : (uint16_t)S->maxc;
		dq->room -= p->held;
		if (S->s->stay_on_bubble) /* (else: dynamic again at the next router) */
			p->dyn = p->dyn && v == CLAB_VC_DYNAMIC;
		p->vc = (uint8_t)v;
		p->indim = (uint8_t)(o / 2);
		p->t = start + S->hop;
		int first = dq->head == NONE;
		q_push(S, dq, i);
		if (S->s->interleave) /* its room, the next head: when it ends */
			tx_start(S, x, o, dqi, i, qi, held, ser);
		if (first && S->pk[i].t < HUGE_VAL) /* (no sooner than its input has sent the one before) */
			ev_push(S, EV_HEAD, y, dqi, S->pk[i].t > S->out_at[(size_t)y * S->nq + dqi] ? S->pk[i].t : S->out_at[(size_t)y * S->nq + dqi]);
		if (S->s->interleave) {
			if (qi >= (uint32_t)S->nlq)
				inj_left(S, x, qi, chunks);
			return;
		}
		p->tail = p->t + wire * S->link_spb;
	}
	/* its room comes back when its tail has left: when the link (or the
	 * drain port) it took is free again */
	size_t b = (size_t)x * (S->tl + 1) + (size_t)(o < 0 ? S->tl : o);
	if (S->back_q[b] != NONE) /* the port's previous packet, gone at this same time */
		room_back(S, x, b);
	if (qi < (uint32_t)S->nlq) {
		S->back_q[b] = qi;
		S->back_chunks[b] = held;
		if (S->s->flow_unit) {
			/* chunk by chunk: the room a packet of the feeding link
			 * needs, chunk after chunk, is free in time from when the
			 * first chunk has left (a slower port out: later, by what
			 * the feeding link gains on it over the held chunks) */
			double out = ser / chunks, in = S->s->chunk * S->link_spb;
			double back = held * (out - in) > out ? held * (out - in) : out;
			S->back_t[b] = S->now + back;
			ev_push(S, EV_ROOM, x, (uint32_t)(o < 0 ? S->tl : o), S->now + back);
		}
	} else {
		inj_left(S, x, qi, chunks);
	}
	S->out_at[(size_t)x * S->nq + qi] = S->now + ser; /* the input sends one packet at a time */
	head_ready(S, x, qi, S->now + ser);
}

/* Queue qi's head is ready at node x: it waits, and the ports it may
 * take that are free choose at the end of the instant. */
static void try_head(sim *S, uint32_t x, uint32_t qi)
{
	queue *q = Q(S, x, qi);
	if (q->head == NONE || q->busy)
		return;
	packet *p = &S->pk[q->head];
	if (S->s->interleave && p->t > S->now) /* not here yet: its own event comes */
		return;
	waiter h = routes(S, x, p);
	wait_add(S, x, qi, &h);
	if (h.dor < 0) {
		if (S->rx_free[x] <= S->now)
			arb_later(S, x, S->tl);
		return;
	}
	for (unsigned m = h.want; m; m &= m - 1)
		if (S->link_free[(size_t)x * S->tl + __builtin_ctz(m)] <= S->now)
			arb_later(S, x, __builtin_ctz(m));
}

/* The default router's choice at the end of an instant (links `asked`
 * of node x asked): the waiting heads, oldest first, each by the free
 * link it may take with most free tokens at the far end (ties by a
 * seeded draw). Only the links that asked: no head could take any other
 * free link when it last chose, and nothing has changed for it since (a
 * head that comes, room that comes back, the link coming free: each asks). */
static void heads_choose(sim *S, uint32_t x, unsigned asked)
{
	unsigned blocked = 0, freem = 0;
	for (unsigned m = asked; m; m &= m - 1)
		if (S->link_free[(size_t)x * S->tl + __builtin_ctz(m)] <= S->now)
			freem |= 1u << __builtin_ctz(m);
	const waiter *w = S->wait + wbase(S, x, 0);
	for (int i = 0; freem && i < S->nwait[2 * (size_t)x];) {
		if (!(w[i].want & freem)) { /* (heads at their destination want none) */
			i++;
			continue;
		}
		int best = -1, bestv = -1, bestroom = -1, ties = 0;
		uint32_t bestq = 0;
		for (unsigned m = w[i].want & freem; m; m &= m - 1) {
			int o = __builtin_ctz(m);
			uint32_t dqi;
			int v = vc_for(S, x, &w[i], o, &dqi);
			if (v < 0) {
				blocked |= 1u << o;
				continue;
			}
			if (S->s->interleave && lane_busy(S, x, o, dqi))
				continue;
			int room = Q(S, S->nb[(size_t)x * S->tl + o], dqi)->room;
			if (room > bestroom) {
				best = o, bestv = v, bestq = dqi, bestroom = room, ties = 1;
			} else if (room == bestroom) { /* a seeded draw among equals */
				if (xorshift(S, x) % (uint64_t)++ties == 0)
					best = o, bestv = v, bestq = dqi;
			}
		}
		if (best >= 0) {
			send(S, x, w[i].qi, best, bestv, bestq); /* (the next head takes its place) */
			if (S->link_free[(size_t)x * S->tl + best] > S->now)
				freem &= ~(1u << best);
		} else {
			i++;
		}
	}
	for (; asked; asked &= asked - 1) { /* links free with a head blocked for tokens */
		int o = __builtin_ctz(asked);
		if (S->link_free[(size_t)x * S->tl + o] <= S->now) {
			if ((blocked >> o) & 1)
				nt_open(S, x, o);
			else
				nt_close(S, x, o);
		}
	}
}

/* Link o of node x is free or got tokens (outside an arbitration
 * round): it chooses at the end of the instant, if a head waits for it
 * now (one that comes later in the instant asks for itself); with none,
 * its no-token time ends: with transit_ratio now, else at its choice (a
 * head that comes in the instant keeps that time running), which with no
 * head waiting does nothing else, so it need not come when that time is
 * not running. */
static void link_asks(sim *S, uint32_t x, int o)
{
	size_t xo = (size_t)x * S->tl + (size_t)o;
	if (S->link_free[xo] > S->now)
		return;
	if (S->nwant[xo] || (!S->transit && S->nt_since[xo] >= 0))
		arb_later(S, x, o);
	else
		nt_close(S, x, o);
}

/* Link o of node x chooses (in an arbitration round): of the waiting
 * heads that can take it, the oldest goes, or (round_robin) the oldest of
 * the next input port after the one it served last (the injection FIFOs
 * are one port). With transit_ratio k, packets passing through (from an
 * input buffer) go before the node's own (from an injection queue),
 * except that once the link has passed on k in a row an injected one
 * goes first. */
static void try_link(sim *S, uint32_t x, int o)
{
	size_t xo = (size_t)x * S->tl + (size_t)o;
	if (S->link_free[xo] > S->now)
		return;
	if (!S->nwant[xo]) { /* no head waits for it */
		nt_close(S, x, o);
		return;
	}
	int pick[2] = {-1, -1}, pickv[2] = {-1, -1}, after[2] = {S->nq, S->nq};
	uint32_t pickq[2] = {0, 0};
	size_t arb[2] = {xo, xo}; /* the arbiter whose turn it was: the link's, or its lane's */
	/* the far end's dynamic room, read once: vc_for's first question;
	 * with no room for the smallest dynamic packet nor a largest one on
	 * another VC, no head can go (a saturated link: skip the scan) */
	uint32_t y = S->nb[xo];
	int rd = Q(S, y, LQ(o ^ 1, CLAB_VC_DYNAMIC))->room, full = !S->s->dateline && rd < S->minc;
	for (int b = 0; full && b < S->nv; b++)
		full = S->bufvc[b] == CLAB_VC_DYNAMIC || Q(S, y, (o ^ 1) * S->nv + b)->room < S->maxc;
	int wanted = full; /* (a head waits for it) */
	/* with transit_ratio the class whose turn it is (1: the node's
	 * injected packets) is looked at first, oldest first, the other
	 * only if none of it can go (round_robin: each class's turn) */
	int turn = S->transit && S->transit[xo] >= S->s->transit_ratio;
	const waiter *wl[2] = {S->wait + wbase(S, x, 0), S->wait + wbase(S, x, 1)};
	for (int pass = 0; !full && pass < (S->transit ? 2 : 1) && (S->s->round_robin || pick[turn] < 0); pass++) {
		int c = turn ^ pass; /* (0 without transit_ratio: the one list) */
		const waiter *w = wl[c];
		for (int i = 0; i < S->nwait[2 * (size_t)x + c]; i++) {
			if (!((w[i].want >> o) & 1))
				continue;
			wanted = 1;
			uint32_t dqi = LQ(o ^ 1, CLAB_VC_DYNAMIC);
			int v = w[i].dyn && rd >= w[i].chunks ? CLAB_VC_DYNAMIC
				: o != w[i].dor ? -1 : vc_for(S, x, &w[i], o, &dqi);
			if (v < 0 || (S->s->interleave && lane_busy(S, x, o, dqi)))
				continue;
			if (!S->s->round_robin) {
				pick[c] = i, pickv[c] = v, pickq[c] = dqi;
				break;
			}
			size_t a = S->s->interleave ? xo * (size_t)S->nl + (size_t)lane_of(S, dqi) : xo;
			/* places after the last (modulo the ports, or queues, by a
			 * subtraction: both are below the modulus); with lanes,
			 * the fewest places after its own arbiter's last goes
			 * first (queues counted as the run has them) */
			int np = S->s->round_robin == 2 ? S->nq : S->tl + 1;
			int d = (S->s->round_robin == 2 ? w[i].qi : port_of(S, w[i].qi)) + np - 1 - S->last_port[a];
			if (d >= np)
				d -= np;
			if (d < after[c])
				pick[c] = i, pickv[c] = v, pickq[c] = dqi, after[c] = d, arb[c] = a;
		}
	}
	int c = pick[1] >= 0 && (pick[0] < 0 || turn);
	if (pick[c] >= 0) {
		uint16_t qi = wl[c][pick[c]].qi;
		S->last_port[arb[c]] = (uint16_t)(S->s->round_robin == 2 ? qi : port_of(S, qi));
		send(S, x, qi, o, pickv[c], pickq[c]);
		if (S->s->interleave) /* another lane may take another head */
			try_link(S, x, o);
		return;
	}
	if (wanted)
		nt_open(S, x, o);
	else
		nt_close(S, x, o);
}

/* Chunks of a packet of `payload` bytes. */
static uint16_t chunks_of(const clab_netspec *s, uint64_t payload)
{
	uint64_t size = (s->header + payload + s->chunk - 1) / s->chunk * s->chunk;
	if (size < s->min_packet)
		size = s->min_packet;
	return (uint16_t)(size / s->chunk);
}

/* Reads injection FIFO k's next packet from memory, if it has one. */
static int refill(sim *S, uint32_t x, int k)
{
	injq *j = &S->iq[(size_t)x * S->ninj + k];
	queue *q = Q(S, x, (uint32_t)(S->nlq + k));
	if (!S->ninjv && q->head != NONE)
		return 0;
	if (!j->pkts) { /* the next message, of this flow or the next */
		if (!j->msgs) {
			size_t xk = (size_t)x * (size_t)S->ninj + (size_t)k;
			uint64_t at = S->start[xk] + j->pos;
			if (at >= S->start[xk + 1]) {
				READY_CLR(S, x, k);
				return 0;
			}
			double t0 = S->flows[S->order[at]].at;
			if (t0 > S->now) { /* not yet: the FIFO waits for it */
				READY_CLR(S, x, k);
				ev_push(S, EV_RELEASE, x, (uint32_t)k, t0);
				return 0;
			}
			j->flow = S->order[at];
			j->msgs = S->flows[j->flow].nmsg;
			if (S->r->start)
				S->r->start[j->flow] = S->now;
			j->pos++;
		}
		uint64_t b = S->flows[j->flow].bytes, m = S->s->max_payload;
		j->pkts = b / m + (b % m || !b);
		j->msgs--;
	}
	const pkt_flow *f = &S->flows[j->flow];
	uint64_t b = f->bytes, m = S->s->max_payload;
	/* the last packet of a message carries the remainder */
	uint64_t payload = j->pkts == 1 && (b % m || !b) ? b % m : m;
	j->pkts--;
	uint32_t i = pk_new(S);
	if (i == NONE)
		return 0;
	uint16_t chunks = chunks_of(S->s, payload);
	uint32_t qi = (uint32_t)(S->nlq + k);
	if (S->ninjv) { /* the next injection queue with room after the last filled (one has) */
		int v = S->inj_vc[x];
		do
			v = (v + 1) % S->ninjv;
		while (Q(S, x, (uint32_t)(S->nlq + v))->room < chunks);
		S->inj_vc[x] = (uint8_t)v;
		qi = (uint32_t)(S->nlq + v);
		q = Q(S, x, qi);
		q->room -= chunks;
	} else {
		READY_CLR(S, x, k); /* until its packet has left */
	}
	packet *p = &S->pk[i];
	p->chunks = chunks;
	p->flow = j->flow;
	double ser = ((double)p->chunks * S->s->chunk + S->s->extra_per_packet) * S->node_spb;
	p->dst = f->dst;
	p->vc = (uint8_t)f->vc;
	p->dyn = f->vc == CLAB_VC_DYNAMIC;
	p->dori = 0;
	/* the way half round an even ring: the source's parity (all the
	 * flow's packets alike), or a draw per packet and dimension */
	p->tie = S->s->tie ? (uint8_t)xorshift(S, x) : S->odd[x] ? 0xff : 0;
	p->indim = 0xff;
	p->held = 0;
	p->pend = 0;
	p->tx = NONE;
	/* its head may leave when read whole, or (chunk by chunk) when its
	 * first chunk is */
	p->tail = S->now + ser;
	p->t = S->s->flow_unit ? S->now + ser / p->chunks : p->tail;
	int first = q->head == NONE;
	q_push(S, q, i);
	S->node_free[x] = S->now + ser;
	S->last_rcv[x] = 0;
	ev_push(S, EV_NODE, x, 0, S->now + ser);
	if (first && !q->busy)
		ev_push(S, EV_HEAD, x, qi, p->t);
	return 1;
}

/* The first ready injection FIFO of node x from its round-robin
 * pointer on, or -1. */
static int next_ready(const sim *S, uint32_t x)
{
	const uint64_t *w = S->ready + (size_t)x * (size_t)S->rw;
	int from = (int)S->inj_rr[x];
	for (int i = 0; i <= S->rw; i++) {
		int wi = (from / 64 + i) % S->rw;
		uint64_t bits = w[wi];
		if (i == 0)
			bits &= ~0ull << (from % 64);
		else if (i == S->rw) /* back to the pointer's word: the bits before it */
			bits &= (from % 64) ? ~(~0ull << (from % 64)) : 0;
		if (bits)
			return wi * 64 + __builtin_ctzll(bits);
	}
	return -1;
}

/* The drain port of node x is free: a reception and an injection take
 * turns; or (ports split) its ejection port, its injection port or both
 * are free, and each serves its side. */
static void node_free(sim *S, uint32_t x)
{
	int split = S->rx_free != S->node_free, rx = S->rx_free[x] <= S->now,
	    tx = S->node_free[x] <= S->now;
	if (!rx && !tx)
		return;
	for (int pass = 0; pass < 2; pass++) {
		int rcv = split ? pass == 0 : (pass == 0) == (S->last_rcv[x] == 0);
		if (split && !(rcv ? rx : tx))
			continue;
		if (rcv) {
			/* (a head at its destination came by a link: list 0) */
			const waiter *w = S->wait + wbase(S, x, 0);
			for (int i = 0; S->nhere[x] && i < S->nwait[2 * (size_t)x]; i++)
				if (w[i].dor < 0) {
					send(S, x, w[i].qi, -1, 0, 0);
					if (!split)
						return;
					break;
				}
		} else {
			int room = !S->ninjv; /* inj_vcs: a queue with room for a largest packet */
			for (int v = 0; v < S->ninjv && !room; v++)
				room = Q(S, x, (uint32_t)(S->nlq + v))->room >= S->maxc;
			for (int f; room && (f = next_ready(S, x)) >= 0;) {
				if (refill(S, x, f)) {
					S->inj_rr[x] = (uint32_t)(f + 1) % (uint32_t)S->ninj;
					return;
				}
			}
		}
	}
}

/* The last packet out by link o of node x (o = tl: the drain port) has
 * left its input buffer: its room goes back to the link that feeds it. */
static void give_back(sim *S, uint32_t x, int o)
{
	size_t b = (size_t)x * (S->tl + 1) + (size_t)o;
	if (S->back_q[b] != NONE &&
	    (o < S->tl ? S->link_free[(size_t)x * S->tl + o] : S->rx_free[x]) <= S->now)
		room_back(S, x, b);
}

/* The end of an instant: every port that asked chooses, node by node
 * (the nodes' choices are independent within the instant: a node's
 * sends take room only its own links read, and what they free comes
 * back by events), a node's links in order, then its drain port. */
static void choose(sim *S)
{
	size_t n = S->nasking;
	uint32_t *c = S->asking;
	S->asking = S->choosing;
	S->choosing = c;
	S->nasking = 0;
	S->arb = 1;
	unsigned links = (1u << S->tl) - 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t x = c[clab_packet_shuffle ? n - 1 - i : i];
		unsigned m = S->asks[x];
		S->asks[x] = 0;
		if ((m & links) && !S->s->round_robin && !S->transit)
			heads_choose(S, x, m & links);
		else
			for (unsigned l = m & links; l; l &= l - 1)
				try_link(S, x, __builtin_ctz(l));
		if ((m >> S->tl) & 1)
			node_free(S, x);
	}
	S->arb = 0;
}

/* A seed's mix (splitmix64's finaliser), never 0 (xorshift's stream). */
static uint64_t splitmix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 1;
}

/* ---- the run ------------------------------------------------------------- */

/* Each node's flows in the order its injection FIFOs take them, into
 * S->order, and where each node's FIFO starts in it, into S->start (as
 * counts, summed by the caller). A node's flows go in turns over its
 * destinations (the first flow to each, in the order the pattern sent
 * them, then the second, ...), so that its injection FIFOs work on
 * different destinations at once, as the MPI sends of its ranks would;
 * they are dealt round-robin: FIFO k takes the dealt flows k, k +
 * inj_fifos, ..., then the flows given lane k + 1 in the order given.
 * Counting sorts (no comparisons: a small phase's sort had been most of
 * its run). */
static int order_flows(sim *S, const pkt_flow *flows, size_t nflows, size_t N)
{
	uint32_t *bysrc = malloc(nflows * sizeof *bysrc + 1), *turn = malloc(nflows * sizeof *turn + 1);
	uint32_t *first = calloc(N + 1, sizeof *first), *cnt = calloc(N, sizeof *cnt);
	uint32_t *dealt = malloc(nflows * sizeof *dealt + 1), *tstart = calloc(nflows + 2, sizeof *tstart);
	uint32_t *lstart = malloc(((size_t)S->ninj + 2) * sizeof *lstart);
	if (!bysrc || !turn || !first || !cnt || !dealt || !tstart || !lstart) {
		free(bysrc), free(turn), free(first), free(cnt), free(dealt), free(tstart), free(lstart);
		return -1;
	}
	uint64_t F = S->s->inj_fifos, at = 0;
	for (size_t f = 0; f < nflows; f++)
		first[flows[f].src + 1]++;
	for (size_t x = 0; x < N; x++)
		first[x + 1] += first[x];
	for (size_t f = 0; f < nflows; f++) /* by source, each in the order sent */
		bysrc[first[flows[f].src] + cnt[flows[f].src]++] = (uint32_t)f;
	for (size_t x = 0; x < N; x++) {
		uint32_t b = first[x], e = first[x + 1], nd = 0, maxt = 0;
		for (uint32_t i = b; i < e; i++)
			cnt[flows[bysrc[i]].dst] = 0;
		for (uint32_t i = b; i < e; i++) { /* its turn: earlier flows to the same destination */
			const pkt_flow *fl = &flows[bysrc[i]];
			if (!fl->lane && (turn[i] = cnt[fl->dst]++) + 1 > maxt)
				maxt = turn[i] + 1;
		}
		/* the dealt flows by turn, then as sent */
		memset(tstart, 0, (maxt + 2) * sizeof *tstart);
		for (uint32_t i = b; i < e; i++)
			if (!flows[bysrc[i]].lane)
				tstart[turn[i] + 1]++, nd++;
		for (uint32_t k = 0; k < maxt; k++)
			tstart[k + 1] += tstart[k];
		for (uint32_t i = b; i < e; i++)
			if (!flows[bysrc[i]].lane)
				dealt[tstart[turn[i]]++] = bysrc[i];
		/* the flows with a lane by lane, then as sent (after the
		 * dealt ones in dealt[]) */
		memset(lstart, 0, ((size_t)S->ninj + 2) * sizeof *lstart);
		for (uint32_t i = b; i < e; i++)
			lstart[flows[bysrc[i]].lane + 1] += flows[bysrc[i]].lane > 0;
		for (int k = 0; k <= S->ninj; k++)
			lstart[k + 1] += lstart[k];
		for (uint32_t i = b, *put = dealt + nd; i < e; i++)
			if (flows[bysrc[i]].lane)
				put[lstart[flows[bysrc[i]].lane]++] = bysrc[i];
		/* FIFO k: dealt flows k, k + F, ..., then lane k + 1's */
		for (int k = 0; k < S->ninj; k++) {
			size_t xk = x * (size_t)S->ninj + (size_t)k;
			for (uint64_t d = (uint64_t)k; d < nd; d += F)
				S->order[at++] = dealt[d], S->start[xk + 1]++;
			/* lstart[k + 1] now ends lane k + 1's, lstart[k] ends lane k's */
			for (uint32_t i = lstart[k]; i < lstart[k + 1]; i++)
				S->order[at++] = dealt[nd + i], S->start[xk + 1]++;
		}
	}
	free(bysrc), free(turn), free(first), free(cnt), free(dealt), free(tstart), free(lstart);
	return 0;
}

static void sim_free(sim *S)
{
	free(S->coord);
	free(S->qlink);
	free(S->qlane);
	free(S->ways);
	free(S->nb);
	free(S->odd);
	free(S->q);
	free(S->occ);
	free(S->iq);
	free(S->link_free);
	free(S->nt_since);
	free(S->wire_free);
	free(S->lane_tx);
	free(S->lanes);
	free(S->lane_last);
	free(S->nact);
	free(S->lupd);
	free(S->lsched);
	free(S->tx);
	if (S->rx_free != S->node_free)
		free(S->rx_free);
	free(S->rx_wire);
	free(S->node_free);
	free(S->back_q);
	free(S->back_chunks);
	free(S->back_t);
	free(S->wait);
	free(S->nwant);
	free(S->nwait);
	free(S->nhere);
	free(S->last_rcv);
	free(S->inj_rr);
	free(S->ready);
	free(S->last_port);
	free(S->inj_vc);
	free(S->transit);
	free(S->asks);
	free(S->asking);
	free(S->choosing);
	free(S->nrng);
	free(S->since);
	free(S->out_at);
	free(S->pk);
	free(S->hkey);
	free(S->hval);
	free(S->ev);
	free(S->bk);
	free(S->bhash);
	free(S->nowq);
	free(S->order);
	free(S->start);
}

int clab_packet_run(const clab_torus *t, pkt_flow *flows, size_t nflows, uint64_t seed,
		    void (*progress)(void *, double), void *arg, pkt_result *r)
{
	const clab_netspec *s = t->spec;
	sim S0 = {0}, *S = &S0;
	size_t N = t->nodes;
	S->t = t;
	S->s = s;
	S->nd = t->ndims;
	S->tl = 2 * t->ndims;
	S->ninj = (int)s->inj_fifos;
	for (size_t f = 0; f < nflows; f++) /* a collective's own FIFOs */
		if (flows[f].lane > (uint32_t)S->ninj)
			S->ninj = (int)flows[f].lane;
	if (S->tl * (NV + 1) + S->ninj > UINT16_MAX)
		return clab_seterr(CLAB_E_INVAL, "packet engine: %d injection FIFOs per node is more than it keeps",
				   S->ninj);
	/* buffers for the VCs the flows take, in the VCs' order */
	unsigned used = 1u << CLAB_VC_DYNAMIC | 1u << CLAB_VC_ESCAPE;
	for (size_t f = 0; f < nflows; f++)
		used |= 1u << flows[f].vc;
	for (int v = 0; v < NV; v++)
		if ((used >> v) & 1) {
			S->bufvc[S->nv] = (uint8_t)v;
			S->vbuf[v] = (uint8_t)S->nv++;
		}
	S->nlq = S->tl * (S->nv + (s->dateline ? 1 : 0));
	S->nq = S->nlq + S->ninj;
	S->maxc = chunks_of(s, s->max_payload);
	S->minc = chunks_of(s, 0);
	S->link_spb = 1 / s->link_bytes_s;
	/* split ports: each side half the node's bandwidth */
	S->node_spb = (s->ports ? 2 : 1) / (s->drain_links * s->link_bytes_s);
	S->hop = s->hop_s;
	S->flows = flows;
	S->r = r;
	S->pk = NULL;
	S->freepk = NONE;
	S->freeev = S->freebk = NONE;
	for (int k = 0; k <= EV_SWEND; k++)
		S->last_bk[k] = NONE;
	S->coord = malloc(N * (size_t)S->nd * sizeof *S->coord);
	size_t nways = 0;
	for (int d = 0; d < S->nd; d++)
		nways += 2 * (2 * (size_t)t->size[d] - 1);
	S->ways = malloc(nways * sizeof *S->ways);
	S->nb = malloc(N * (size_t)S->tl * sizeof *S->nb);
	S->odd = malloc(N);
	S->q = malloc(N * (size_t)S->nq * sizeof *S->q);
	S->occ = calloc(N * (size_t)S->nq, sizeof *S->occ);
	S->iq = calloc(N * (size_t)S->ninj, sizeof *S->iq);
	S->link_free = calloc(N * (size_t)S->tl, sizeof *S->link_free);
	S->nt_since = malloc(N * (size_t)S->tl * sizeof *S->nt_since);
	S->wire_free = calloc(N * (size_t)S->tl, sizeof *S->wire_free);
	S->nl = S->nv + (s->dateline ? 1 : 0);
	S->qlink = malloc((size_t)S->nlq);
	S->qlane = malloc((size_t)S->nlq);
	for (int i = 0; S->qlink && S->qlane && i < S->nlq; i++) {
		int dl = i >= S->tl * S->nv; /* a dateline buffer */
		S->qlink[i] = (uint8_t)(dl ? i - S->tl * S->nv : i / S->nv);
		S->qlane[i] = (uint8_t)(dl ? S->nv : i % S->nv);
	}
	S->freetx = NONE;
	if (s->interleave) {
		S->lane_tx = malloc(N * (size_t)S->tl * (size_t)S->nl * sizeof *S->lane_tx);
		S->lane_last = malloc(N * (size_t)S->tl * (size_t)S->nl * sizeof *S->lane_last);
		S->nact = calloc(N * (size_t)S->tl, 1);
		S->lanes = calloc(N * (size_t)S->tl, 1);
		S->lupd = calloc(N * (size_t)S->tl, sizeof *S->lupd);
		S->lsched = malloc(N * (size_t)S->tl * sizeof *S->lsched);
		if (!S->lane_tx || !S->lane_last || !S->nact || !S->lanes || !S->lupd || !S->lsched) {
			sim_free(S);
			return clab_seterr(CLAB_E_NOMEM, "no memory for the packet engine on %zu nodes", N);
		}
		for (size_t i = 0; i < N * (size_t)S->tl; i++) {
			S->lsched[i] = HUGE_VAL;
			for (int l = 0; l < S->nl; l++)
				S->lane_tx[i * (size_t)S->nl + (size_t)l] = S->lane_last[i * (size_t)S->nl + (size_t)l] = NONE;
		}
	}
	S->node_free = calloc(N, sizeof *S->node_free);
	S->rx_free = s->ports ? calloc(N, sizeof *S->rx_free) : S->node_free;
	S->rx_wire = s->ports && s->speedup ? calloc(N, sizeof *S->rx_wire) : NULL;
	S->back_q = malloc(N * (size_t)(S->tl + 1) * sizeof *S->back_q);
	S->back_chunks = malloc(N * (size_t)(S->tl + 1) * sizeof *S->back_chunks);
	S->back_t = malloc(N * (size_t)(S->tl + 1) * sizeof *S->back_t);
	S->wait = malloc(N * (size_t)S->nq * sizeof *S->wait);
	S->nwant = calloc(N * (size_t)S->tl, sizeof *S->nwant);
	S->nwait = calloc(2 * N, sizeof *S->nwait);
	S->nhere = calloc(N, sizeof *S->nhere);
	S->last_rcv = calloc(N, 1);
	S->inj_rr = calloc(N, sizeof *S->inj_rr);
	S->rw = (S->ninj + 63) / 64;
	S->ready = malloc(N * (size_t)S->rw * sizeof *S->ready);
	S->last_port = calloc(N * (size_t)S->tl * (size_t)(s->interleave ? S->nl : 1), sizeof *S->last_port);
	S->ninjv = s->inj_vcs < (uint32_t)S->ninj ? (int)s->inj_vcs : S->ninj;
	S->inj_vc = calloc(N, 1);
	S->transit = s->transit_ratio ? calloc(N * (size_t)S->tl, 1) : NULL;
	S->asks = calloc(N, sizeof *S->asks);
	S->asking = malloc(N * sizeof *S->asking);
	S->choosing = malloc(N * sizeof *S->choosing);
	S->nrng = malloc(N * sizeof *S->nrng);
	S->since = malloc(N * (size_t)S->nq * sizeof *S->since);
	S->out_at = calloc(N * (size_t)S->nq, sizeof *S->out_at);
	S->order = malloc(nflows * sizeof *S->order + 1);
	S->start = calloc(N * (size_t)S->ninj + 1, sizeof *S->start);
	if (!S->coord || !S->ways || !S->qlink || !S->qlane || !S->nb || !S->odd || !S->q || !S->occ || !S->iq || !S->link_free || !S->nt_since || !S->wire_free ||
	    !S->node_free || !S->rx_free || (s->ports && s->speedup && !S->rx_wire) || !S->back_q || !S->back_chunks || !S->back_t || !S->wait || !S->nwant || !S->nwait || !S->nhere || !S->last_rcv || !S->inj_rr || !S->ready || !S->last_port || !S->inj_vc || (s->transit_ratio && !S->transit) || !S->asks || !S->asking || !S->choosing || !S->nrng || !S->since || !S->out_at || !S->order ||
	    !S->start || hash_grow(S) /* (the hash table's first size) */) {
		sim_free(S);
		return clab_seterr(CLAB_E_NOMEM, "no memory for the packet engine on %zu nodes", N);
	}
	/* a route's way along a dimension depends only on the offset there
	 * (the routing reads it for every head at every router) */
	for (int d = 0, at = 0; d < S->nd; at += 2 * (2 * t->size[d] - 1), d++) {
		int k = t->size[d];
		int16_t *w = S->ways + at + 2 * (k - 1);
		for (int off = 1 - k; off < k; off++)
			for (int tie = 0; tie < 2; tie++) /* (from a to a + off, any a) */
				w[2 * off + tie] = (int16_t)clab_torus_delta(t, d, off < 0 ? -off : 0, off < 0 ? 0 : off, tie);
		S->way[d] = w;
	}
	int32_t room = (int32_t)(s->fifo_packets * (uint32_t)S->maxc);
	for (size_t x = 0; x < N; x++) {
		int c[CLAB_TORUS_MAXD], sum = 0;
		clab_torus_coords(t, (uint32_t)x, c);
		for (int d = 0; d < S->nd; d++) {
			S->coord[x * (size_t)S->nd + d] = (uint16_t)c[d];
			sum += c[d];
		}
		S->odd[x] = (uint8_t)(sum & 1);
		S->nrng[x] = splitmix(seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull + x);
		for (int l = 0; l < S->tl; l++) {
			S->nb[x * (size_t)S->tl + l] = clab_torus_neighbor(t, (uint32_t)x, l);
			S->nt_since[x * (size_t)S->tl + l] = -1;
		}
		for (int i = 0; i < S->nq; i++)
			*Q(S, x, i) = (queue){NONE, NONE, 0, room, 0, 0};
		for (int l = 0; s->dyn_chunks && l < S->tl; l++)
			Q(S, x, LQ(l, CLAB_VC_DYNAMIC))->room = (int32_t)s->dyn_chunks;
		for (int k = 0; k < S->ninj; k++)
			S->iq[x * (size_t)S->ninj + k] = (injq){0, 0, 0, NONE};
		for (int w = 0; w < S->rw; w++) /* cleared as they turn out empty */
			S->ready[x * (size_t)S->rw + w] = ~0ull >> (w + 1 < S->rw || !(S->ninj % 64) ? 0 : 64 - S->ninj % 64);
	}
	for (size_t f = 0; f < nflows; f++) {
		uint64_t b = flows[f].bytes, m = s->max_payload;
		S->total += flows[f].nmsg * (b / m + (b % m || !b));
	}
	if (order_flows(S, flows, nflows, N)) {
		sim_free(S);
		return clab_seterr(CLAB_E_NOMEM, "no memory for the packet engine's %zu flows", nflows);
	}
	for (size_t i = 0; i < N * (size_t)S->ninj; i++)
		S->start[i + 1] += S->start[i];
	for (size_t x = 0; x < N; x++)
		if (S->start[(x + 1) * (size_t)S->ninj] > S->start[x * (size_t)S->ninj])
			ev_push(S, EV_NODE, (uint32_t)x, 0, 0);
	for (size_t i = 0; i < N * (size_t)(S->tl + 1); i++)
		S->back_q[i] = NONE;
	uint64_t next_report = 1u << 20;
	while ((S->nheap || S->nnow || S->nasking) && !S->nomem) {
		int later = !S->nnow && (!S->nheap || ev_time(S->hkey[0]) > S->now);
		if (S->nasking && later) {
			choose(S); /* every event of the instant is in */
			continue;
		}
		if (later && r->tick && ev_time(S->hkey[0]) > r->tick_at) { /* the caller looks at the run up to tick_at */
			double next = r->tick(r->tick_arg, r->tick_at);
			if (!(next > r->tick_at)) {
				r->stopped = 1;
				break;
			}
			r->tick_at = next;
			continue;
		}
		if (later)
			S->now = ev_time(S->hkey[0]);
		ev e = ev_pop(S);
		r->events++;
		switch (e.kind) {
		case EV_HEAD:
			try_head(S, e.node, e.q);
			break;
		case EV_LINK:
			give_back(S, e.node, e.q);
			link_asks(S, e.node, e.q);
			break;
		case EV_NODE:
			give_back(S, e.node, S->tl);
			arb_later(S, e.node, S->tl);
			break;
		case EV_TX: { /* unless a later change moved it */
			size_t xo = (size_t)e.node * S->tl + e.q;
			if (S->now == S->lsched[xo]) {
				S->lsched[xo] = HUGE_VAL;
				tx_link(S, e.node, e.q);
			}
			break;
		}
		case EV_SWEND: /* a crossing moved whole into its link's queue */
			if (S->tx[e.node].gen == e.q && !S->tx[e.node].switched)
				sw_end(S, e.node);
			break;
		case EV_TXROOM: /* a crossing's first chunk has left */
			if (S->tx[e.node].gen == e.q && S->tx[e.node].held) {
				room_give(S, S->tx[e.node].x, S->tx[e.node].qi, S->tx[e.node].held);
				S->tx[e.node].held = 0;
			}
			break;
		case EV_RELEASE: /* an injection FIFO's next flow may start */
			READY_SET(S, e.node, e.q);
			arb_later(S, e.node, S->tl);
			break;
		case EV_ROOM: { /* unless that packet's room came back already */
			size_t b = (size_t)e.node * (S->tl + 1) + e.q;
			if (S->back_q[b] != NONE && S->back_t[b] <= S->now)
				room_back(S, e.node, b);
			break;
		}
		}
		if (progress && r->events >= next_report) {
			next_report += 1u << 20;
			progress(arg, (double)S->delivered / (double)S->total);
		}
	}
	for (size_t x = 0; x < N; x++)
		for (int i = 0; i < S->nlq; i++) { /* a dateline buffer counts as its link's escape VC */
			queue *q = Q(S, x, i);
			occ_touch(S, q);
			int vc = i < S->tl * S->nv ? S->bufvc[i % S->nv] : CLAB_VC_ESCAPE;
			r->fifo[(x * (size_t)S->tl + (size_t)link_of(S, (uint32_t)i)) * NV + (size_t)vc] +=
				S->occ[q - S->q].occ * s->net_hz;
		}
	int rc = CLAB_OK;
	if (S->nomem)
		rc = clab_seterr(CLAB_E_NOMEM, "no memory for the packet engine's packets and events");
	else if (S->delivered != S->total && !r->stopped)
		rc = clab_seterr(CLAB_E_STATE, "packet engine: %llu of %llu packets undelivered (a deadlock)",
				 (unsigned long long)(S->total - S->delivered),
				 (unsigned long long)S->total);
	sim_free(S);
	return rc;
}
