/* The packet engine against BookSim2 (Stanford's cycle-level network
 * simulator, built by the user: README "Benchmarks"), printed as one JSON
 * object that bench/run.sh adds to bench/results/netsim_validation.json
 * as "booksim" when make bench is given BOOKSIM=/path/to/booksim.
 *
 *   netsim_booksim BOOKSIM WORKDIR
 *
 * For each case it writes a BookSim2 configuration of the same k-ary
 * n-cube and traffic, runs it, and runs the packet engine on the generic
 * torus machine set to match: one BookSim cycle is one 32-byte chunk on
 * one link; packets of 17 chunks (512 bytes of payload and a 32-byte
 * header); dimension-order routing in BookSim's order (its dimension 0,
 * the lowest digit of a node's number, is our last); the same router
 * policies: two VCs per link split at the dateline (BookSim's dim_order,
 * our `dateline`), each with a buffer of 7 largest packets, and outputs
 * serving input ports in turn (BookSim's allocators, our `round_robin`);
 * BookSim's crossbar runs at twice the link rate (internal_speedup 2), as
 * our routers have no crossbar to limit them; one flit per cycle in and
 * out of a node (our drain port of 2 links' worth, shared by both); a hop
 * costs what BookSim's router pipeline costs, measured here from two
 * single-packet runs; no MPI overheads, latency or rendezvous. The
 * packet engine also runs each case with its own defaults (one bubble VC,
 * oldest first), for comparison. Per-link
 * counts must agree exactly on odd rings; on even rings BookSim breaks
 * half-way ties at random, so only totals compare. Uniform random
 * traffic is drawn by each simulator from its own generator (ours never
 * picks the sender itself, BookSim's does once in `nodes`): its totals and
 * times agree only statistically. BookSim has no all-to-all; the last
 * case sets ours against its uniform batch of the same size to show what
 * the all-to-all's order of sends costs (same_traffic false: not one of
 * the comparisons the 10% target is about). Time ratio is packet engine /
 * BookSim, wall ratio BookSim / packet engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "counterlab/counterlab.h"
#include "counterlab/torus.h"

enum { PKT_CHUNKS = 17, FIFO = 7 };

typedef struct bcase {
	int k, n;
	const char *traffic; /* BookSim's name */
	const char *pattern; /* ours */
	int packets;         /* per node */
	int exact;           /* odd rings, a permutation: per-link counts agree */
	int same;            /* the same traffic (else: ours differs on purpose) */
} bcase;

static const bcase cases[] = {
	{5, 3, "tornado", "perm:tornado,bytes=16k", 32, 1, 1},
	{5, 3, "neighbor", "perm:neighbor,bytes=16k", 32, 1, 1},
	{8, 3, "bitcomp", "perm:bitcomp,bytes=64k", 128, 0, 1},
	{8, 3, "tornado", "perm:tornado,bytes=64k", 128, 0, 1},
	{8, 3, "uniform", "uniform:bytes=512,msgs=1022", 2 * 511, 0, 1},
	{8, 3, "uniform", "alltoall:bytes=1k", 2 * 511, 0, 0}, /* BookSim's run reused */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "netsim_booksim: %s\n", what);
	exit(1);
}

typedef struct bsout {
	long cycles;         /* injection and drain of the batch */
	double latency;      /* mean network latency of a packet */
	unsigned long long *flits; /* [node][2n] sent per output link */
	double wall;
} bsout;

