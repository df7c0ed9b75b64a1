/* The Gemini network model (include/counterlab/gemini.h): packets, routes,
 * tile and NIC counters, stalls.
 *
 * A packet enters its first router through a host tile of the sending NIC
 * and every further router through the tile facing the router it came
 * from; each tile counts what enters it (the published Gemini counter
 * study). Within a direction a message's packets take its tiles in turn.
 * At a phase's end every router's inputs and outputs are priced at their tiles' bandwidth:
 * traffic that arrives faster than its output drains (an input's traffic
 * arrives no faster than the slowest NIC that injected it) waits in the
 * input queue (input-queue stalls of the input tiles) and, its buffers
 * full, holds up the tiles upstream (credit stalls there). A live MPI
 * program's messages are counted the same way into its shared blocks. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "counterlab/gemini.h"

#define SLOTS 8          /* a router's ports: 6 directions, NIC 0, NIC 1 */
#define NIC_SLOT(k) (CLAB_GEM_HOST + (k))
#define PHASE_CTRS 4     /* phits and packets per VC, counted per packet */
#define MAX_PAYLOAD 64   /* user bytes a packet carries */
#define FLIT 16          /* bytes in a NIC flit */
#define MASK48 ((1ull << CLAB_GEMINI_WIDTH) - 1)

/* Phits besides the payload: with a full 64-byte payload (22 phits) a PUT
 * request is 32 phits and a GET reply 27 (the published Gemini counter study). */
static const uint32_t head_phits[] = {
	[CLAB_GEM_PUT_REQ] = 10, [CLAB_GEM_PUT_ACK] = 3,
	[CLAB_GEM_GET_REQ] = 8, [CLAB_GEM_GET_REPLY] = 5,
};

static const char *const nic_names[CLAB_GEM_NIC_CTRS] = {
	"GM_ORB_PERF_VC0_FLITS", "GM_ORB_PERF_VC0_PKTS",
	"GM_ORB_PERF_VC1_FLITS", "GM_ORB_PERF_VC1_PKTS",
	"GM_NPT_PERF_NPT_FLIT_CNTR", "GM_NPT_PERF_NPT_PKT_CNTR",
	"GM_RAT_PERF_HEADER_FLITS_VC0", "GM_RAT_PERF_DATA_FLITS_VC0",
	"GM_RAT_PERF_TRANSLATIONS_VC0",
	"GM_TARB_PERF_OUT_FLITS", "GM_TARB_PERF_OUT_PKTS",
	"GM_TARB_PERF_FMA_FLITS", "GM_TARB_PERF_FMA_PKTS",
	"GM_TARB_PERF_BTE_FLITS", "GM_TARB_PERF_BTE_PKTS",
};

const char *clab_gemini_nic_name(int k)
{
	return k >= 0 && k < CLAB_GEM_NIC_CTRS ? nic_names[k] : NULL;
}

/* The packets of one kind of a message, for pricing at the phase's end. */
typedef struct stream {
	uint32_t rs, rd;
	uint8_t ns, nd;
	double bytes;
} stream;

_Static_assert(CLAB_GEM_LIVE_NIC_WORD(2, 0) <= CLAB_LIVE_ADDED,
	       "a Gemini router's live counters fit a live block's added words");

struct clab_gemini {
	const clab_torus *t;
	const clab_map *map;
	clab_gemini_tilemap tm;
	uint8_t tiles[SLOTS][CLAB_GEMINI_TILES]; /* the tiles of each port */
	int ntiles[SLOTS];
	double *bw;                /* [router][port] bytes/s, one direction */
	uint32_t routers;
	uint64_t *tile;            /* [router][tile][ctr] totals */
	uint64_t *ptile;           /* [router][tile][PHASE_CTRS] this phase */
	double *flow;              /* [router][in][out] bytes this phase */
	uint64_t *nic;             /* [router][node][ctr] totals */
	uint64_t *pnic;            /* [router][node][ctr] this phase */
	int live;                  /* a live MPI program's blocks add to the counters */
	double *pace;              /* [router][in] slowest source feeding it, s */
	stream *streams;           /* this phase's packet streams */
	size_t nstreams, capstreams;
	const void *obs_data;      /* payload of observed messages (netsim) */
};

#define TILE(g, r, t, c) ((g)->tile[((size_t)(r) * CLAB_GEMINI_TILES + (t)) * CLAB_GEM_TILE_CTRS + (c)])
#define PTILE(g, r, t, c) ((g)->ptile[((size_t)(r) * CLAB_GEMINI_TILES + (t)) * PHASE_CTRS + (c)])
#define FLOW(g, r, i, o) ((g)->flow[((size_t)(r) * SLOTS + (i)) * SLOTS + (o)])
#define BW(g, r, p) ((g)->bw[(size_t)(r) * SLOTS + (p)])
#define NIC(g, a, r, n, k) ((g)->a[((size_t)(r) * 2 + (n)) * CLAB_GEM_NIC_CTRS + (k)])

