/* The torus network of a machine profile (machine_net.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machine_net.h"

static void net_destroy(void *p)
{
	clab_machine_net *b = p;
	clab_net_free(b->net);
	clab_map_free(&b->tn.map);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* This process's rank: [network] rank, else the MPI launcher's. */
static uint64_t default_rank(void)
{
	const char *v = getenv("OMPI_COMM_WORLD_RANK");
	if (!v)
		v = getenv("PMI_RANK");
	return v ? strtoull(v, NULL, 10) : 0;
}

static void *net_create(clab_machine *m, const char *specname, int *err)
{
	const clab_netspec *spec = clab_netspec_find(specname);
	uint64_t ppn, rank;
	clab_machine_net *b = calloc(1, sizeof *b);
	if (!b) {
		*err = CLAB_E_NOMEM;
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	b->tn.spec = *spec;
	int rc = clab_machine_setting_u64(m, "ppn", (uint64_t)spec->ppn, 1,
					  (uint64_t)spec->max_ppn, &ppn);
	/* the profile's changes to the model's parameters */
	const char *name;
	for (int i = 0; !rc && (name = clab_netspec_param(spec, i, NULL, NULL)); i++) {
		char key[64];
		snprintf(key, sizeof key, "network.%s", name);
		const char *v = clab_machine_setting(m, key);
		if (v && clab_netspec_set(&b->tn.spec, name, v))
			rc = CLAB_E_PROFILE;  /* a malformed profile value */
	}
	if (!rc)
		rc = clab_torus_init(&b->tn.torus, &b->tn.spec, clab_machine_setting(m, "torus"),
				     (int)ppn, clab_machine_setting(m, "network.order"));
	if (!rc)
		rc = clab_map_init(&b->tn.map, &b->tn.torus, clab_machine_setting(m, "map"));
	if (!rc)
		rc = clab_machine_unit_u64(m, "network", "rank", default_rank(), 0,
					   b->tn.map.nranks - 1, &rank);
	if (!rc && (b->net = clab_net_new(&b->tn.torus, &b->tn.map, &rc)) != NULL) {
		b->tn.rank = (uint32_t)rank;
		b->tn.node = b->tn.map.node[rank];
	}
	if (rc) {
		/* name the machine once: setting errors already start with it */
		const char *why = clab_errmsg();
		if (strncmp(why, "machine ", 8) == 0)
			*err = clab_seterr(rc, "torus network of %s", why);
		else
			*err = clab_seterr(rc, "machine %s, torus network: %s",
					   clab_machine_name(m), why);
		net_destroy(b);
		return NULL;
	}
	return b;
}

static void *create_bgq(clab_machine *m, int *err) { return net_create(m, "bgq", err); }
static void *create_bgl(clab_machine *m, int *err) { return net_create(m, "bgl", err); }

clab_machine_net *clab_machine_net_get(clab_machine *m, const char *spec, int *err)
{
	/* one torus per machine, whichever unit asks first */
	return clab_machine_shared(m, "torus-net", strcmp(spec, "bgl") ? create_bgq : create_bgl,
				   net_destroy, err);
}

int clab_machine_net_traffic(clab_machine_net *b, const char *pattern, double *seconds)
{
	pthread_mutex_lock(&b->lock);
	double before = clab_net_time(b->net);
	int rc = clab_net_pattern(b->net, pattern);
	double after = clab_net_time(b->net);
	pthread_mutex_unlock(&b->lock);
	if (seconds)
		*seconds = after - before;
	return rc;
}

uint64_t clab_machine_net_count(const clab_machine_net *b, const clab_live_node *live,
				int link, enum clab_netctr what, unsigned vcmask)
{
	uint64_t v = clab_net_count(b->net, b->tn.node, link, what, vcmask);
	if (live) /* a live MPI program's traffic */
		v += clab_live_count(live, &b->tn.torus, link, what, vcmask);
	return v;
}

/* [network] keys: this rank, the routing order, and the parameters of the
 * torus model (clab_netspec_param's names; README "The torus network
 * model") that a profile may change from their documented defaults. */
const char *const clab_machine_net_keys[] = {
	"rank", "order",
	"link_bytes_s", "hop_s", "latency_s", "o_send_s", "o_recv_s", "gap_s", "eager_max",
	"drain_links", "fifo_packets", "local_bytes_s", "peak_flops", "flop_eff",
	"mem_bytes_s", "mem_eff", NULL,
};
