/* Thread churn: 200 threads one after another, each registering with PAPI
 * and counting PAPI_TOT_CYC, then exiting with its set running, stopped,
 * destroyed, or unregistered. A thread's exit must give its hardware
 * thread back with nothing reserved, also when the next thread gets the
 * same pthread_t; the dead threads' sets are freed by the main thread at
 * the end where PAPI lets it (PAPI_cleanup_eventset from another thread). */
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
