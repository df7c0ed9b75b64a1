/* Live traffic: a live MPI program's messages, one at a time, on the same
 * routes and with the same packets as clab_net gives them (net.c's
 * add_flow and add_local), written into per-node counter blocks that the
 * live layer (libcounterlab-mpi) keeps; see torus.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "counterlab/torus.h"
#include "counterlab/gemini.h"

_Static_assert(CLAB_LIVE_LINKS * CLAB_NVC * 2 <= CLAB_LIVE_SIDE && CLAB_LIVE_SIDE % 8 == 0 &&
	       sizeof(clab_live_node) % 64 == 0, "a block's sides are whole cache lines");

static void *no_torus(clab_machine *m, int *err)
{
	*err = clab_seterr(CLAB_E_NOCOMP,
			   "machine %s has no torus network unit (a [network] section with backend bgq-nw or gemini-nw)",
			   clab_machine_name(m));
	return NULL;
}

const clab_torus_net *clab_machine_torus(clab_machine *m, int *err)
{
	/* the network unit made it at open, under this key */
	return clab_machine_shared(m, "torus-net", no_torus, NULL, err);
}

/* This process's rank: the MPI launcher's, else 0; checked as the
 * profile's rank= is, since it indexes the map. */
static int launcher_rank(clab_machine *m, uint32_t nranks, uint64_t *rank)
{
	const char *var = "OMPI_COMM_WORLD_RANK", *v = getenv(var);
	if (!v)
		v = getenv(var = "PMI_RANK");
	*rank = 0;
	if (!v)
		return CLAB_OK;
	uint64_t x;
	const char *end;
	if (!clab_read_u64(v, 0, &x, &end) || *end || x >= nranks)
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: $%s=%s is not a rank of the map (0..%u); give the profile's network.rank or fix the launcher's variable",
				   clab_machine_name(m), var, v, nranks - 1);
	*rank = x;
	return CLAB_OK;
}

int clab_torus_net_setup(clab_torus_net *tn, clab_machine *m, const char *machine,
			 const char *order)
{
	const clab_netspec *spec = clab_netspec_find(machine);
	uint64_t ppn, rank = 0;
	tn->spec = *spec;
	int rc = clab_machine_setting_u64(m, "ppn", (uint64_t)spec->ppn, 1,
					  (uint64_t)spec->max_ppn, &ppn);
	/* the profile's changes to the model's parameters */
	const char *name;
	for (int i = 0; !rc && (name = clab_netspec_param(spec, i, NULL, NULL)); i++) {
		char key[64];
		snprintf(key, sizeof key, "network.%s", name);
		const char *v = clab_machine_setting(m, key);
		if (v && clab_netspec_set(&tn->spec, name, v))
			rc = CLAB_E_PROFILE;  /* a malformed profile value */
	}
	if (!rc)
		rc = clab_torus_init(&tn->torus, &tn->spec, clab_machine_setting(m, "torus"),
				     (int)ppn, order);
	if (!rc)
		rc = clab_map_init(&tn->map, &tn->torus, clab_machine_setting(m, "map"));
	if (!rc && !clab_machine_setting(m, "network.rank"))
		rc = launcher_rank(m, tn->map.nranks, &rank);
	else if (!rc)
		rc = clab_machine_unit_u64(m, "network", "rank", 0, 0, tn->map.nranks - 1, &rank);
	if (!rc) {
		tn->rank = (uint32_t)rank;
		tn->node = tn->map.node[rank];
	}
	return rc;
}

int clab_torus_net_error(clab_machine *m, int rc, const char *network)
{
	/* name the machine once: setting errors already start with it */
	const char *why = clab_errmsg();
	if (strncmp(why, "machine ", 8) == 0)
		return clab_seterr(rc, "%s network of %s", network, why);
	return clab_seterr(rc, "machine %s, %s network: %s", clab_machine_name(m), network, why);
}

