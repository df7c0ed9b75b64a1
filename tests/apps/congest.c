/* counterlab-congest: the BG/L receiver-congestion test of the published BG/L study.
 * A central rank's node receives a message of --bytes N (default 1 MB)
 * from the neighbour across each of its first K torus links at once (X-,
 * X+, Y-, ...), for K = each step of --senders LO..HI; with --send 1 the
 * centre sends as much back to each at the same time. Each step ends at a
 * world barrier, where the live layer times the step's traffic on the
 * torus model: the waiting counters (BG/L's no-token cycles, BG/Q's
 * receive-FIFO occupancy) come from that timing, the chunks and packets
 * from the messages themselves (docs/mpi.md).
 *
 * Rank 0 prints `senders,send,EVENT,...` and a line per step: each event
 * summed over all simulated nodes (each node once). Default events: the
 * no-token cycles of the six directions. The same traffic offline:
 * counterlab-netsim --machine bgl --pattern incast:senders=LO..HI,send=S.
 *
 *   COUNTERLAB_MACHINE=bgl:torus=3x3x3,map=FILE mpirun -n 7 counterlab-congest */
#include "app.h"

#define NO_TOKEN(D) "network:::BGL_UPC_TS_" D "_LINK_AVAIL_NO_VCD0_VCD_VCBN_TOKENS"
#define CONGEST_EVENTS NO_TOKEN("XM") "," NO_TOKEN("XP") "," NO_TOKEN("YM") "," \
	NO_TOKEN("YP") "," NO_TOKEN("ZM") "," NO_TOKEN("ZP")

static const char usage[] =
	"usage: mpirun -n 7 counterlab-congest [--senders LO..HI] [--bytes N] [--send 0|1]\n"
	"                 [--center RANK] [--events LIST] [--per-node FILE]\n"
	"The neighbours across a central rank's first K torus links send to it at\n"
	"once, for each K of --senders; rank 0 prints a CSV line per step.\n\n"
	"  --senders LO..HI how many links send, one step each (1..12; default 1..5)\n"
	"  --bytes N        bytes each neighbour sends (default 1048576)\n"
	"  --send 0|1       1: the centre sends as much back at the same time (default 0)\n"
	"  --center RANK    the central rank (default 0)\n"
	COMMON_USAGE;

int main(int argc, char **argv)
{
	app a;
	app_init(&a, "counterlab-congest", usage, &argc, &argv);
	uint64_t lo = 1, hi = 5, bytes = 1u << 20, send = 0, center = 0;
	const char *events = CONGEST_EVENTS;
	for (int i = 1; i < argc; i++) {
		char *dots;
		if (app_common_opt(&a, argc, argv, &i, &events))
			continue;
		if (!strcmp(argv[i], "--senders") && i + 1 < argc) {
			char *v = argv[++i];
			if ((dots = strstr(v, ".."))) {
				*dots = 0;
				hi = app_u64(&a, "--senders", dots + 2, 1, 12);
			}
			lo = app_u64(&a, "--senders", v, 1, 12);
			if (!dots)
				hi = lo;
		} else if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
			bytes = app_u64(&a, "--bytes", argv[++i], 0, 1u << 30);
		else if (!strcmp(argv[i], "--send") && i + 1 < argc)
			send = app_u64(&a, "--send", argv[++i], 0, 1);
		else if (!strcmp(argv[i], "--center") && i + 1 < argc)
			center = app_u64(&a, "--center", argv[++i], 0, (uint64_t)a.size - 1);
		else
			app_bad_arg(&a, argv[i]);
	}
	if (lo > hi)
		app_die(&a, "%s", "--senders LO..HI wants LO <= HI");
	/* the neighbours across the centre's links 0, 1, ...: distinct nodes
	 * holding ranks, as netsim's incast pattern wants them */
	int nb[12];
	for (int l = 0; l < (int)hi; l++) {
		if (clab_mpi_neighbor((int)center, l, &nb[l]) || nb[l] < 0)
			app_die(&a, "%s", "the centre's node needs a neighbour holding a rank across each of its first --senders links (a map placing them)");
		for (int j = 0; j < l; j++)
			if (nb[j] == nb[l])
				app_die(&a, "%s", "two of the centre's links lead to one node: use a torus of 3 or more per dimension");
	}
	app_events(&a, events);
	char *buf = calloc(2 * hi + 1, bytes + 1);
	MPI_Request *req = malloc((2 * hi + 1) * sizeof *req);
	app_check(&a, !buf || !req ? "no memory" : NULL);
	if (a.me == 0) {
		printf("senders,send");
		for (int i = 0; i < a.nev; i++)
			printf(",%s", strrchr(a.names[i], ':') ? strrchr(a.names[i], ':') + 1 : a.names[i]);
		printf("\n");
	}
	for (uint64_t k = lo; k <= hi; k++) {
		int nr = 0;
		for (uint64_t s = 0; s < k; s++) {
			char *in = buf + 2 * s * (bytes + 1), *out = in + bytes + 1;
			if (a.me == (int)center) {
				MPI_Irecv(in, (int)bytes, MPI_BYTE, nb[s], 0, MPI_COMM_WORLD, &req[nr++]);
				if (send)
					MPI_Isend(out, (int)bytes, MPI_BYTE, nb[s], 1, MPI_COMM_WORLD, &req[nr++]);
			} else if (a.me == nb[s]) {
				MPI_Isend(out, (int)bytes, MPI_BYTE, (int)center, 0, MPI_COMM_WORLD, &req[nr++]);
				if (send)
					MPI_Irecv(in, (int)bytes, MPI_BYTE, (int)center, 1, MPI_COMM_WORLD,
						  &req[nr++]);
			}
		}
		MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
		uint64_t sum[APP_MAXEV];
		app_phase(&a, sum); /* its barrier ends the step's phase */
		if (a.me == 0) {
			printf("%llu,%llu", (unsigned long long)k, (unsigned long long)send);
			for (int i = 0; i < a.nev; i++)
				printf(",%llu", (unsigned long long)sum[i]);
			printf("\n");
		}
	}
	free(buf);
	free(req);
	app_finish(&a);
	return 0;
}
