/* Bad input through PAPI: unknown events, events that cannot be counted
 * together, bad qualifiers each fail with PAPI's matching error and leave
 * the event set as it was. */
#include "check.h"

static void lookup(const void *arg)
{
	const char *name = arg;
	int code;
	CHECK(PAPI_event_name_to_code(name, &code) != PAPI_OK, "%s resolved", name);
}

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
	/* with verbose errors, a bad qualifier says why, like every other error */
	char err[4096];
	CHECK_PAPI(PAPI_set_debug(PAPI_VERB_ECONT));
	capture_stderr(lookup, "PEVT_CYCLES:mask=1", err, sizeof err);
	CHECK(strstr(err, "PEVT_CYCLES does not take qualifier 'mask' (accepts: none)"),
	      "no reason printed: '%s'", err);
	capture_stderr(lookup, "l2:::PEVT_L2_HITS_SLICE:slice=16", err, sizeof err);
	CHECK(strstr(err, "PEVT_L2_HITS_SLICE: slice=16 is out of range: allowed 0..15"),
	      "no range printed: '%s'", err);
	/* a name no component knows is PAPI's business: no word from us */
	capture_stderr(lookup, "PEVT_NOT_AN_EVENT", err, sizeof err);
	CHECK(!strstr(err, "counterlab"), "unknown name printed: '%s'", err);
	CHECK_PAPI(PAPI_set_debug(PAPI_QUIET));
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