/* torus link 2d (minus) / 2d+1 (plus) <-> direction */
static int dir_of_link(int link) { return 2 * (link / 2) + !(link & 1); }
static int link_of_dir(int dir) { return 2 * (dir / 2) + !(dir & 1); }

clab_gemini *clab_gemini_new(const clab_torus *t, const clab_map *map,
			     const clab_gemini_tilemap *tm, int *err)
{
	if (t->ndims != 3) {
		*err = clab_seterr(CLAB_E_MAP, "a Gemini network is a 3D torus of routers, not %dD", t->ndims);
		return NULL;
	}
	clab_gemini *g = calloc(1, sizeof *g);
	size_t r = t->nodes;
	if (g) {
		g->tile = calloc(r * CLAB_GEMINI_TILES * CLAB_GEM_TILE_CTRS, sizeof *g->tile);
		g->ptile = calloc(r * CLAB_GEMINI_TILES * PHASE_CTRS, sizeof *g->ptile);
		g->flow = calloc(r * SLOTS * SLOTS, sizeof *g->flow);
		g->nic = calloc(r * 2 * CLAB_GEM_NIC_CTRS, sizeof *g->nic);
		g->pnic = calloc(r * 2 * CLAB_GEM_NIC_CTRS, sizeof *g->pnic);
		g->pace = calloc(r * SLOTS, sizeof *g->pace);
		g->bw = calloc(r * SLOTS, sizeof *g->bw);
	}
	if (!g || !g->tile || !g->ptile || !g->flow || !g->nic || !g->pnic || !g->pace || !g->bw) {
		clab_gemini_free(g);
		*err = clab_seterr(CLAB_E_NOMEM, "no memory for the counters of %zu Gemini routers", r);
		return NULL;
	}
	g->t = t;
	g->map = map;
	g->tm = *tm;
	g->routers = t->nodes;
	for (int d = 0; d < CLAB_GEM_HOST; d++)
		g->ntiles[d] = clab_gemini_tiles_of(tm, d, g->tiles[d]);
	/* the host tiles: the first four serve NIC 0, the others NIC 1 */
	uint8_t host[CLAB_GEMINI_TILES];
	int nh = clab_gemini_tiles_of(tm, CLAB_GEM_HOST, host);
	for (int i = 0; i < nh; i++) {
		int k = i < nh / 2 ? 0 : 1;
		g->tiles[NIC_SLOT(k)][g->ntiles[NIC_SLOT(k)]++] = host[i];
	}
	/* every router's ports at its own tiles' link types */
	for (uint32_t k = 0; k < g->routers; k++)
		for (int p = 0; p < SLOTS; p++)
			for (int j = 0; j < g->ntiles[p]; j++)
				g->bw[(size_t)k * SLOTS + p] +=
					clab_gemini_tile_bytes_s(clab_gemini_tile_type(g, k, g->tiles[p][j]));
	*err = CLAB_OK;
	return g;
}

void clab_gemini_free(clab_gemini *g)
{
	if (!g)
		return;
	free(g->tile);
	free(g->ptile);
	free(g->flow);
	free(g->nic);
	free(g->pnic);
	free(g->pace);
	free(g->bw);
	free(g->streams);
	free(g);
}

/* The link from position a to a + 1 of dimension d of n routers: X is
 * cable between cabinets; Y joins the two routers of a blade (2k, 2k + 1)
 * by the mezzanine and blades by cable; Z joins the 8 slots of a chassis
 * by the backplane and chassis by cable. The wrap is a cable. */
static int link_type(int d, int a, int n)
{
	if (a + 1 >= n || d == 0)
		return CLAB_GEM_CABLE;
	if (d == 1)
		return a % 2 ? CLAB_GEM_CABLE : CLAB_GEM_MEZZANINE;
	return a / 8 == (a + 1) / 8 ? CLAB_GEM_BACKPLANE : CLAB_GEM_CABLE;
}

int clab_gemini_tile_type(const clab_gemini *g, uint32_t r, int t)
{
	int dir = g->tm.dir[t];
	if (!g->tm.by_position || dir >= CLAB_GEM_HOST)
		return g->tm.type[t];
	int c[CLAB_TORUS_MAXD], d = dir / 2, n = g->t->size[d];
	clab_torus_coords(g->t, r, c);
	/* plus: the link to c + 1; minus: the one from c - 1 (the wrap at 0) */
	return link_type(d, dir % 2 ? (c[d] + n - 1) % n : c[d], n);
}

