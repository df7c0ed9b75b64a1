/* 64 threads (the node's 68 hardware threads nearly full: four to a core)
 * each multiplex 8 core events. Every thread must add, start, count and
 * stop: multiplexed groups leave sibling threads' counter groups to them. */
#include <pthread.h>
#include <counterlab/sim.h>
#include "check.h"

#define N 64
static const char *const names[8] = {
	"PAPI_TOT_CYC", "PEVT_INST_XU_IADD", "PEVT_INST_XU_ILOG", "PEVT_INST_XU_ICMP",
	"PEVT_INST_XU_LD", "PEVT_INST_XU_ST", "PEVT_INST_XU_BRC", "PEVT_INST_QFPU_FMA",
};
static pthread_barrier_t added;

static void *one(void *arg)
{
	int i = (int)(long)arg, es = PAPI_NULL, rc;
	CHECK_PAPI(PAPI_register_thread());
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_assign_eventset_component(es, 0));
	CHECK_PAPI(PAPI_set_multiplex(es));
	for (int k = 0; k < 8; k++) {
		rc = PAPI_add_named_event(es, names[k]);
		CHECK(rc == PAPI_OK, "thread %d: add %s: %s", i, names[k], PAPI_strerror(rc));
	}
	pthread_barrier_wait(&added);
	rc = PAPI_start(es);
	CHECK(rc == PAPI_OK, "thread %d: start: %s", i, PAPI_strerror(rc));
	CHECK(clab_sim_advance(100000000) == 0, "advance");
	long long v[8];
	CHECK_PAPI(PAPI_stop(es, v));
	for (int k = 0; k < 8; k++)
		CHECK(v[k] > 0, "thread %d: %s counted %lld", i, names[k], v[k]);
	CHECK(v[0] >= 100000000 - 100000000 / 100 && v[0] <= 100000000 + 100000000 / 100,
	      "thread %d: cycles estimated %lld", i, v[0]);
	drop_set(es);
	CHECK_PAPI(PAPI_unregister_thread());
	return NULL;
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=0,activity=compute", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	CHECK_PAPI(PAPI_multiplex_init());
	pthread_barrier_init(&added, NULL, N);
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		CHECK(pthread_create(&t[i], NULL, one, (void *)(long)i) == 0, "create");
	for (int i = 0; i < N; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "join");
	PAPI_shutdown();
	printf("PASSED\n");
	return 0;
}
