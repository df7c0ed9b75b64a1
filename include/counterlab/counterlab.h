/* counterlab: hardware-counter components over real and simulated machines.
 *
 * The public surface of libcounterlab. A machine (opened from a profile in
 * machines/) holds components ("core", "l2", ...); each component has an
 * event catalog (native events and presets) and makes event sets that count
 * on the calling thread's (simulated) hardware thread. */
#ifndef COUNTERLAB_H
#define COUNTERLAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Errors: every failing call returns one of these and leaves a readable
 * detail for the calling thread in clab_errmsg(). */
enum clab_error {
	CLAB_OK = 0,
	CLAB_E_INVAL = -1,     /* invalid argument */
	CLAB_E_NOMEM = -2,     /* out of memory */
	CLAB_E_NOEVENT = -3,   /* unknown or malformed event name or code */
	CLAB_E_CONFLICT = -4,  /* events cannot be counted together */
	CLAB_E_QUALIFIER = -5, /* unknown or out-of-range event qualifier */
	CLAB_E_PROFILE = -6,   /* machine profile missing, malformed or misused */
	CLAB_E_ACTIVITY = -7,  /* malformed activity (rate) profile */
	CLAB_E_NOSUPP = -8,    /* operation not supported by this unit */
	CLAB_E_STATE = -9,     /* wrong state (e.g. not running) */
	CLAB_E_NOCOMP = -10,   /* no such component on this machine */
	CLAB_E_SYS = -11,      /* a system call failed */
	CLAB_E_NOTHREAD = -12, /* no simulated hardware thread left */
	CLAB_E_RATE = -13,     /* more events than the counters hold, or rates the hardware cannot produce */
	CLAB_E_MAP = -14,      /* bad torus shape or malformed rank map */
	CLAB_E_PATTERN = -15,  /* unknown or malformed traffic pattern */
	CLAB_E_PARSE = -16,    /* a kernel counter file is malformed or cut short */
	CLAB_E_NODEV = -17,    /* the unit's device is absent or not permitted */
};
#define CLAB_NERRORS 18

const char *clab_strerror(int err);
/* Detail of the calling thread's most recent error ("" if none). */
const char *clab_errmsg(void);

typedef struct clab_machine clab_machine;
typedef struct clab_component clab_component;
typedef struct clab_thread clab_thread;
typedef struct clab_evset clab_evset;

/* Whose activity a counter counts: the counting thread, the whole node,
 * one core of it; on real machines also the process, one logical CPU
 * (whatever runs there) or one package. */
enum clab_scope { CLAB_SCOPE_THREAD, CLAB_SCOPE_CORE, CLAB_SCOPE_NODE,
		  CLAB_SCOPE_PROCESS, CLAB_SCOPE_CPU, CLAB_SCOPE_PACKAGE };
enum clab_overflow { CLAB_OVF_NONE, CLAB_OVF_FAST, CLAB_OVF_SLOW };
enum clab_derived { CLAB_NOT_DERIVED, CLAB_DERIVED_ADD, CLAB_DERIVED_SUB,
		    CLAB_DERIVED_POSTFIX };

const char *clab_scope_name(enum clab_scope s);
const char *clab_overflow_name(enum clab_overflow o);
const char *clab_derived_name(enum clab_derived d);

/* ---- machines ---------------------------------------------------------- */

/* spec: "NAME-OR-PATH[:key=value,...]". NAME is a profile in the profile
 * directory ($COUNTERLAB_MACHINES, else the installed machines/); keys
 * override the profile's [machine] section (torus, ppn, map, clock, tick,
 * seed, activity). NULL means $COUNTERLAB_MACHINE, else "bgq". */
int clab_machine_open(const char *spec, clab_machine **out);
void clab_machine_close(clab_machine *m);
/* The profile directory ($COUNTERLAB_MACHINES, else the installed one). */
const char *clab_machine_profiles_dir(void);
/* Calls fn for each profile NAME.ini there, in name order, with its NAME
 * and, when describe is set, its [machine] description ("" when it has
 * none; why, when it does not load), else NULL. Returns how many, or a
 * negative error when the directory cannot be read. */
typedef void (*clab_profile_fn)(const char *name, const char *descr, void *arg);
int clab_machine_profiles(int describe, clab_profile_fn fn, void *arg);
/* The process-wide machine, opened on first use from $COUNTERLAB_MACHINE. */
int clab_machine_default(clab_machine **out);