void clab_gemini_place(const clab_gemini *g, uint32_t r, uint32_t *router, int *node)
{
	*router = g->map->node[r];
	int ppn = g->t->ppn;
	*node = ppn < 2 ? 0 : g->map->slot[r] * 2 / ppn;
}

/* ---- packets ------------------------------------------------------------------ */

/* Compression (model; the published counts give only its effect): the payload
 * travels as 8-byte words behind a one-byte word mask; a word whose bits
 * are all 0 or all 1 travels as a 2-byte run code. A random 64-byte
 * payload takes 65 bytes (22 phits), an all-zero one 17 (6 phits): a
 * whole PUT request drops from 32 to 16 phits, half. */
uint32_t clab_gemini_payload_phits(const uint8_t *p, uint32_t n)
{
	if (!n)
		return 0;
	uint32_t bytes = 1;
	for (uint32_t w = 0; w < n; w += 8) {
		uint32_t len = n - w < 8 ? n - w : 8;
		int run = p != NULL;
		for (uint32_t i = 1; run && i < len; i++)
			run = p[w + i] == p[w];
		if (run && (p[w] == 0 || p[w] == 0xff))
			bytes += len < 2 ? len : 2;
		else
			bytes += len;
	}
	return (bytes + CLAB_GEMINI_PHIT - 1) / CLAB_GEMINI_PHIT;
}

uint32_t clab_gemini_packet_phits(int kind, const uint8_t *p, uint32_t n)
{
	uint32_t body = kind == CLAB_GEM_PUT_REQ || kind == CLAB_GEM_GET_REPLY
			? clab_gemini_payload_phits(p, n) : 0;
	return head_phits[kind] + body;
}

/* One kind of packet of a message on its way, for the route walk. */
/* Where a message's counts go: the model's phase (model_add) or a live
 * MPI program's per-router block (clab_live_add), by word of
 * CLAB_GEM_LIVE_TILE_WORD / CLAB_GEM_LIVE_NIC_WORD. */
typedef struct sink {
	clab_live_add add;
	void *arg;
} sink;

typedef struct walk {
	const clab_gemini *g;
	sink to;
	uint32_t at;       /* router the packets are in */
	int in;            /* the port they entered it by */
	int vc;
	uint64_t packets, phits;
	uint64_t turn;     /* which tile of a port the first packet takes */
} walk;

/* The packets enter router w->at by port w->in: its tiles count them,
 * dealt in turns. */
static void enter(walk *w)
{
	const clab_gemini *g = w->g;
	int k = g->ntiles[w->in];
	if (!k || !w->packets)
		return;
	uint64_t each = w->packets / k, rest = w->packets % k;
	uint64_t per = w->phits / w->packets, extra = w->phits % w->packets;
	for (int j = 0; j < k; j++) {
		uint64_t n = each + ((uint64_t)((j - (int)(w->turn % k) + k) % k) < rest);
		if (!n)
			continue;
		int t = g->tiles[w->in][j];
		/* equal packets but for `extra` phits, given to the first tiles */
		uint64_t ph = n * per + (extra ? (extra < n ? extra : n) : 0);
		extra -= extra < n ? extra : n;
		w->to.add(w->to.arg, w->at, CLAB_GEM_LIVE_TILE_WORD(t, w->vc), ph);
		w->to.add(w->to.arg, w->at, CLAB_GEM_LIVE_TILE_WORD(t, 2 + w->vc), n);
	}
}

static void hop(void *arg, uint32_t node, int link)
{
	walk *w = arg;
	w->at = clab_torus_neighbor(w->g->t, node, link);
	w->in = dir_of_link(link) ^ 1; /* by the tile facing where it came from */
	enter(w);
}

static void model_add(void *arg, uint32_t r, size_t word, uint64_t v)
{
	clab_gemini *g = arg;
	if (word < CLAB_GEM_LIVE_NIC_WORD(0, 0))
		g->ptile[(size_t)r * CLAB_GEMINI_TILES * PHASE_CTRS + word] += v;
	else
		g->pnic[(size_t)r * 2 * CLAB_GEM_NIC_CTRS + word - CLAB_GEM_LIVE_NIC_WORD(0, 0)] += v;
}

/* A stream of the model's phase, for its pricing. */
static int keep_stream(clab_gemini *g, uint32_t rs, int ns, uint32_t rd, int nd, uint64_t phits)
{
	if (g->nstreams == g->capstreams) {
		size_t cap = g->capstreams ? 2 * g->capstreams : 256;
		stream *n = realloc(g->streams, cap * sizeof *n);
		if (!n)
			return clab_seterr(CLAB_E_NOMEM, "no memory for a phase of %zu Gemini messages",
					   g->nstreams / 2);
		g->streams = n;
		g->capstreams = cap;
	}
	g->streams[g->nstreams++] = (stream){rs, rd, (uint8_t)ns, (uint8_t)nd,
					     (double)phits * CLAB_GEMINI_PHIT};
	return CLAB_OK;
}

