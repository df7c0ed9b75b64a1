/* Two core event sets in one thread: both take their events, one runs at a
XX
 * runs), a stopped set keeps its counts for PAPI_read/PAPI_accum, PAPI_reset
 * zeroes a stopped set and a restart counts from zero. */
#include <counterlab/sim.h>
#include "check.h"

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=0,activity=compute", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	const char *ca[] = {"PAPI_TOT_CYC"}, *cb[] = {"PAPI_TOT_INS", "PEVT_INST_XU_IADD"};
	int a = make_set(ca, 1), b = make_set(cb, 2);
	long long va[1], va2[1], vb[2];
	CHECK_PAPI(PAPI_start(a));
	int rc = PAPI_start(b);
	CHECK(rc == PAPI_EISRUN, "second start while the first runs: %s", PAPI_strerror(rc));
	CHECK(clab_sim_advance(100000) == 0, "advance");
	CHECK_PAPI(PAPI_stop(a, va));
	CHECK(va[0] == 100000, "a counted %lld cycles, want 100000", va[0]);
	CHECK_PAPI(PAPI_start(b));
	CHECK(clab_sim_advance(50000) == 0, "advance");
	CHECK_PAPI(PAPI_read(a, va2));
	CHECK(va2[0] == va[0], "stopped set reads %lld, stopped at %lld", va2[0], va[0]);
	CHECK_PAPI(PAPI_stop(b, vb));
	CHECK(vb[0] > 0 && vb[1] > 0 && vb[0] >= vb[1], "b counted %lld %lld", vb[0], vb[1]);
	va2[0] = 1;
	CHECK_PAPI(PAPI_accum(a, va2));
	CHECK(va2[0] == va[0] + 1, "accum of a stopped set: %lld", va2[0]);
	CHECK_PAPI(PAPI_read(a, va2));
	CHECK(va2[0] == 0, "after accum (which resets) %lld", va2[0]);
	CHECK_PAPI(PAPI_start(a));
	CHECK(clab_sim_advance(2000) == 0, "advance");
	CHECK_PAPI(PAPI_stop(a, va));
	CHECK(va[0] == 2000, "restart counts from zero: %lld", va[0]);
	CHECK_PAPI(PAPI_reset(a));
	CHECK_PAPI(PAPI_read(a, va));
	CHECK(va[0] == 0, "reset of a stopped set: %lld", va[0]);
	/* a set that fits beside the running one starts with it */
	const char *cc[] = {"PEVT_L2_HITS"};
	int c = make_set(cc, 1);
	CHECK_PAPI(PAPI_start(a));
	CHECK_PAPI(PAPI_start(c));
	CHECK_PAPI(PAPI_stop(c, va));
	CHECK_PAPI(PAPI_stop(a, va));
	drop_set(a);
	drop_set(b);
	drop_set(c);
	PAPI_shutdown();
	printf("PASSED\n");
	return 0;
}
