/* The Blue Gene/L network unit: the torus events of its UPC unit, as
 * counterlab-netsim reads them off the torus model and as PAPI programs
 * read them (backend bgl-nw, machines/bgl.ini). BG/L counts on the sending
 * side only: per direction, packets and 32-byte chunks sent (all, and per
 * VC: D0 and D1 dynamic, BN the deterministic "bubble normal", BP
 * priority), the acks and token acks it returns, and the cycles a link was
 * free but had no token for the VCs it had data for.
 *
 * Model: the torus model keeps one dynamic VC, counted as D0 (D1 reads
 * zero); an ack returns per packet and a token per chunk received; every
 * no-token variant reads the link's no-token cycles (no token for any VC
 * the link had data for), except priority (BP) traffic, which the patterns
 * do not send. Counts are what the machine's torus model routes over this
 * process's node (clab_sim_traffic) plus a live MPI program's traffic
 * (libcounterlab-mpi). The UPC's 48 counters are shared by the node: the
 * running event sets of a node count at most 48 events together. The
 * hardware counters are 32 bits wide; the unit reads 64-bit counts, as a
 * library accumulating them on overflow interrupts would (approximation:
 * no wrap is modelled). */
#include <stdlib.h>
#include <string.h>
#include "../torus/machine_net.h"

#define D CLAB_VC_BIT(CLAB_VC_DYNAMIC)
#define BN CLAB_VC_BIT(CLAB_VC_ESCAPE)
#define BP CLAB_VC_BIT(CLAB_VC_PRIORITY)
#define ALL 0x7fu

#define DIRECTION(DIR, LINK)                                                              \
	{"BGL_UPC_TS_" DIR "_PKTS", DIR " packets sent", CLAB_NET_SENT_PACKETS, ALL, LINK, 1, NULL}, \
	{"BGL_UPC_TS_" DIR "_32B_CHUNKS", DIR " 32-byte chunks sent", CLAB_NET_SENT_CHUNKS, ALL, LINK, 1, NULL}, \
	{"BGL_UPC_TS_" DIR "_VCD0_CHUNKS", DIR " chunks sent on dynamic VC 0", CLAB_NET_SENT_CHUNKS, D, LINK, 0, NULL}, \
	{"BGL_UPC_TS_" DIR "_VCD1_CHUNKS", DIR " chunks sent on dynamic VC 1", CLAB_NET_SENT_CHUNKS, 0, LINK, 0, NULL}, \
	{"BGL_UPC_TS_" DIR "_VCBN_CHUNKS", DIR " chunks sent on the bubble normal (deterministic) VC", CLAB_NET_SENT_CHUNKS, BN, LINK, 0, NULL}, \
	{"BGL_UPC_TS_" DIR "_VCBP_CHUNKS", DIR " chunks sent on the bubble priority VC", CLAB_NET_SENT_CHUNKS, BP, LINK, 0, NULL}, \
	{"BGL_UPC_TS_" DIR "_ACKS", DIR " acks sent (one per packet received)", CLAB_NET_RECV_PACKETS, ALL, LINK, 0, "acks"}, \
	{"BGL_UPC_TS_" DIR "_TOKEN_ACKS", DIR " token acks sent (one per chunk received)", CLAB_NET_RECV_CHUNKS, ALL, LINK, 0, "token acks"}, \
	{"BGL_UPC_TS_" DIR "_LINK_AVAIL_NO_VCBN_TOKENS", DIR " cycles link free, no bubble normal token", CLAB_NET_NO_TOKEN, ALL, LINK, 0, NULL}, \
	{"BGL_UPC_TS_" DIR "_LINK_AVAIL_NO_VCBP_TOKENS", DIR " cycles link free, no bubble priority token", CLAB_NET_SENT_CHUNKS, 0, LINK, 0, "network cycles"}, \
	{"BGL_UPC_TS_" DIR "_LINK_AVAIL_NO_VCD0_VCD1_TOKENS", DIR " cycles link free, no dynamic VC token", CLAB_NET_NO_TOKEN, ALL, LINK, 0, NULL}, \
	{"BGL_UPC_TS_" DIR "_LINK_AVAIL_NO_VCD0_VCD_VCBN_TOKENS", DIR " cycles link free, no dynamic or bubble normal token", CLAB_NET_NO_TOKEN, ALL, LINK, 1, NULL}

/* Links as the torus model numbers them: 2d minus, 2d+1 plus. */
static const clab_netevent bgl_events[] = {
	DIRECTION("XM", 0), DIRECTION("XP", 1),
	DIRECTION("YM", 2), DIRECTION("YP", 3),
	DIRECTION("ZM", 4), DIRECTION("ZP", 5),
};

