/* PAPI's device queries (PAPI_enum_dev_type, PAPI_get_dev_type_attr,
 * PAPI_get_dev_attr: papi_hardware_avail) go to the first component named
 * "sysdetect". PAPI always builds its own, which probes the host's CPU
 * directly; this one comes before it in the component list and, when a
 * simulated machine's core is component 0 and described the node
 * (PAPI_get_hardware_info, from the profile's [hardware]), answers from that
 * description: one CPU device type, no GPUs. Otherwise every query goes on
 * to PAPI's sysdetect unchanged. PAPI's is renamed "sysdetect_host" when the
 * library loads, before anything can look components up, because names
 * must be unique (PAPI_get_component_index). */
#include <string.h>
#include "../glue/clab_papi.h"

extern papi_vector_t _sysdetect_vector; /* PAPI's own */
papi_vector_t _clab_devices_vector;

static int simulated; /* the core described a simulated node (set at init) */
static char status[PAPI_MAX_STR_LEN];
static unsigned memory_mb;
static int cpu_handle; /* the one device type; its address is the handle */
static int enum_next;  /* PAPI's protocol: enumerate until an error */

__attribute__((constructor)) static void rename_papis(void)
{
	snprintf(_sysdetect_vector.cmp_info.name, sizeof _sysdetect_vector.cmp_info.name,
		 "sysdetect_host");
}

/* PAPI initializes components in list order: the core, which describes
 * the node, has done so by now. */
static int init_component(int cidx)
{
	_clab_devices_vector.cmp_info.CmpIdx = cidx;
	clab_machine *m = clab_papi_described_machine();
	clab_hw_info hw;
	simulated = m && clab_machine_hw_info(m, &hw) == CLAB_OK;
	if (simulated) {
		snprintf(status, sizeof status, "simulated by counterlab (machine %s)",
			 clab_machine_name(m));
		memory_mb = (unsigned)(hw.memory >> 20);
	}
	return PAPI_OK;
}

/* PAPI calls these for every component; there is nothing per thread. */
static int init_thread(hwd_context_t *ctx)
{
	(void)ctx;
	return PAPI_OK;
}

static int shutdown_thread(hwd_context_t *ctx)
{
	(void)ctx;
	return PAPI_OK;
}

static int shutdown_component(void)
{
	return PAPI_OK;
}

static int enum_dev_type(int modifier, void **handle)
{
	if (modifier == PAPI_DEV_TYPE_ENUM__FIRST)
		enum_next = 0;
	if (enum_next == 0 && (modifier == PAPI_DEV_TYPE_ENUM__FIRST ||
			       (modifier & PAPI_DEV_TYPE_ENUM__CPU))) {
		enum_next = modifier != PAPI_DEV_TYPE_ENUM__FIRST;
		*handle = &cpu_handle;
		return PAPI_OK;
	}
	enum_next = 0;
	*handle = NULL;
	return PAPI_EINVAL;
}

static int dev_type_attr(PAPI_dev_type_attr_e attr, void *val)
{
	const PAPI_hw_info_t *h = &_papi_hwi_system_info.hw_info;
	switch (attr) {
	case PAPI_DEV_TYPE_ATTR__INT_PAPI_ID: *(int *)val = PAPI_DEV_TYPE_ID__CPU; break;
	case PAPI_DEV_TYPE_ATTR__INT_VENDOR_ID: *(int *)val = h->vendor; break;
	case PAPI_DEV_TYPE_ATTR__CHAR_NAME: *(const char **)val = h->vendor_string; break;
	case PAPI_DEV_TYPE_ATTR__INT_COUNT: *(int *)val = 1; break;
	case PAPI_DEV_TYPE_ATTR__CHAR_STATUS: *(const char **)val = status; break;
	default: return PAPI_ENOSUPP;
	}
	return PAPI_OK;
}

/* The first cache at `level` (1-based) holding `type`. */
static const PAPI_mh_cache_info_t *cache(int level, int type)
{
	const PAPI_mh_level_t *L = &_papi_hwi_system_info.hw_info.mem_hierarchy.level[level - 1];
	for (int j = 0; j < PAPI_MH_MAX_LEVELS; j++)
		if (PAPI_MH_CACHE_TYPE(L->cache[j].type) == type)
			return &L->cache[j];
	static const PAPI_mh_cache_info_t none;
	return &none;
}

