/* A PAPI program counting on four components at once (core, l2, io,
 * kernel), first in one thread, then in four. The threads run a rate
 * profile for C cycles and each sends one message; every count follows
 * from that: the L2 lookups are the L1p misses of all threads, the message
 * unit saw every thread's message, the kernel counters are the thread's own
 * system calls and timer ticks. */
#include <pthread.h>
#include <string.h>
#include <counterlab/sim.h>
#include "check.h"

#define C 10000000LL        /* cycles each thread runs */
#define FIT 1000000LL       /* kernel.fit_period below */
#define L1P_MISS (C / 100)  /* rates of the profile */
#define L2_MISS (C / 500)
#define SYSCALLS (C / 10000)
#define NTHREADS 4

enum { CORE, L2, IO, KERNEL, NCOMP };
static const char *const events[NCOMP][4] = {
	{"PAPI_TOT_CYC", "core:::PEVT_L1P_BAS_MISS", "PAPI_TOT_INS", NULL},
	{"l2:::L2_ACCESSES", "l2:::PEVT_L2_MISSES", "l2:::PEVT_L2_HITS", NULL},
	{"io:::PEVT_MU_MSG_INJ", "io:::PEVT_MU_PKT_INJ", "io:::PEVT_PCIE_INB_RDS", NULL},
	{"kernel:::PEVT_CNKHWT_SYSCALL", "kernel:::PEVT_CNKHWT_FIT",
	 "kernel:::PEVT_CNKNODE_MUINT", NULL},
};

static pthread_barrier_t barrier;
static long long l1p_total; /* core counts of all threads, summed */

static long long packets(long long bytes) { return (bytes + 511) / 512; }

/* One thread's part: four event sets, C cycles of the profile, a message
 * of `bytes`, then its counts against what `nthreads` threads caused. */
static void run(int nthreads, long long bytes, long long all_packets)
{
	int es[NCOMP];
	long long v[NCOMP][4];
	for (int c = 0; c < NCOMP; c++) {
		es[c] = PAPI_NULL;
		CHECK_PAPI(PAPI_create_eventset(&es[c]));
		for (int i = 0; events[c][i]; i++)
			CHECK(PAPI_add_named_event(es[c], events[c][i]) == PAPI_OK,
			      "add %s", events[c][i]);
	}
	for (int c = 0; c < NCOMP; c++)
		CHECK_PAPI(PAPI_start(es[c]));
	if (nthreads > 1)
		pthread_barrier_wait(&barrier);
	CHECK(clab_sim_advance(C) == 0, "advance");
	CHECK(clab_sim_message(CLAB_MSG_SEND, (uint64_t)bytes) == 0, "message");
	if (nthreads > 1)
		pthread_barrier_wait(&barrier); /* every thread has done its part */
	for (int c = 0; c < NCOMP; c++)
		CHECK_PAPI(PAPI_stop(es[c], v[c]));

	/* PAPI_stop reports a last read: the PUnit's values as of the last
	 * 800-cycle UPC_C scan, all taken at that one point */
	long long cyc = v[CORE][0];
	CHECK(cyc <= C && cyc > C - 800, "PAPI_TOT_CYC %lld, want (%lld, %lld]", cyc, C - 800, C);
	CHECK(v[CORE][1] == cyc / 100, "L1p misses %lld, want %lld", v[CORE][1], cyc / 100);
	CHECK(v[CORE][2] == cyc / 4, "PAPI_TOT_INS %lld, want %lld", v[CORE][2], cyc / 4);
	__atomic_fetch_add(&l1p_total, v[CORE][1], __ATOMIC_SEQ_CST);
	if (nthreads > 1)
		pthread_barrier_wait(&barrier);
	/* the L2 and I/O units count node-wide and read current values */
	long long l1p = __atomic_load_n(&l1p_total, __ATOMIC_SEQ_CST);
	CHECK(v[L2][0] == nthreads * L1P_MISS, "L2_ACCESSES %lld, want %lld",
	      v[L2][0], nthreads * L1P_MISS);
	CHECK(v[L2][0] - l1p >= 0 && v[L2][0] - l1p <= nthreads * 8,
	      "L2_ACCESSES %lld vs the threads' L1p misses at their last scans %lld",
	      v[L2][0], l1p);
	CHECK(v[L2][1] == nthreads * L2_MISS, "PEVT_L2_MISSES %lld", v[L2][1]);
	CHECK(v[L2][2] == nthreads * (L1P_MISS - L2_MISS), "PEVT_L2_HITS %lld", v[L2][2]);
	CHECK(v[IO][0] == nthreads, "PEVT_MU_MSG_INJ %lld, want %d", v[IO][0], nthreads);
	CHECK(v[IO][1] == all_packets, "PEVT_MU_PKT_INJ %lld, want %lld", v[IO][1], all_packets);
	CHECK(v[IO][2] == 0, "PCIe on a compute node %lld", v[IO][2]);
	CHECK(v[KERNEL][0] == SYSCALLS, "syscalls %lld, want %lld", v[KERNEL][0], SYSCALLS);
	CHECK(v[KERNEL][1] == C / FIT, "FIT ticks %lld, want %lld", v[KERNEL][1], C / FIT);
	CHECK(v[KERNEL][2] == 0, "MU interrupts while polling %lld", v[KERNEL][2]);
	for (int c = 0; c < NCOMP; c++) {
		CHECK_PAPI(PAPI_cleanup_eventset(es[c]));
		CHECK_PAPI(PAPI_destroy_eventset(&es[c]));
	}
}

static void *thread_main(void *arg)
{
	long long i = (long long)(intptr_t)arg, all = 0;
	for (int k = 0; k < NTHREADS; k++)
		all += packets(1000 * (k + 1));
	run(NTHREADS, 1000 * (i + 1), all);
	CHECK_PAPI(PAPI_unregister_thread());
	return NULL;
}

int main(void)
{
	use_activity("[phase only]\ncycles = 0\nPEVT_INST_XU_IADD = 0.25\n"
		     "PEVT_L1P_BAS_MISS = 0.01\nPEVT_L2_MISSES = 0.002\n"
		     "PEVT_CNKHWT_SYSCALL = 0.0001\n", ",kernel.fit_period=1000000");
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	run(1, 5000, packets(5000));
	printf("one thread, four components: PASSED\n");
	fflush(stdout);

	l1p_total = 0;
	pthread_barrier_init(&barrier, NULL, NTHREADS);
	pthread_t tid[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&tid[i], NULL, thread_main, (void *)(intptr_t)i) == 0,
		      "pthread_create");
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(tid[i], NULL);
	printf("four threads, four components each: PASSED\n");
	PAPI_shutdown();
	printf("papi_units: PASSED\n");
	return 0;
}
