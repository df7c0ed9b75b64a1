/* The flow engine against the packet engine, printed as one JSON object
 * (bench/results/netsim_validation.json):
 *
 * "runs": at 512 nodes, for every pattern, both engines' network time
 * with MPI's routing and their ratio (flow / packet; the target is within
 * 25% for all-to-all and permutations, reported for every pattern, met or
 * not), the wall time of each, and whether the per-link, per-VC counts
 * agree exactly when both route deterministically; "bands": the ratio's
 * range per class of pattern.
 *
 * "matrix": the cases the packet engine is compared on against BookSim2
 * (netsim_cases.h), both engines on the generic torus set up as there
 * (no MPI costs, BookSim's order of dimensions) but with the machine's
 * own hop latency and router (deterministic routing, the packet engine's
 * default policies); per case the ratio, per traffic kind its band. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "counterlab/counterlab.h"
#include "counterlab/torus.h"
#include "netsim_cases.h"

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

static _Noreturn void die(const char *what)
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

/* The flow engine's error band per class: min..max of flow / packet, and
 * how many within 25%. */
static void bands(const char *const *cls, const double *ratios, size_t nr)
{
	printf("{");
	int any = 0;
	for (size_t i = 0; i < nr; i++) {
		size_t first = 0;
		while (strcmp(cls[first], cls[i]))
			first++;
		if (first != i)
			continue;
		double lo = ratios[i], hi = ratios[i];
		int met = 0, all = 0;
		for (size_t j = i; j < nr; j++)
			if (!strcmp(cls[j], cls[i])) {
				lo = fmin(lo, ratios[j]);
				hi = fmax(hi, ratios[j]);
				met += fabs(ratios[j] - 1) <= 0.25;
				all++;
			}
		printf("%s\"%s\": {\"min\": %.4f, \"max\": %.4f, \"within_25pct\": %d, \"runs\": %d}",
		       any++ ? ", " : "", cls[i], lo, hi, met, all);
	}
	printf("}");
}

#define NCASES (sizeof cases / sizeof *cases)

/* The matrix: flow / packet on every case, deterministic routing; the
 * packet engine with its default router (the bands) and with BookSim2's
 * (policy set COMPARED: how far the flow engine is from a flit-level
 * router's times). The held-out cases are counted apart. */
static void matrix(void)
{
	const clab_netspec *base = clab_netspec_find("torus");
	double ratios[NCASES];
	const char *cls[NCASES];
	int met = 0, met_matched = 0, held_met = 0; /* the matrix's; the held-out cases' */
	printf("\"matrix\": {\"routing\": \"deterministic\", \"hop_s\": %.9g, \"cases\": [", base->hop_s);
	for (size_t i = 0; i < NCASES; i++) {
		const bcase *c = &cases[i];
		clab_netspec s;
		clab_torus t;
		clab_map m;
		char shape[64], bs[4096], pattern[128];
		if (ours_init(base, base->hop_s, c->k, c->n, &s, &t, &m, shape))
			die(shape);
		traffic_of(c, t.nodes, bs, sizeof bs, pattern, sizeof pattern);
		double fs, ps, ms, fw, pw, mw;
		clab_net_free(one(&t, &m, pattern, CLAB_NET_FLOW, CLAB_ROUTE_DETERMINISTIC, &fs, &fw));
		clab_net_free(one(&t, &m, pattern, CLAB_NET_PACKET, CLAB_ROUTE_DETERMINISTIC, &ps, &pw));
		for (size_t j = 0; j < sizeof *policies / sizeof **policies; j++)
			if (clab_netspec_set(&s, policies[COMPARED][j][0], policies[COMPARED][j][1]))
				die(policies[COMPARED][j][0]);
		clab_net_free(one(&t, &m, pattern, CLAB_NET_PACKET, CLAB_ROUTE_DETERMINISTIC, &ms, &mw));
		clab_map_free(&m);
		double r = ratios[i] = fs / ps, rm = fs / ms;
		cls[i] = c->alltoall ? "alltoall" : c->kind;
		if (i < N_MATRIX) {
			met += fabs(r - 1) <= 0.25;
			met_matched += fabs(rm - 1) <= 0.25;
		} else {
			held_met += fabs(r - 1) <= 0.25;
		}
		printf("%s\n  {\"case\": %zu, \"class\": \"%s\", \"torus\": \"%s\", \"pattern\": \"%s\", "
		       "\"flow_network_s\": %.9g, \"packet_network_s\": %.9g, \"flow_over_packet\": %.4f, "
		       "\"within_25pct\": %s, \"flow_wall_s\": %.3f, \"packet_wall_s\": %.3f, "
		       "\"booksim_router_network_s\": %.9g, \"flow_over_booksim_router\": %.4f, \"held_out\": %s}",
		       i ? "," : "", i, cls[i], shape, pattern, fs, ps, r, fabs(r - 1) <= 0.25 ? "true" : "false", fw, pw,
		       ms, rm, i < N_MATRIX ? "false" : "true");
		fflush(stdout);
	}
	printf("\n], \"within_25pct\": %d, \"booksim_router_within_25pct\": %d, \"compared\": %d, "
	       "\"held_out\": {\"within_25pct\": %d, \"compared\": %d}, \"bands\": ",
	       met, met_matched, N_MATRIX, held_met, (int)(NCASES - N_MATRIX));
	bands(cls, ratios, N_MATRIX);
	printf("}");
}

int main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "matrix"))) {
		fprintf(stderr, "usage: netsim_validation [matrix]  (matrix: the matrix alone)\n");
		return 2;
	}
	if (argc == 2) {
		printf("{");
		matrix();
		printf("}\n");
		return 0;
	}
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
	printf("\n], \"bands\": ");
	const char *cls[NRUNS];
	for (size_t i = 0; i < NRUNS; i++)
		cls[i] = runs[i].cls;
	bands(cls, ratios, NRUNS);
	printf(", ");
	matrix();
	printf("}\n");
	return 0;
}
