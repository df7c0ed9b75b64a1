/* Stands in for PAPI's BG/Q CPU component (linux-bgq.c) in a PAPI built
 * for generic Linux with only the bgpm components: it initializes BGPM
 * in every PAPI thread, as that component did, and has no events. */
#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "bgpm/include/bgpm.h"

papi_vector_t _bgpm_thread_vector;

static int init_component(int cidx)
{
	_bgpm_thread_vector.cmp_info.CmpIdx = cidx;
	return PAPI_OK;
}

static int init_thread(hwd_context_t *ctx)
{
	(void)ctx;
	Bgpm_PrintOnError(0);
	Bgpm_ExitOnError(0);
	int rc = Bgpm_Init(BGPM_MODE_SWDISTRIB);
	return rc == BGPM_EOK || rc == BGPM_EINITED ? PAPI_OK : PAPI_ECMP;
}

/* No events of its own. PAPI asks every component for an unprefixed
 * name and gives up at the first that answers PAPI_ECMP (its default for
 * a missing function), so this one must say "not mine" for the bgpm
 * components after it to be asked. */
static int name_to_code(const char *name, unsigned int *code)
{
	(void)name;
	(void)code;
	return PAPI_ENOEVNT;
}

static int enum_events(unsigned int *code, int modifier)
{
	(void)code;
	(void)modifier;
	return PAPI_ENOEVNT;
}

static int shutdown_thread(hwd_context_t *ctx)
{
	(void)ctx;
	Bgpm_Disable();
	return PAPI_OK;
}

papi_vector_t _bgpm_thread_vector = {
	.cmp_info = {
		.name = "bgpm_thread",
		.short_name = "bgpm_thread",
		.description = "Initializes BGPM (libbgpm over counterlab) in each PAPI thread; no events",
		.num_native_events = 0,
		.default_domain = PAPI_DOM_USER,
		.available_domains = PAPI_DOM_USER | PAPI_DOM_KERNEL,
		.default_granularity = PAPI_GRN_THR,
		.available_granularities = PAPI_GRN_THR,
	},
	.init_component = init_component,
	.init_thread = init_thread,
	.shutdown_thread = shutdown_thread,
	.ntv_name_to_code = name_to_code,
	.ntv_enum_events = enum_events,
};
