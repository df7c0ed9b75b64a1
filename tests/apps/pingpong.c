/* counterlab-pingpong: ranks 0 and 1 exchange a message of --bytes N,
 * --iters K times (rank 0 sends, rank 1 answers; with --one-way rank 1
 * does not answer, as in the published sonar test); the map decides their
 * nodes (with one rank per node they are neighbours along the last
 * dimension). Rank 0 prints one CSV line with the counters of its node's
 * links: BG/Q's point-to-point chunks sent and packets received.
 * --fill zero|random fills the buffer: BG/Q's counts do not depend on the
 * content; Gemini's do (payload compression: a zero payload's phits are
 * fewer).
 * On Gemini (a network unit with LINK_HOST_PACKETS) the default is the
 * sender's router: what it took in from its NICs (TX) and from the
 * network (RX: the other side's responses), in packets and phits.
 *
 *   mpirun -n 2 counterlab-pingpong --bytes 4096 --iters 10 */
#include "app.h"

static const char usage[] =
	"usage: mpirun -n 2 counterlab-pingpong [--bytes N] [--fill zero|random] [--iters K]\n"
	"                 [--one-way] [--events LIST] [--per-node FILE]\n"
	"Ranks 0 and 1 exchange a message; rank 0 prints one CSV line with its node's\n"
	"network counters.\n\n"
	"  --bytes N        message size in bytes (default 8)\n"
	"  --fill zero|random  the message's content (default zero; Gemini compresses)\n"
	"  --iters K        round trips (default 1)\n"
	"  --one-way        rank 1 does not answer\n"
	COMMON_USAGE;

int main(int argc, char **argv)
{
	app a;
	app_init(&a, "counterlab-pingpong", usage, &argc, &argv);
	uint64_t bytes = 8, iters = 1;
	int oneway = 0;
	const char *fill = "zero", *events = APP_EVENTS;
	for (int i = 1; i < argc; i++) {
		if (app_common_opt(&a, argc, argv, &i, &events))
			continue;
		if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
			bytes = app_u64(&a, "--bytes", argv[++i], 0, 1u << 30);
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = app_u64(&a, "--iters", argv[++i], 1, 1u << 30);
		else if (!strcmp(argv[i], "--one-way"))
			oneway = 1;
		else if (!strcmp(argv[i], "--fill") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "zero") || !strcmp(argv[i + 1], "random")))
			fill = argv[++i];
		else
			app_bad_arg(&a, argv[i]);
	}
	if (a.size < 2)
		app_die(&a, "%s", "needs 2 ranks or more (mpirun -n 2)");
	/* Gemini's tiles count what enters them: TX on the host tiles, RX on
	 * the network tiles (traffic bytes = 3 x phits) */
	int code, gemini = events == (const char *)APP_EVENTS &&
		PAPI_event_name_to_code("network:::LINK_HOST_PACKETS", &code) == PAPI_OK;
	if (gemini)
		events = "network:::LINK_HOST_PACKETS,network:::LINK_HOST_TRAFFIC,"
			 "network:::LINK_NET_PACKETS,network:::LINK_NET_TRAFFIC";
	app_events(&a, events);
	unsigned char *buf = malloc(bytes + 1);
	app_check(&a, !buf ? "no memory for the message" : NULL);
	srand(1);
	for (uint64_t i = 0; i < bytes; i++)
		buf[i] = !strcmp(fill, "zero") ? 0 : (unsigned char)rand();
	for (uint64_t it = 0; it < iters && a.me < 2; it++) {
		if (a.me == 0) {
			MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			if (!oneway)
				MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (!oneway)
				MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	uint64_t sum[APP_MAXEV];
	app_phase(&a, sum);
	/* two ranks on one node: their messages never reach a link */
	uint32_t peer = a.node;
	if (a.me == 1)
		PMPI_Send(&a.node, 1, MPI_UINT32_T, 0, 1, MPI_COMM_WORLD);
	else if (a.me == 0)
		PMPI_Recv(&peer, 1, MPI_UINT32_T, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (a.me == 0 && peer == a.node)
		fprintf(stderr, "counterlab-pingpong: ranks 0 and 1 are both on simulated node %u: "
			"their messages cross no link, so link counters read 0 (one rank per node: "
			"the machine spec's ppn=1)\n", a.node);
	if (a.me == 0 && gemini) {
		const uint64_t *v = &a.total[(size_t)a.node * a.nev];
		printf("bytes,fill,iters,tx_packets,tx_phits,rx_packets,rx_phits\n"
		       "%llu,%s,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)bytes, fill,
		       (unsigned long long)iters, (unsigned long long)v[0], (unsigned long long)v[1] / 3,
		       (unsigned long long)v[2], (unsigned long long)v[3] / 3);
	} else if (a.me == 0) {
		/* rank 0's own node: its row of the totals */
		printf("bytes,fill,iters");
		for (int i = 0; i < a.nev; i++)
			printf(",%s", strrchr(a.names[i], ':') ? strrchr(a.names[i], ':') + 1 : a.names[i]);
		printf("\n%llu,%s,%llu", (unsigned long long)bytes, fill, (unsigned long long)iters);
		for (int i = 0; i < a.nev; i++)
			printf(",%llu", (unsigned long long)a.total[(size_t)a.node * a.nev + i]);
		printf("\n");
	}
	free(buf);
	app_finish(&a);
	return 0;
}
