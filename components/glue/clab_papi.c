/* PAPI glue shared by counterlab's components (see clab_papi.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "clab_papi.h"
#include "counterlab/backend.h" /* clab_seterr */
#include "papi_preset.h"
#include "threads.h"

static int to_papi(int err)
{
	switch (err) {
	case CLAB_OK: return PAPI_OK;
	case CLAB_E_NOMEM: return PAPI_ENOMEM;
	case CLAB_E_NOEVENT: return PAPI_ENOEVNT;
	case CLAB_E_CONFLICT: case CLAB_E_NOTHREAD: return PAPI_ECNFLCT;
	case CLAB_E_QUALIFIER: return PAPI_EATTR;
	case CLAB_E_NOSUPP: return PAPI_ENOSUPP;
	case CLAB_E_STATE: return PAPI_EISRUN;
	case CLAB_E_NOCOMP: case CLAB_E_PROFILE: case CLAB_E_ACTIVITY: case CLAB_E_MAP:
		return PAPI_ECMP;
	case CLAB_E_SYS: case CLAB_E_PARSE: return PAPI_ESYS;
	case CLAB_E_NODEV: return PAPI_ECMP;
	default: return PAPI_EINVAL;
	}
}

/* COUNTERLAB_VERBOSE=1 (any value but empty or 0): the reasons PAPI has
 * no channel for go to stderr: why a component is disabled, why an event
 * set refused an event. Silent by default. */
static int verbose(void)
{
	const char *v = getenv("COUNTERLAB_VERBOSE");
	return v && *v && strcmp(v, "0") != 0;
}

/* PAPI has no channel for an error's detail: PAPIERROR prints it when the
 * program asked for verbose errors (PAPI_set_debug(PAPI_VERB_ECONT) or
 * PAPI_VERBOSE); COUNTERLAB_VERBOSE prints it otherwise. `what` (may be
 * NULL) names what was refused. */
static int fail_on(int err, const char *what)
{
	const char *sep = what ? ": " : "";
	if (!what)
		what = "";
	if (verbose() && _papi_hwi_error_level == PAPI_QUIET && !getenv("PAPI_VERBOSE"))
		fprintf(stderr, "counterlab: %s%s%s: %s\n", what, sep, clab_strerror(err), clab_errmsg());
	PAPIERROR("counterlab: %s%s%s: %s", what, sep, clab_strerror(err), clab_errmsg());
	return to_papi(err);
}

static int fail(int err)
{
	return fail_on(err, NULL);
}

static int is_papi_preset(const char *name)
{
	return strncmp(name, "PAPI_", 5) == 0;
}

/* Hands the component's PAPI_* presets to PAPI's preset table, which only
 * component 0 may fill. Terms are looked up through PAPI so that they carry
 * PAPI's event codes. */
static int load_papi_presets(clab_papi_comp *pc, int cidx)
{
	clab_component_info ci;
	clab_component_get_info(pc->comp, &ci);
	hwi_search_t *tab = calloc((size_t)ci.npreset + 1, sizeof *tab);
	if (!tab)
		return PAPI_ENOMEM;
	int n = 0;
	for (int p = 0; p < ci.npreset; p++) {
		clab_event_info ei;
		clab_event_get_info(pc->comp, (uint32_t)(ci.nnative + p), &ei);
		int idx = -1;
		for (int i = 0; i < PAPI_MAX_PRESET_EVENTS; i++)
			if (_papi_hwi_presets[i].symbol &&
			    strcmp(_papi_hwi_presets[i].symbol, ei.name) == 0)
				idx = i;
		if (idx < 0)
			continue; /* not a preset PAPI knows */
		hwi_search_t *s = &tab[n];
		s->event_code = (unsigned int)idx | PAPI_PRESET_MASK;
		s->derived = ei.derived == CLAB_DERIVED_ADD ? DERIVED_ADD
			   : ei.derived == CLAB_DERIVED_SUB ? DERIVED_SUB
			   : ei.derived == CLAB_DERIVED_POSTFIX ? DERIVED_POSTFIX
			   : NOT_DERIVED;
		for (int k = 0; k < PAPI_EVENTS_IN_DERIVED_EVENT; k++)
			s->native[k] = PAPI_NULL;
		int ok = 1;
		char full[CLAB_MAX_TERMS][PAPI_HUGE_STR_LEN];
		for (int k = 0; k < ei.nterms; k++) {
			clab_event_info ti;
			int code;
			clab_event_get_info(pc->comp, ei.terms[k], &ti);
			snprintf(full[k], sizeof full[k], "%s:::%s", pc->unit, ti.name);
			if (_papi_hwi_native_name_to_code(full[k], &code) != PAPI_OK)
				ok = 0;
			s->native[k] = code;
		}
		if (!ok) {
			memset(s, 0, sizeof *s);
			continue;
		}
		if (ei.postfix)
			snprintf(s->operation, sizeof s->operation, "%s", ei.postfix);
		/* setup_all_presets leaves the term names, which PAPI's listings print */
		for (int k = 0; k < ei.nterms; k++)
			_papi_hwi_presets[idx].name[k] = strdup(full[k]);
		n++;
	}
	int rc = n ? _papi_hwi_setup_all_presets(tab, cidx) : PAPI_OK;
	free(tab);
	return rc;
}

