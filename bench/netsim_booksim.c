/* The packet engine against BookSim2 (Stanford's cycle-level network
 * simulator, built by the user: docs/torus.md), printed as one JSON
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
 * our `dateline`), each with a buffer of 7 largest packets, each output
 * VC serving input VCs in turn, choosing among all heads ready in a cycle
 * (BookSim's allocators, our `round_robin=2`), a node's packets entering
 * two injection VCs in turn (our `inj_vcs=2`);
 * BookSim's crossbar at twice the link rate into a queue per output
 * (internal_speedup 2; our speedup=2) whose link interleaves the flits of
 * packets on different VCs (our interleave=1); one flit per cycle in and
 * out of a node (our drain port of 2 links' worth, shared by both); a hop
 * costs what BookSim's router pipeline costs, measured here from two
 * single-packet runs; no MPI overheads, latency or rendezvous. The
 * packet engine also runs each case with its own defaults (one bubble VC,
 * oldest first), for comparison. Per-link
 * counts must agree exactly on odd rings; on even rings BookSim breaks
 * half-way ties at random, so only totals compare. Uniform random
 * traffic is drawn by each simulator from its own generator (ours never
 * picks the sender itself, BookSim's does once in `nodes`): its totals and
 * times agree only statistically, and one draw says little (one node
 * drawn 20 times where 8 are expected sets a small batch's time), so
 * each simulator runs it under seeds 1..5 and the means compare. BookSim
 * has no all-to-all; the all-to-all case sets ours against its uniform
 * batch of the same size to show what the all-to-all's order of sends
 * costs (same_traffic false: not one of the comparisons the 10% target is
 * about). The held-out cases (from N_MATRIX on) are summarized apart.
 * Time ratio is packet engine / BookSim, wall ratio BookSim / packet
 * engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "counterlab/counterlab.h"
#include "counterlab/torus.h"

enum { PKT_CHUNKS = 17, FIFO = 7, NSEED = 5 };

#include "netsim_cases.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "netsim_booksim: %s\n", what);
	exit(1);
}

typedef struct bsout {
	long cycles;         /* injection and drain of the batch */
	double ol_latency, ol_accepted; /* open loop: packet latency, flits per cycle per node */
	int unstable;        /* open loop: BookSim gave up (saturated) */
	double latency;      /* mean network latency of a packet */
	unsigned long long *flits; /* [node][2n] sent per output link */
	double wall;
	int kept;            /* wall is an earlier sitting's: the run was read back */
} bsout;

static time_t started; /* this sitting's start (runs timed since are its own) */

