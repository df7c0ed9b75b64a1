/* libcounterlab-mpi with several threads per rank and after the end, for
 * tests/cli/test_live_mpi.sh. Every rank's two threads send N eager
 * messages each at once (MPI_THREAD_MULTIPLE; thread 0 to the next rank,
 * thread 1 to the previous), while thread 1 also runs barriers on a
 * duplicate of the world and thread 0 allreduces on the world; then an
 * MPI_Alltoallv whose blocks are empty but the one to the next rank. A
 * rank's node counts its own messages (ppn 1): the same messages
 * injected as when the two senders take turns (first round), at least
 * 2N + 1 (the empty blocks are no messages), and the same after
 * MPI_Finalize as before. Prints "ok" or what differs; exit 1 on a
 * difference.
 *   mpirun -n P threads [N] */
#include <mpi.h>
#include <papi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int n = 20000, me, size;
static MPI_Comm dup;

static void *sender(void *arg)
{
	int t = (int)(long)arg, to = (me + (t ? size - 1 : 1)) % size;
	char buf[64] = {0};
	double x = 1, y;
	for (int i = 0; i < n; i++) {
		MPI_Request q;
		MPI_Isend(buf, t ? 40 : 8, MPI_BYTE, to, t, MPI_COMM_WORLD, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		if (i % 1000 == 0) { /* collectives of two communicators at once */
			if (t)
				MPI_Barrier(dup);
			else
				MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		}
	}
	return NULL;
}

static void *receiver(void *arg)
{
	int t = (int)(long)arg, from = (me + (t ? 1 : size - 1)) % size;
	char buf[64];
	for (int i = 0; i < n; i++)
		MPI_Recv(buf, sizeof buf, MPI_BYTE, from, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return NULL;
}

int main(int argc, char **argv)
{
	int prov, es = PAPI_NULL, bad = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		n = atoi(argv[1]);
	if (prov != MPI_THREAD_MULTIPLE || size < 3 ||
	    PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    PAPI_thread_init((unsigned long (*)(void))pthread_self) != PAPI_OK ||
	    PAPI_create_eventset(&es) != PAPI_OK ||
	    PAPI_add_named_event(es, "io:::PEVT_MU_MSG_INJ") != PAPI_OK) {
		if (!me)
			fprintf(stderr, "threads: needs MPI_THREAD_MULTIPLE, 3 ranks or more and PAPI's io component\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	long long v[3], v2;
	PAPI_start(es);
	PAPI_read(es, &v[0]);
	for (int round = 0; round < 2; round++) { /* senders in turn, then together */
		pthread_t t[4];
		for (long i = 0; i < 2; i++)
			pthread_create(&t[2 + i], NULL, receiver, (void *)i);
		for (long i = 0; i < 2; i++) {
			pthread_create(&t[i], NULL, sender, (void *)i);
			if (!round)
				pthread_join(t[i], NULL);
		}
		for (int i = round ? 0 : 2; i < 4; i++)
			pthread_join(t[i], NULL);
		int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc),
		    *displs = calloc((size_t)size, sizeof *displs);
		char sb[8] = {0}, rb[8];
		sc[(me + 1) % size] = 8;
		rc[(me + size - 1) % size] = 8;
		MPI_Alltoallv(sb, sc, displs, MPI_BYTE, rb, rc, displs, MPI_BYTE, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		free(sc), free(rc), free(displs);
		PAPI_read(es, &v[round + 1]);
	}
	MPI_Comm_free(&dup);
	MPI_Finalize();
	PAPI_read(es, &v2);
	long long turns = v[1] - v[0], together = v[2] - v[1];
	if (together != turns || turns < 2LL * n + 1) {
		printf("rank %d: %lld messages injected with the senders together, %lld in turns (at least %lld)\n",
		       me, together, turns, 2LL * n + 1);
		bad = 1;
	}
	if (v2 != v[2]) {
		printf("rank %d: %lld messages before MPI_Finalize, %lld after\n", me, v[2] - v[0], v2 - v[0]);
		bad = 1;
	}
	if (!bad)
		printf("rank %d ok: %lld messages each round\n", me, turns);
	return bad;
}
