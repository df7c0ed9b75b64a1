/* The Gemini network unit (`gemini-nw`): the 48 tiles x 6 counters of this
 * process's router, the per-direction link metrics monitoring tools derive
 * from them, and the NIC counters of this process's node.
 *
 * The counts come from the Gemini model (gemini.c) for the traffic of
 * clab_sim_traffic (the machine's patterns, routed and timed by the torus
 * model, every message also cut into Gemini packets) and for messages
 * given to the model directly (compat/gpcd, tests). Counters always count
 * and are shared, as on the real router: any number of sets may run, and
 * each reads the change since its start, wrap-safe for the 48-bit tile
 * counters. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "counterlab/gemini.h"

enum { Q_TILE, Q_ROW, Q_COL, NQ };
#define TILE_EVENTS CLAB_GEM_TILE_CTRS
#define LINK_EVENTS CLAB_GEM_LINK_EVENTS
#define NNATIVE (TILE_EVENTS + LINK_EVENTS + CLAB_GEM_NIC_CTRS)
#define SET_MAX 64
#define ROUTER_CTRS (CLAB_GEMINI_TILES * CLAB_GEM_TILE_CTRS)

static const clab_qual_info quals[NQ] = {
	[Q_TILE] = {"tile", "router tile 0-47 (row x 8 + column); without tile or row/col: all 48 tiles", 0, 47},
	[Q_ROW] = {"row", "tile row 0-5 (with col: one tile; alone: the row's 8 tiles)", 0, 5},
	[Q_COL] = {"col", "tile column 0-7 (with row: one tile; alone: the column's 6 tiles)", 0, 7},
};

/* ---- the machine's Gemini network ------------------------------------------- */

typedef struct gem_net {
	clab_gemini_net gn;       /* first: clab_machine_gemini and clab_machine_torus */
	pthread_mutex_t lock;     /* one traffic run at a time; reads take none */
	uint64_t cycles;          /* modelled time of its traffic, at the node clock
				   * (atomic) */
} gem_net;

