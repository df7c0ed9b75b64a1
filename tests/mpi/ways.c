/* The same traffic sent two ways, for tests/cli/test_live_mpi.sh: with
 * "blocking", MPI_Alltoall, MPI_Allreduce, MPI_Bcast and a ring of
 * MPI_Sendrecv; with "nonblocking", MPI_Ialltoall, MPI_Iallreduce,
 * MPI_Ibcast (each waited for) and the ring as MPI_Put into a window
 * between fences. libcounterlab-mpi must count the same messages both
 * ways: --per-node FILE gets the same table.
 * "inter": between the even and the odd ranks (an inter-communicator of
 * 4 and 4), a broadcast from world rank 0, a reduction to world rank 3
 * and an all-to-all; "intersends": the messages Open MPI sends for them
 * (the root and the other group's leader exchange one, the other
 * group's members a binomial tree from their leader; each rank one to
 * every member of the other group), as point-to-point sends.
 *   mpirun -n 8 ways blocking|nonblocking|inter|intersends [--bytes N] [--per-node FILE] */
#include "../apps/app.h"

static const char usage[] =
	"usage: mpirun -n N ways blocking|nonblocking|inter|intersends [--bytes N] [--events LIST] [--per-node FILE]\n"
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
		else if (!strcmp(argv[i], "inter") || !strcmp(argv[i], "intersends"))
			nonblocking = strlen(argv[i]) == 5 ? 2 : 3;
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
	if (nonblocking >= 2 && n != 8)
		app_die(&a, "%s", "inter and intersends want 8 ranks");
	if (nonblocking == 2) {
		MPI_Comm side, other;
		MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &side);
		MPI_Intercomm_create(side, 0, MPI_COMM_WORLD, 1 - me % 2, 7, &other);
		int lr;
		MPI_Comm_rank(side, &lr);
		MPI_Bcast(s, (int)bytes, MPI_BYTE, me % 2 ? 0 : lr ? MPI_PROC_NULL : MPI_ROOT, other);
		MPI_Reduce(x, y, 8, MPI_DOUBLE, MPI_SUM, me % 2 ? (lr == 1 ? MPI_ROOT : MPI_PROC_NULL) : 1, other);
		MPI_Alltoall(s, 1, MPI_BYTE, r, 1, MPI_BYTE, other);
		MPI_Comm_free(&other);
		MPI_Comm_free(&side);
	} else if (nonblocking == 3) {
		/* world ranks: even side 0 2 4 6 (local 0-3), odd side 1 3 5 7 */
		static const int bcast[][2] = {{0, 1}, {1, 3}, {1, 5}, {3, 7}};
		static const int reduce[][2] = {{2, 0}, {4, 0}, {6, 4}, {0, 3}};
		for (int k = 0; k < 4; k++) {
			if (me == bcast[k][0])
				MPI_Send(s, (int)bytes, MPI_BYTE, bcast[k][1], 0, MPI_COMM_WORLD);
			if (me == bcast[k][1])
				MPI_Recv(r, (int)bytes, MPI_BYTE, bcast[k][0], 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		for (int k = 0; k < 4; k++) {
			if (me == reduce[k][0])
				MPI_Send(x, 8, MPI_DOUBLE, reduce[k][1], 1, MPI_COMM_WORLD);
			if (me == reduce[k][1])
				MPI_Recv(y, 8, MPI_DOUBLE, reduce[k][0], 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		MPI_Request q[8];
		for (int k = 0; k < 4; k++) {
			int peer = 2 * k + 1 - me % 2;
			MPI_Isend(s + k, 1, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &q[2 * k]);
			MPI_Irecv(r + k, 1, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &q[2 * k + 1]);
		}
		MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
	} else if (nonblocking) {
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