/* Writes the configuration, runs BookSim on it and reads its output. */
static void booksim(const char *bin, const char *dir, int k, int n, const char *traffic,
		    int packets, bsout *o)
{
	char cfg[2048], out[2100], cmd[4400];
	snprintf(cfg, sizeof cfg, "%s/%s_%d_%d_%d.cfg", dir, traffic, k, n, packets);
	snprintf(out, sizeof out, "%s.out", cfg);
	FILE *f = fopen(cfg, "w");
	if (!f)
		die(cfg);
	fprintf(f, "topology = torus;\nk = %d;\nn = %d;\nrouting_function = dim_order;\n"
		"num_vcs = 2;\nvc_buf_size = %d;\ntraffic = %s;\npacket_size = %d;\n"
		"sim_type = batch;\nbatch_size = %d;\nbatch_count = 1;\ninjection_rate = 1.0;\n"
		"internal_speedup = 2.0;\nseed = 1;\nprint_activity = 1;\n", k, n, FIFO * PKT_CHUNKS, traffic,
		PKT_CHUNKS, packets);
	fclose(f);
	snprintf(cmd, sizeof cmd, "'%s' '%s' > '%s' 2>&1", bin, cfg, out);
	double t0 = now_s();
	if (system(cmd) == -1) /* BookSim's own status is not 0 even when it ran */
		die(cmd);
	o->wall = now_s() - t0;
	size_t nodes = 1;
	for (int i = 0; i < n; i++)
		nodes *= (size_t)k;
	o->flits = calloc(nodes * 2 * (size_t)n, sizeof *o->flits);
	o->cycles = 0;
	o->latency = -1;
	if (!o->flits || !(f = fopen(out, "r")))
		die(out);
	char line[512];
	long node = -1;
	while (fgets(line, sizeof line, f)) {
		long c;
		int i, p;
		unsigned long long v;
		if (sscanf(line, "Batch injected. Time used is %ld", &c) == 1 ||
		    sscanf(line, "Batch received. Time used is %ld", &c) == 1)
			o->cycles += c;
		else if (o->latency < 0 && sscanf(line, "Network latency average = %lf", &o->latency) == 1)
			;
		else if (!strncmp(line, "router", 6) && strstr(line, ".switchMonitor:"))
			node++; /* routers are printed by number */
		else if (node >= 0 && (sscanf(line, "[%d -> %d] 0:%llu", &i, &p, &v) == 3 ||
				       sscanf(line, "Inputs=%*dOutputs=%*d[%d -> %d] 0:%llu", &i, &p, &v) == 3) &&
			 p < 2 * n && (size_t)node < nodes)
			o->flits[(size_t)node * 2 * (size_t)n + (size_t)p] += v;
	}
	fclose(f);
	if (!o->cycles)
		die(out); /* BookSim failed: its output says why */
}

