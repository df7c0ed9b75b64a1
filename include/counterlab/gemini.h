/* The Cray Gemini network (XE6/XK7): routers in a 3D torus, two nodes per
 * router, 48 router tiles per router with 6 counters each, and the NIC
 * counters monitoring tools read (docs/gemini.md).
 *
 * A clab_gemini sits on a torus of routers (clab_torus of the "gemini"
 * netspec: one torus position per router, ppn = ranks per router, the
 * first half of a router's slots on its node 0, the second half on node
 * 1). Messages are cut into PUT or GET packets, routed X, then Y, then Z,
 * and counted on the tiles they enter; a phase's end prices the tiles'
 * busy times and turns the waits into stall cycles. */
#ifndef COUNTERLAB_GEMINI_H
#define COUNTERLAB_GEMINI_H

#include <stdint.h>
#include "counterlab/torus.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLAB_GEMINI_ROWS 6
#define CLAB_GEMINI_COLS 8
#define CLAB_GEMINI_TILES 48
#define CLAB_GEMINI_NET_TILES 40
#define CLAB_GEMINI_WIDTH 48          /* bits of a tile counter */
#define CLAB_GEMINI_PHIT 3            /* bytes in a phit */
#define CLAB_GEMINI_HZ 800e6          /* router clock: stall cycles */

/* Directions of a router's tiles, in link order (a node's link index in
 * clab_torus numbering is 2d for minus and 2d+1 for plus; these are not). */
enum clab_gemini_dir { CLAB_GEM_XP, CLAB_GEM_XM, CLAB_GEM_YP, CLAB_GEM_YM,
		       CLAB_GEM_ZP, CLAB_GEM_ZM, CLAB_GEM_HOST, CLAB_GEM_NDIRS };
enum clab_gemini_link { CLAB_GEM_MEZZANINE, CLAB_GEM_BACKPLANE, CLAB_GEM_CABLE,
			CLAB_GEM_NIC, CLAB_GEM_NLINKTYPES };
/* The 6 counters of a tile: traffic entering it. */
enum clab_gemini_tctr { CLAB_GEM_VC0_PHITS, CLAB_GEM_VC1_PHITS, CLAB_GEM_VC0_PKTS,
			CLAB_GEM_VC1_PKTS, CLAB_GEM_INQ_STALL, CLAB_GEM_CREDIT_STALL,
			CLAB_GEM_TILE_CTRS };
/* The NIC counters kept (names as Cray's GPCD spells them:
 * clab_gemini_nic_name). NIC flits are 16 bytes, one header flit a packet. */
enum clab_gemini_nicctr {
	CLAB_GEM_ORB_VC0_FLITS, CLAB_GEM_ORB_VC0_PKTS,   /* requests sent */
	CLAB_GEM_ORB_VC1_FLITS, CLAB_GEM_ORB_VC1_PKTS,   /* responses received */
	CLAB_GEM_NPT_FLITS, CLAB_GEM_NPT_PKTS,           /* responses sent */
	CLAB_GEM_RAT_HEADER_FLITS_VC0, CLAB_GEM_RAT_DATA_FLITS_VC0,
	CLAB_GEM_RAT_TRANSLATIONS_VC0,                   /* requests received */
	CLAB_GEM_TARB_OUT_FLITS, CLAB_GEM_TARB_OUT_PKTS, /* requests issued: */
	CLAB_GEM_TARB_FMA_FLITS, CLAB_GEM_TARB_FMA_PKTS, /* by FMA (PUT) */
	CLAB_GEM_TARB_BTE_FLITS, CLAB_GEM_TARB_BTE_PKTS, /* by the BTE (GET) */
	CLAB_GEM_NIC_CTRS
};
const char *clab_gemini_nic_name(int k);
const char *clab_gemini_dir_name(int dir);     /* "X+", ..., "HOST" */
const char *clab_gemini_link_name(int type);   /* "mezzanine", ... */
/* Per-tile bandwidth of a link type, bytes/s, one direction. */
double clab_gemini_tile_bytes_s(int type);

/* Which direction and link type each tile serves. */
typedef struct clab_gemini_tilemap {
	uint8_t dir[CLAB_GEMINI_TILES];
	uint8_t type[CLAB_GEMINI_TILES];
	/* the link types of Y and Z follow each router's position (the
	 * built-in map; a dump's types are its router's, applied to all) */
	uint8_t by_position;
	char source[64];           /* "Cielo (published map)" or the file and gemini */
} clab_gemini_tilemap;

