/* A malformed machine profile disables the component with a reason that
 * says what was wrong; PAPI itself still starts. */
#include <string.h>
#include "check.h"

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=sundial", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	int cidx = PAPI_get_component_index("core");
	CHECK(cidx >= 0, "no core component");
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	CHECK(ci->disabled, "component not disabled");
	CHECK(strstr(ci->disabled_reason, "clock=sundial"), "reason: %s", ci->disabled_reason);
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK(PAPI_add_event(es, PAPI_TOT_CYC) != PAPI_OK, "counting on a disabled component");
	printf("disabled: %s\npapi_badprofile: PASSED\n", ci->disabled_reason);
	return 0;
}