int main(int argc, char **argv)
{
	if (argc != 3)
		die("usage: netsim_booksim BOOKSIM WORKDIR");
	const clab_netspec *base = clab_netspec_find("torus");
	double cycle = base->chunk / base->link_bytes_s;
	/* BookSim's cycles per hop: one packet per node to its neighbour
	 * on a ring (1 hop) and on a 2D torus (2 hops, no link shared) */
	bsout one, two;
	booksim(argv[1], argv[2], 5, 1, "neighbor", 1, &one);
	booksim(argv[1], argv[2], 5, 2, "neighbor", 1, &two);
	double hop_cycles = two.latency - one.latency;
	free(one.flits);
	free(two.flits);
	if (!(hop_cycles > 0))
		die("could not measure BookSim's latency per hop");
	printf("{\"cycle_s\": %.6g, \"hop_cycles\": %.3g, \"fifo_packets\": %d, \"packet_chunks\": %d, "
	       "\"vc_buf_size\": %d, \"cases\": [", cycle, hop_cycles, FIFO, PKT_CHUNKS, FIFO * PKT_CHUNKS);
	for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
		const bcase *c = &cases[ci];
		static bsout b; /* the previous case's run, if the same */
		const bcase *p = ci ? &cases[ci - 1] : NULL;
		if (!p || p->k != c->k || p->n != c->n || strcmp(p->traffic, c->traffic) || p->packets != c->packets) {
			free(b.flits);
			booksim(argv[1], argv[2], c->k, c->n, c->traffic, c->packets, &b);
		}
		/* ours: the same torus, routed in BookSim's order */
		clab_netspec s = *base;
		char v[64], shape[64] = "", order[8] = "";
		snprintf(v, sizeof v, "%.9g", hop_cycles * cycle);
		if (clab_netspec_set(&s, "hop_s", v) || clab_netspec_set(&s, "o_send_s", "0") ||
		    clab_netspec_set(&s, "o_recv_s", "0") || clab_netspec_set(&s, "gap_s", "0") ||
		    clab_netspec_set(&s, "latency_s", "0") || clab_netspec_set(&s, "eager_max", "1000000000"))
			die(clab_errmsg());
		for (int d = 0; d < c->n; d++) {
			snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%d", d ? "x" : "", c->k);
			order[d] = s.letters[c->n - 1 - d];
		}
		clab_torus t;
		clab_map m;
		int err;
		if (clab_torus_init(&t, &s, shape, 1, order) || clab_map_init(&m, &t, NULL))
			die(clab_errmsg());
		/* our defaults first (one bubble VC, oldest first), then
		 * BookSim's policies (the run compared) */
		double own = 0, ours = 0, wall = 0;
		clab_net *net = NULL;
		for (int policy = 0; policy < 2; policy++) {
			const char *on = policy ? "1" : "0";
			if (clab_netspec_set(&s, "dateline", on) || clab_netspec_set(&s, "round_robin", on))
				die(clab_errmsg());
			clab_net_free(net);
			net = clab_net_new(&t, &m, &err);
			if (!net || clab_net_configure(net, CLAB_NET_PACKET, CLAB_ROUTE_DETERMINISTIC, 1))
				die(clab_errmsg());
			double t0 = now_s();
			if (clab_net_pattern(net, c->pattern))
				die(clab_errmsg());
			wall = now_s() - t0;
			*(policy ? &ours : &own) = clab_net_totals(net).network / cycle;
		}
		/* counts: our link 2d + 1 is + along dimension d, BookSim's
		 * port 2 (n - 1 - d) */
		unsigned long long tot_b = 0, tot_o = 0, differ = 0, compared = 0;
		for (uint32_t x = 0; x < t.nodes; x++)
			for (int d = 0; d < c->n; d++)
				for (int plus = 0; plus < 2; plus++, compared++) {
					int port = 2 * (c->n - 1 - d) + !plus;
					uint64_t o = clab_net_count(net, x, 2 * d + plus, CLAB_NET_SENT_CHUNKS, 0x7f);
					unsigned long long bv = b.flits[(size_t)x * 2 * (size_t)c->n + (size_t)port];
					tot_b += bv;
					tot_o += o;
					differ += o != bv;
				}
		printf("%s\n  {\"torus\": \"%s\", \"nodes\": %u, \"booksim_traffic\": \"%s\", \"pattern\": \"%s\", "
		       "\"packets_per_node\": %d, \"booksim_cycles\": %ld, \"packet_engine_cycles\": %.0f, "
		       "\"time_ratio\": %.4f, \"within_10pct\": %s, \"own_policies_cycles\": %.0f, "
		       "\"own_policies_ratio\": %.4f, \"booksim_wall_s\": %.2f, "
		       "\"packet_engine_wall_s\": %.3f, \"wall_ratio\": %.1f, \"chunks_booksim\": %llu, "
		       "\"chunks_packet_engine\": %llu, \"per_link\": %s, \"links_compared\": %llu, "
		       "\"links_differing\": %llu, \"same_traffic\": %s}",
		       ci ? "," : "", shape, t.nodes, c->traffic, c->pattern, c->packets, b.cycles, ours,
		       ours / (double)b.cycles, ours / (double)b.cycles > 0.9 && ours / (double)b.cycles < 1.1 ? "true" : "false",
		       own, own / (double)b.cycles, b.wall, wall, b.wall / wall, tot_b, tot_o, c->exact ? "true" : "false",
		       c->exact ? compared : 0, c->exact ? differ : 0, c->same ? "true" : "false");
		fflush(stdout);
		clab_net_free(net);
		clab_map_free(&m);
	}
	printf("\n]}\n");
	return 0;
}
