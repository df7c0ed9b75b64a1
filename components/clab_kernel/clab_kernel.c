/* counterlab's kernel component (see docs/architecture.md, "How counterlab sits inside PAPI"). */
#include "../glue/clab_papi.h"

CLAB_PAPI_COMPONENT(kernel, "kernel",
		    "counterlab compute node kernel software counters (CNK): per node and per hardware thread");
