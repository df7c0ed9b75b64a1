/* The flow engine against the packet engine at 512 nodes, printed as one
 * JSON object (bench/results/netsim_validation.json):
 *
 * for every pattern, both engines' network time with MPI's routing and
 * their ratio (flow / packet; the target is within 25% for all-to-all and
 * permutations, reported for every pattern, met or not), the wall time of
 * each, and whether the per-link, per-VC counts agree exactly when both
 * route deterministically. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "counterlab/counterlab.h"
#include "counterlab/torus.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct run {
	const char *cls, *machine, *shape;
	int ppn;
	const char *map, *pattern;
} run;

static const run runs[] = {
	{"alltoall", "torus", "8x8x8", 1, NULL, "alltoall:bytes=1k"},
	{"alltoall", "torus", "8x8x8", 1, NULL, "alltoall:bytes=4k"},
	{"alltoall", "bgq", "4x4x4x4x2", 1, NULL, "alltoall:bytes=1k"},
	{"alltoall", "bgq", "4x4x4x4x2", 1, NULL, "alltoall:bytes=4k"},
	{"alltoall", "bgl", "8x8x8", 1, NULL, "alltoall:bytes=1k"},
	{"permutation", "torus", "8x8x8", 1, NULL, "perm:bitcomp,bytes=64k"},
	{"permutation", "torus", "8x8x8", 1, NULL, "perm:shuffle,bytes=64k"},
	{"permutation", "torus", "8x8x8", 1, NULL, "perm:tornado,bytes=64k"},
	{"permutation", "torus", "8x8x8", 1, NULL, "perm:neighbor,bytes=64k"},
	{"permutation", "torus", "8x8x8", 1, NULL, "perm:random,seed=1,bytes=64k"},
	{"permutation", "torus", "8x8x8", 2, NULL, "perm:transpose,bytes=64k"},
	{"permutation", "bgq", "4x4x4x4x2", 1, NULL, "perm:bitcomp,bytes=64k"},
	{"permutation", "bgq", "4x4x4x4x2", 1, NULL, "perm:random,seed=1,bytes=64k"},
	{"permutation", "bgl", "8x8x8", 1, NULL, "perm:bitcomp,bytes=16k"},
	{"fft", "bgq", "4x4x4x4x2", 16, "ABCDET", "fft3d:n=512,grid=16x512,compute=0,phase=1"},
	{"fft", "bgq", "4x4x4x4x2", 16, "ABCDET", "fft3d:n=512,grid=16x512,compute=0,phase=2"},
	{"halo", "bgq", "4x4x4x4x2", 16, NULL, "halo3d:n=32"},
	{"halo", "bgq", "4x4x4x4x2", 16, NULL, "halo3d:n=32,stencil=27"},
	{"halo", "bgl", "8x8x8", 1, NULL, "halo3d:n=32,periodic=1"},
	{"nas", "bgq", "4x4x4x4x2", 1, NULL, "cg:class=B,iters=1"},
	{"nas", "bgq", "4x4x4x4x2", 1, NULL, "mg:class=B,iters=1"},
	{"nas", "bgl", "8x8x8", 1, NULL, "mg:class=B,iters=1"},
};

static void die(const char *what)
{
	fprintf(stderr, "netsim_validation: %s: %s\n", what, clab_errmsg());
	exit(1);
}

/* One engine's run: network seconds of all phases, wall seconds. */
static clab_net *one(const clab_torus *t, const clab_map *m, const char *pattern,
		     enum clab_net_engine e, enum clab_net_routing r, double *net_s, double *wall)
{
	int err;
	clab_net *n = clab_net_new(t, m, &err);
	if (!n || clab_net_configure(n, e, r, 1))
		die("model");
	double t0 = now_s();
	if (clab_net_pattern(n, pattern))
		die(pattern);
	*wall = now_s() - t0;
	*net_s = clab_net_totals(n).network;
	return n;
}

#define NRUNS (sizeof runs / sizeof *runs)