const char *clab_machine_name(const clab_machine *m);
const char *clab_machine_description(const clab_machine *m);
const char *clab_machine_path(const clab_machine *m);
/* Effective value of a [machine] key after overrides, or NULL. */
const char *clab_machine_setting(const clab_machine *m, const char *key);
int clab_machine_ncomponents(const clab_machine *m);
clab_component *clab_machine_component_at(clab_machine *m, int i);
/* NULL (and CLAB_E_NOCOMP in clab_errmsg) when the machine has none. */
clab_component *clab_machine_component(clab_machine *m, const char *name);

/* What the machine's profile says about its hardware (the [hardware]
 * section; core, thread, package and NUMA counts come from its topology),
 * for tools that describe the machine, such as PAPI's hardware info. */
enum clab_cache_kind { CLAB_CACHE_DATA, CLAB_CACHE_INST, CLAB_CACHE_UNIFIED,
		       CLAB_CACHE_PREFETCH };
#define CLAB_CACHE_FULL (-1) /* ways of a fully associative cache */
#define CLAB_HW_MAX_CACHES 16

typedef struct clab_cache_desc {
	int level;                 /* 1, 2, ... */
	enum clab_cache_kind kind;
	uint64_t size;             /* bytes */
	int line;                  /* bytes */
	int ways;                  /* CLAB_CACHE_FULL: fully associative */
	int write_back;            /* 1 write-back, 0 write-through, -1 not given */
} clab_cache_desc;

typedef struct clab_hw_info {
	char vendor[64];           /* e.g. "IBM" */
	char model[128];           /* e.g. "PowerPC A2 (Blue Gene/Q compute chip)" */
	double revision;           /* 0: not given (also the cpuid fields) */
	int cpuid_family, cpuid_model, cpuid_stepping;
	int mhz;                   /* core clock */
	int sockets, cores_per_socket, threads_per_core, numa_nodes;
	uint64_t memory;           /* bytes of main memory (0: not given) */
	int ncache;                /* caches, in profile order */
	clab_cache_desc cache[CLAB_HW_MAX_CACHES];
} clab_hw_info;

/* CLAB_E_NOSUPP when the profile has no [hardware] section. */
int clab_machine_hw_info(const clab_machine *m, clab_hw_info *out);

/* ---- components and their event catalogs ------------------------------- */

typedef struct clab_component_info {
	const char *name;        /* "core", "l2", ... */
	const char *description;
	const char *backend;     /* backend name, e.g. "bgq-punit" */
	const char *rules;       /* how events share the unit ("" if none) */
	int ncounters;           /* physical counters of one unit */
	int width;               /* counter width in bits as the hardware has it */
	enum clab_scope scope;   /* what one unit serves */
	enum clab_overflow overflow;
	uint32_t overflow_latency; /* cycles from crossing to interrupt (max) */
	int can_multiplex;
	int contexts;            /* counts user and kernel context apart (clab_evset_set_context) */
	int default_context;     /* what a new set counts: enum clab_context */
	int self_multiplex;      /* the unit multiplexes by itself (the kernel's perf_event) */
	uint32_t clock_mhz;      /* cycles per microsecond of the unit's clock (0: unknown) */
	int nnative;             /* native events, codes 0 .. nnative-1 */
	int npreset;             /* presets, codes nnative .. nnative+npreset-1 */
	const char *note;        /* what the unit cannot count here and why ("" if nothing) */
	const char *presets_note; /* how PAPI's preset table served it ("" if not asked) */
	const char *const *pmus; /* PMUs of its "PMU::EVENT" names, NULL-ended (may be NULL) */
} clab_component_info;

void clab_component_get_info(const clab_component *c, clab_component_info *info);
/* Why the component cannot count (its device is absent or not permitted),
 * or NULL when it can. A disabled component has no events; the machine's
 * other components work. */
const char *clab_component_disabled(const clab_component *c);
clab_machine *clab_component_machine(const clab_component *c);

#define CLAB_MAX_TERMS 8

typedef struct clab_event_info {
	uint32_t code;
	const char *name;        /* as looked up, with qualifiers */
	const char *descr;
	const char *group;       /* hardware source, e.g. "A2_XU", "L1P_BASE" */
	uint32_t hw_id;          /* id in the vendor's event table (0: none) */
	uint64_t ctr_mask;       /* counters the event may use */
	enum clab_scope scope;   /* whose activity it counts */
	int is_preset;
	enum clab_derived derived;
	const char *postfix;     /* PAPI-style postfix ("N0|N1|-|") or NULL */
	int nterms;              /* natives a preset is computed from */
	uint32_t terms[CLAB_MAX_TERMS];
	uint32_t quals;          /* qualifiers accepted (bit i: qualifier i) */
	uint32_t qual_set;       /* qualifiers the code carries (bit i: qualifier i) */
} clab_event_info;

