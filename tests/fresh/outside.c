/* A program from outside the project (tests/fresh-machine.sh): built against
 * an installed counterlab with pkg-config alone, it counts PAPI_TOT_CYC over
 * a loop and prints "PAPI_TOT_CYC N". */
#include <stdio.h>
#include <papi.h>

static int fail(const char *what, int rc)
{
	fprintf(stderr, "outside: %s: %s\n", what, PAPI_strerror(rc));
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
	return cycles > 0 ? 0 : 1;
}