static int dev_attr(int id, PAPI_dev_attr_e attr, void *val)
{
	const PAPI_hw_info_t *h = &_papi_hwi_system_info.hw_info;
	static const struct { int level, type; } which[4] = {
		{1, PAPI_MH_TYPE_INST}, {1, PAPI_MH_TYPE_DATA},
		{2, PAPI_MH_TYPE_UNIFIED}, {3, PAPI_MH_TYPE_UNIFIED},
	};
	unsigned *u = val;
	/* the CPU attributes come in blocks of four caches: L1i L1d L2 L3 */
	if (attr >= PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE &&
	    attr <= PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_ASSOC) {
		int k = attr - PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE;
		const PAPI_mh_cache_info_t *c = cache(which[k % 4].level, which[k % 4].type);
		int v[4] = {c->size, c->line_size, c->num_lines, c->associativity};
		*u = (unsigned)v[k / 4];
		return PAPI_OK;
	}
	switch (attr) {
	case PAPI_DEV_ATTR__CPU_CHAR_NAME: *(const char **)val = h->model_string; break;
	case PAPI_DEV_ATTR__CPU_UINT_SOCKET_COUNT: *u = (unsigned)h->sockets; break;
	case PAPI_DEV_ATTR__CPU_UINT_NUMA_COUNT: *u = (unsigned)h->nnodes; break;
	case PAPI_DEV_ATTR__CPU_UINT_CORE_COUNT: *u = (unsigned)h->cores; break;
	case PAPI_DEV_ATTR__CPU_UINT_THREAD_COUNT: *u = (unsigned)h->totalcpus; break;
	case PAPI_DEV_ATTR__CPU_UINT_FAMILY: *u = (unsigned)h->cpuid_family; break;
	case PAPI_DEV_ATTR__CPU_UINT_MODEL: *u = (unsigned)h->cpuid_model; break;
	case PAPI_DEV_ATTR__CPU_UINT_STEPPING: *u = (unsigned)h->cpuid_stepping; break;
	case PAPI_DEV_ATTR__CPU_UINT_NUMA_MEM_SIZE: /* MB per NUMA node */
		*u = memory_mb / (unsigned)(h->nnodes > 0 ? h->nnodes : 1);
		break;
	case PAPI_DEV_ATTR__CPU_UINT_THR_NUMA_AFFINITY: /* threads in node order */
		*u = h->ncpu > 0 ? (unsigned)(id / h->ncpu) : 0;
		break;
	case PAPI_DEV_ATTR__CPU_UINT_THR_PER_NUMA: *u = (unsigned)h->ncpu; break;
	default: return PAPI_ENOSUPP;
	}
	return PAPI_OK;
}

static int user(int unused, void *in, void *out)
{
	if (!simulated)
		return _sysdetect_vector.user(unused, in, out);
	_papi_hwi_sysdetect_t *q = in;
	switch (q->query_type) {
	case PAPI_SYSDETECT_QUERY__DEV_TYPE_ENUM:
		return enum_dev_type(q->query.enumerate.modifier, out);
	case PAPI_SYSDETECT_QUERY__DEV_TYPE_ATTR:
		return q->query.dev_type.handle == &cpu_handle
		       ? dev_type_attr(q->query.dev_type.attr, out) : PAPI_EINVAL;
	case PAPI_SYSDETECT_QUERY__DEV_ATTR:
		return q->query.dev.handle == &cpu_handle
		       ? dev_attr(q->query.dev.id, q->query.dev.attr, out) : PAPI_EINVAL;
	default:
		return PAPI_EMISC;
	}
}

papi_vector_t _clab_devices_vector = {
	.cmp_info = {
		/* PAPI finds the device component by this name */
		.name = "sysdetect",
		.short_name = "clab_devices",
		.description = "counterlab: the simulated node's devices (PAPI's sysdetect answers for the host)",
		.version = "1.0",
	},
	.init_component = init_component,
	.init_thread = init_thread,
	.shutdown_thread = shutdown_thread,
	.shutdown_component = shutdown_component,
	.user = user,
};