typedef struct clab_qual_info {
	const char *name;
	const char *descr;
	uint64_t min, max;
} clab_qual_info;

/* Name to code. Accepts "NAME" and "NAME:qual=value:..." (value decimal or
 * 0x-hex; a qualifier of range 0..1 alone, libpfm4's ":u", means 1);
 * qualified names get codes of their own. */
int clab_event_lookup(clab_component *c, const char *name, uint32_t *code);
int clab_event_get_info(clab_component *c, uint32_t code, clab_event_info *info);
/* Walks a native's qualifiers, as PAPI walks unit masks: from a native, the
 * code of the native with its first qualifier alone at that qualifier's
 * lowest value; from such a code (or any qualified one), the same for the
 * next qualifier after those it carries. CLAB_E_NOEVENT past the last. The
 * codes are the ones clab_event_lookup gives the same names. */
int clab_event_next_qual(clab_component *c, uint32_t code, uint32_t *next);
int clab_component_nquals(const clab_component *c);
int clab_component_qual(const clab_component *c, int i, clab_qual_info *q);

/* ---- threads ----------------------------------------------------------- */

/* Binds the calling OS thread to a (simulated) hardware thread of m. Idempotent
 * per OS thread: a second attach returns the same handle, and the hardware
 * thread is let go of at the last matching detach. */
int clab_thread_attach(clab_machine *m, clab_thread **out);
/* Binds the calling OS thread to hardware thread hw as well (an OS thread
 * may act for several: drivers and tests that play a whole core). Fails with
 * CLAB_E_NOTHREAD when hw is taken. */
int clab_thread_attach_at(clab_machine *m, int hw, clab_thread **out);
/* The calling OS thread's hardware thread (its first, if it acts for
 * several) without attaching: CLAB_E_NOTHREAD when it has none. */
int clab_thread_current(clab_machine *m, clab_thread **out);
/* At the last detach of its attaches: lets go of t's hardware thread (its
 * running sets stop and release their counters; its sets cannot start
 * again) and of the handle, which stays valid for the sets that still name
 * it. An OS thread that exits while
 * attached lets go of its hardware threads by itself; its handles then
 * wait for clab_thread_detach. */
void clab_thread_detach(clab_thread *t);
/* Destroys the event sets of component c that name t: for a layer whose
 * own records of them are gone for good (PAPI_shutdown frees no sets of a
 * thread that exited without unregistering). */
void clab_thread_destroy_sets(clab_thread *t, clab_component *c);
/* Hardware thread index (core * threads_per_core + smt). */
int clab_thread_hwthread(const clab_thread *t);

/* ---- event sets -------------------------------------------------------- */

int clab_evset_create(clab_component *c, clab_thread *t, clab_evset **out);
void clab_evset_destroy(clab_evset *s);
/* Adds one event; on any error the set is unchanged. */
int clab_evset_add(clab_evset *s, uint32_t code);
/* Replaces the whole event list at once (n may be 0). */
int clab_evset_program(clab_evset *s, const uint32_t *codes, int n);
int clab_evset_size(const clab_evset *s);
int clab_evset_start(clab_evset *s);
/* Stops counting; vals (may be NULL) gets the final counts. */
int clab_evset_stop(clab_evset *s, int64_t *vals);
int clab_evset_read(clab_evset *s, int64_t *vals);
/* The same with event i's value in vals[at[i]]: for a layer that keeps the
 * values in an order of its own (PAPI's positions), without copying them
 * again. */
int clab_evset_read_at(clab_evset *s, int64_t *vals, const int *at);
int clab_evset_reset(clab_evset *s);
/* vals[i] += count; then reset. */
int clab_evset_accum(clab_evset *s, int64_t *vals);
/* Counters used by event i of the set (bit c = counter c). */
uint64_t clab_evset_counters(const clab_evset *s, int i);

/* Which processor contexts a stopped set counts (default: the unit's
 * info.default_context; both on the simulated units). Units
 * that cannot tell them apart (info.contexts == 0) accept only
 * CLAB_CTX_ALL (CLAB_E_NOSUPP otherwise). */
enum clab_context { CLAB_CTX_USER = 1, CLAB_CTX_KERNEL = 2, CLAB_CTX_ALL = 3 };
int clab_evset_set_context(clab_evset *s, int ctx);
int clab_evset_get_context(const clab_evset *s);

/* ---- overflow ---------------------------------------------------------- */

