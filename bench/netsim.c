/* The torus model's speed at real machine sizes, printed as one JSON object.
 *
 * 1. The BG/Q 3D-FFT mapping study (512 nodes 4x4x4x4x2, 16 ranks per
 *    node, 16 x 512 grid, 512^3 double complex): both maps (ABCDET and
 *    each grid column on one node), both all-to-all phases and the FFT
 *    compute steps, with the whole run's network, on-node and compute
 *    time. Target: < 1 s.
 * 2. Sequoia (16x12x16x16x2 = 98,304 nodes, 16 ranks per node, 1,572,864
 *    ranks): a 3D FFT's two all-to-all phases (8192^3 double complex on a
 *    1024 x 1536 grid). Targets: < 30 s and < 4 GB.
 * 3. The study of 1. on the packet engine (every packet simulated, MPI's
 *    routing). Target: < 60 s.
 * 4. Sequoia's row all-to-all: 98304 x 98304 x 16 on a 16 x 98304 grid
 *    (a row's ranks each hold a point of x and y), both phases (phase 2
 *    is an all-to-all of 98,304 ranks in each row). Targets:
 *    < 10 s and < 4 GB (the process's peak so far).
 * 5. A random permutation of 64 KB messages on a 4,096-node torus
 *    (16x16x16) in the packet engine. Target: < 7 s (half the 14 s it
 *    took when the target was set).
 * Baseline, in the same run: the same traffic enumerated message by message
 * and walked hop by hop (clab_torus_route), as a simulator without the
 * model's aggregation would; on Sequoia it is timed on a sample of the
 * groups and scaled up. The two must agree on the chunk-hops moved.
 *
 * usage: netsim [--quick]   (--quick: skip Sequoia, for smoke tests) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "counterlab/counterlab.h"
#include "counterlab/torus.h"

/* CPU seconds of the process: on a shared machine wall time measures the
 * others' load more than the model's work (the model runs on one thread) */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "netsim bench: %s: %s\n", what, clab_errmsg());
	exit(1);
}

/* Chunk-hops over every torus link of every node. */
static double chunk_hops(const clab_net *n, const clab_torus *t)
{
	double sum = 0;
	for (uint32_t x = 0; x < t->nodes; x++)
		sum += (double)clab_net_count(n, x, -1, CLAB_NET_SENT_CHUNKS, 0x7f);
	return sum;
}

static void hop(void *arg, uint32_t node, int link)
{
	(void)node;
	(void)link;
	++*(uint64_t *)arg;
}

/* The baseline: every message of the groups (size members `stride`
 * apart) walked hop by hop; every `sample`-th group only. Returns the
 * chunk-hops of the groups walked. */
static double naive_alltoall(const clab_torus *t, const clab_map *m, uint32_t size,
			     uint32_t stride, uint64_t bytes, uint32_t sample,
			     uint32_t *walked)
{
	uint64_t hops = 0;
	clab_packets p = clab_netspec_packetize(t->spec, bytes);
	uint32_t g = 0;
	*walked = 0;
	for (uint32_t block = 0; block < m->nranks; block += size * stride)
		for (uint32_t off = 0; off < stride; off++, g++) {
			if (g % sample)
				continue;
			++*walked;
			for (uint32_t i = 0; i < size; i++)
				for (uint32_t j = 0; j < size; j++) {
					uint32_t a = m->node[block + off + i * stride];
					uint32_t b = m->node[block + off + j * stride];
					if (a != b)
						clab_torus_route(t, a, b, 0, hop, &hops);
				}
		}
	return (double)hops * (double)p.chunks;
}

typedef struct fft { uint32_t pr, pc; uint64_t n; } fft;

static uint64_t pair_bytes(const fft *f, uint32_t P, uint32_t group)
{
	double per_rank = (double)f->n * f->n * f->n * 16 / P;
	return (uint64_t)(per_rank / group + 0.999999);
}

/* One map: the model on both phases, then the baseline. */
static double study(const clab_torus *t, const clab_map *m, const fft *f, uint32_t sample,
		  const char *name, int last)
{
	char spec[128];
	int err;
	double t0 = now();
	clab_net *n = clab_net_new(t, m, &err);
	if (!n)
		die("clab_net_new");
	snprintf(spec, sizeof spec, "fft3d:n=%llu,grid=%ux%u", (unsigned long long)f->n, f->pr, f->pc);
	if (clab_net_pattern(n, spec))
		die(spec);
	double model_s = now() - t0, model_hops = chunk_hops(n, t);
	double time_s = clab_net_time(n);
	clab_net_times tm = clab_net_totals(n);
	clab_net_free(n);

	uint32_t w1, w2;
	t0 = now();
	double h1 = naive_alltoall(t, m, f->pr, f->pc, pair_bytes(f, m->nranks, f->pr), sample, &w1);
	double h2 = naive_alltoall(t, m, f->pc, 1, pair_bytes(f, m->nranks, f->pc), sample, &w2);
	double naive_s = (now() - t0) * sample;
	/* the baseline walks one route per message; the model spreads large
	 * ones over several minimal routes of the same length */
	double naive_hops = (h1 + h2) * sample;
	printf("\"%s\": {\"model_s\": %.4f, \"modelled_time_s\": %.6g, \"network_s\": %.6g, "
	       "\"onnode_s\": %.6g, \"compute_s\": %.6g, \"chunk_hops\": %.0f, "
	       "\"baseline_s\": %.3f, \"baseline_sampled\": %s, \"baseline_chunk_hops\": %.0f, "
	       "\"speedup\": %.1f}%s",
	       name, model_s, time_s, tm.network, tm.onnode, tm.compute, model_hops, naive_s,
	       sample > 1 ? "true" : "false", naive_hops, naive_s / model_s, last ? "" : ", ");
	fflush(stdout);
	if (sample == 1 && naive_hops != model_hops) {
		fprintf(stderr, "netsim bench: %s: model moved %.0f chunk-hops, the walk %.0f\n",
			name, model_hops, naive_hops);
		exit(1);
	}
	return model_s;
}