/* PAPI 7.0 initializes every component but perf_event before any thread
 * record exists, yet its name lookup (needed to give preset terms PAPI's
 * event codes) keeps scratch state in the calling thread's record. For the
 * length of the preset registration we lend it an empty record, then put
 * things back exactly as they were. */
static int load_papi_presets_threadless(clab_papi_comp *pc, int cidx)
{
	ThreadInfo_t *saved = _papi_hwi_my_thread, scratch;
	if (saved)
		return load_papi_presets(pc, cidx);
	memset(&scratch, 0, sizeof scratch);
	scratch.tls_papi_event_code = -1;
	scratch.tls_papi_event_code_changed = -1;
	_papi_hwi_my_thread = &scratch;
	int rc = load_papi_presets(pc, cidx);
	_papi_hwi_my_thread = saved;
	return rc;
}

/* PAPI's vendor codes for the vendor names machine profiles use. */
static const struct {
	const char *name;
	int code;
} papi_vendors[] = {
	{"IBM", PAPI_VENDOR_IBM}, {"Intel", PAPI_VENDOR_INTEL},
	{"AMD", PAPI_VENDOR_AMD}, {"Cray", PAPI_VENDOR_CRAY},
	{"Sun", PAPI_VENDOR_SUN}, {"Freescale", PAPI_VENDOR_FREESCALE},
	{"ARM", PAPI_VENDOR_ARM}, {"MIPS", PAPI_VENDOR_MIPS},
};

static const int papi_cache_type[] = {
	[CLAB_CACHE_DATA] = PAPI_MH_TYPE_DATA,
	[CLAB_CACHE_INST] = PAPI_MH_TYPE_INST,
	[CLAB_CACHE_UNIFIED] = PAPI_MH_TYPE_UNIFIED,
	[CLAB_CACHE_PREFETCH] = PAPI_MH_TYPE_PREF,
};

/* The memory hierarchy of the profile, in PAPI's form: level by level,
 * caches in profile order; a level holds at most PAPI_MH_MAX_LEVELS. */
static void mem_hierarchy_to_papi(const clab_hw_info *hw, PAPI_mh_info_t *mh)
{
	memset(mh, 0, sizeof *mh);
	for (int i = 0; i < hw->ncache; i++) {
		const clab_cache_desc *c = &hw->cache[i];
		if (c->level > PAPI_MAX_MEM_HIERARCHY_LEVELS)
			continue;
		PAPI_mh_level_t *L = &mh->level[c->level - 1];
		int j = 0;
		while (j < PAPI_MH_MAX_LEVELS && L->cache[j].type)
			j++;
		if (j == PAPI_MH_MAX_LEVELS)
			continue;
		PAPI_mh_cache_info_t *pc = &L->cache[j];
		pc->type = papi_cache_type[c->kind] |
			   (c->write_back == 1 ? PAPI_MH_TYPE_WB : PAPI_MH_TYPE_WT);
		pc->size = (int)c->size;
		pc->line_size = c->line;
		pc->num_lines = (int)(c->size / (uint64_t)c->line);
		pc->associativity = c->ways == CLAB_CACHE_FULL ? SHRT_MAX : c->ways;
		if (c->level > mh->levels)
			mh->levels = c->level;
	}
}

/* PAPI fills its hardware info from the host (/proc/cpuinfo, sysfs) before
 * any component starts and expects the CPU component to correct it; as
 * component 0 on a simulated machine, the machine is the hardware.
 * Without a [hardware] section the host's description stays. */
static clab_machine *described;

clab_machine *clab_papi_described_machine(void)
{
	return described;
}

/* Real cycles at the described core's clock. PAPI's own reads the host's
 * time-stamp counter, which would tick at the host's rate beside a
 * cpu_max_mhz (and virtual cycles) of the simulated core; on the machine
 * itself the two agree (a BG/Q's timebase runs at the core's 1600 MHz). */
static long long described_real_cycles(void)
{
	long long ns = _papi_os_vector.get_real_nsec(), mhz = _papi_hwi_system_info.hw_info.cpu_max_mhz;
	return ns / 1000 * mhz + ns % 1000 * mhz / 1000;
}

