/* Thread churn: 200 threads one after another, each registering with PAPI
 * and counting PAPI_TOT_CYC, then exiting with its set running, stopped,
 * destroyed, or unregistered. A thread's exit must give its hardware
 * thread back with nothing reserved, also when the next thread gets the
 * same pthread_t; the dead threads' sets are freed by the main thread at
 * the end where PAPI lets it (PAPI_cleanup_eventset from another thread).
 * Then more threads at once than the machine has hardware threads. */
#include <pthread.h>
#include <counterlab/sim.h>
#include "check.h"

#define N 200
static int sets[N];

static void *one(void *arg)
{
	int i = (int)(long)arg;
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_register_thread());
	CHECK_PAPI(PAPI_create_eventset(&es));
	int rc = PAPI_add_named_event(es, "PAPI_TOT_CYC");
	CHECK(rc == PAPI_OK, "thread %d: add PAPI_TOT_CYC: %s", i, PAPI_strerror(rc));
	rc = PAPI_add_named_event(es, "PAPI_TOT_INS");
	CHECK(rc == PAPI_OK, "thread %d: add PAPI_TOT_INS: %s", i, PAPI_strerror(rc));
	rc = PAPI_start(es);
	CHECK(rc == PAPI_OK, "thread %d: start: %s", i, PAPI_strerror(rc));
	CHECK(clab_sim_advance(10000) == 0, "advance");
	long long v[2];
	CHECK_PAPI(PAPI_read(es, v));
	CHECK(v[0] > 10000 - 800, "thread %d counted %lld cycles", i, v[0]); /* reads lag a scan */
	sets[i] = PAPI_NULL;
	switch (i % 4) {
	case 0: /* exits counting */
		sets[i] = es;
		break;
	case 1: /* exits stopped */
		CHECK_PAPI(PAPI_stop(es, v));
		sets[i] = es;
		break;
	case 2: /* cleans up */
		CHECK_PAPI(PAPI_stop(es, v));
		drop_set(es);
		break;
	case 3: /* cleans up and unregisters */
		CHECK_PAPI(PAPI_stop(es, v));
		drop_set(es);
		CHECK_PAPI(PAPI_unregister_thread());
		break;
	}
	return NULL;
}

/* 68 threads at once on BG/Q's 68 hardware threads (17 cores x 4), one
 * of which the main thread holds: 67 register, the last learns that none
 * is left. */
#define HW 68
static pthread_barrier_t all_in;
static int reg_rc[HW];

static void *crowd(void *arg)
{
	int i = (int)(long)arg;
	reg_rc[i] = PAPI_register_thread();
	pthread_barrier_wait(&all_in); /* nobody leaves before all have tried */
	return NULL;
}

static void *one_more(void *arg)
{
	(void)arg;
	CHECK_PAPI(PAPI_register_thread());
	CHECK_PAPI(PAPI_unregister_thread());
	return NULL;
}

static void crowd_out(void)
{
	pthread_t t[HW];
	CHECK(pthread_barrier_init(&all_in, NULL, HW) == 0, "barrier");
	for (long i = 0; i < HW; i++)
		CHECK(pthread_create(&t[i], NULL, crowd, (void *)i) == 0, "create");
	int ok = 0, full = 0;
	for (int i = 0; i < HW; i++) {
		CHECK(pthread_join(t[i], NULL) == 0, "join");
		ok += reg_rc[i] == PAPI_OK;
		full += reg_rc[i] == PAPI_ECNFLCT;
	}
	CHECK(ok == HW - 1 && full == 1, "%d threads: %d registered, %d told no hardware thread is left", HW, ok, full);
	/* their exits gave the hardware threads back */
	pthread_t u;
	CHECK(pthread_create(&u, NULL, one_more, NULL) == 0 && pthread_join(u, NULL) == 0, "one more");
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=0,activity=compute", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	for (int i = 0; i < N; i++) {
		pthread_t t;
		CHECK(pthread_create(&t, NULL, one, (void *)(long)i) == 0, "create");
		CHECK(pthread_join(t, NULL) == 0, "join");
	}
	crowd_out();
	/* the main thread counts too, on a hardware thread of its own */
	int es = PAPI_NULL;
	const char *ev[] = {"PAPI_TOT_CYC"};
	es = make_set(ev, 1);
	CHECK_PAPI(PAPI_start(es));
	long long v;
	CHECK_PAPI(PAPI_stop(es, &v));
	drop_set(es);
	PAPI_shutdown();
	printf("PASSED\n");
	return 0;
}
