/* The cost of libcounterlab-mpi per message: a plain MPI ping-pong
 * between ranks 0 and 1 (no PAPI), run with and without the interposer
 * LD_PRELOADed (bench/run.sh). Prints one JSON object: for each size, the
 * least one-way time per message over `runs` runs of `reps` round trips.
 *   mpirun -n 2 pmpi [REPS RUNS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, reps = argc > 1 ? atoi(argv[1]) : 20000, runs = argc > 2 ? atoi(argv[2]) : 5;
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
			double t = MPI_Wtime();
			for (int i = 0; i < r && me < 2; i++) {
				if (me == 0) {
					MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
					MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				} else {
					MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
				}
			}
			t = (MPI_Wtime() - t) / (2.0 * r);
			best = t < best ? t : best;
		}
		if (me == 0)
			printf(",\"ns_per_message_%d\":%.1f", n, best * 1e9);
	}
	if (me == 0)
		printf("}\n");
	free(buf);
	MPI_Finalize();
	return 0;
}
