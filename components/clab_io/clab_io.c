/* counterlab's io component (see docs/architecture.md, "How counterlab sits inside PAPI"). */
#include "../glue/clab_papi.h"

CLAB_PAPI_COMPONENT(io, "io",
		    "counterlab I/O unit counters: message unit, PCIe, DevBus; node-wide");