int clab_live_message(const clab_torus *t, const clab_map *map, uint32_t src,
		      uint32_t dst, uint64_t bytes, const void *buf, int vc, unsigned rot,
		      clab_live_add add, void *arg)
{
	if (src >= map->nranks || dst >= map->nranks)
		return clab_seterr(CLAB_E_INVAL, "rank %u does not exist: the map places %u ranks",
				   src >= map->nranks ? src : dst, map->nranks);
	if (vc < CLAB_VC_MPI || vc >= CLAB_NVC)
		return clab_seterr(CLAB_E_INVAL, "virtual channel %d does not exist", vc);
	if (!strcmp(t->spec->name, "gemini")) /* tiles and NICs, not links */
		return clab_gemini_live_message(t, map, src, dst, bytes, buf, add, arg);
	uint32_t s = map->node[src], r = map->node[dst];
	clab_packets pk = clab_netspec_packetize(t->spec, bytes);
	add(arg, s, CLAB_LIVE_MU_WORD(CLAB_LIVE_MU_PKT_INJ), pk.packets);
	add(arg, s, CLAB_LIVE_MU_WORD(CLAB_LIVE_MU_MSG_INJ), 1);
	/* rendezvous data lands as direct puts, eager messages in a FIFO */
	int rcv = bytes > t->spec->eager_max ? CLAB_LIVE_MU_PUT_RCV : CLAB_LIVE_MU_FIFO_RCV;
	if (s == r) { /* a copy on the node: its message unit, no link */
		add(arg, s, CLAB_LIVE_MU_WORD(CLAB_LIVE_MU_LOCAL), pk.packets);
		add(arg, r, CLAB_LIVE_MU_WORD(rcv), pk.packets);
		return CLAB_OK;
	}
	int cs[CLAB_TORUS_MAXD], cr[CLAB_TORUS_MAXD], dim[CLAB_TORUS_MAXD];
	int delta[CLAB_TORUS_MAXD], k = 0, odd = 0;
	clab_torus_coords(t, s, cs);
	clab_torus_coords(t, r, cr);
	for (int i = 0; i < t->ndims; i++)
		odd ^= cs[i] & 1;
	for (int i = 0; i < t->ndims; i++) {
		int d = t->order[i], x = clab_torus_delta(t, d, cs[d], cr[d], odd);
		if (x) {
			dim[k] = d;
			delta[k++] = x;
		}
	}
	if (vc == CLAB_VC_MPI) /* eager and one-line messages go deterministic */
		vc = bytes > t->spec->eager_max && k > 1 ? CLAB_VC_DYNAMIC : CLAB_VC_ESCAPE;
	if (vc != CLAB_VC_DYNAMIC || k < 2)
		rot = 0;
	uint32_t at = s;
	for (int i = 0; i < k; i++) {
		int j = (int)((unsigned)i + rot) % k, link = 2 * dim[j] + (delta[j] > 0);
		for (int h = 0; h < abs(delta[j]); h++) {
			uint32_t next = clab_torus_neighbor(t, at, link);
			add(arg, at, CLAB_LIVE_LINK_WORD(link, vc, CLAB_LIVE_SENT_CHUNKS), pk.chunks);
			add(arg, at, CLAB_LIVE_LINK_WORD(link, vc, CLAB_LIVE_SENT_PACKETS), pk.packets);
			/* arrives on the neighbour's opposite link */
			add(arg, next, CLAB_LIVE_LINK_WORD(link ^ 1, vc, CLAB_LIVE_RECV_CHUNKS), pk.chunks);
			add(arg, next, CLAB_LIVE_LINK_WORD(link ^ 1, vc, CLAB_LIVE_RECV_PACKETS), pk.packets);
			at = next;
		}
	}
	add(arg, r, CLAB_LIVE_MU_WORD(rcv), pk.packets);
	return CLAB_OK;
}

uint64_t clab_live_count(const clab_live_node *b, const clab_torus *t, int link,
			 enum clab_netctr what, unsigned vcmask)
{
#define MU(k) __atomic_load_n(&b->mu[k], __ATOMIC_RELAXED)
	switch (what) {
	case CLAB_NET_MU_PKT_INJ: return MU(CLAB_LIVE_MU_PKT_INJ);
	case CLAB_NET_MU_MSG_INJ: return MU(CLAB_LIVE_MU_MSG_INJ);
	case CLAB_NET_MU_PKT_RCV: return MU(CLAB_LIVE_MU_FIFO_RCV) + MU(CLAB_LIVE_MU_PUT_RCV);
	case CLAB_NET_LOCAL_PACKETS: return MU(CLAB_LIVE_MU_LOCAL);
	case CLAB_NET_SENT_CHUNKS: case CLAB_NET_SENT_PACKETS:
	case CLAB_NET_RECV_CHUNKS: case CLAB_NET_RECV_PACKETS:
	case CLAB_NET_NO_TOKEN: case CLAB_NET_RECV_FIFO:
		break;
	default: /* the network cycles: not kept live */
		return 0;
	}
	int lo = link < 0 ? 0 : link, hi = link < 0 ? 2 * t->ndims : link + 1;
	uint64_t sum = 0;
	for (int l = lo; what == CLAB_NET_NO_TOKEN && l < hi && l < CLAB_LIVE_LINKS; l++)
		sum += __atomic_load_n(&b->no_token[l], __ATOMIC_RELAXED);
	for (int l = lo; what == CLAB_NET_RECV_FIFO && l < hi && l < CLAB_LIVE_LINKS; l++)
		for (int vc = 0; vc < CLAB_NVC; vc++)
			if (vcmask & CLAB_VC_BIT(vc))
				sum += __atomic_load_n(&b->fifo[l * CLAB_NVC + vc], __ATOMIC_RELAXED);
	if (what == CLAB_NET_NO_TOKEN || what == CLAB_NET_RECV_FIFO)
		return sum;
	int k = what == CLAB_NET_SENT_CHUNKS ? CLAB_LIVE_SENT_CHUNKS
		: what == CLAB_NET_SENT_PACKETS ? CLAB_LIVE_SENT_PACKETS
		: what == CLAB_NET_RECV_CHUNKS ? CLAB_LIVE_RECV_CHUNKS : CLAB_LIVE_RECV_PACKETS;
	for (int l = lo; l < hi && l < CLAB_LIVE_LINKS; l++)
		for (int vc = 0; vc < CLAB_NVC; vc++)
			if (vcmask & CLAB_VC_BIT(vc))
				sum += __atomic_load_n(&b->link[k >> 1][(l * CLAB_NVC + vc) * 2 + (k & 1)],
						       __ATOMIC_RELAXED);
	return sum;
#undef MU
}

/* Set once by the live layer before any unit reads (MPI_Init), cleared at
 * MPI_Finalize: atomic so that a reading thread sees either. */
static struct {
	clab_live_get get;
	void *arg;
} live;

void clab_live_attach(clab_live_get get, void *arg)
{
	__atomic_store_n(&live.arg, arg, __ATOMIC_RELEASE);
	__atomic_store_n(&live.get, get, __ATOMIC_RELEASE);
}

const clab_live_node *clab_live_block(uint32_t x)
{
	clab_live_get get = __atomic_load_n(&live.get, __ATOMIC_ACQUIRE);
	return get ? get(__atomic_load_n(&live.arg, __ATOMIC_ACQUIRE), x) : NULL;
}