/* Writes the configuration, runs BookSim on it and reads its output. */
static void booksim(const char *bin, const char *dir, int k, int n, const char *traffic,
		    int packets, double load, int seed, bsout *o)
{
	char cfg[2048], out[2100], cmd[4400], name[64];
	/* a file name of the traffic: hotspot({0,4}) -> hotspot_0_4 */
	size_t j = 0;
	for (const char *c = traffic; *c && j < sizeof name - 1; c++)
		if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))
			name[j++] = *c;
		else if (j && name[j - 1] != '_')
			name[j++] = '_';
	name[j] = 0;
	char sd[16] = ""; /* seed 1: no suffix */
	if (seed != 1)
		snprintf(sd, sizeof sd, "_s%d", seed);
	if (load > 0) /* open loop */
		snprintf(cfg, sizeof cfg, "%s/open_%s_%d_%d_%g%s.cfg", dir, name, k, n, load, sd);
	else
		snprintf(cfg, sizeof cfg, "%s/%s_%d_%d_%d%s.cfg", dir, name, k, n, packets, sd);
	snprintf(out, sizeof out, "%s.out", cfg);
	FILE *f = fopen(cfg, "w");
	if (!f)
		die(cfg);
	fprintf(f, "topology = torus;\nk = %d;\nn = %d;\nrouting_function = dim_order;\n"
		"num_vcs = 2;\nvc_buf_size = %d;\ntraffic = %s;\npacket_size = %d;\n"
		"internal_speedup = 2.0;\nseed = %d;\n", k, n, FIFO * PKT_CHUNKS, traffic, PKT_CHUNKS, seed);
	if (load > 0) /* steady state: warm-up, samples of 10000 cycles, drain */
		fprintf(f, "sim_type = latency;\ninjection_rate_uses_flits = 1;\ninjection_rate = %.6f;\n"
			"sample_period = 10000;\n", load);
	else
		fprintf(f, "sim_type = batch;\nbatch_size = %d;\nbatch_count = 1;\ninjection_rate = 1.0;\n"
			"print_activity = 1;\n", packets);
	fclose(f);
	snprintf(cmd, sizeof cmd, "'%s' '%s' > '%s' 2>&1", bin, cfg, out);
	/* a finished run of the same configuration is read again (its wall
	 * time is the one noted next to it, from the sitting that ran it) */
	char wallf[2200];
	snprintf(wallf, sizeof wallf, "%s.wall", out);
	FILE *w = fopen(wallf, "r");
	int have = w && fscanf(w, "%lf", &o->wall) == 1;
	struct stat st; /* (a case that shares a run timed in this sitting is not kept) */
	o->kept = have && stat(wallf, &st) == 0 && st.st_mtime < started;
	if (!have) {
		double t0 = now_s();
		if (system(cmd) == -1) /* BookSim's own status is not 0 even when it ran */
			die(cmd);
		o->wall = now_s() - t0;
		if (w)
			fclose(w);
		w = NULL;
	}
	if (w)
		fclose(w);
	size_t nodes = 1;
	for (int i = 0; i < n; i++)
		nodes *= (size_t)k;
	o->flits = calloc(nodes * 2 * (size_t)n, sizeof *o->flits);
	o->cycles = 0;
	o->latency = -1;
	o->ol_latency = o->ol_accepted = -1;
	o->unstable = 0;
	int overall = 0;
	if (!o->flits || !(f = fopen(out, "r")))
		die(out);
	char line[512];
	long node = -1;
	while (fgets(line, sizeof line, f)) {
		long c;
		int i, p;
		unsigned long long v;
		overall |= !strncmp(line, "====== Overall Traffic Statistics", 33);
		o->unstable |= !strncmp(line, "Simulation unstable", 19);
		if (overall && o->ol_latency < 0 && sscanf(line, "Packet latency average = %lf", &o->ol_latency) == 1)
			;
		else if (overall && o->ol_accepted < 0 &&
			 sscanf(line, "Accepted flit rate average = %lf", &o->ol_accepted) == 1)
			;
		else if (sscanf(line, "Batch injected. Time used is %ld", &c) == 1 ||
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
	if (load > 0 ? !o->unstable && o->ol_latency < 0 : !o->cycles)
		die(out); /* BookSim failed: its output says why */
	if ((w = fopen(wallf, "w"))) {
		fprintf(w, "%.3f\n", o->wall);
		fclose(w);
	}
}





/* Open loop against BookSim's steady state (sim_type = latency): traffic
 * of the table's kinds, loads in flits per cycle per node, samples of
 * PERIOD cycles. Ours runs the same steady state (clab_openloop's
 * period: BookSim's warm-up, convergence, drain and its verdict, given
 * up as unstable when the mean latency with the flits in flight passes
 * 500 cycles), so one rule says where each saturates. */
typedef struct ocase {
	int k, n;
	const char *kind;    /* uniform or a permutation */
} ocase;

static const ocase ocases[] = {
	{8, 2, "uniform"}, {5, 2, "uniform"}, {4, 3, "uniform"}, {8, 2, "tornado"}, {5, 3, "tornado"},
	{4, 4, "uniform"},
};

/* One side's run of the open loop at a load: BookSim's, or ours
 * (BookSim's steady state: clab_openloop's period) */
typedef struct olrun {
	int unstable;
	double accepted, latency, p99;
} olrun;

enum { PERIOD = 10000, BISECT = 4 };

static olrun ol_run(int side, const char *bin, const char *dir, const ocase *c, clab_net *net,
		    const char *pattern, double load)
{
	olrun r = {0, -1, -1, -1};
	if (side == 0) {
		bsout b;
		booksim(bin, dir, c->k, c->n, c->kind, 0, load, 1, &b);
		free(b.flits);
		r.unstable = b.unstable;
		if (!b.unstable)
			r.accepted = b.ol_accepted, r.latency = b.ol_latency;
		return r;
	}
	clab_openloop o = {.load = load, .period = PERIOD};
	if (clab_net_openloop(net, pattern, &o))
		die(clab_errmsg());
	r.unstable = o.unstable;
	if (!o.unstable)
		r.accepted = o.accepted, r.latency = o.latency_mean, r.p99 = o.latency_p99;
	return r;
}

static void open_loop(const char *bin, const char *dir, const clab_netspec *base, double hop_s)
{
	static const double loads[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
	enum { NL = sizeof loads / sizeof *loads };
	printf(", \"open_loop\": [");
	for (size_t ci = 0; ci < sizeof ocases / sizeof *ocases; ci++) {
		const ocase *c = &ocases[ci];
		clab_netspec s;
		clab_torus t;
		clab_map m;
		char shape[64], pattern[64];
		int err;
		if (ours_init(base, hop_s, c->k, c->n, &s, &t, &m, shape))
			die(clab_errmsg());
		for (size_t j = 0; j < sizeof *policies / sizeof **policies; j++)
			if (clab_netspec_set(&s, policies[COMPARED][j][0], policies[COMPARED][j][1]))
				die(clab_errmsg());
		snprintf(pattern, sizeof pattern, strcmp(c->kind, "uniform") ? "perm:%s" : "%s:msgs=1000", c->kind);
		clab_net *net = clab_net_new(&t, &m, &err);
		if (!net || clab_net_configure(net, CLAB_NET_PACKET, CLAB_ROUTE_DETERMINISTIC, 1))
			die(clab_errmsg());
		/* the curve: both sides at loads 0.1, 0.2, ... until both are
		 * unstable */
		olrun g[2][NL];
		int first[2] = {-1, -1}, nl = 0;
		printf("%s\n  {\"torus\": \"%s\", \"traffic\": \"%s\", \"period\": %d, \"loads\": [", ci ? "," : "",
		       shape, c->kind, PERIOD);
		for (int li = 0; li < NL && (first[0] < 0 || first[1] < 0); li++, nl++) {
			for (int side = 0; side < 2; side++) {
				g[side][li] = ol_run(side, bin, dir, c, net, pattern, loads[li]);
				if (g[side][li].unstable && first[side] < 0)
					first[side] = li;
			}
			const olrun *b = &g[0][li], *o = &g[1][li];
			printf("%s{\"load\": %g, \"booksim_latency\": %.4g, \"booksim_accepted\": %.4g, "
			       "\"booksim_unstable\": %s, \"latency\": %.4g, \"latency_p99\": %.4g, \"accepted\": %.4g, "
			       "\"unstable\": %s, \"latency_ratio\": %.4f}",
			       li ? ", " : "", loads[li], b->latency, b->accepted, b->unstable ? "true" : "false",
			       o->latency, o->p99, o->accepted, o->unstable ? "true" : "false",
			       b->unstable || o->unstable ? 0 : o->latency / b->latency);
			fflush(stdout);
		}
		/* each side's saturation: between its last stable load of the
		 * curve before the first unstable one and that one (past 0.9:
		 * 1.0, a node's link's worth), halved BISECT times; its
		 * throughput is what the highest stable load found accepts */
		double lo[2], hi[2], acc[2];
		printf("]");
		for (int side = 0; side < 2; side++) {
			int u = first[side];
			lo[side] = u > 0 ? loads[u - 1] : u < 0 ? loads[NL - 1] : 0;
			hi[side] = u >= 0 ? loads[u] : 1.0;
			acc[side] = u > 0 ? g[side][u - 1].accepted : u < 0 ? g[side][NL - 1].accepted : 0;
			printf(", \"%s\": {\"points\": [", side ? "saturation" : "booksim_saturation");
			int np = 0, reached = 1;
			if (u < 0) { /* stable at 0.9: and at 1.0? */
				olrun r = ol_run(side, bin, dir, c, net, pattern, 1.0);
				printf("{\"load\": 1, \"unstable\": %s, \"accepted\": %.4g}", r.unstable ? "true" : "false",
				       r.accepted);
				np++;
				if (!r.unstable)
					lo[side] = 1.0, acc[side] = r.accepted, reached = 0;
			}
			for (int i = 0; i < BISECT && reached; i++) {
				double mid = (lo[side] + hi[side]) / 2;
				olrun r = ol_run(side, bin, dir, c, net, pattern, mid);
				printf("%s{\"load\": %g, \"unstable\": %s, \"accepted\": %.4g}", np++ ? ", " : "", mid,
				       r.unstable ? "true" : "false", r.accepted);
				fflush(stdout);
				if (r.unstable)
					hi[side] = mid;
				else
					lo[side] = mid, acc[side] = r.accepted;
			}
			printf("], \"stable_to\": %g, \"unstable_at\": ", lo[side]);
			printf(reached ? "%g" : "null", hi[side]);
			printf(", \"throughput\": %.4g}", acc[side]);
		}
		printf(", \"throughput_ratio\": %.4f}", acc[0] > 0 ? acc[1] / acc[0] : 0);
		clab_net_free(net);
		clab_map_free(&m);
	}
	printf("\n]");
}

int main(int argc, char **argv)
{
	started = time(NULL);
	if (argc != 3 && argc != 4)
		die("usage: netsim_booksim BOOKSIM WORKDIR [FIRST-LAST|open]  (cases from 0; open: the open loop only)");
	size_t ncases = sizeof cases / sizeof *cases, first = 0, last = ncases - 1;
	/* "open": the open-loop comparison only; a range: those cases only */
	int open = argc == 3 || !strcmp(argv[3], "open");
	if (argc == 4 && !strcmp(argv[3], "open"))
		first = 1, last = 0;
	else if (argc == 4 && sscanf(argv[3], "%zu-%zu", &first, &last) < 1)
		die("want a case range FIRST-LAST or open");
	if (argc == 4 && !open && !strchr(argv[3], '-'))
		last = first;
	if (last >= ncases)
		last = ncases - 1;
	const clab_netspec *base = clab_netspec_find("torus");
	double cycle = base->chunk / base->link_bytes_s;
	/* BookSim's cycles per hop: one packet per node to its neighbour
	 * on a ring (1 hop) and on a 2D torus (2 hops, no link shared) */
	bsout one, two;
	booksim(argv[1], argv[2], 5, 1, "neighbor", 1, 0, 1, &one);
	booksim(argv[1], argv[2], 5, 2, "neighbor", 1, 0, 1, &two);
	double hop_cycles = two.latency - one.latency;
	free(one.flits);
	free(two.flits);
	if (!(hop_cycles > 0))
		die("could not measure BookSim's latency per hop");
	printf("{\"cycle_s\": %.6g, \"hop_cycles\": %.3g, \"fifo_packets\": %d, \"packet_chunks\": %d, "
	       "\"vc_buf_size\": %d, \"cases\": [", cycle, hop_cycles, FIFO, PKT_CHUNKS, FIFO * PKT_CHUNKS);
	/* the matrix's summary: cases of the same traffic (exact or statistical),
	 * within 10% and 20%, the range of the ratio, per policy set */
	int kept = 0, ncmp = 0, in10[NPOL] = {0}, in20[NPOL] = {0}, in10s1 = 0, in20s1 = 0;
	double lo[NPOL], hi[NPOL], lo1 = 1e300, hi1 = 0;
	int hcmp = 0, h10 = 0, h20 = 0; /* the held-out cases */
	double hlo = 1e300, hhi = 0;
	for (int pi = 0; pi < NPOL; pi++)
		lo[pi] = 1e300, hi[pi] = 0;
	for (size_t ci = first; ci <= last; ci++) {
		const bcase *c = &cases[ci];
		size_t nodes = 1;
		for (int i = 0; i < c->n; i++)
			nodes *= (size_t)c->k;
		char traffic[4096], pattern[128];
		traffic_of(c, nodes, traffic, sizeof traffic, pattern, sizeof pattern);
		int packets = (int)(c->bytes / 512);
		int perm = strcmp(c->kind, "uniform") && strcmp(c->kind, "hotspot");
		int exact = perm && c->k % 2; /* no half-way ties, the same traffic */
		/* random traffic: one draw says little (a node drawn 20 times
		 * of 8 takes 20 packets' time), so both simulators run it
		 * under seeds 1..NSEED and the means compare (BookSim's seed,
		 * our pattern's); seed 1's run gives the counts and times */
		int nbs = perm ? 1 : NSEED, nseed = perm || c->alltoall ? 1 : NSEED;
		bsout b;
		double bcyc[NSEED], bmean = 0;
		for (int k = nbs; k >= 1; k--) {
			booksim(argv[1], argv[2], c->k, c->n, traffic, packets, 0, k, &b);
			bcyc[k - 1] = (double)b.cycles;
			bmean += (double)b.cycles / nbs;
			if (k > 1)
				free(b.flits);
		}
		clab_netspec s;
		clab_torus t;
		clab_map m;
		char shape[64];
		int err;
		if (ours_init(base, hop_cycles * cycle, c->k, c->n, &s, &t, &m, shape))
			die(clab_errmsg());
		/* each set of policies in turn, COMPARED last, each pattern
		 * seed in turn, 1 last (the run whose counts and wall time
		 * are compared): their mean */
		double cyc[NPOL], spread[NSEED], wall = 0;
		clab_net *net = NULL;
		for (int i = 0; i < NPOL; i++) {
			int pi = i == NPOL - 1 ? COMPARED : i < COMPARED ? i : i + 1;
			for (size_t j = 0; j < sizeof *policies / sizeof **policies; j++)
				if (policies[pi][j][0] && clab_netspec_set(&s, policies[pi][j][0], policies[pi][j][1]))
					die(clab_errmsg());
			cyc[pi] = 0;
			for (int k = nseed; k >= 1; k--) {
				char pk[160];
				snprintf(pk, sizeof pk, k > 1 ? "%s,seed=%d" : "%s", pattern, k);
				clab_net_free(net);
				net = clab_net_new(&t, &m, &err);
				if (!net || clab_net_configure(net, CLAB_NET_PACKET, CLAB_ROUTE_DETERMINISTIC, 1))
					die(clab_errmsg());
				double t0 = now_s();
				if (clab_net_pattern(net, pk))
					die(clab_errmsg());
				wall = now_s() - t0;
				spread[k - 1] = clab_net_totals(net).network / cycle;
				cyc[pi] += spread[k - 1] / nseed;
			}
		}
		double ours = cyc[COMPARED];
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
		double ratio = ours / bmean, ratio1 = spread[0] / bcyc[0];
		int held = ci >= N_MATRIX;
		if (held) { /* summarized apart, the compared set only */
			hcmp++;
			h10 += ratio > 0.9 && ratio < 1.1;
			h20 += ratio > 0.8 && ratio < 1.2;
			hlo = ratio < hlo ? ratio : hlo;
			hhi = ratio > hhi ? ratio : hhi;
		}
		ncmp += !c->alltoall && !held;
		if (!c->alltoall && !held) { /* the compared set on seed 1 alone */
			in10s1 += ratio1 > 0.9 && ratio1 < 1.1;
			in20s1 += ratio1 > 0.8 && ratio1 < 1.2;
			lo1 = ratio1 < lo1 ? ratio1 : lo1;
			hi1 = ratio1 > hi1 ? ratio1 : hi1;
		}
		for (int pi = 0; pi < NPOL && !c->alltoall && !held; pi++) {
			double r = cyc[pi] / bmean;
			in10[pi] += r > 0.9 && r < 1.1;
			in20[pi] += r > 0.8 && r < 1.2;
			lo[pi] = r < lo[pi] ? r : lo[pi];
			hi[pi] = r > hi[pi] ? r : hi[pi];
		}
		printf("%s\n  {\"case\": %zu, \"torus\": \"%s\", \"nodes\": %u, \"booksim_traffic\": \"%s\", \"pattern\": \"%s\", "
		       "\"packets_per_node\": %d, \"booksim_cycles\": %.1f, \"packet_engine_cycles\": %.1f, "
		       "\"time_ratio\": %.4f, \"time_ratio_seed1\": %.4f, \"within_10pct\": %s, \"within_20pct\": %s, "
		       "\"booksim_seed_cycles\": [",
		       ci > first ? "," : "", ci, shape, t.nodes, traffic, pattern, packets, bmean, ours,
		       ratio, ratio1, ratio > 0.9 && ratio < 1.1 ? "true" : "false",
		       ratio > 0.8 && ratio < 1.2 ? "true" : "false");
		for (int k = 0; k < nbs; k++)
			printf("%s%.0f", k ? ", " : "", bcyc[k]);
		printf("], \"packet_engine_seed_cycles\": [");
		for (int k = 0; k < nseed; k++)
			printf("%s%.0f", k ? ", " : "", spread[k]);
		printf("], \"policies\": [");
		for (int pi = 0; pi < NPOL; pi++) {
			printf("%s{", pi ? ", " : "");
			for (size_t j = 0; j < sizeof *policies / sizeof **policies; j++)
				if (policies[pi][j][0])
					printf("\"%s\": \"%s\", ", policies[pi][j][0], policies[pi][j][1]);
			printf("\"cycles\": %.1f, \"ratio\": %.4f}", cyc[pi], cyc[pi] / bmean);
		}
		kept += b.kept;
		printf("], \"booksim_wall_s\": %.2f, \"booksim_wall_kept\": %s, "
		       "\"packet_engine_wall_s\": %.3f, \"wall_ratio\": %.1f, \"chunks_booksim\": %llu, "
		       "\"chunks_packet_engine\": %llu, \"per_link\": %s, \"links_compared\": %llu, "
		       "\"links_differing\": %llu, \"same_traffic\": %s, \"held_out\": %s}",
		       b.wall, b.kept ? "true" : "false", wall, b.wall / wall, tot_b, tot_o, exact ? "true" : "false",
		       exact ? compared : 0, exact ? differ : 0,
		       c->alltoall ? "false" : perm ? "true" : "\"statistical\"", held ? "true" : "false");
		fflush(stdout);
		free(b.flits);
		clab_net_free(net);
		clab_map_free(&m);
	}
	printf("\n], \"summary\": [");
	for (int pi = 0; pi < NPOL; pi++)
		printf("%s\n  {\"policies\": %d, \"cases\": %d, \"within_10pct\": %d, \"within_20pct\": %d, "
		       "\"min_ratio\": %.4f, \"max_ratio\": %.4f}", pi ? "," : "", pi, ncmp, in10[pi], in20[pi],
		       ncmp ? lo[pi] : 0, hi[pi]);
	printf("\n], \"summary_seed1\": {\"cases\": %d, \"policies\": %d, \"within_10pct\": %d, \"within_20pct\": %d, "
	       "\"min_ratio\": %.4f, \"max_ratio\": %.4f}", ncmp, COMPARED, in10s1, in20s1, ncmp ? lo1 : 0, hi1);
	printf(", \"summary_held_out\": {\"cases\": %d, \"policies\": %d, \"within_10pct\": %d, \"within_20pct\": %d, "
	       "\"min_ratio\": %.4f, \"max_ratio\": %.4f}", hcmp, COMPARED, h10, h20, hcmp ? hlo : 0, hhi);
	if (open)
		open_loop(argv[1], argv[2], base, hop_cycles * cycle);
	printf("}\n");
	if (kept)
		fprintf(stderr, "netsim_booksim: %d cases' BookSim2 runs were read back from %s: their "
			"wall ratios divide an earlier sitting's time by this one's (empty it to time them again)\n",
			kept, argv[2]);
	return 0;
}
