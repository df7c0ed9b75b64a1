/* When a count made on one host shows on another (docs/mpi.md, "Several
 * hosts"). Rank 0 sends rank 1 one 8-byte message; the receive side of
 * the link (PEVT_NW_USER_PP_RECV of rank 1's node) is counted by the
 * sender, on its host. Rank 1 reads it once the message has arrived,
 * after a barrier the layer does not see (PMPI_Barrier), and after the
 * program's world MPI_Barrier; rank 0 reads the chunks it sent. Rank 1
 * prints "recv,BEFORE,PMPI,WORLD" and rank 0 "sent,N": on one host
 * 1,1,1; with the ranks on two hosts 0,0,1.
 *   mpirun -n 2 visibility   (BG/Q, ppn 1: the ranks on two nodes) */
#include "../apps/app.h"

static const char usage[] = "usage: mpirun -n 2 visibility\n"
			     "  rank 0 sends rank 1 one message; each prints when the count shows\n";

int main(int argc, char **argv)
{
	app a;
	char b[8] = {0};
	long long v[3] = {0};
	app_init(&a, "visibility", usage, &argc, &argv);
	if (a.size != 2)
		app_die(&a, "%s", "runs on 2 ranks (mpirun -n 2)");
	app_events(&a, a.me ? "network:::PEVT_NW_USER_PP_RECV" : "network:::PEVT_NW_USER_PP_SENT");
	if (a.me == 0) {
		MPI_Send(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
		PAPI_read(a.es, v);
		printf("sent,%lld\n", v[0] - a.base[0]);
		fflush(stdout);
	} else {
		MPI_Recv(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		PAPI_read(a.es, v);
	}
	PMPI_Barrier(MPI_COMM_WORLD);
	if (a.me == 1)
		PAPI_read(a.es, v + 1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (a.me == 1) {
		PAPI_read(a.es, v + 2);
		printf("recv,%lld,%lld,%lld\n", v[0] - a.base[0], v[1] - a.base[0], v[2] - a.base[0]);
	}
	app_finish(&a);
	return 0;
}