static void hw_info_to_papi(clab_papi_comp *pc)
{
	clab_hw_info hw;
	if (clab_machine_hw_info(pc->machine, &hw))
		return;
	described = pc->machine;
	PAPI_hw_info_t *h = &_papi_hwi_system_info.hw_info;
	h->vendor = PAPI_VENDOR_UNKNOWN;
	for (size_t i = 0; i < sizeof papi_vendors / sizeof papi_vendors[0]; i++)
		if (strcasecmp(papi_vendors[i].name, hw.vendor) == 0)
			h->vendor = papi_vendors[i].code;
	snprintf(h->vendor_string, sizeof h->vendor_string, "%s", hw.vendor);
	snprintf(h->model_string, sizeof h->model_string, "%s", hw.model);
	h->model = hw.cpuid_model;
	h->revision = (float)hw.revision;
	h->cpuid_family = hw.cpuid_family;
	h->cpuid_model = hw.cpuid_model;
	h->cpuid_stepping = hw.cpuid_stepping;
	h->threads = hw.threads_per_core;
	h->cores = hw.cores_per_socket;
	h->sockets = hw.sockets;
	h->nnodes = hw.numa_nodes;
	h->totalcpus = hw.sockets * hw.cores_per_socket * hw.threads_per_core;
	h->ncpu = h->totalcpus / hw.numa_nodes;
	h->cpu_max_mhz = h->cpu_min_mhz = hw.mhz;
	h->mhz = (float)hw.mhz;
	h->clock_mhz = hw.mhz;
	_papi_os_vector.get_real_cycles = described_real_cycles;
	/* the simulated node is not a virtual machine, whatever runs it */
	h->virtualized = 0;
	h->virtual_vendor_string[0] = 0;
	h->virtual_vendor_version[0] = 0;
	mem_hierarchy_to_papi(&hw, &h->mem_hierarchy);
}

/* s for a terminal: control characters as \xNN, cut short after len. */
static const char *escaped(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	for (; *s && o + 8 < len; s++)
		o += (size_t)snprintf(buf + o, len - o,
				      (unsigned char)*s < 0x20 || *s == 0x7f ? "\\x%02x" : "%c",
				      (unsigned char)*s);
	snprintf(buf + o, len - o, "%s", *s ? "..." : "");
	return buf;
}

/* A machine that cannot be opened disables every component, each with the
 * reason; PAPI shows reasons only when asked (papi_component_avail), so the
 * first component to hear of it also says it once on stderr, naming the
 * spec. */