/* packets of `phits` in all from (router rs, NIC ns) to (rd, nd) on vc,
 * counted on the tiles they enter */
static void send_packets(const clab_gemini *g, sink to, uint32_t rs, int ns, uint32_t rd,
			 int vc, uint64_t packets, uint64_t phits, uint64_t turn)
{
	walk w = {g, to, rs, NIC_SLOT(ns), vc, packets, phits, turn};
	enter(&w);
	clab_torus_route(g->t, rs, rd, 0, hop, &w);
}

static void nic_add(sink to, uint32_t r, int n, int k, uint64_t v)
{
	to.add(to.arg, r, CLAB_GEM_LIVE_NIC_WORD(n, k), v);
}

/* A packet's worth of zeros: the payload of CLAB_GEM_ZERO_DATA at any offset. */
const unsigned char clab_gemini_zero_data[MAX_PAYLOAD];

/* Payload phits of packet i of a transfer: `hdr` bytes of MPI header
 * (incompressible), then `bytes` of data from buf (NULL: incompressible). */
static uint32_t packet_payload(uint64_t i, uint32_t hdr, uint64_t bytes, const uint8_t *buf)
{
	uint64_t total = hdr + bytes, off = i * MAX_PAYLOAD;
	uint32_t n = (uint32_t)(total - off < MAX_PAYLOAD ? total - off : MAX_PAYLOAD);
	int zero = buf == CLAB_GEM_ZERO_DATA;
	if (!buf || off + n <= hdr)
		return clab_gemini_payload_phits(NULL, n);
	if (off >= hdr)
		return clab_gemini_payload_phits(zero ? buf : buf + off - hdr, n);
	uint8_t p[MAX_PAYLOAD]; /* header and data in one packet */
	memset(p, 0xa5, hdr - off);
	memcpy(p + (hdr - off), buf, n - (hdr - off));
	return clab_gemini_payload_phits(p, n);
}

/* One RDMA transfer of `hdr` header bytes and `bytes` of data from
 * (rs, ns) to (rd, nd), `count` times: its packets (PUT: pushed by the
 * source, GET: pulled by the destination) and the NICs' work into `to`;
 * the model's own phase also keeps its streams (g is then not const). */
static int transfer(const clab_gemini *g, sink to, uint32_t rs, int ns, uint32_t rd, int nd,
		    int put, uint32_t hdr, uint64_t bytes, const void *buf, uint64_t count)
{
	uint64_t total = hdr + bytes;
	/* payload phits of the packets, binned (a packet carries <= 64 bytes) */
	uint64_t npk = total ? (total + MAX_PAYLOAD - 1) / MAX_PAYLOAD : 1;
	uint64_t bin[32] = {0}, data_flits = (total + FLIT - 1) / FLIT;
	if (buf) {
		for (uint64_t i = 0; i < npk; i++)
			bin[packet_payload(i, hdr, bytes, buf)]++;
	} else {
		uint32_t last = (uint32_t)(total - (npk - 1) * MAX_PAYLOAD);
		bin[clab_gemini_payload_phits(NULL, MAX_PAYLOAD)] += npk - 1;
		bin[clab_gemini_payload_phits(NULL, last)]++;
	}
	int data_kind = put ? CLAB_GEM_PUT_REQ : CLAB_GEM_GET_REPLY;
	uint64_t data_phits = 0;
	for (uint32_t b = 0; b < 32; b++)
		data_phits += bin[b] * (head_phits[data_kind] + b);
	uint64_t turn = (uint64_t)rs * 7 + rd * 13;
	/* the data packets travel src -> dst (PUT requests on VC0, GET replies
	 * on VC1); the others dst -> src (ACKs on VC1, GET requests on VC0) */
	uint64_t back_phits = npk * count * head_phits[put ? CLAB_GEM_PUT_ACK : CLAB_GEM_GET_REQ];
	if (to.add == model_add) {
		clab_gemini *m = to.arg;
		int rc = keep_stream(m, rs, ns, rd, nd, data_phits * count);
		if (!rc)
			rc = keep_stream(m, rd, nd, rs, ns, back_phits);
		if (rc)
			return rc;
	}
	send_packets(g, to, rs, ns, rd, put ? 0 : 1, npk * count, data_phits * count, turn);
	send_packets(g, to, rd, nd, rs, put ? 1 : 0, npk * count, back_phits, turn);
	/* the NICs: the initiator's ORB and TARB, the target's RAT and NPT */
	uint32_t ri = put ? rs : rd, rt = put ? rd : rs;
	int ni = put ? ns : nd, nt = put ? nd : ns;
	uint64_t req_flits = npk + (put ? data_flits : 0), rsp_flits = npk + (put ? 0 : data_flits);
	nic_add(to, ri, ni, CLAB_GEM_ORB_VC0_FLITS, req_flits * count);
	nic_add(to, ri, ni, CLAB_GEM_ORB_VC0_PKTS, npk * count);
	nic_add(to, ri, ni, CLAB_GEM_ORB_VC1_FLITS, rsp_flits * count);
	nic_add(to, ri, ni, CLAB_GEM_ORB_VC1_PKTS, npk * count);
	nic_add(to, ri, ni, CLAB_GEM_TARB_OUT_FLITS, req_flits * count);
	nic_add(to, ri, ni, CLAB_GEM_TARB_OUT_PKTS, npk * count);
	nic_add(to, ri, ni, put ? CLAB_GEM_TARB_FMA_FLITS : CLAB_GEM_TARB_BTE_FLITS, req_flits * count);
	nic_add(to, ri, ni, put ? CLAB_GEM_TARB_FMA_PKTS : CLAB_GEM_TARB_BTE_PKTS, npk * count);
	nic_add(to, rt, nt, CLAB_GEM_RAT_HEADER_FLITS_VC0, npk * count);
	nic_add(to, rt, nt, CLAB_GEM_RAT_DATA_FLITS_VC0, (put ? data_flits : 0) * count);
	nic_add(to, rt, nt, CLAB_GEM_RAT_TRANSLATIONS_VC0, npk * count);
	nic_add(to, rt, nt, CLAB_GEM_NPT_FLITS, rsp_flits * count);
	nic_add(to, rt, nt, CLAB_GEM_NPT_PKTS, npk * count);
	return CLAB_OK;
}