const clab_netevent *clab_bgl_netevents(int *n)
{
	*n = (int)(sizeof bgl_events / sizeof *bgl_events);
	return bgl_events;
}

/* ---- the unit ------------------------------------------------------------ */

#define BGL_CTRS 48
#define N_EV (int)(sizeof bgl_events / sizeof *bgl_events)

static clab_native natives[N_EV];
static pthread_once_t natives_once = PTHREAD_ONCE_INIT;

static void natives_build(void)
{
	for (int i = 0; i < N_EV; i++)
		natives[i] = (clab_native){
			.name = bgl_events[i].name,
			.descr = bgl_events[i].descr,
			.group = "UPC torus",
			.hw_id = (uint32_t)i,
			.ctr_mask = (1ull << BGL_CTRS) - 1,
			.scope = CLAB_SCOPE_NODE,
		};
}

typedef struct bgl_unit {
	clab_machine_net *net;
	pthread_mutex_t lock;
	int used;              /* counters held by acquired sets */
} bgl_unit;

typedef struct bgl_set {
	int n, acquired, running;
	int ev[BGL_CTRS];
	uint64_t base[BGL_CTRS], stopped[BGL_CTRS];
} bgl_set;

static void values(bgl_unit *u, const bgl_set *s, uint64_t *v)
{
	const clab_live_node *live = clab_live_block(u->net->tn.node);
	for (int i = 0; i < s->n; i++) { /* no lock (clab_machine_net_count) */
		const clab_netevent *e = &bgl_events[s->ev[i]];
		v[i] = clab_machine_net_count(u->net, live, e->link, e->what, e->vcmask);
	}
}

static int bgl_program(void *unit, int hw, const clab_evreq *reqs, int n, int flags,
		       void *replace, void **out)
{
	(void)unit, (void)hw, (void)flags;
	bgl_set *r = replace;
	if (n > BGL_CTRS)
		return clab_seterr(CLAB_E_CONFLICT, "%d events: the BG/L UPC unit has %d counters",
				   n, BGL_CTRS);
	if (r && r->acquired)
		return clab_seterr(CLAB_E_STATE, "cannot replan a set that holds counters");
	bgl_set *s = calloc(1, sizeof *s);
	if (!s)
		return CLAB_E_NOMEM;
	s->n = n;
	for (int i = 0; i < n; i++)
		s->ev[i] = (int)reqs[i].native;
	free(r);
	*out = s;
	return CLAB_OK;
}

static int bgl_acquire(void *unit, void *set, void *replace)
{
	bgl_unit *u = unit;
	bgl_set *s = set, *r = replace;
	if (s->acquired)
		return CLAB_OK;
	int rc = CLAB_OK;
	pthread_mutex_lock(&u->lock);
	int freed = r && r->acquired ? r->n : 0;
	if (u->used - freed + s->n > BGL_CTRS)
		rc = clab_seterr(CLAB_E_CONFLICT,
				 "%s: the node's running event sets hold %d of the UPC unit's %d counters",
				 s->n ? bgl_events[s->ev[0]].name : "this set", u->used, BGL_CTRS);
	else {
		if (freed)
			r->acquired = 0;
		u->used += s->n - freed;
		s->acquired = 1;
	}
	pthread_mutex_unlock(&u->lock);
	return rc;
}

static void bgl_release(void *unit, void *set)
{
	bgl_unit *u = unit;
	bgl_set *s = set;
	pthread_mutex_lock(&u->lock);
	if (s->acquired)
		u->used -= s->n;
	s->acquired = 0;
	pthread_mutex_unlock(&u->lock);
}

static void bgl_discard(void *unit, void *set)
{
	if (set)
		bgl_release(unit, set);
	free(set);
}

static int bgl_start(void *unit, void *set)
{
	bgl_set *s = set;
	if (!s->acquired)
		return clab_seterr(CLAB_E_STATE, "start: the set is not acquired");
	values(unit, s, s->base);
	memset(s->stopped, 0, sizeof s->stopped);
	s->running = 1;
	return CLAB_OK;
}

static int bgl_read(void *unit, void *set, uint64_t *v)
{
	bgl_set *s = set;
	if (!s->running) {
		memcpy(v, s->stopped, (size_t)s->n * sizeof *v);
		return CLAB_OK;
	}
	values(unit, s, v);
	for (int i = 0; i < s->n; i++)
		v[i] -= s->base[i];
	return CLAB_OK;
}

static int bgl_stop(void *unit, void *set)
{
	bgl_set *s = set;
	if (s->running) {
		bgl_read(unit, set, s->stopped);
		s->running = 0;
	}
	return CLAB_OK;
}

static int bgl_reset(void *unit, void *set)
{
	bgl_set *s = set;
	memset(s->stopped, 0, sizeof s->stopped);
	if (s->running)
		values(unit, s, s->base);
	return CLAB_OK;
}