static void tell_machine_failed(const char *why)
{
	static int told;
	if (__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
		return;
	const char *spec = getenv("COUNTERLAB_MACHINE");
	char shown[256], reason[640];
	if (spec)
		fprintf(stderr, "counterlab: COUNTERLAB_MACHINE='%s'", escaped(spec, shown, sizeof shown));
	else
		fprintf(stderr, "counterlab: the default machine bgq (COUNTERLAB_MACHINE is unset)");
	fprintf(stderr, ": %s; counterlab's components are disabled\n",
		escaped(why, reason, sizeof reason));
}

int clab_papi_init_component(clab_papi_comp *pc, int cidx)
{
	papi_vector_t *v = pc->vector;
	v->cmp_info.CmpIdx = cidx;
	int rc = clab_machine_default(&pc->machine);
	if (rc)
		tell_machine_failed(clab_errmsg());
	if (!rc) {
		pc->comp = clab_machine_component(pc->machine, pc->unit);
		if (!pc->comp)
			rc = CLAB_E_NOCOMP;
		else if (clab_component_disabled(pc->comp)) {
			clab_component_info di;
			clab_component_get_info(pc->comp, &di);
			rc = clab_seterr(CLAB_E_NODEV, "%s (backend %s of machine %s)",
					 clab_component_disabled(pc->comp), di.backend,
					 clab_machine_name(pc->machine));
		}
	}
	if (rc) {
		snprintf(v->cmp_info.disabled_reason, PAPI_HUGE_STR_LEN,
			 "counterlab: %s", clab_errmsg());
		if (verbose()) /* PAPI initializes each component once */
			fprintf(stderr, "counterlab: component %s is disabled: %s\n",
				v->cmp_info.name, v->cmp_info.disabled_reason + strlen("counterlab: "));
		v->cmp_info.disabled = PAPI_ECMP;
		return PAPI_ECMP;
	}
	/* profiles credit the program, not PAPI's frames above us */
	clab_callsite_library((const void *)clab_papi_init_component);
	clab_component_info ci;
	clab_component_get_info(pc->comp, &ci);
	pc->presets_to_papi = cidx == 0;
	pc->nenum = ci.nnative;
	for (int p = 0; p < ci.npreset; p++) {
		clab_event_info ei;
		clab_event_get_info(pc->comp, (uint32_t)(ci.nnative + p), &ei);
		if (!(pc->presets_to_papi && is_papi_preset(ei.name)))
			pc->nenum = ci.nnative + p + 1;
	}
	v->cmp_info.num_native_events = pc->nenum;
	v->cmp_info.num_cntrs = ci.ncounters;
	/* A unit that counts every context alike says so: PAPI_DOM_ALL only.
	 * One that counts them apart counts both unless told otherwise, as
	 * PAPI's BG/Q component did. */
	v->cmp_info.available_domains = ci.contexts ? PAPI_DOM_USER | PAPI_DOM_KERNEL
						    : PAPI_DOM_ALL;
	v->cmp_info.default_domain =
		!ci.contexts ? PAPI_DOM_ALL
			     : (ci.default_context & CLAB_CTX_USER ? PAPI_DOM_USER : 0) |
				       (ci.default_context & CLAB_CTX_KERNEL ? PAPI_DOM_KERNEL : 0);
	/* Multiplexing is ours, not PAPI's software multiplexing (which serves
	 * component 0 only): PAPI_set_multiplex reaches clab_papi_ctl on every
	 * component, and those that cannot multiplex refuse it there. */
	v->cmp_info.kernel_multiplex = 1;
	v->cmp_info.num_mpx_cntrs = ci.can_multiplex ? CLAB_PAPI_MAX : ci.ncounters;
	/* overflows come as a real-time signal on the counted thread; units
	 * without overflow refuse PAPI_overflow in set_overflow */
	v->cmp_info.hardware_intr = 1;
	v->cmp_info.hardware_intr_sig = clab_overflow_signal();
	snprintf(v->cmp_info.support_version, PAPI_MIN_STR_LEN, "%s", ci.backend);
	/* what the unit cannot count here goes first: PAPI's description is
	 * short, and listings show it (papi_component_avail) */
	if (ci.note[0])
		snprintf(v->cmp_info.description, PAPI_MAX_STR_LEN, "%s (%s): %s",
			 ci.description, clab_machine_name(pc->machine), ci.note);
	else
		snprintf(v->cmp_info.description, PAPI_MAX_STR_LEN, "%s (%s)",
			 ci.description, clab_machine_name(pc->machine));
	/* PAPI offers "PMU::EVENT" names only to components that list the PMU
	 * (the strings live as long as the machine, i.e. the process) */
	for (int i = 0; ci.pmus && ci.pmus[i] && i < PAPI_PMU_MAX; i++)
		v->cmp_info.pmu_names[i] = (char *)ci.pmus[i];
	if (pc->presets_to_papi) {
		hw_info_to_papi(pc);
		return load_papi_presets_threadless(pc, cidx);
	}
	return PAPI_OK;
}

int clab_papi_init_thread(clab_papi_comp *pc, hwd_context_t *ctx)
{
	clab_papi_context *c = (clab_papi_context *)ctx;
	c->pc = pc;
	int rc = clab_thread_attach(pc->machine, &c->thread);
	return rc ? fail(rc) : PAPI_OK;
}

/* The thread's hardware thread goes back to the machine: its running sets
 * stop and release their counters. PAPI may call this from another thread
 * (PAPI_shutdown); the handle stays valid for the sets that name it. PAPI
 * has cleaned up the sets of a thread that unregisters or shuts PAPI down,
 * never those of a thread that exited without unregistering (PAPI_shutdown
 * frees only its caller's): those of ours go with the thread's record. */
int clab_papi_shutdown_thread(hwd_context_t *ctx)
{
	clab_papi_context *c = (clab_papi_context *)ctx;
	if (!c->thread)
		return PAPI_OK;
	clab_thread_destroy_sets(c->thread, c->pc->comp);
	clab_thread_detach(c->thread);
	c->thread = NULL;
	return PAPI_OK;
}

/* A new set counts the component's default domain, which the program may
 * have changed from the unit's (PAPI_set_cmp_domain). */
int clab_papi_init_control_state(clab_papi_comp *pc, hwd_control_state_t *ctl)
{
	memset(ctl, 0, sizeof(clab_papi_control));
	const PAPI_component_info_t *ci = &pc->vector->cmp_info;
	if (ci->available_domains == PAPI_DOM_ALL)
		return PAPI_OK;
	return clab_papi_set_domain(ctl, ci->default_domain);
}

/* PAPI 7.0 reads event values from vals[EventInfoArray[].pos[]], copied from
 * ni_position, and recomputes pos[] after an add and at a start on a
 * context another set used last (_papi_hwi_map_events_to_native), but not
 * after a removal: remove_native_events fills each hole in NativeInfoArray
 * with a native from its end, carrying ni_event and ni_position but not
 * ni_papi_code, and calls us without remapping. So a native that survives
 * keeps the position PAPI's pos[] still names, and gets back the PAPI code
 * it had (the hole's stale code would make map_events_to_native, which
 * matches preset terms by code, give a re-added preset the wrong native).
 * A native is a survivor when it names a position we gave last time to the
 * same ni_event; newcomers take free positions. */
int clab_papi_update_control_state(clab_papi_comp *pc, hwd_control_state_t *ctl,
				   NativeInfo_t *native, int count,
				   hwd_context_t *ctx)
{
	clab_papi_control *s = (clab_papi_control *)ctl;
	clab_papi_context *c = (clab_papi_context *)ctx;
	uint32_t codes[CLAB_PAPI_MAX];
	int pos[CLAB_PAPI_MAX];
	uint64_t taken = 0, kept = 0;
	if (count > CLAB_PAPI_MAX)
		return fail(clab_seterr(CLAB_E_CONFLICT, "%d events: counterlab's PAPI event sets hold at most %d",
					count, CLAB_PAPI_MAX));
	if (!s->set && count == 0)
		return PAPI_OK; /* PAPI empties sets it is about to free */
	if (!s->set) {
		int rc = clab_evset_create(pc->comp, c->thread, &s->set);
		if (!rc && s->ctx)
			rc = clab_evset_set_context(s->set, s->ctx);
		if (rc) {
			clab_evset_destroy(s->set);
			s->set = NULL;
			return fail(rc);
		}
	}
	for (int i = 0; i < count; i++) {
		int p = native[i].ni_position;
		codes[i] = (uint32_t)native[i].ni_event;
		pos[i] = -1;
		if (p >= 0 && p < CLAB_PAPI_MAX && (s->held >> p & 1) &&
		    !(taken >> p & 1) && s->ntv_at[p] == native[i].ni_event) {
			pos[i] = p;
			taken |= 1ull << p;
			kept |= 1ull << i;
		}
	}
	for (int i = 0; i < count; i++)
		if (pos[i] < 0) {
			pos[i] = __builtin_ctzll(~taken);
			taken |= 1ull << pos[i];
		}
	int rc = clab_evset_program(s->set, codes, count);
	if (rc) { /* PAPI then asks again for the set it had */
		char what[PAPI_HUGE_STR_LEN + 16] = "";
		clab_event_info ei;
		if (count > s->n) /* an add: PAPI appends the new natives */
			snprintf(what, sizeof what, "adding %s",
				 clab_event_get_info(pc->comp, codes[count - 1], &ei) ? "an event"
											: ei.name);
		return fail_on(rc, what[0] ? what : NULL);
	}
	for (int i = 0; i < count; i++) {
		int p = pos[i];
		if (kept >> i & 1)
			native[i].ni_papi_code = s->papi_code_at[p];
		native[i].ni_position = p;
		s->pos[i] = p;
		s->event_at[p] = i;
		s->ntv_at[p] = native[i].ni_event;
		s->papi_code_at[p] = native[i].ni_papi_code;
	}
	s->held = taken;
	s->n = count;
	return PAPI_OK;
}

int clab_papi_cleanup_eventset(hwd_control_state_t *ctl)
{
	clab_papi_control *s = (clab_papi_control *)ctl;
	clab_evset_destroy(s->set);
	s->set = NULL;
	s->n = 0;
	s->held = 0;
	return PAPI_OK;
}

int clab_papi_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	clab_papi_control *s = (clab_papi_control *)ctl;
	int rc = clab_evset_start(s->set);
	s->start_failed = rc != 0;
	return rc ? fail(rc) : PAPI_OK;
}

