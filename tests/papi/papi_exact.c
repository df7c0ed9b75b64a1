/* An unmodified-style PAPI program on the virtual clock: each read comes
 * after `tick` cycles of the activity profile below, so every count follows
 * from the rates: cycles = tick, instructions = the sum of the classes,
 * FP operations = 8 per quad FMA, derived presets = their formulas. */
#include "check.h"

#define TICK 1000000LL
#define R_IADD 0.25 /* events per cycle, as written in the profile */
#define R_QMA 0.125
#define R_LD 0.1

int main(void)
{
	use_activity("[phase only]\ncycles = 0\n"
		     "PEVT_INST_XU_IADD = 0.25\nPEVT_INST_QFPU_QMA = 0.125\n"
		     "PEVT_INST_XU_LD = 0.1\n", ",tick=1000000");
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_add_event(es, PAPI_TOT_CYC));
	CHECK_PAPI(PAPI_add_event(es, PAPI_TOT_INS));
	CHECK_PAPI(PAPI_add_event(es, PAPI_FP_OPS));
	CHECK_PAPI(PAPI_add_event(es, PAPI_STL_CCY));
	CHECK_PAPI(PAPI_add_named_event(es, "PEVT_INST_XU_LD"));
	CHECK_PAPI(PAPI_add_named_event(es, "core:::PEVT_INST_XU_GRP_MASK:mask=0x20200"));
	long long v[6];
	CHECK_PAPI(PAPI_start(es));
	for (long long k = 1; k <= 3; k++) {
		CHECK_PAPI(PAPI_read(es, v));
		long long cyc = k * TICK;
		long long iadd = (long long)(R_IADD * cyc), qma = (long long)(R_QMA * cyc),
			  ld = (long long)(R_LD * cyc);
		CHECK(v[0] == cyc, "read %lld: PAPI_TOT_CYC %lld, want %lld", k, v[0], cyc);
		CHECK(v[1] == iadd + qma + ld, "PAPI_TOT_INS %lld, want %lld", v[1], iadd + qma + ld);
		CHECK(v[2] == 8 * qma, "PAPI_FP_OPS %lld, want %lld", v[2], 8 * qma);
		CHECK(v[3] == cyc - v[1], "PAPI_STL_CCY %lld, want %lld", v[3], cyc - v[1]);
		CHECK(v[4] == ld, "PEVT_INST_XU_LD %lld, want %lld", v[4], ld);
		/* mask 0x20200 = IADD | LD classes */
		CHECK(v[5] == iadd + ld, "GRP_MASK %lld, want %lld", v[5], iadd + ld);
	}
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK(v[0] == 4 * TICK, "stop: PAPI_TOT_CYC %lld", v[0]);
	/* stopped counters stay put */
	long long w[6];
	CHECK_PAPI(PAPI_read(es, w));
	CHECK(w[0] == v[0], "read after stop %lld != %lld", w[0], v[0]);
	PAPI_shutdown();
	printf("papi_exact: PASSED\n");
	return 0;
}
