/* counterlab's network component (see docs/architecture.md, "How counterlab sits inside PAPI"). */
#include "../glue/clab_papi.h"

CLAB_PAPI_COMPONENT(network, "network",
		    "counterlab network unit counters: torus links, per virtual channel; node-wide");