/* The whole fft3d pattern on one map with the packet engine. */
static double packet_study(const clab_torus *t, const clab_map *m, const char *spec,
			   const char *name)
{
	int err;
	double t0 = now();
	clab_net *n = clab_net_new(t, m, &err);
	if (!n || clab_net_configure(n, CLAB_NET_PACKET, CLAB_ROUTE_MPI, 1))
		die("clab_net_new");
	if (clab_net_pattern(n, spec))
		die(spec);
	double s = now() - t0;
	clab_net_times tm = clab_net_totals(n);
	printf("\"%s\": {\"model_s\": %.2f, \"network_s\": %.6g, \"chunk_hops\": %.0f}, ", name, s,
	       tm.network, chunk_hops(n, t));
	fflush(stdout);
	clab_net_free(n);
	return s;
}

/* The custom map: grid column c (ranks c + Pc*r, Pr = ppn of them) on node c. */
static void column_map(const fft *f, clab_map *m)
{
	if (clab_map_alloc(m, f->pr * f->pc))
		die("column map");
	for (uint32_t rank = 0; rank < m->nranks; rank++) {
		m->node[rank] = rank % f->pc;
		m->slot[rank] = (uint16_t)(rank / f->pc);
	}
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	const clab_netspec *bgq = clab_netspec_find("bgq");
	clab_torus t;
	clab_map dflt, cols;
	fft small = {16, 512, 512};
	printf("{\"benchmark\": \"netsim\", \"fft512\": {\"torus\": \"4x4x4x4x2\", \"ppn\": 16, "
	       "\"pattern\": \"fft3d:n=512,grid=16x512\", \"target_s\": 1.0, ");
	if (clab_torus_init(&t, bgq, "4x4x4x4x2", 16, NULL) || clab_map_init(&dflt, &t, "ABCDET"))
		die("512 nodes");
	column_map(&small, &cols);
	double both = study(&t, &dflt, &small, 1, "ABCDET", 0);
	both += study(&t, &cols, &small, 1, "columns", 0);
	/* the study: both maps, both phases, in the model */
	printf("\"study_s\": %.4f, \"meets_target\": %s}", both, both < 1.0 ? "true" : "false");
	printf(", \"fft512_packet\": {\"engine\": \"packet\", \"routing\": \"mpi\", \"target_s\": 60, ");
	both = packet_study(&t, &dflt, "fft3d:n=512,grid=16x512", "ABCDET");
	both += packet_study(&t, &cols, "fft3d:n=512,grid=16x512", "columns");
	printf("\"study_s\": %.2f, \"meets_target\": %s}", both, both < 60 ? "true" : "false");
	clab_map_free(&dflt);
	clab_map_free(&cols);

	clab_torus big;
	clab_map order;
	const char *perm = "perm:random,seed=1,bytes=64k";
	if (clab_torus_init(&big, clab_netspec_find("torus"), "16x16x16", 1, NULL) ||
	    clab_map_init(&order, &big, "ABCT"))
		die("16x16x16");
	printf(", \"perm4096_packet\": {\"torus\": \"16x16x16\", \"pattern\": \"%s\", \"target_s\": 7, ", perm);
	double s4096 = packet_study(&big, &order, perm, "ABCT");
	printf("\"meets_target\": %s}", s4096 < 7 ? "true" : "false");
	clab_map_free(&order);

	if (!quick) {
		fft big = {1024, 1536, 8192};
		printf(", \"sequoia\": {\"torus\": \"16x12x16x16x2\", \"nodes\": 98304, \"ppn\": 16, "
		       "\"ranks\": 1572864, \"pattern\": \"fft3d:n=8192,grid=1024x1536\", "
		       "\"target_s\": 10, \"target_gb\": 4, ");
		if (clab_torus_init(&t, bgq, "16x12x16x16x2", 16, NULL) ||
		    clab_map_init(&dflt, &t, "ABCDET"))
			die("Sequoia");
		double s = study(&t, &dflt, &big, 64, "ABCDET", 0);
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		double gb = ru.ru_maxrss / 1048576.0;
		printf("\"max_rss_gb\": %.3f, \"meets_target\": %s}", gb,
		       s < 10 && gb < 4 ? "true" : "false");

		/* the same machine and map */
		printf(", \"sequoia_rows\": {\"torus\": \"16x12x16x16x2\", \"ppn\": 16, "
		       "\"pattern\": \"fft3d:nx=98304,ny=98304,nz=16,grid=16x98304,phase=all\", \"target_s\": 10, "
		       "\"target_gb\": 4, ");
		int err;
		double t0 = now();
		clab_net *n = clab_net_new(&t, &dflt, &err);
		/* a row of 98,304 ranks holds a point of x and y each */
		if (!n || clab_net_pattern(n, "fft3d:nx=98304,ny=98304,nz=16,grid=16x98304,phase=all"))
			die("Sequoia rows");
		s = now() - t0;
		clab_net_times tm = clab_net_totals(n);
		getrusage(RUSAGE_SELF, &ru);
		gb = ru.ru_maxrss / 1048576.0;
		printf("\"model_s\": %.2f, \"modelled_time_s\": %.6g, \"network_s\": %.6g, "
		       "\"max_rss_gb\": %.3f, \"meets_target\": %s}", s, clab_net_time(n), tm.network, gb,
		       s < 10 && gb < 4 ? "true" : "false");
		clab_net_free(n);
		clab_map_free(&dflt);
	}
	printf("}\n");
	return 0;
}