/* A message's packets and NIC work into `to`: a bare PUT or GET, or
 * (CLAB_GEM_MPI) the transfers Cray MPICH makes of it (gemini.h). */
static int count_message(const clab_gemini *g, sink to, uint32_t src, uint32_t dst,
			 uint64_t bytes, const void *buf, int proto, uint64_t count)
{
	if (src >= g->map->nranks || dst >= g->map->nranks)
		return clab_seterr(CLAB_E_INVAL, "rank %u does not exist: the map places %u ranks",
				   src >= g->map->nranks ? src : dst, g->map->nranks);
	if (proto < CLAB_GEM_MPI || proto > CLAB_GEM_GET)
		return clab_seterr(CLAB_E_INVAL, "protocol %d: want CLAB_GEM_MPI, _PUT or _GET", proto);
	uint32_t rs, rd;
	int ns, nd;
	clab_gemini_place(g, src, &rs, &ns);
	clab_gemini_place(g, dst, &rd, &nd);
	if ((rs == rd && ns == nd) || !count)
		return CLAB_OK; /* one node: shared memory, no NIC */
	if (proto != CLAB_GEM_MPI)
		return transfer(g, to, rs, ns, rd, nd, proto == CLAB_GEM_PUT, 0, bytes, buf, count);
	const uint32_t h = CLAB_GEM_MPI_HEADER;
	if (bytes <= g->t->spec->eager_max) /* eager: the header and the data */
		return transfer(g, to, rs, ns, rd, nd, 1, h, bytes, buf, count);
	/* rendezvous: the sender's header (request to send) */
	int rc = transfer(g, to, rs, ns, rd, nd, 1, h, 0, NULL, count);
	if (rc)
		return rc;
	if (bytes <= CLAB_GEM_MPI_PUT_MIN) { /* pulled, then the receiver's header */
		rc = transfer(g, to, rs, ns, rd, nd, 0, 0, bytes, buf, count);
		return rc ? rc : transfer(g, to, rd, nd, rs, ns, 1, h, 0, NULL, count);
	}
	/* pushed in chunks, each followed by the sender's header */
	const uint8_t *p = buf;
	for (uint64_t off = 0; off < bytes && !rc; off += CLAB_GEM_MPI_CHUNK) {
		uint64_t n = bytes - off < CLAB_GEM_MPI_CHUNK ? bytes - off : CLAB_GEM_MPI_CHUNK;
		rc = transfer(g, to, rs, ns, rd, nd, 1, 0, n,
			      !p || p == CLAB_GEM_ZERO_DATA ? (const void *)p : p + off, count);
		if (!rc)
			rc = transfer(g, to, rs, ns, rd, nd, 1, h, 0, NULL, count);
	}
	return rc;
}

