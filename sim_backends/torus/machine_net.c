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

void clab_machine_net_forked(clab_machine_net *b)
{
	pthread_mutex_init(&b->lock, NULL);
}

/* The profile's torus, map and model parameters (clab_torus_net_setup,
 * shared with the Gemini unit), and the traffic of clab_sim_traffic. */
static void *net_create(clab_machine *m, const char *specname, int *err)
{
	clab_machine_net *b = calloc(1, sizeof *b);
	if (!b) {
		*err = CLAB_E_NOMEM;
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	int rc = clab_torus_net_setup(&b->tn, m, specname,
				      clab_machine_setting(m, "network.order"));
	if (!rc)
		b->net = clab_net_new(&b->tn.torus, &b->tn.map, &rc);
	if (rc) {
		*err = clab_torus_net_error(m, rc, "torus");
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
 * torus model (clab_netspec_param's names; docs/torus.md) that a profile may change from their documented defaults. */
const char *const clab_machine_net_keys[] = {
	"rank", "order",
	"link_bytes_s", "hop_s", "latency_s", "o_send_s", "o_recv_s", "gap_s", "eager_max",
	"drain_links", "fifo_packets", "dateline", "round_robin", "tie", "flow_unit", "ports", "speedup", "interleave", "inj_vcs", "local_bytes_s", "peak_flops", "flop_eff",
	"mem_bytes_s", "mem_eff", NULL,
};
