/* counterlab's l2 component (see docs/architecture.md, "How counterlab sits inside PAPI"). */
#include "../glue/clab_papi.h"

CLAB_PAPI_COMPONENT(l2, "l2",
		    "counterlab L2 cache unit counters, node-wide (machine from COUNTERLAB_MACHINE)");
