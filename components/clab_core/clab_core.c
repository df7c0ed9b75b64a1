/* counterlab's processor-unit component; PAPI component 0 (see
 * docs/architecture.md, "How counterlab sits inside PAPI"). */
#include "../glue/clab_papi.h"

CLAB_PAPI_COMPONENT(core, "core",
		    "counterlab processor-unit counters (machine from COUNTERLAB_MACHINE)");