static uint64_t bgl_counters(void *unit, void *set, int i)
{
	(void)unit, (void)set, (void)i;
	return (1ull << BGL_CTRS) - 1; /* any counter: the UPC's are all alike */
}

/* ---- the node's simulator: traffic over the torus (clab_sim_traffic) ----- */

typedef struct bgl_sim {
	clab_machine_net *net;
	uint64_t now[2];       /* cycles of each core at 700 MHz (atomic) */
} bgl_sim;

static int sim_advance(void *sim, int h, uint64_t cycles)
{
	bgl_sim *b = sim;
	__atomic_fetch_add(&b->now[h & 1], cycles, __ATOMIC_RELAXED);
	return CLAB_OK;
}

static int sim_work(void *sim, int h, uint64_t cycles, const char *const *events,
		    const uint64_t *counts, int n)
{
	(void)sim, (void)h, (void)cycles, (void)events, (void)counts, (void)n;
	return clab_seterr(CLAB_E_NOSUPP, "the BG/L machine simulates only its torus network: no explicit work");
}

static uint64_t sim_now(void *sim, int h)
{
	return __atomic_load_n(&((bgl_sim *)sim)->now[h & 1], __ATOMIC_RELAXED);
}

static int sim_activity(void *sim, int h, const char *profile)
{
	(void)sim, (void)h, (void)profile;
	return clab_seterr(CLAB_E_NOSUPP, "the BG/L machine has no activity profiles");
}

/* The thread waits the modelled time of the traffic. */
static int sim_traffic(void *sim, int h, const char *pattern, double *seconds)
{
	bgl_sim *b = sim;
	double s = 0;
	int rc = clab_machine_net_traffic(b->net, pattern, &s);
	if (!rc)
		sim_advance(sim, h, (uint64_t)(s * b->net->tn.spec.cpu_hz + 0.5));
	if (seconds)
		*seconds = s;
	return rc;
}

static const clab_sim_ops sim_ops = {
	.advance = sim_advance,
	.work = sim_work,
	.now = sim_now,
	.set_activity = sim_activity,
	.traffic = sim_traffic,
};

static void *sim_create(clab_machine *m, int *err)
{
	bgl_sim *b = calloc(1, sizeof *b);
	if (!b) {
		*err = CLAB_E_NOMEM;
		return NULL;
	}
	clab_machine_set_sim(m, &sim_ops, b); /* its net: set by the unit that made it */
	return b;
}

static int bgl_open(clab_machine *m, const char *section, void **unit, clab_unit_desc *d)
{
	(void)section;
	int rc;
	if (clab_machine_nhwthreads(m) > 2)
		return clab_seterr(CLAB_E_PROFILE, "machine %s: a BG/L node is topology = pack:1 core:2 pu:1",
				   clab_machine_name(m));
	bgl_unit *u = calloc(1, sizeof *u);
	if (!u)
		return CLAB_E_NOMEM;
	bgl_sim *sim;
	if (!(u->net = clab_machine_net_get(m, "bgl", &rc)) ||
	    !(sim = clab_machine_shared(m, "bgl-sim", sim_create, free, &rc))) {
		free(u);
		return rc;
	}
	sim->net = u->net;
	pthread_mutex_init(&u->lock, NULL);
	pthread_once(&natives_once, natives_build);
	*unit = u;
	*d = (clab_unit_desc){
		.description = "Blue Gene/L UPC torus events, simulated: 6 links, counts from the torus model",
		.rules = "Node-wide, sending side; the node's running event sets count at most 48 events together (the UPC unit's 48 counters). No overflow.",
		.ncounters = BGL_CTRS,
		.width = 64,
		.scope = CLAB_SCOPE_NODE,
		.overflow = CLAB_OVF_NONE,
		.clock_mhz = 700,
		.natives = natives,
		.nnative = N_EV,
	};
	return CLAB_OK;
}

static void bgl_forked(void *unit)
{
	bgl_unit *u = unit;
	pthread_mutex_init(&u->lock, NULL);
	clab_machine_net_forked(u->net);
}

static void bgl_close(void *unit)
{
	bgl_unit *u = unit;
	pthread_mutex_destroy(&u->lock);
	free(u);
}

const clab_unit_ops clab_bgl_nw_ops = {
	.name = "bgl-nw",
	.keys = clab_machine_net_keys,
	.open = bgl_open,
	.close = bgl_close,
	.program = bgl_program,
	.discard = bgl_discard,
	.acquire = bgl_acquire,
	.release = bgl_release,
	.start = bgl_start,
	.stop = bgl_stop,
	.read = bgl_read,
	.reset = bgl_reset,
	.counters = bgl_counters,
	.forked = bgl_forked,
};