int clab_gemini_message(clab_gemini *g, uint32_t src, uint32_t dst, uint64_t bytes,
			const void *buf, int proto, uint64_t count)
{
	return count_message(g, (sink){model_add, g}, src, dst, bytes, buf, proto, count);
}

/* ---- live MPI programs -------------------------------------------------------- */

/* The machine's model, found by its torus (clab_live_message has only
 * that): one Gemini network per process is registered. */
static struct {
	pthread_mutex_t lock;
	const clab_torus *t;
	clab_gemini *g;
} live_model = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

void clab_gemini_live_register(clab_gemini *g, int on)
{
	pthread_mutex_lock(&live_model.lock);
	if (on) {
		live_model.t = g->t;
		live_model.g = g;
		g->live = 1;
	} else if (live_model.g == g) {
		live_model.t = NULL;
		live_model.g = NULL;
	}
	pthread_mutex_unlock(&live_model.lock);
}

int clab_gemini_live_message(const clab_torus *t, const clab_map *map, uint32_t src,
			     uint32_t dst, uint64_t bytes, const void *buf,
			     clab_live_add add, void *arg)
{
	pthread_mutex_lock(&live_model.lock);
	const clab_gemini *g = live_model.t == t ? live_model.g : NULL;
	pthread_mutex_unlock(&live_model.lock);
	if (!g || g->map != map)
		return clab_seterr(CLAB_E_NOSUPP, "no Gemini model is registered for this torus");
	return count_message(g, (sink){add, arg}, src, dst, bytes, buf, CLAB_GEM_MPI, 1);
}

/* ---- phases and stalls ------------------------------------------------------ */

/* cycles spread over a port's tiles (the first ones take the remainder) */
static void stall_add(clab_gemini *g, uint32_t r, int port, int ctr, uint64_t cycles)
{
	int k = g->ntiles[port];
	for (int j = 0; j < k; j++)
		TILE(g, r, g->tiles[port][j], ctr) += cycles / k + ((uint64_t)j < cycles % k);
}

/* A stream's bytes through the ports of the routers on its route. */
typedef struct flow_walk {
	clab_gemini *g;
	int in;
	double bytes, pace;
} flow_walk;

static void flow_port(flow_walk *w, uint32_t r, int out)
{
	clab_gemini *g = w->g;
	FLOW(g, r, w->in, out) += w->bytes;
	double *p = &g->pace[(size_t)r * SLOTS + w->in];
	if (*p < w->pace)
		*p = w->pace;
}

static void flow_hop(void *arg, uint32_t node, int link)
{
	flow_walk *w = arg;
	flow_port(w, node, dir_of_link(link));
	w->in = dir_of_link(link) ^ 1;
}

/* Every port's traffic of the phase, and for each input the pace of the
 * slowest NIC feeding it (traffic cannot arrive faster than its source
 * injected it). */
static void route_streams(clab_gemini *g)
{
	double *inj = calloc((size_t)g->routers * 2, sizeof *inj);
	for (size_t i = 0; inj && i < g->nstreams; i++)
		inj[g->streams[i].rs * 2 + g->streams[i].ns] += g->streams[i].bytes;
	for (size_t i = 0; i < g->nstreams; i++) {
		const stream *s = &g->streams[i];
		flow_walk w = {g, NIC_SLOT(s->ns), s->bytes,
			       inj ? inj[s->rs * 2 + s->ns] / BW(g, s->rs, NIC_SLOT(s->ns)) : 0};
		clab_torus_route(g->t, s->rs, s->rd, 0, flow_hop, &w);
		flow_port(&w, s->rd, NIC_SLOT(s->nd));
	}
	free(inj);
	g->nstreams = 0;
}

