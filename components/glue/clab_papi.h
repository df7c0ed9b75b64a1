/* PAPI glue shared by counterlab's components: thin wrappers from PAPI's
 * component interface (papi_vector_t) to libcounterlab. The glue never
 * computes counts. A component file states its name and calls
 * CLAB_PAPI_COMPONENT, which makes the vector and its wrappers. */
#ifndef CLAB_PAPI_H
#define CLAB_PAPI_H

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "counterlab/counterlab.h"

typedef struct clab_papi_comp {
	const char *unit;        /* counterlab component name: "core", ... */
	papi_vector_t *vector;
	clab_machine *machine;
	clab_component *comp;
	int nenum;               /* events PAPI enumerates as native */
	int presets_to_papi;     /* PAPI_* presets go to PAPI's preset table */
} clab_papi_comp;

typedef struct clab_papi_context {
	clab_thread *thread;
	clab_papi_comp *pc;      /* for ctl(), which PAPI calls without it */
} clab_papi_context;

#define CLAB_PAPI_MAX 64
/* Event i of our set is PAPI's native i, but PAPI reads its value from
 * vals[ni_position], and a position must outlive the removal of another
 * native (see clab_papi_update_control_state). */
typedef struct clab_papi_control {
	clab_evset *set;
	int ctx;                       /* clab_context PAPI's domain asks for (0: both) */
	int n;
	int cidx;                      /* for overflows, set by set_overflow */
	int start_failed;              /* PAPI stops a set whose start failed */
	uint64_t held;                 /* bit p: position p is in use */
	int pos[CLAB_PAPI_MAX];        /* our event i -> its position */
	int event_at[CLAB_PAPI_MAX];   /* position -> our event i */
	int ntv_at[CLAB_PAPI_MAX];     /* position -> ni_event, as last programmed */
	int papi_code_at[CLAB_PAPI_MAX]; /* position -> ni_papi_code, likewise */
	int64_t vals[CLAB_PAPI_MAX];   /* by position, handed to PAPI as its long long */
} clab_papi_control;
_Static_assert(sizeof(long long) == sizeof(int64_t), "PAPI's counts are our int64_t");

int clab_papi_init_component(clab_papi_comp *pc, int cidx);
int clab_papi_init_thread(clab_papi_comp *pc, hwd_context_t *ctx);
int clab_papi_shutdown_thread(hwd_context_t *ctx);
int clab_papi_init_control_state(clab_papi_comp *pc, hwd_control_state_t *ctl);
int clab_papi_update_control_state(clab_papi_comp *pc, hwd_control_state_t *ctl,
				   NativeInfo_t *native, int count,
				   hwd_context_t *ctx);
int clab_papi_cleanup_eventset(hwd_control_state_t *ctl);
int clab_papi_start(hwd_context_t *ctx, hwd_control_state_t *ctl);
int clab_papi_stop(hwd_context_t *ctx, hwd_control_state_t *ctl);
int clab_papi_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
		   long long **events, int flags);
int clab_papi_reset(hwd_context_t *ctx, hwd_control_state_t *ctl);
int clab_papi_write(hwd_context_t *ctx, hwd_control_state_t *ctl, long long *v);
int clab_papi_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option);
int clab_papi_set_domain(hwd_control_state_t *ctl, int domain);
int clab_papi_shutdown_component(void);
int clab_papi_enum(clab_papi_comp *pc, unsigned int *code, int modifier);
int clab_papi_name_to_code(clab_papi_comp *pc, const char *name,
			   unsigned int *code);
int clab_papi_code_to_name(clab_papi_comp *pc, unsigned int code, char *name,
			   int len);
int clab_papi_code_to_descr(clab_papi_comp *pc, unsigned int code, char *d,
			    int len);
int clab_papi_code_to_info(clab_papi_comp *pc, unsigned int code,
			   PAPI_event_info_t *info);
int clab_papi_set_overflow(clab_papi_comp *pc, EventSetInfo_t *esi, int index,
			   int threshold);