int clab_papi_stop(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	clab_papi_control *s = (clab_papi_control *)ctl;
	if (s->start_failed) { /* PAPI's clean-up after it: nothing to stop or say */
		s->start_failed = 0;
		return PAPI_OK;
	}
	int rc = clab_evset_stop(s->set, NULL);
	return rc ? fail(rc) : PAPI_OK;
}

int clab_papi_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
		   long long **events, int flags)
{
	(void)ctx;
	(void)flags;
	clab_papi_control *s = (clab_papi_control *)ctl;
	/* PAPI looks at the values only when the read succeeds: set first, so
	 * that nothing but the result is needed after the call */
	*events = (long long *)s->vals;
	int rc = clab_evset_read_at(s->set, s->vals, s->pos);
	return __builtin_expect(rc != 0, 0) ? fail(rc) : PAPI_OK;
}

int clab_papi_reset(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	clab_papi_control *s = (clab_papi_control *)ctl;
	int rc = clab_evset_reset(s->set);
	return rc ? fail(rc) : PAPI_OK;
}

int clab_papi_write(hwd_context_t *ctx, hwd_control_state_t *ctl, long long *v)
{
	(void)ctx;
	(void)ctl;
	(void)v;
	return PAPI_ENOSUPP; /* BG/Q's UPC counters are not writable */
}