int clab_gemini_phase_end(clab_gemini *g, uint64_t times, double *seconds)
{
	double longest = 0;
	route_streams(g);
	for (uint32_t r = 0; r < g->routers; r++) {
		double in[SLOTS] = {0}, out[SLOTS] = {0};
		int any = 0;
		for (int i = 0; i < SLOTS; i++)
			for (int o = 0; o < SLOTS; o++) {
				double f = FLOW(g, r, i, o);
				in[i] += f;
				out[o] += f;
				any |= f > 0;
			}
		if (any)
			for (int i = 0; i < SLOTS; i++) {
				/* the input's traffic arrives over this long */
				double busy_in = fmax(in[i] / BW(g, r, i), g->pace[(size_t)r * SLOTS + i]);
				longest = fmax(longest, fmax(in[i] / BW(g, r, i), out[i] / BW(g, r, i)));
				for (int o = 0; o < SLOTS; o++) {
					double f = FLOW(g, r, i, o), busy_out = out[o] / BW(g, r, o);
					if (f <= 0 || busy_out <= busy_in)
						continue;
					/* this input's share of the output's backlog */
					double wait = (busy_out - busy_in) * f / out[o];
					uint64_t cyc = (uint64_t)llround(wait * CLAB_GEMINI_HZ) * times;
					stall_add(g, r, i, CLAB_GEM_INQ_STALL, cyc);
					if (i < CLAB_GEM_HOST) /* the tiles upstream wait for credits */
						stall_add(g, clab_torus_neighbor(g->t, r, link_of_dir(i)),
							  i ^ 1, CLAB_GEM_CREDIT_STALL, cyc);
				}
			}
		memset(&FLOW(g, r, 0, 0), 0, SLOTS * SLOTS * sizeof *g->flow);
		memset(&g->pace[(size_t)r * SLOTS], 0, SLOTS * sizeof *g->pace);
		for (int t = 0; t < CLAB_GEMINI_TILES; t++)
			for (int c = 0; c < PHASE_CTRS; c++) {
				TILE(g, r, t, c) += PTILE(g, r, t, c) * times;
				PTILE(g, r, t, c) = 0;
			}
		for (int n = 0; n < 2; n++)
			for (int k = 0; k < CLAB_GEM_NIC_CTRS; k++) {
				NIC(g, nic, r, n, k) += NIC(g, pnic, r, n, k) * times;
				NIC(g, pnic, r, n, k) = 0;
			}
	}
	if (seconds)
		*seconds = longest * (double)times;
	return CLAB_OK;
}

/* ---- reading ------------------------------------------------------------------ */

/* A live MPI program's counts of router r (NULL: none). */
static const uint64_t *live_words(const clab_gemini *g, uint32_t r)
{
	return g->live ? (const uint64_t *)clab_live_block(r) : NULL;
}

uint64_t clab_gemini_tile(const clab_gemini *g, uint32_t router, int tile, int ctr)
{
	uint16_t k = (uint16_t)(tile * CLAB_GEM_TILE_CTRS + ctr);
	uint64_t v;
	clab_gemini_tiles_pick(g, router, &k, 1, &v);
	return v;
}

void clab_gemini_router_read(const clab_gemini *g, uint32_t router, int node,
			     uint64_t tiles[CLAB_GEMINI_TILES * CLAB_GEM_TILE_CTRS], uint64_t *nic)
{
	const uint64_t *w = live_words(g, router);
	const uint64_t *restrict t = &TILE(g, router, 0, 0);
	uint64_t *restrict out = tiles;
	for (int i = 0; i < CLAB_GEMINI_TILES * CLAB_GEM_TILE_CTRS; i++)
		out[i] = t[i] & MASK48;
	for (int k = 0; w && k < CLAB_GEMINI_TILES; k++)
		for (int c = 0; c < PHASE_CTRS; c++) {
			uint64_t *v = &tiles[k * CLAB_GEM_TILE_CTRS + c];
			*v = (*v + w[CLAB_GEM_LIVE_TILE_WORD(k, c)]) & MASK48;
		}
	for (int k = 0; nic && k < CLAB_GEM_NIC_CTRS; k++)
		nic[k] = NIC(g, nic, router, node, k) + (w ? w[CLAB_GEM_LIVE_NIC_WORD(node, k)] : 0);
}

void clab_gemini_tiles_pick(const clab_gemini *g, uint32_t router, const uint16_t *idx, int n,
			    uint64_t *out)
{
	const uint64_t *w = live_words(g, router);
	const uint64_t *t = &TILE(g, router, 0, 0);
	for (int i = 0; i < n; i++) {
		int k = idx[i], c = k % CLAB_GEM_TILE_CTRS;
		uint64_t v = t[k];
		if (w && c < PHASE_CTRS)
			v += w[CLAB_GEM_LIVE_TILE_WORD(k / CLAB_GEM_TILE_CTRS, c)];
		out[i] = v & MASK48;
	}
}

void clab_gemini_tile_set(clab_gemini *g, uint32_t router, int tile, int ctr, uint64_t v)
{
	TILE(g, router, tile, ctr) = v & MASK48;
}

uint64_t clab_gemini_nic(const clab_gemini *g, uint32_t router, int node, int k)
{
	const uint64_t *w = live_words(g, router);
	return NIC(g, nic, router, node, k) + (w ? w[CLAB_GEM_LIVE_NIC_WORD(node, k)] : 0);
}

uint64_t clab_gemini_delta(uint64_t now, uint64_t before)
{
	return (now - before) & MASK48;
}

