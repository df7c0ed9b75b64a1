/* The same traffic sent two ways, for tests/cli/test_live_mpi.sh: with
 * "blocking", MPI_Alltoall, MPI_Allreduce, MPI_Bcast and a ring of
 * MPI_Sendrecv; with "nonblocking", MPI_Ialltoall, MPI_Iallreduce,
 * MPI_Ibcast (each waited for) and the ring as MPI_Put into a window
 * between fences. libcounterlab-mpi must count the same messages both
 * ways: --per-node FILE gets the same table.
 *   mpirun -n 8 ways blocking|nonblocking [--bytes N] [--per-node FILE] */
#include "../apps/app.h"

static const char usage[] =
	"usage: mpirun -n N ways blocking|nonblocking [--bytes N] [--events LIST] [--per-node FILE]\n"
	COMMON_USAGE;

int main(int argc, char **argv)
{
	app a;
	app_init(&a, "ways", usage, &argc, &argv);
	const char *events = APP_EVENTS;
	int nonblocking = -1;
	uint64_t bytes = 1024;
	for (int i = 1; i < argc; i++) {
		if (app_common_opt(&a, argc, argv, &i, &events))
			continue;
		if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
			bytes = app_u64(&a, "--bytes", argv[++i], 1, 1u << 20);
		else if (!strcmp(argv[i], "blocking") || !strcmp(argv[i], "nonblocking"))
			nonblocking = argv[i][0] == 'n';
		else
			app_bad_arg(&a, argv[i]);
	}
	if (nonblocking < 0)
		app_die(&a, "%s", "blocking or nonblocking?");
	app_events(&a, events);
	int n = a.size, me = a.me, to = (me + 1) % n, from = (me + n - 1) % n;
	char *s = calloc(bytes, (size_t)n), *r = calloc(bytes, (size_t)n);
	double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
	if (!s || !r)
		app_fail(&a, "%s", "no memory");
	MPI_Win win;
	MPI_Win_create(r, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	if (nonblocking) {
		MPI_Request q[3];
		MPI_Ialltoall(s, (int)bytes, MPI_BYTE, r, (int)bytes, MPI_BYTE, MPI_COMM_WORLD, &q[0]);
		MPI_Iallreduce(x, y, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q[1]);
		MPI_Ibcast(x, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD, &q[2]);
		MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
		MPI_Win_fence(0, win);
		MPI_Put(s, (int)bytes, MPI_BYTE, to, 0, (int)bytes, MPI_BYTE, win);
		MPI_Win_fence(0, win);
	} else {
		MPI_Alltoall(s, (int)bytes, MPI_BYTE, r, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
		MPI_Allreduce(x, y, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Bcast(x, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		MPI_Sendrecv(s, (int)bytes, MPI_BYTE, to, 0, r, (int)bytes, MPI_BYTE, from, 0,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	uint64_t sum[APP_MAXEV];
	app_phase(&a, sum);
	MPI_Win_free(&win);
	free(s);
	free(r);
	app_finish(&a);
	return 0;
}