/* PAPI_set_multiplex: PAPI may ask before any event is added, so the set
 * may need creating here. PAPI's period is in ns; the unit counts cycles. */
static int set_multiplex(clab_papi_context *c, _papi_int_multiplex_t *mpx)
{
	clab_papi_control *s = (clab_papi_control *)mpx->ESI->ctl_state;
	if (!s->set) {
		int rc = clab_evset_create(c->pc->comp, c->thread, &s->set);
		if (rc)
			return fail(rc);
	}
	clab_component_info ci;
	clab_component_get_info(c->pc->comp, &ci);
	uint64_t period = (uint64_t)mpx->ns * ci.clock_mhz / 1000;
	if (period < CLAB_MPX_MIN_PERIOD)
		period = CLAB_MPX_MIN_PERIOD;
	int rc = clab_evset_set_multiplex(s->set, period);
	return rc ? fail(rc) : PAPI_OK;
}

int clab_papi_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
	switch (code) {
	case PAPI_DOMAIN:
		return clab_papi_set_domain(option->domain.ESI->ctl_state,
					    option->domain.domain);
	case PAPI_DEFDOM: case PAPI_GRANUL: case PAPI_DEFGRN:
		return PAPI_OK;
	case PAPI_MULTIPLEX:
		return set_multiplex((clab_papi_context *)ctx, &option->multiplex);
	/* PAPI's own timers for software multiplexing, overflow and profiling
	 * (PAPI_MULTIPLEX_FORCE_SW, PAPI_OVERFLOW_FORCE_SW): PAPI keeps the
	 * settings; the itimer is the OS's, so there is nothing of ours to
	 * check (as PAPI's perf_event component answers). A per-set default
	 * multiplexing period is not ours to set: PAPI_set_multiplex carries
	 * its own. */
	case PAPI_DEF_ITIMER: case PAPI_DEF_ITIMER_NS:
		return PAPI_OK;
	case PAPI_DEF_MPX_NS:
		return PAPI_ENOSUPP;
	default:
		return PAPI_ENOSUPP;
	}
}

/* PAPI checked the domain against available_domains: user and kernel for
 * units that count contexts apart, PAPI_DOM_ALL (which PAPI expands to
 * every bit) for the others, where clab_evset_set_context refuses a part.
 * PAPI calls this when the set is made, before it has events, and
 * through ctl() when the domain changes. */
int clab_papi_set_domain(hwd_control_state_t *ctl, int domain)
{
	clab_papi_control *s = (clab_papi_control *)ctl;
	int ctx = (domain & PAPI_DOM_USER ? CLAB_CTX_USER : 0) |
		  (domain & PAPI_DOM_KERNEL ? CLAB_CTX_KERNEL : 0);
	if (!ctx)
		return PAPI_EINVAL_DOM;
	if (s->set) {
		int rc = clab_evset_set_context(s->set, ctx);
		if (rc == CLAB_E_NOSUPP) {
			PAPIERROR("counterlab: %s", clab_errmsg());
			return PAPI_EINVAL_DOM;
		}
		if (rc)
			return fail(rc);
	}
	s->ctx = ctx;
	return PAPI_OK;
}

int clab_papi_shutdown_component(void)
{
	return PAPI_OK; /* the machine lives as long as the process */
}

/* PAPI keeps a table of (component, component code, name) entries whose
 * indices are its event codes, and makes an entry for each answer of ours
 * that names none it has (an enumeration names none: each pass made new
 * ones). So every answer first finds or makes PAPI's entry under the
 * event's canonical name and hands PAPI its code (update flag 1, as PAPI's
 * perf_event component does): one code per event and qualifiers, for the
 * life of the process, whether enumerated or looked up by any spelling. */
static int papi_entry(clab_papi_comp *pc, unsigned int code)
{
	char name[PAPI_HUGE_STR_LEN];
	int rc = clab_papi_code_to_name(pc, code, name, sizeof name);
	if (rc != PAPI_OK)
		return rc;
	int papi = _papi_hwi_native_to_eventcode(pc->vector->cmp_info.CmpIdx, (int)code, -1,
						 name);
	if (papi < 0)
		return papi;
	_papi_hwi_set_papi_event_code((unsigned int)papi, 1);
	return PAPI_OK;
}

