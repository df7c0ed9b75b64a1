/* Bad input through PAPI: unknown events, events that cannot be counted
 * together, bad qualifiers each fail with PAPI's matching error and leave
 * the event set as it was. */
#include <string.h>
#include "check.h"

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=1000", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	int code, es = PAPI_NULL;
	/* PAPI reports the last component's answer (sysdetect's), not ours */
	CHECK(PAPI_event_name_to_code("PEVT_NOT_AN_EVENT", &code) != PAPI_OK, "unknown name");
	CHECK(PAPI_event_name_to_code("PEVT_CYCLES:mask=1", &code) != PAPI_OK, "bad qualifier");
	CHECK(PAPI_event_name_to_code("PEVT_INST_XU_GRP_MASK:mask=0x100000000", &code) != PAPI_OK,
	      "qualifier out of range");
	CHECK_PAPI(PAPI_event_name_to_code("PEVT_INST_XU_GRP_MASK:mask=0x3", &code));
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK(PAPI_add_named_event(es, "PEVT_NOT_AN_EVENT") != PAPI_OK, "add unknown");
	/* one L1p mode per core */
	CHECK_PAPI(PAPI_add_named_event(es, "PEVT_L1P_SW_MAS_SW_REQ_VAL"));
	CHECK(PAPI_add_named_event(es, "PEVT_L1P_STRM_LINE_ESTB") == PAPI_ECNFLCT, "L1p modes");
	/* a thread's conflict set offers one counter */
	CHECK_PAPI(PAPI_add_named_event(es, "PEVT_L1P_BAS_HIT"));
	CHECK(PAPI_add_named_event(es, "PEVT_L1P_BAS_ST_32BYTE") == PAPI_ECNFLCT, "L1p set");
	CHECK(PAPI_num_events(es) == 2, "set changed by failed adds: %d", PAPI_num_events(es));
	long long v[2];
	CHECK_PAPI(PAPI_start(es));
	CHECK_PAPI(PAPI_stop(es, v));
	PAPI_shutdown();
	printf("papi_errors: PASSED\n");
	return 0;
}
