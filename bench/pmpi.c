/* The cost of libcounterlab-mpi per message: a plain MPI ping-pong
 * between ranks 0 and 1 (no PAPI), run with and without the interposer
 * LD_PRELOADed (bench/run.sh). Prints one JSON object: for each size, the
 * least one-way time per message over `runs` runs of `reps` round trips;
 * then paired blocks of BLOCK round trips of 8 bytes, one through
 * PMPI_Send (never interposed) and one through MPI_Send, alternating
 * PAIRS times in this process: the median over the pairs of the
 * difference per message is what the interposer adds (0 give or take the
 * noise without it), a figure that the drift of a loaded machine or of a
 * slow network moves far less than a difference of separate runs.
 *   mpirun -n 2 pmpi [REPS RUNS [PAIRS BLOCK]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* r round trips of n bytes, through the interposer (MPI_) or around it */
static double trips(int me, char *buf, int n, int r, int layer)
{
	int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = layer ? MPI_Send : PMPI_Send;
	double t = MPI_Wtime();
	for (int i = 0; i < r && me < 2; i++) {
		if (me == 0) {
			send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t) / (2.0 * r);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, reps = argc > 1 ? atoi(argv[1]) : 20000, runs = argc > 2 ? atoi(argv[2]) : 5;
	int pairs = argc > 3 ? atoi(argv[3]) : 200, blk = argc > 4 ? atoi(argv[4]) : 100;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	static const int sizes[] = {8, 65536};
	char *buf = calloc(65536, 1);
	if (me == 0)
		printf("{\"reps\":%d,\"runs\":%d", reps, runs);
	for (int k = 0; k < 2; k++) {
		double best = 1e30;
		int n = sizes[k], r = k ? reps / 10 : reps;
		for (int run = 0; run < runs; run++) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t = trips(me, buf, n, r, 1);
			best = t < best ? t : best;
		}
		if (me == 0)
			printf(",\"ns_per_message_%d\":%.1f", n, best * 1e9);
	}
	/* paired blocks, the order within a pair alternating */
	double *d = malloc((size_t)pairs * sizeof *d);
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; d && i < pairs; i++) {
		int first = i & 1;
		double a = trips(me, buf, 8, blk, first), b = trips(me, buf, 8, blk, !first);
		d[i] = (first ? a - b : b - a) * 1e9;
	}
	if (d && pairs > 0) {
		qsort(d, (size_t)pairs, sizeof *d, cmp);
		if (me == 0)
			printf(",\"pairs\":%d,\"block\":%d,\"paired_added_ns_8\":%.1f", pairs, blk,
			       d[pairs / 2]);
	}
	free(d);
	if (me == 0)
		printf("}\n");
	free(buf);
	MPI_Finalize();
	return 0;
}