/* Called in the thread that owns the set, with the set's counters stopped:
 * vector has bit i for every event i of the set that overflowed; pc is
 * where the thread was interrupted (host clock) or the call site of the
 * library call that moved its simulated time (virtual clock), in the
 * program's code (see clab_callsite); ucontext is the signal's, or NULL. */
typedef void (*clab_overflow_handler)(clab_evset *s, uint64_t vector, void *pc,
				      void *ucontext, void *arg);

/* Arms event i of s to interrupt each time its count grows by period
 * (1 .. 2^63; 0 disarms) and call h when it does. The unit decides how:
 * CLAB_OVF_FAST units interrupt within overflow_latency cycles and freeze
 * the set's counters until h returns; CLAB_OVF_SLOW units notice on their
 * next accumulation scan and count on until h starts. Units without
 * overflow, derived events and multiplexed sets: CLAB_E_NOSUPP. All armed
 * events of a set share one handler. */
int clab_evset_overflow(clab_evset *s, int i, uint64_t period,
			clab_overflow_handler h, void *arg);
/* Period event i is armed with (0: none). */
uint64_t clab_evset_overflow_period(const clab_evset *s, int i);

/* The real-time signal that carries overflows to the thread that owns the
 * set (and, on a host-clock machine, the thread's CPU-time timer that lets
 * simulated time catch up while it runs). counterlab installs a handler for
 * it when the first event is armed, unless the program has one; a program
 * (or PAPI) with its own handler calls clab_overflow_dispatch from it. */
int clab_overflow_signal(void);
void clab_overflow_dispatch(void *ucontext);
/* For a signal handler of another layer (PAPI's software-overflow timer)
 * that calls into the library: when the signal came while the thread was
 * inside a library call, fn runs at that call's end, with the address the
 * call came from (1 returned); otherwise the handler may go on now (0). */
int clab_signal_defer(void (*fn)(void *pc));
/* Overflow PCs name the program's code, never libcounterlab's or a layer's
 * over it: clab_callsite takes a return address or an interrupted PC on the
 * calling thread's stack and, when it lies in one of those libraries, gives
 * the first frame above it outside them (async-signal-safe). A layer (PAPI's
 * glue, a compatibility library) registers once, outside any signal
 * handler, with an address of its own code. */
void *clab_callsite(void *pc);
void clab_callsite_library(const void *addr);
/* ---- multiplexing ------------------------------------------------------ */

/* Multiplexing: events beyond what the unit counts at once are packed
 * first-fit into groups, each with a hidden cycle counter; groups take turns
 * every period simulated cycles (and on clab_evset_switch). Only on a stopped
 * set; period 0 turns multiplexing off. CLAB_E_NOSUPP on units that cannot.
 * clab_evset_read then returns estimates for the whole time the set ran:
 * count * (cycles of all groups) / (cycles of the event's group).
 * clab_evset_counters(s, i) names event i's counters only while its group
 * counts (0 otherwise). */
#define CLAB_EVSET_MAX_EVENTS 64
#define CLAB_EVSET_MAX_GROUPS 64
#define CLAB_MPX_MIN_PERIOD 1000 /* cycles: shorter turns would be mostly switching */
int clab_evset_set_multiplex(clab_evset *s, uint64_t period);
int clab_evset_get_multiplex(const clab_evset *s, uint64_t *period); /* 0: off */
int clab_evset_switch(clab_evset *s);                  /* next group now */
/* At most max user events per group (0: as many as the unit counts at
 * once), for APIs that form groups by count; before the events are set. */
int clab_evset_set_mpx_group_max(clab_evset *s, int max);
int clab_evset_read_raw(clab_evset *s, int64_t *vals); /* unscaled counts */

typedef struct clab_mpx_stats {
	uint64_t period;          /* cycles per turn, 0: not multiplexed */
	int ngroups;
	int current;              /* group counting (or to count) now */
	uint64_t switches;        /* group changes since start */
	uint64_t failed_switches; /* refused by the unit: the group kept counting */
	uint64_t elapsed;         /* cycles the set counted since start/reset */
	uint64_t cycles[CLAB_EVSET_MAX_GROUPS]; /* of which each group counted */
	uint64_t turns[CLAB_EVSET_MAX_GROUPS];  /* turns each group began */
	int nevents[CLAB_EVSET_MAX_GROUPS];     /* user events per group */
	int group_of[CLAB_EVSET_MAX_EVENTS];    /* group of event i */
} clab_mpx_stats;
/* On a set that is not multiplexed: period 0 and one group holding all. */
int clab_evset_mpx_stats(const clab_evset *s, clab_mpx_stats *st);

#ifdef __cplusplus
}
#endif
#endif