/* The published map of one Cielo router (the default). */
void clab_gemini_tilemap_cielo(clab_gemini_tilemap *m);
/* A map from `rtr --interconnect` text: lines
 *   c0-0c0s0g0l00[(0,0,0)] Z+ -> c0-0c0s1g0l32[(0,0,1)] LinkType: backplane
 * (the tile's cname ends in l<row><col>). The router `gemini` ("c0-0c0s0g0",
 * NULL: the first one the text names) must list each of its 40 network
 * tiles once; the 8 host tiles are fixed. `what` names the text in
 * errors. CLAB_E_MAP naming the line and what is wrong. */
int clab_gemini_tilemap_parse(clab_gemini_tilemap *m, const char *text, size_t len,
			      const char *what, const char *gemini);
int clab_gemini_tilemap_load(clab_gemini_tilemap *m, const char *path, const char *gemini);
/* Tiles of direction dir (up to 48) into out; returns how many. */
int clab_gemini_tiles_of(const clab_gemini_tilemap *m, int dir, uint8_t *out);
/* Bandwidth of a direction: the sum of its tiles', bytes/s. */
double clab_gemini_dir_bytes_s(const clab_gemini_tilemap *m, int dir);

/* ---- the network ---------------------------------------------------------- */

typedef struct clab_gemini clab_gemini;

/* t: a torus of the "gemini" netspec (routed X, Y, Z), map: ranks on its
 * routers; both must outlive g. */
clab_gemini *clab_gemini_new(const clab_torus *t, const clab_map *map,
			     const clab_gemini_tilemap *tm, int *err);
void clab_gemini_free(clab_gemini *g);

/* PUT: the sender pushes 64-byte packets (32 phits on VC0, a 3-phit ACK
 * back on VC1); GET: the receiver pulls them (8-phit requests, 27-phit
 * replies). MPI: as Cray MPICH sends a message, every message and control
 * message with a CLAB_GEM_MPI_HEADER-byte header: up to the netspec's
 * eager_max bytes eager (header and data pushed by PUT); up to
 * CLAB_GEM_MPI_PUT_MIN rendezvous by GET (the header pushed, the data
 * pulled, a header back when done); above, rendezvous by PUT (the header,
 * then the data pushed in chunks of CLAB_GEM_MPI_CHUNK bytes, each
 * followed by a header). docs/gemini.md. */
enum clab_gemini_proto { CLAB_GEM_MPI, CLAB_GEM_PUT, CLAB_GEM_GET };
#define CLAB_GEM_MPI_HEADER 64
#define CLAB_GEM_MPI_PUT_MIN (512u << 10)
#define CLAB_GEM_MPI_CHUNK (512u << 10)
/* count messages of `bytes` from rank src to rank dst. buf: the payload
 * (NULL: unknown, counted as incompressible; CLAB_GEM_ZERO_DATA: zero-filled,
 * any length), whose runs of zero or one bits are compressed on the wire.
 * Ranks of one node exchange through memory and touch no tile. */
extern const unsigned char clab_gemini_zero_data[];
#define CLAB_GEM_ZERO_DATA ((const void *)clab_gemini_zero_data)
int clab_gemini_message(clab_gemini *g, uint32_t src, uint32_t dst, uint64_t bytes,
			const void *buf, int proto, uint64_t count);
/* Ends the phase of messages in flight together: repeats it `times` times,
 * prices every router's tiles, adds the waits as stall cycles. *seconds:
 * the busiest direction's time (may be NULL). */
int clab_gemini_phase_end(clab_gemini *g, uint64_t times, double *seconds);

/* Payload phits of one packet carrying bytes p[0..n) (n <= 64; p NULL:
 * incompressible), and the whole packet's phits by kind. */
uint32_t clab_gemini_payload_phits(const uint8_t *p, uint32_t n);
enum clab_gemini_pkt { CLAB_GEM_PUT_REQ, CLAB_GEM_PUT_ACK, CLAB_GEM_GET_REQ, CLAB_GEM_GET_REPLY };
uint32_t clab_gemini_packet_phits(int kind, const uint8_t *p, uint32_t n);

/* Counters as the hardware shows them: a tile counter wraps at 2^48. */
uint64_t clab_gemini_tile(const clab_gemini *g, uint32_t router, int tile, int ctr);
/* All of router r's tile counters at once, tiles[t * 6 + c] (48-bit), and
 * node n's NIC counters into nic (may be NULL): what a sampler reads. */
void clab_gemini_router_read(const clab_gemini *g, uint32_t router, int node,
			     uint64_t tiles[CLAB_GEMINI_TILES * CLAB_GEM_TILE_CTRS], uint64_t *nic);
/* The n tile counters idx[i] = t * 6 + c of router r into out[i]. */
void clab_gemini_tiles_pick(const clab_gemini *g, uint32_t router, const uint16_t *idx, int n,
			    uint64_t *out);