uint64_t clab_gemini_link(const clab_gemini *g, uint32_t router, int dir, int metric)
{
	static const int ctr[CLAB_GEM_NMETRICS][2] = {
		[CLAB_GEM_TRAFFIC] = {CLAB_GEM_VC0_PHITS, CLAB_GEM_VC1_PHITS},
		[CLAB_GEM_PACKETS] = {CLAB_GEM_VC0_PKTS, CLAB_GEM_VC1_PKTS},
		[CLAB_GEM_INQ_STALLS] = {CLAB_GEM_INQ_STALL, -1},
		[CLAB_GEM_CREDIT_STALLS] = {CLAB_GEM_CREDIT_STALL, -1},
	};
	uint64_t v = 0;
	for (int t = 0; t < CLAB_GEMINI_TILES; t++)
		if (dir == CLAB_GEM_NET ? g->tm.dir[t] < CLAB_GEM_HOST : g->tm.dir[t] == dir)
			for (int j = 0; j < 2; j++)
				if (ctr[metric][j] >= 0)
					v += clab_gemini_tile(g, router, t, ctr[metric][j]);
	return metric == CLAB_GEM_TRAFFIC ? v * CLAB_GEMINI_PHIT : v;
}

static char event_names[CLAB_GEM_LINK_EVENTS][40], event_descr[CLAB_GEM_NEVENTS][160];
static pthread_once_t events_once = PTHREAD_ONCE_INIT;

static void events_build(void)
{
	static const char *const dirs[CLAB_GEM_NDIRS + 1] = {"XP", "XM", "YP", "YM", "ZP", "ZM", "HOST", "NET"};
	static const char *const tags[CLAB_GEM_NMETRICS] = {
		"TRAFFIC", "PACKETS", "INQ_STALL_NS", "CREDIT_STALL_NS",
	};
	static const char *const what[CLAB_GEM_NMETRICS] = {
		"bytes entering the router by its %s tiles (3 x VC0+VC1 phits, derived)",
		"packets entering the router by its %s tiles (VC0+VC1, derived)",
		"input-queue stall time of its %s tiles, ns (800 MHz cycles x 1.25, derived)",
		"credit stall time of its %s tiles, ns (800 MHz cycles x 1.25, derived)",
	};
	for (int d = 0; d <= CLAB_GEM_NDIRS; d++)
		for (int x = 0; x < CLAB_GEM_NMETRICS; x++) {
			int i = d * CLAB_GEM_NMETRICS + x;
			snprintf(event_names[i], sizeof event_names[i], "LINK_%s_%s", dirs[d], tags[x]);
			snprintf(event_descr[i], sizeof event_descr[i], what[x],
				 d == CLAB_GEM_NET ? "network (X, Y, Z)" : clab_gemini_dir_name(d));
		}
	for (int k = 0; k < CLAB_GEM_NIC_CTRS; k++)
		snprintf(event_descr[CLAB_GEM_LINK_EVENTS + k], sizeof event_descr[0],
			 "the node's NIC: %s (16-byte flits, one header flit a packet)", nic_names[k]);
}

const char *clab_gemini_event(int i, const char **descr)
{
	if (i < 0 || i >= CLAB_GEM_NEVENTS)
		return NULL;
	pthread_once(&events_once, events_build);
	if (descr)
		*descr = event_descr[i];
	return i < CLAB_GEM_LINK_EVENTS ? event_names[i] : nic_names[i - CLAB_GEM_LINK_EVENTS];
}

uint64_t clab_gemini_event_count(const clab_gemini *g, uint32_t router, int node, int i)
{
	if (i < CLAB_GEM_LINK_EVENTS) {
		int x = i % CLAB_GEM_NMETRICS;
		uint64_t v = clab_gemini_link(g, router, i / CLAB_GEM_NMETRICS, x);
		return x >= CLAB_GEM_INQ_STALLS ? v * 5 / 4 : v;
	}
	int k = i - CLAB_GEM_LINK_EVENTS;
	return node >= 0 ? clab_gemini_nic(g, router, node, k)
		: clab_gemini_nic(g, router, 0, k) + clab_gemini_nic(g, router, 1, k);
}

const clab_gemini_tilemap *clab_gemini_map(const clab_gemini *g) { return &g->tm; }
const clab_torus *clab_gemini_torus(const clab_gemini *g) { return g->t; }

/* ---- counterlab-netsim's patterns ------------------------------------------- */

static void obs_message(void *arg, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t count)
{
	clab_gemini *g = arg;
	clab_gemini_message(g, src, dst, bytes, g->obs_data, CLAB_GEM_MPI, count);
}

static void obs_phase(void *arg, uint64_t times)
{
	clab_gemini_phase_end(arg, times, NULL);
}

void clab_gemini_observe(clab_net *n, clab_gemini *g, const void *data)
{
	g->obs_data = data;
	clab_net_observe(n, obs_message, obs_phase, g);
}
