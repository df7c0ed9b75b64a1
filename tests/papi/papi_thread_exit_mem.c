/* Threads that exit without cleaning up: 2000 threads (in batches, so a
 * simulated node's hardware threads suffice) each register with PAPI,
 * make an event set, start it and exit without stopping, cleaning up or
 * unregistering. PAPI keeps its record of such a thread (and the set)
 * until PAPI_shutdown, as it does with its own components; what we keep
 * for each must be small, and after PAPI_shutdown nothing of ours may
 * stay. Heap bytes in use (mallinfo2, every arena) are compared; no
 * timing.
 *
 * PAPI_shutdown itself frees the event sets of its caller only: those of
 * threads that exited stay, PAPI's record of each (create_EventSet and
 * the arrays _papi_hwi_assign_eventset sizes by the component's 64
 * counters) 11,032 bytes in 9 blocks, about 11,270 with malloc's chunk
 * headers, as valgrind's leak check shows (it finds nothing of ours). */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <string.h>
#include "check.h"

#ifndef THREADS
#define THREADS 2000
#endif
#define BATCH 32
/* bytes a thread may leave until PAPI_shutdown: PAPI's records of it and
 * of its set (about 11,700) and ours (set, backend set and thread handle:
 * about 1,200; it was 9,300 with the set's fixed 64-event arrays) */
#define PER_THREAD_MAX 14000
/* bytes that may stay after PAPI_shutdown: PAPI's set records (above),
 * nothing of ours (which would add 1,200) */
#define LEFT_PER_THREAD_MAX 11700

static size_t heap(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

static void *leaver(void *arg)
{
	(void)arg;
	CHECK_PAPI(PAPI_register_thread());
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_add_event(es, PAPI_TOT_CYC));
	CHECK_PAPI(PAPI_start(es));
	return NULL; /* no stop, no cleanup, no PAPI_unregister_thread */
}

static void threads(int n)
{
	for (int done = 0; done < n; done += BATCH) {
		pthread_t th[BATCH];
		for (int i = 0; i < BATCH; i++)
			CHECK(pthread_create(&th[i], NULL, leaver, NULL) == 0, "pthread_create");
		for (int i = 0; i < BATCH; i++)
			CHECK(pthread_join(th[i], NULL) == 0, "pthread_join");
	}
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual", 1);
	/* the first threads warm what stays for the process (glibc's arenas and
	 * stack cache, PAPI's tables): measure from a steady state */
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	CHECK(rc == PAPI_VER_CURRENT, "PAPI_library_init: %d", rc);
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	threads(BATCH);
	PAPI_shutdown();

	size_t start = heap();
	rc = PAPI_library_init(PAPI_VER_CURRENT);
	CHECK(rc == PAPI_VER_CURRENT, "PAPI_library_init: %d", rc);
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	size_t inited = heap();
	threads(THREADS);
	size_t before = heap();
	PAPI_shutdown();
	size_t after = heap();
	long per = (long)(before - inited) / THREADS;
	long left = (long)(after - start);
	printf("heap: %zu at start, %zu after PAPI_library_init, %zu after %d exited threads "
	       "(%ld bytes each), %zu after PAPI_shutdown (%+ld, %ld per thread)\n",
	       start, inited, before, THREADS, per, after, left, left / THREADS);
	CHECK(per <= PER_THREAD_MAX, "each exited thread keeps %ld bytes until PAPI_shutdown, "
	      "more than %d", per, PER_THREAD_MAX);
	CHECK(left <= (long)LEFT_PER_THREAD_MAX * THREADS,
	      "%ld bytes (%ld per thread) stay after PAPI_shutdown, more than %d per thread",
	      left, left / THREADS, LEFT_PER_THREAD_MAX);
	printf("PASSED\n");
	return 0;
}