static void net_destroy(void *p)
{
	gem_net *b = p;
	if (b->gn.g)
		clab_gemini_live_register(b->gn.g, 0);
	clab_net_free(b->gn.net);
	clab_gemini_free(b->gn.g);
	clab_map_free(&b->gn.tn.map);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static void *net_create(clab_machine *m, int *err)
{
	gem_net *b = calloc(1, sizeof *b);
	if (!b) {
		*err = CLAB_E_NOMEM;
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	clab_torus_net *tn = &b->gn.tn;
	/* Gemini routes statically: X fully, then Y, then Z */
	int rc = clab_torus_net_setup(tn, m, "gemini", "XYZ");
	const char *tilemap = clab_machine_setting(m, "network.tilemap");
	if (!rc && tilemap && *tilemap && strcmp(tilemap, "cielo")) {
		char *path = clab_machine_file(m, "tilemaps", tilemap, ".txt");
		rc = path ? clab_gemini_tilemap_load(&b->gn.map, path,
						      clab_machine_setting(m, "network.gemini"))
			  : CLAB_E_NOMEM;
		free(path);
	} else if (!rc) {
		clab_gemini_tilemap_cielo(&b->gn.map);
	}
	if (!rc)
		b->gn.g = clab_gemini_new(&tn->torus, &tn->map, &b->gn.map, &rc);
	if (!rc && (b->gn.net = clab_net_new(&tn->torus, &tn->map, &rc)) != NULL) {
		clab_gemini_observe(b->gn.net, b->gn.g, NULL);
		clab_gemini_live_register(b->gn.g, 1); /* libcounterlab-mpi's messages */
		clab_gemini_place(b->gn.g, tn->rank, &b->gn.router, &b->gn.node);
	}
	if (rc) {
		*err = clab_torus_net_error(m, rc, "Gemini");
		net_destroy(b);
		return NULL;
	}
	return b;
}

static void *no_gemini(clab_machine *m, int *err)
{
	*err = clab_seterr(CLAB_E_NOCOMP,
			   "machine %s has no Gemini network unit (a [network] section with backend gemini-nw)",
			   clab_machine_name(m));
	return NULL;
}

clab_gemini_net *clab_machine_gemini(clab_machine *m, int *err)
{
	/* the unit made it at open, under the key of the machine's torus */
	clab_gemini_net *gn = clab_machine_shared(m, "torus-net", no_gemini, NULL, err);
	if (gn && strcmp(gn->tn.spec.name, "gemini")) {
		*err = clab_seterr(CLAB_E_NOCOMP, "machine %s's torus network is %s's, not Gemini's",
				   clab_machine_name(m), gn->tn.spec.name);
		return NULL;
	}
	return gn;
}

/* ---- driving it: clab_sim_traffic ------------------------------------------ */

static int sim_advance(void *sim, int hw, uint64_t cycles)
{
	(void)hw;
	gem_net *b = sim;
	__atomic_fetch_add(&b->cycles, cycles, __ATOMIC_RELAXED);
	return CLAB_OK;
}

static int sim_work(void *sim, int hw, uint64_t cycles, const char *const *events,
		    const uint64_t *counts, int n)
{
	(void)sim, (void)hw, (void)cycles, (void)events, (void)counts, (void)n;
	return clab_seterr(CLAB_E_NOSUPP, "a Gemini machine simulates its network only (no processor events)");
}

static uint64_t sim_now(void *sim, int hw)
{
	(void)hw;
	gem_net *b = sim;
	return __atomic_load_n(&b->cycles, __ATOMIC_RELAXED);
}

static int sim_activity(void *sim, int hw, const char *profile)
{
	(void)sim, (void)hw, (void)profile;
	return clab_seterr(CLAB_E_NOSUPP, "a Gemini machine has no activity profiles");
}

static int sim_traffic(void *sim, int hw, const char *pattern, double *seconds)
{
	(void)hw;
	gem_net *b = sim;
	pthread_mutex_lock(&b->lock);
	double before = clab_net_time(b->gn.net);
	int rc = clab_net_pattern(b->gn.net, pattern);
	double s = clab_net_time(b->gn.net) - before;
	__atomic_fetch_add(&b->cycles, (uint64_t)(s * b->gn.tn.spec.cpu_hz), __ATOMIC_RELAXED);
	pthread_mutex_unlock(&b->lock);
	if (seconds)
		*seconds = s;
	return rc;
}

/* In a forked child: another thread of the parent may have held it. */
static void sim_forked(void *sim)
{
	gem_net *b = sim;
	pthread_mutex_init(&b->lock, NULL);
}

static const clab_sim_ops gem_sim = {
	.advance = sim_advance, .work = sim_work, .now = sim_now,
	.set_activity = sim_activity, .traffic = sim_traffic, .forked = sim_forked,
};

/* ---- the unit ------------------------------------------------------------------ */

static clab_native natives[NNATIVE];
static pthread_once_t natives_once = PTHREAD_ONCE_INIT;

static const char *const tile_names[TILE_EVENTS] = {
	"TILE_VC0_PHITS", "TILE_VC1_PHITS", "TILE_VC0_PKTS", "TILE_VC1_PKTS",
	"TILE_INQ_STALL", "TILE_CREDIT_STALL",
};
static const char *const tile_descr[TILE_EVENTS] = {
	"phits entering the tile on VC0 (requests)", "phits entering the tile on VC1 (responses)",
	"packets entering the tile on VC0 (requests)", "packets entering the tile on VC1 (responses)",
	"800 MHz cycles packets waited in the tile's input queue",
	"800 MHz cycles the tile's output waited for credits",
};

/* the tile counters, then the model's link metrics and NIC counters */
static void natives_build(void)
{
	for (int i = 0; i < TILE_EVENTS; i++)
		natives[i] = (clab_native){tile_names[i], tile_descr[i], "tile", (uint32_t)i,
					   0, CLAB_SCOPE_NODE, (1u << NQ) - 1};
	for (int i = 0; i < CLAB_GEM_NEVENTS; i++) {
		const char *descr, *name = clab_gemini_event(i, &descr);
		natives[TILE_EVENTS + i] = (clab_native){name, descr, i < LINK_EVENTS ? "link" : "nic",
							 (uint32_t)(TILE_EVENTS + i), 0, CLAB_SCOPE_NODE, 0};
	}
}

typedef struct gem_unit {
	gem_net *b;
} gem_unit;

typedef struct gem_set {
	int n;
	int ev[SET_MAX];
	uint64_t tiles[SET_MAX];  /* bit t: tile t is summed */
	uint64_t base[ROUTER_CTRS], base_nic[CLAB_GEM_NIC_CTRS];
	uint64_t stopped[SET_MAX];
	int running;
	int whole; /* some event needs all tiles or the NIC: read the router whole */
	uint16_t idx[SET_MAX]; /* otherwise: its one tile * 6 + ev[i] */
} gem_set;

/* The router's counters and the node's NIC counters, now. Reads take no
 * lock: the model only adds to these counters, at a phase's end, so a read
 * during traffic sees each before or after an add (each set's change since
 * its start never goes back). A read must not wait for the lock: a traffic
 * run allocates under it, and a signal handler that reads may have
 * interrupted malloc in the very thread the run waits for. */
static void snapshot(gem_net *b, uint64_t *tiles, uint64_t *nic)
{
	clab_gemini_net *gn = &b->gn;
	clab_gemini_router_read(gn->g, gn->router, gn->node, tiles, nic);
}

static uint64_t tile_delta(const gem_set *s, const uint64_t *now, int t, int c)
{
	int i = t * CLAB_GEM_TILE_CTRS + c;
	return clab_gemini_delta(now[i], s->base[i]);
}

static void values(gem_unit *u, gem_set *s, uint64_t *v)
{
	gem_net *b = u->b;
	if (!s->whole) { /* single tile counters: read those alone, as GPCD does */
		clab_gemini_tiles_pick(b->gn.g, b->gn.router, s->idx, s->n, v);
		for (int i = 0; i < s->n; i++)
			v[i] = clab_gemini_delta(v[i], s->base[s->idx[i]]);
		return;
	}
	uint64_t now[ROUTER_CTRS], nic[CLAB_GEM_NIC_CTRS];
	const clab_gemini_tilemap *tm = &b->gn.map;
	snapshot(b, now, nic);
	for (int i = 0; i < s->n; i++) {
		int e = s->ev[i];
		v[i] = 0;
		if (e < TILE_EVENTS) {
			for (uint64_t m = s->tiles[i]; m; m &= m - 1)
				v[i] += tile_delta(s, now, __builtin_ctzll(m), e);
		} else if (e < TILE_EVENTS + LINK_EVENTS) {
			int d = (e - TILE_EVENTS) / CLAB_GEM_NMETRICS, x = (e - TILE_EVENTS) % CLAB_GEM_NMETRICS;
			for (int t = 0; t < CLAB_GEMINI_TILES; t++) {
				if (d == CLAB_GEM_NET ? tm->dir[t] == CLAB_GEM_HOST : tm->dir[t] != d)
					continue;
				if (x == CLAB_GEM_TRAFFIC)
					v[i] += 3 * (tile_delta(s, now, t, CLAB_GEM_VC0_PHITS) +
						     tile_delta(s, now, t, CLAB_GEM_VC1_PHITS));
				else if (x == CLAB_GEM_PACKETS)
					v[i] += tile_delta(s, now, t, CLAB_GEM_VC0_PKTS) +
						tile_delta(s, now, t, CLAB_GEM_VC1_PKTS);
				else
					v[i] += tile_delta(s, now, t, x == CLAB_GEM_INQ_STALLS
							   ? CLAB_GEM_INQ_STALL : CLAB_GEM_CREDIT_STALL);
			}
			if (x >= CLAB_GEM_INQ_STALLS) /* 800 MHz cycles to ns */
				v[i] = v[i] * 5 / 4;
		} else {
			int k = e - TILE_EVENTS - LINK_EVENTS;
			v[i] = nic[k] - s->base_nic[k];
		}
	}
}

static int gem_open(clab_machine *m, const char *section, void **unit, clab_unit_desc *d)
{
	(void)section;
	pthread_once(&natives_once, natives_build);
	int rc;
	gem_net *b = clab_machine_shared(m, "torus-net", net_create, net_destroy, &rc);
	if (!b)
		return rc;
	if (strcmp(b->gn.tn.spec.name, "gemini"))
		return clab_seterr(CLAB_E_PROFILE, "machine %s: the gemini-nw unit cannot share the %s torus of another network unit",
				   clab_machine_name(m), b->gn.tn.spec.name);
	gem_unit *u = calloc(1, sizeof *u);
	if (!u)
		return CLAB_E_NOMEM;
	u->b = b;
	clab_machine_set_sim(m, &gem_sim, b);
	*unit = u;
	*d = (clab_unit_desc){
		.description = "Cray Gemini router (48 tiles x 6 counters, 48-bit), link metrics and NIC counters, simulated",
		.rules = "Counters always count and are shared: any number of sets, any events. Tile events take :tile=N or :row=R:col=C (one tile), :row=R or :col=C alone (the sum over that row's or column's tiles; without any: the sum over all 48 tiles); LINK_* events are derived from the tile counters of a direction (traffic = 3 x phits); GM_* are this node's NIC counters. Reads are changes since start, wrap-safe for the 48-bit tile counters. No overflow.",
		.ncounters = SET_MAX,
		.width = CLAB_GEMINI_WIDTH,
		.scope = CLAB_SCOPE_NODE,
		.overflow = CLAB_OVF_NONE,
		.clock_mhz = 800,
		.natives = natives,
		.nnative = NNATIVE,
		.quals = quals,
		.nquals = NQ,
	};
	return CLAB_OK;
}

static void gem_close(void *unit) { free(unit); }

static int gem_program(void *unit, int hw, const clab_evreq *reqs, int n, int flags,
		       void *replace, void **set)
{
	(void)unit, (void)hw, (void)flags;
	if (n > SET_MAX)
		return clab_seterr(CLAB_E_CONFLICT, "a Gemini event set holds at most %d events", SET_MAX);
	gem_set tmp = {.n = n};
	for (int i = 0; i < n; i++) {
		const clab_evreq *r = &reqs[i];
		int has_t = r->qual_set >> Q_TILE & 1, has_r = r->qual_set >> Q_ROW & 1,
		    has_c = r->qual_set >> Q_COL & 1;
		tmp.ev[i] = (int)r->native;
		if (has_t && (has_r || has_c))
			return clab_seterr(CLAB_E_QUALIFIER, "%s: give tile=N, or row and col, not both",
					   natives[r->native].name);
		/* the tiles summed: all; one; a row's, a column's, or both's one */
		uint64_t m = has_t ? 1ull << clab_evreq_qual(r, Q_TILE) : (1ull << CLAB_GEMINI_TILES) - 1;
		for (int t = 0; t < CLAB_GEMINI_TILES; t++)
			if ((has_r && t / CLAB_GEMINI_COLS != (int)clab_evreq_qual(r, Q_ROW)) ||
			    (has_c && t % CLAB_GEMINI_COLS != (int)clab_evreq_qual(r, Q_COL)))
				m &= ~(1ull << t);
		tmp.tiles[i] = m;
		tmp.whole |= tmp.ev[i] >= TILE_EVENTS || (m & (m - 1));
		tmp.idx[i] = (uint16_t)(tmp.whole ? 0 : __builtin_ctzll(m) * CLAB_GEM_TILE_CTRS + tmp.ev[i]);
	}
	gem_set *s = replace ? replace : malloc(sizeof *s);
	if (!s)
		return CLAB_E_NOMEM;
	*s = tmp;
	*set = s;
	return CLAB_OK;
}

static void gem_discard(void *unit, void *set) { (void)unit; free(set); }

static int gem_acquire(void *unit, void *set, void *replace)
{
	(void)unit, (void)set, (void)replace;
	return CLAB_OK; /* nothing to reserve */
}

static void gem_release(void *unit, void *set) { (void)unit, (void)set; }

static int gem_start(void *unit, void *set)
{
	gem_unit *u = unit;
	gem_set *s = set;
	snapshot(u->b, s->base, s->base_nic);
	memset(s->stopped, 0, sizeof s->stopped);
	s->running = 1;
	return CLAB_OK;
}

static int gem_stop(void *unit, void *set)
{
	gem_set *s = set;
	if (s->running)
		values(unit, s, s->stopped);
	s->running = 0;
	return CLAB_OK;
}

CLAB_HOT static int gem_read(void *unit, void *set, uint64_t *vals)
{
	gem_set *s = set;
	if (s->running)
		values(unit, s, vals);
	else
		memcpy(vals, s->stopped, (size_t)s->n * sizeof *vals);
	return CLAB_OK;
}

static int gem_reset(void *unit, void *set)
{
	gem_set *s = set;
	memset(s->stopped, 0, sizeof s->stopped);
	if (s->running)
		snapshot(((gem_unit *)unit)->b, s->base, s->base_nic);
	return CLAB_OK;
}

static uint64_t gem_counters(void *unit, void *set, int i)
{
	(void)unit, (void)set;
	return i >= 0 && i < SET_MAX ? 1ull << i : 0;
}

static const char *const gem_keys[] = {
	"rank", "tilemap", "gemini",
	"link_bytes_s", "hop_s", "latency_s", "o_send_s", "o_recv_s", "gap_s", "eager_max",
	"drain_links", "fifo_packets", "local_bytes_s", "peak_flops", "flop_eff",
	"mem_bytes_s", "mem_eff", NULL,
};

const clab_unit_ops clab_gemini_nw_ops = {
	.name = "gemini-nw",
	.keys = gem_keys,
	.open = gem_open,
	.close = gem_close,
	.program = gem_program,
	.discard = gem_discard,
	.acquire = gem_acquire,
	.release = gem_release,
	.start = gem_start,
	.stop = gem_stop,
	.read = gem_read,
	.reset = gem_reset,
	.peek = gem_read,
	.counters = gem_counters,
};