/* The next event PAPI lists as native after code (first: from the start):
 * the presets handed to PAPI's own table are PAPI's to list. */
static int next_listed(clab_papi_comp *pc, unsigned int from, unsigned int *code)
{
	for (unsigned int c = from; c < (unsigned int)pc->nenum; c++) {
		clab_event_info ei;
		clab_event_get_info(pc->comp, c, &ei);
		if (!(ei.is_preset && pc->presets_to_papi && is_papi_preset(ei.name))) {
			*code = c;
			return PAPI_OK;
		}
	}
	return PAPI_ENOEVNT;
}

int clab_papi_enum(clab_papi_comp *pc, unsigned int *code, int modifier)
{
	unsigned int next;
	int rc;
	switch (modifier) {
	case PAPI_ENUM_FIRST:
		rc = next_listed(pc, 0, &next);
		break;
	case PAPI_ENUM_EVENTS:
		rc = next_listed(pc, *code + 1, &next);
		break;
	case PAPI_NTV_ENUM_UMASKS: /* the qualifiers, as libpfm4's unit masks */
		rc = clab_event_next_qual(pc->comp, *code, &next) ? PAPI_ENOEVNT : PAPI_OK;
		break;
	default:
		return PAPI_ENOIMPL;
	}
	if (rc == PAPI_OK)
		rc = papi_entry(pc, next);
	if (rc == PAPI_OK)
		*code = next;
	return rc;
}

int clab_papi_name_to_code(clab_papi_comp *pc, const char *name,
			   unsigned int *code)
{
	uint32_t c;
	int rc = clab_event_lookup(pc->comp, name, &c);
	if (rc) /* PAPI asks every component: only a name of ours is worth a word */
		return rc == CLAB_E_NOEVENT ? to_papi(rc) : fail(rc);
	clab_event_info ei;
	clab_event_get_info(pc->comp, c, &ei);
	if (ei.is_preset && pc->presets_to_papi && is_papi_preset(ei.name))
		return PAPI_ENOEVNT; /* PAPI resolves its presets itself */
	rc = papi_entry(pc, c);
	if (rc == PAPI_OK)
		*code = c;
	return rc;
}

int clab_papi_code_to_name(clab_papi_comp *pc, unsigned int code, char *name,
			   int len)
{
	clab_event_info ei;
	if (clab_event_get_info(pc->comp, code, &ei))
		return PAPI_ENOEVNT;
	snprintf(name, (size_t)len, "%s", ei.name);
	return PAPI_OK;
}

/* A derived event says so, with its formula, since PAPI lists it among the
 * natives (papi_native_avail). */
static void describe(clab_papi_comp *pc, const clab_event_info *ei, char *d,
		     size_t len)
{
	if (!ei->is_preset) {
		/* a qualified event: ", masks:" and its qualifiers, as libpfm4's
		 * events describe their unit masks (papi_native_avail shows
		 * what follows "masks:" beside each qualifier) */
		size_t o = (size_t)snprintf(d, len, "%s", ei->descr);
		const char *sep = ", masks:";
		for (int q = 0; q < clab_component_nquals(pc->comp) && o < len; q++) {
			clab_qual_info qi;
			if (!(ei->qual_set >> q & 1) || clab_component_qual(pc->comp, q, &qi))
				continue;
			o += (size_t)snprintf(d + o, len - o, "%s%s", sep, qi.descr);
			if (qi.max != UINT64_MAX && o < len)
				o += (size_t)snprintf(d + o, len - o, " (%llu..%#llx)",
						      (unsigned long long)qi.min,
						      (unsigned long long)qi.max);
			sep = ":";
		}
		return;
	}
	size_t o = (size_t)snprintf(d, len, "Derived (%s", ei->postfix ? ei->postfix
				    : clab_derived_name(ei->derived));
	for (int k = 0; k < ei->nterms && o < len; k++) {
		clab_event_info ti;
		clab_event_get_info(pc->comp, ei->terms[k], &ti);
		o += (size_t)snprintf(d + o, len - o, "%s N%d=%s", k ? "," : ":", k, ti.name);
	}
	if (o < len)
		snprintf(d + o, len - o, "): %s", ei->descr);
}

int clab_papi_code_to_descr(clab_papi_comp *pc, unsigned int code, char *d,
			    int len)
{
	clab_event_info ei;
	if (clab_event_get_info(pc->comp, code, &ei))
		return PAPI_ENOEVNT;
	describe(pc, &ei, d, (size_t)len);
	return PAPI_OK;
}