int main(void)
{
	double ratios[NRUNS];
	printf("{\"benchmark\": \"netsim_validation\", \"target_ratio\": 0.25, \"runs\": [");
	for (size_t i = 0; i < NRUNS; i++) {
		const run *r = &runs[i];
		clab_torus t;
		clab_map m;
		if (clab_torus_init(&t, clab_netspec_find(r->machine), r->shape, r->ppn, NULL) ||
		    clab_map_init(&m, &t, r->map))
			die(r->shape);
		double fs, ps, fw, pw, dfs, dps, dfw, dpw;
		clab_net *f = one(&t, &m, r->pattern, CLAB_NET_FLOW, CLAB_ROUTE_MPI, &fs, &fw);
		clab_net *p = one(&t, &m, r->pattern, CLAB_NET_PACKET, CLAB_ROUTE_MPI, &ps, &pw);
		clab_net_free(f);
		clab_net_free(p);
		/* counts under deterministic routing: every link, VC, counter */
		f = one(&t, &m, r->pattern, CLAB_NET_FLOW, CLAB_ROUTE_DETERMINISTIC, &dfs, &dfw);
		p = one(&t, &m, r->pattern, CLAB_NET_PACKET, CLAB_ROUTE_DETERMINISTIC, &dps, &dpw);
		uint64_t differ = 0, compared = 0;
		static const enum clab_netctr what[] = {CLAB_NET_SENT_CHUNKS, CLAB_NET_SENT_PACKETS,
							CLAB_NET_RECV_PACKETS};
		for (uint32_t x = 0; x < t.nodes; x++)
			for (int l = 0; l < 2 * t.ndims; l++)
				for (int w = 0; w < 3; w++)
					for (int vc = 0; vc < CLAB_NVC; vc++, compared++)
						differ += clab_net_count(f, x, l, what[w], CLAB_VC_BIT(vc)) !=
							  clab_net_count(p, x, l, what[w], CLAB_VC_BIT(vc));
		double ratio = ratios[i] = fs / ps;
		printf("%s\n  {\"class\": \"%s\", \"machine\": \"%s\", \"torus\": \"%s\", \"nodes\": %u, "
		       "\"ppn\": %d, \"pattern\": \"%s\", \"flow_network_s\": %.9g, "
		       "\"packet_network_s\": %.9g, \"flow_over_packet\": %.4f, \"within_25pct\": %s, "
		       "\"flow_wall_s\": %.3f, \"packet_wall_s\": %.3f, "
		       "\"deterministic\": {\"packet_events\": %llu, \"flow_network_s\": %.9g, \"packet_network_s\": %.9g, "
		       "\"counts_compared\": %llu, \"counts_differing\": %llu}}",
		       i ? "," : "", r->cls, r->machine, r->shape, t.nodes, r->ppn, r->pattern, fs, ps,
		       ratio, fabs(ratio - 1) <= 0.25 ? "true" : "false", fw, pw,
		       (unsigned long long)clab_net_events(p), dfs, dps, (unsigned long long)compared,
		       (unsigned long long)differ);
		fflush(stdout);
		clab_net_free(f);
		clab_net_free(p);
		clab_map_free(&m);
	}
	/* the flow engine's error band per class: min..max of flow / packet */
	printf("\n], \"bands\": {");
	for (size_t i = 0; i < NRUNS; i++) {
		size_t first = 0;
		while (strcmp(runs[first].cls, runs[i].cls))
			first++;
		if (first != i)
			continue;
		double lo = ratios[i], hi = ratios[i];
		int met = 0, all = 0;
		for (size_t j = i; j < NRUNS; j++)
			if (!strcmp(runs[j].cls, runs[i].cls)) {
				lo = fmin(lo, ratios[j]);
				hi = fmax(hi, ratios[j]);
				met += fabs(ratios[j] - 1) <= 0.25;
				all++;
			}
		printf("%s\"%s\": {\"min\": %.4f, \"max\": %.4f, \"within_25pct\": %d, \"runs\": %d}",
		       i ? ", " : "", runs[i].cls, lo, hi, met, all);
	}
	printf("}}\n");
	return 0;
}
