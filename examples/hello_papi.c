/* A PAPI program that knows nothing of counterlab (README "Install"): it
 * counts PAPI_TOT_CYC over a loop and prints "PAPI_TOT_CYC N". Built
 * against build/prefix or an installed tree with pkg-config alone; the
 * fresh-machine test (tests/fresh-machine.sh) builds it against an
 * installed tree and runs it with the build tree gone. */
#include <stdio.h>
#include <papi.h>

static int fail(const char *what, int rc)
{
	fprintf(stderr, "hello_papi: %s: %s\n", what, PAPI_strerror(rc));
	return 1;
}

int main(void)
{
	int es = PAPI_NULL, rc;
	long long cycles = 0;
	if ((rc = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT)
		return fail("PAPI_library_init", rc);
	if ((rc = PAPI_create_eventset(&es)) != PAPI_OK)
		return fail("PAPI_create_eventset", rc);
	if ((rc = PAPI_add_named_event(es, "PAPI_TOT_CYC")) != PAPI_OK)
		return fail("PAPI_add_named_event PAPI_TOT_CYC", rc);
	if ((rc = PAPI_start(es)) != PAPI_OK)
		return fail("PAPI_start", rc);
	volatile double x = 0;
	for (int i = 0; i < 10000000; i++)
		x += i;
	if ((rc = PAPI_stop(es, &cycles)) != PAPI_OK)
		return fail("PAPI_stop", rc);
	printf("PAPI_TOT_CYC %lld\n", cycles);
	(void)x; /* (the loop is the work measured) */
	return cycles > 0 ? 0 : 1;
}