int clab_papi_code_to_info(clab_papi_comp *pc, unsigned int code,
			   PAPI_event_info_t *info)
{
	clab_event_info ei;
	if (clab_event_get_info(pc->comp, code, &ei))
		return PAPI_ENOEVNT;
	snprintf(info->symbol, sizeof info->symbol, "%s", ei.name);
	snprintf(info->short_descr, sizeof info->short_descr, "%s", ei.descr);
	describe(pc, &ei, info->long_descr, sizeof info->long_descr);
	return PAPI_OK;
}

/* An overflow of one of our sets, in its thread: into PAPI's machinery,
 * which calls the PAPI_overflow handler or updates the PAPI_profil
 * buffers with the interrupted PC. */
static void overflow_to_papi(clab_evset *set, uint64_t vector, void *pc, void *uc,
			     void *arg)
{
	(void)set;
	clab_papi_control *s = arg;
	/* PAPI finds the events in the vector by position */
	uint64_t by_pos = 0;
	for (int i = 0; i < s->n; i++)
		if (vector >> i & 1)
			by_pos |= 1ull << s->pos[i];
	_papi_hwi_context_t ctx = {.si = NULL, .ucontext = uc};
	ThreadInfo_t *thread = NULL;
	int hardware = 1;
	_papi_hwi_dispatch_overflow_signal(&ctx, (vptr_t)pc, &hardware,
					   (long long)by_pos, 0, &thread, s->cidx);
}

static int any_armed(const clab_papi_control *s)
{
	for (int i = 0; i < s->n; i++)
		if (clab_evset_overflow_period(s->set, i))
			return 1;
	return 0;
}

int clab_papi_set_overflow(clab_papi_comp *pc, EventSetInfo_t *esi, int index,
			   int threshold)
{
	clab_papi_control *s = (clab_papi_control *)esi->ctl_state;
	int cidx = pc->vector->cmp_info.CmpIdx;
	int sig = pc->vector->cmp_info.hardware_intr_sig;
	int pos = esi->EventInfoArray[index].pos[0];
	if (pos < 0 || pos >= CLAB_PAPI_MAX || !(s->held >> pos & 1)) {
		PAPIERROR("counterlab: event %d of the set reads position %d, "
			  "which holds no event of ours", index, pos);
		return PAPI_EINVAL;
	}
	int i = s->event_at[pos];
	int was = any_armed(s);
	if (threshold > 0 && !was) {
		int rc = _papi_hwi_start_signal(sig, 1, cidx);
		if (rc != PAPI_OK)
			return rc;
	}
	s->cidx = cidx;
	int rc = clab_evset_overflow(s->set, i, (uint64_t)threshold,
				     overflow_to_papi, s);
	if ((was || threshold > 0) && !any_armed(s))
		_papi_hwi_stop_signal(sig);
	return rc ? fail(rc) : PAPI_OK;
}

/* PAPI's software overflow (PAPI_OVERFLOW_FORCE_SW): its interval timer's
 * signal comes here too; PAPI reads the running set and compares with the
 * thresholds itself, as PAPI's perf_event component hands it over. pc NULL:
 * the signal's own context says where the thread was; either is taken out
 * of PAPI and us to the program's frame. */
static void software_overflow(hwd_siginfo_t *si, void *uc, void *pc)
{
	ThreadInfo_t *thread = _papi_hwi_lookup_thread(0);
	if (!thread)
		return;
	for (int cidx = 0; cidx < papi_num_components; cidx++) {
		EventSetInfo_t *esi = thread->running_eventset[cidx];
		if (_papi_hwd[cidx]->dispatch_timer != clab_papi_dispatch_timer || !esi ||
		    !(esi->overflow.flags & PAPI_OVERFLOW_FORCE_SW))
			continue;
		_papi_hwi_context_t ctx = {.si = si, .ucontext = uc};
		vptr_t at = (vptr_t)clab_callsite(pc ? pc : (void *)GET_OVERFLOW_ADDRESS(ctx));
		_papi_hwi_dispatch_overflow_signal(&ctx, at, NULL, 0, 0, &thread, cidx);
	}
}

/* The timer fired inside one of our calls, which holds a lock PAPI's read
 * would take again: PAPI reads when that call ends. */
static void software_overflow_later(void *pc)
{
	software_overflow(NULL, NULL, pc);
}

/* PAPI installs this for the overflow signal of all our components, and
 * for its own timer's signal when it overflows in software. */
void clab_papi_dispatch_timer(int sig, hwd_siginfo_t *si, void *uc)
{
	if (sig != clab_overflow_signal()) {
		if (!clab_signal_defer(software_overflow_later))
			software_overflow(si, uc, NULL);
		return;
	}
	clab_overflow_dispatch(uc);
}