/* Sets a tile counter (as writing its register does). */
void clab_gemini_tile_set(clab_gemini *g, uint32_t router, int tile, int ctr, uint64_t v);
uint64_t clab_gemini_nic(const clab_gemini *g, uint32_t router, int node, int k);
/* Link-level metrics of a direction as monitoring tools compute them from
 * tile counters (traffic bytes = 3 x phits, packets, stall cycles). */
/* clab_gemini_link's dir for the six network directions together */
#define CLAB_GEM_NET CLAB_GEM_NDIRS
enum clab_gemini_metric { CLAB_GEM_TRAFFIC, CLAB_GEM_PACKETS, CLAB_GEM_INQ_STALLS,
			  CLAB_GEM_CREDIT_STALLS, CLAB_GEM_NMETRICS };
uint64_t clab_gemini_link(const clab_gemini *g, uint32_t router, int dir, int metric);
/* The events tools show per router: the link metrics of every direction
 * (LINK_XP_TRAFFIC, _PACKETS, _INQ_STALL_NS, _CREDIT_STALL_NS; stall
 * cycles x 1.25 ns) and of all six network directions together
 * (LINK_NET_*, CLAB_GEM_NET), then the NIC counters (GM_ORB_PERF_VC0_FLITS, ...).
 * Index i < CLAB_GEM_NEVENTS: name (NULL past the end), *descr, and the
 * value on router r (NIC counters: node 0 or 1, or -1 for both). */
#define CLAB_GEM_LINK_EVENTS ((CLAB_GEM_NDIRS + 1) * CLAB_GEM_NMETRICS)
#define CLAB_GEM_NEVENTS (CLAB_GEM_LINK_EVENTS + CLAB_GEM_NIC_CTRS)
const char *clab_gemini_event(int i, const char **descr);
uint64_t clab_gemini_event_count(const clab_gemini *g, uint32_t router, int node, int i);
const clab_gemini_tilemap *clab_gemini_map(const clab_gemini *g);
/* The link type of router r's tile t: the map's, or for a map by position
 * (X cable; Y mezzanine between the two routers of a blade, y = 2k and
 * 2k + 1, cable otherwise; Z backplane within a chassis of 8, cable
 * between chassis and at the wrap). */
int clab_gemini_tile_type(const clab_gemini *g, uint32_t r, int t);
const clab_torus *clab_gemini_torus(const clab_gemini *g);
/* Router and node (0, 1) of rank r. */
void clab_gemini_place(const clab_gemini *g, uint32_t r, uint32_t *router, int *node);
/* The metric's counter deltas from a before image (tile counters, wrap-safe). */
uint64_t clab_gemini_delta(uint64_t now, uint64_t before);

/* Live MPI programs (libcounterlab-mpi): clab_live_message hands a
 * Gemini torus's messages to clab_gemini_live_message, which counts them
 * as the model would (CLAB_GEM_MPI's protocols; payload unknown:
 * uncompressed) into per-router blocks: word CLAB_GEM_LIVE_TILE_WORD(t, c)
 * for tile t's VC0 phits, VC1 phits, VC0 packets, VC1 packets (c 0-3),
 * CLAB_GEM_LIVE_NIC_WORD(node, k) for the NIC counters. A model whose
 * machine runs a live program is registered (one per process); its
 * counters then include those blocks. No stalls for live traffic. */
#define CLAB_GEM_LIVE_TILE_WORD(t, c) ((size_t)(t) * 4 + (size_t)(c))
#define CLAB_GEM_LIVE_NIC_WORD(n, k) \
	((size_t)CLAB_GEMINI_TILES * 4 + (size_t)(n) * CLAB_GEM_NIC_CTRS + (size_t)(k))
void clab_gemini_live_register(clab_gemini *g, int on);
int clab_gemini_live_message(const clab_torus *t, const clab_map *map, uint32_t src,
			     uint32_t dst, uint64_t bytes, const void *buf,
			     clab_live_add add, void *arg);

/* Every message of n's phases also goes to g (counterlab-netsim), with
 * payload `data` (NULL or CLAB_GEM_ZERO_DATA, as for clab_gemini_message). */
void clab_gemini_observe(clab_net *n, clab_gemini *g, const void *data);

/* The machine profile's Gemini network (shared by its units): the torus
 * ([machine] torus, ppn, map), the tile map ([network] tilemap, gemini),
 * this process's rank and router. NULL with an error when the machine
 * has no Gemini network unit. */
typedef struct clab_gemini_net {
	clab_torus_net tn;        /* first: clab_machine_torus gives it */
	clab_gemini_tilemap map;
	clab_gemini *g;
	clab_net *net;            /* timing and patterns for clab_sim_traffic */
	uint32_t router;
	int node;
} clab_gemini_net;
clab_gemini_net *clab_machine_gemini(clab_machine *m, int *err);

#ifdef __cplusplus
}
#endif
#endif
