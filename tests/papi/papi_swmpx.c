/* PAPI's own software multiplexing (PAPI_MULTIPLEX_FORCE_SW): PAPI makes
 * one event set per event in this thread and starts and stops them in turn
 * on its interval timer. Every event must be taken and count. Host clock:
 * PAPI's timer runs on the process's CPU time, and so do our counts. */
#include <counterlab/sim.h>
#include "check.h"

static volatile double sink;

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=host,activity=compute", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	CHECK_PAPI(PAPI_multiplex_init());
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_assign_eventset_component(es, 0));
	PAPI_option_t opt = {0};
	opt.multiplex.eventset = es;
	opt.multiplex.ns = 1000000; /* 1 ms turns */
	opt.multiplex.flags = PAPI_MULTIPLEX_FORCE_SW;
	CHECK_PAPI(PAPI_set_opt(PAPI_MULTIPLEX, &opt));
	const char *names[] = {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PEVT_INST_XU_IADD",
			       "PEVT_INST_XU_LD", "PEVT_INST_QFPU_FMA"};
	enum { N = 5 };
	for (int i = 0; i < N; i++) {
		int rc = PAPI_add_named_event(es, names[i]);
		CHECK(rc == PAPI_OK, "add %s: %s", names[i], PAPI_strerror(rc));
	}
	CHECK(PAPI_get_multiplex(es) > 0, "set is not multiplexed");
	CHECK_PAPI(PAPI_start(es));
	for (long k = 0; k < 200000000; k++) /* about 0.2 s of CPU */
		sink += k * 0.5;
	long long v[N];
	CHECK_PAPI(PAPI_stop(es, v));
	for (int i = 0; i < N; i++)
		CHECK(v[i] > 0, "%s counted %lld", names[i], v[i]);
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));
	PAPI_shutdown();
	printf("PASSED\n");
	return 0;
}