void clab_papi_dispatch_timer(int sig, hwd_siginfo_t *si, void *uc);
/* The simulated machine that described the node to PAPI's hardware info
 * (component 0 with a [hardware] section); NULL: PAPI's view of the host. */
clab_machine *clab_papi_described_machine(void);

#define CLAB_PAPI_COMPONENT(NAME, UNIT, DESCR)                                  \
	papi_vector_t _clab_##NAME##_vector;                                     \
	static clab_papi_comp pc_ = {UNIT, &_clab_##NAME##_vector, 0, 0, 0, 0};  \
	static int init_component_(int cidx)                                     \
	{ return clab_papi_init_component(&pc_, cidx); }                         \
	static int init_thread_(hwd_context_t *c)                                \
	{ return clab_papi_init_thread(&pc_, c); }                               \
	static int init_control_(hwd_control_state_t *s)                         \
	{ return clab_papi_init_control_state(&pc_, s); }                        \
	static int update_(hwd_control_state_t *s, NativeInfo_t *n, int k,       \
			   hwd_context_t *c)                                     \
	{ return clab_papi_update_control_state(&pc_, s, n, k, c); }             \
	static int enum_(unsigned int *e, int m)                                 \
	{ return clab_papi_enum(&pc_, e, m); }                                   \
	static int name_to_code_(const char *n, unsigned int *e)                 \
	{ return clab_papi_name_to_code(&pc_, n, e); }                           \
	static int code_to_name_(unsigned int e, char *n, int l)                 \
	{ return clab_papi_code_to_name(&pc_, e, n, l); }                        \
	static int code_to_descr_(unsigned int e, char *n, int l)                \
	{ return clab_papi_code_to_descr(&pc_, e, n, l); }                       \
	static int code_to_info_(unsigned int e, PAPI_event_info_t *i)           \
	{ return clab_papi_code_to_info(&pc_, e, i); }                           \
	static int set_overflow_(EventSetInfo_t *s, int i, int t)                \
	{ return clab_papi_set_overflow(&pc_, s, i, t); }                        \
	papi_vector_t _clab_##NAME##_vector = {                                  \
		.cmp_info = {                                                    \
			.name = UNIT, /* PAPI matches "UNIT:::EVENT" on name */ \
			.short_name = UNIT,                                      \
			.description = DESCR,                                    \
			.version = "1.0",                                        \
			/* domains: set by init_component from the unit */      \
			.default_granularity = PAPI_GRN_THR,                     \
			.available_granularities = PAPI_GRN_THR,                 \
			.hardware_intr_sig = PAPI_INT_SIGNAL,                    \
		},                                                               \
		.size = {                                                        \
			.context = sizeof(clab_papi_context),                    \
			.control_state = sizeof(clab_papi_control),              \
			.reg_value = sizeof(int),                                \
			.reg_alloc = sizeof(int),                                \
		},                                                               \
		.init_component = init_component_,                               \
		.init_thread = init_thread_,                                     \
		.shutdown_thread = clab_papi_shutdown_thread,                    \
		.shutdown_component = clab_papi_shutdown_component,              \
		.init_control_state = init_control_,                              \
		.update_control_state = update_,                                 \
		.cleanup_eventset = clab_papi_cleanup_eventset,                  \
		.start = clab_papi_start,                                        \
		.stop = clab_papi_stop,                                          \
		.read = clab_papi_read,                                          \
		.reset = clab_papi_reset,                                        \
		.write = clab_papi_write,                                        \
		.ctl = clab_papi_ctl,                                            \
		.set_domain = clab_papi_set_domain,                              \
		.ntv_enum_events = enum_,                                        \
		.ntv_name_to_code = name_to_code_,                               \
		.ntv_code_to_name = code_to_name_,                               \
		.ntv_code_to_descr = code_to_descr_,                             \
		.ntv_code_to_info = code_to_info_,                               \
		.set_overflow = set_overflow_,                                   \
		.dispatch_timer = clab_papi_dispatch_timer,                      \
	}

#endif
