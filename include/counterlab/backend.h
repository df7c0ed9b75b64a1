/* The backend interface: one vtable per counting unit.
 *
 * A backend describes its unit (counters, width, scope, overflow kind,
 * native events and qualifiers) when opened, plans lists of native events
 * onto its counters, and reserves the counters of a plan while its event
 * set runs (acquire/release), so a thread may keep any number of sets and
 * run those the unit can hold at once. It never knows about PAPI; the framework builds
 * event sets, presets and derived events on top of it. */
#ifndef COUNTERLAB_BACKEND_H
#define COUNTERLAB_BACKEND_H

#include <stdio.h>
#include "counterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Qualifiers a unit may have (bits of clab_native.quals): libpfm4 gives the
 * events of a core PMU some twenty modifiers. */
#define CLAB_MAX_QUALS 32

/* Marks the functions of a read path: the compiler puts them together in
 * .text.hot, so that a read touches one or two pages of code. It matters
 * where a system call leaves the TLB cold (paravirtualized guests), and
 * a read over perf makes one. */
#define CLAB_HOT __attribute__((hot))

/* One row of a unit's native event table (static const, libpfm4 style). */
typedef struct clab_native {
	const char *name;
	const char *descr;
	const char *group;      /* hardware source shown in listings */
	uint32_t hw_id;         /* vendor event id */
	uint64_t ctr_mask;      /* counters the event may use */
	uint8_t scope;          /* enum clab_scope: whose activity it counts */
	uint32_t quals;         /* bit q: accepts qualifier q of the unit */
} clab_native;

/* program() flags. The two EXCLUDE flags (only for units with `contexts`)
 * keep a context out of every count of the set, as perf's exclude_user
 * and exclude_kernel do. */
#define CLAB_PLAN_SHARE 1
#define CLAB_PLAN_EXCLUDE_USER 2
#define CLAB_PLAN_EXCLUDE_KERNEL 4

/* Qualifiers one event may carry at once. */
#define CLAB_MAX_GIVEN 8

/* A native event with its qualifier values, as handed to program(). The
 * values are packed in qualifier order (a unit may have 32 qualifiers, an
 * event carries a few), so that a set's requests stay small. */
typedef struct clab_evreq {
	uint32_t native;                /* index into the unit's table */
	uint32_t qual_set;              /* bit q: qualifier q was given */
	uint64_t given[CLAB_MAX_GIVEN]; /* their values, lowest q first */
} clab_evreq;

/* The value of qualifier q in r; 0 when not given. */
static inline uint64_t clab_evreq_qual(const clab_evreq *r, int q)
{
	if (!(r->qual_set >> q & 1))
		return 0;
	return r->given[__builtin_popcount(r->qual_set & ((1u << q) - 1))];
}

typedef struct clab_unit_desc {
	const char *description;
	const char *rules;      /* how events share the unit, for listings */
	int ncounters;
	int width;
	enum clab_scope scope;
	enum clab_overflow overflow;
	uint32_t overflow_latency;
	int can_multiplex;
	int contexts;           /* can count user and kernel context apart */
	int default_context;    /* with contexts: what a new set counts (0: both) */
	/* The unit shares its counters in turns by itself and scales what it
	 * reads (Linux perf_event): multiplexing a set asks nothing of the
	 * framework. */
	int self_multiplex;
	/* multiplexing: the native event counting the thread's cycles, which
	 * every group carries to time its turns (read only when can_multiplex) */
	int cycles_native;
	uint32_t clock_mhz;     /* cycles per microsecond (0: unknown) */
	const clab_native *natives;
	int nnative;
	const clab_qual_info *quals;
	int nquals;
	/* What this unit cannot count here and why (NULL: nothing missing),
	 * e.g. a host without a hardware PMU: shown in listings and added to
	 * the error of a lookup that finds no event. */
	const char *note;
	/* NULL-ended names of the PMUs whose "PMU::EVENT" names the unit lists
	 * (may be NULL), so that tools can route such names to it. */
	const char *const *pmus;
} clab_unit_desc;

/* A unit's read of a set (clab_unit_ops.read). */
typedef int (*clab_read_fn)(void *unit, void *set, uint64_t *vals);

typedef struct clab_unit_ops {
	const char *name;       /* as named in machine profiles */
	/* Keys of its own the unit reads from its profile section (NULL-ended,
	 * may be NULL), as settings "SECTION.KEY" (clab_machine_setting). */
	const char *const *keys;
	/* Opens the unit of profile section `section` on m and fills desc. */
	int (*open)(clab_machine *m, const char *section, void **unit,
		    clab_unit_desc *desc);
	void (*close)(void *unit);
	/* Event sets hold counters only while they run. program() plans: it
	 * checks that reqs[0..n) can be counted together by hwthread as if no
	 * other set held any of the unit, and makes (or, for `replace`, which
	 * is not acquired, reuses) the backend set; it reserves nothing. With
	 * CLAB_PLAN_SHARE the plan also leaves other hardware threads the
	 * counters that are theirs when they have sets of their own (used by
	 * multiplexing, whose groups take turns rather than crowd others out).
	 * On failure CLAB_E_CONFLICT (or another error) with a message naming
	 * the events and the reason; `replace` is then untouched. discard()
	 * frees a set (releasing it first if it is acquired). */
	int (*program)(void *unit, int hwthread, const clab_evreq *reqs, int n,
		       int flags, void *replace, void **set);
	void (*discard)(void *unit, void *set);
	/* acquire() reserves the unit's counters for a planned set, given what
	 * the other acquired sets hold, treating what `replace` (an acquired
	 * set of the same thread, or NULL) holds as free: on success replace
	 * is released, on failure it keeps everything. The set's overflow
	 * arming applies from here. It allocates nothing (multiplexing swaps
	 * groups with it inside a signal handler). CLAB_E_CONFLICT with a
	 * message naming what holds the counters. release() gives them back;
	 * the counts as of then stay readable (read, peek) and reset zeroes
	 * them. start() needs an acquired set and counts from zero. */
	int (*acquire)(void *unit, void *set, void *replace);
	void (*release)(void *unit, void *set);
	int (*start)(void *unit, void *set);
	int (*stop)(void *unit, void *set);
	/* Counts since start/reset, one per request, in request order;
	 * CLAB_OK or a (negative) error. */
	clab_read_fn read;
	/* The read to use for `set` until it is programmed again, chosen for
	 * what the unit knows of it then (whether its reads move a clock,
	 * say), so that each read need not find out: a function that does
	 * what read does. May be NULL: read. */
	clab_read_fn (*reader)(void *unit, void *set);
	int (*reset)(void *unit, void *set);
	/* As read(), but simulated time does not pass (no tick, no host-clock
	 * step): multiplexing reads a group at the instant it switches. Needed
	 * when can_multiplex is set; may be NULL otherwise. */
	int (*peek)(void *unit, void *set, uint64_t *vals);
	/* Counters given to request i (bit c = counter c). */
	uint64_t (*counters)(void *unit, void *set, int i);
	/* Overflow (NULL when desc.overflow is CLAB_OVF_NONE). Arms request i
	 * of set to interrupt each time its count grows by period from start
	 * (0 disarms); cookie goes back to clab_overflow_raise. The arming is
	 * the set's: it takes effect on the unit when the set is acquired. A
	 * unit with node-wide thresholds refuses there (CLAB_E_CONFLICT) a
	 * period that differs from another acquired set's on the same counter;
	 * here it only refuses what can never interrupt (CLAB_E_NOSUPP). */
	int (*overflow)(void *unit, void *set, int i, uint64_t period, void *cookie);
	/* Host time passed for a running armed set (its thread's CPU-time
	 * timer ticked): a unit that learns of crossings only by looking
	 * reads its counts now and raises the requests past their thresholds
	 * (clab_overflow_raise). May be NULL. */
	void (*poll)(void *unit, void *set);
	/* The set's overflow handler starts (on = 1): its counters stop (a
	 * fast unit froze them at the interrupt already); or it returned (on =
	 * 0): they count again and the requests that overflowed are re-armed
	 * one period from their current count. */
	int (*handler)(void *unit, void *set, int on);
	/* In a forked child: the unit's locks are made anew, as the
	 * simulator's (clab_sim_ops.forked). May be NULL. */
	void (*forked)(void *unit);
} clab_unit_ops;

/* A unit's armed request(s) `reqs` (bit i: request i) of the set armed with
 * cookie interrupted. Called with the unit's locks held: it only notes the
 * interrupt; the set's thread gets its signal at the next safe point. */
void clab_overflow_raise(void *cookie, uint64_t reqs);
/* A safe point inside a long backend operation (no lock held): interrupts
 * raised so far are delivered now, so a handler runs at the simulated time
 * of its interrupt. */
void clab_overflow_flush(void);

/* What the library does for a thread is the simulator's work, not the
 * program's: an activity source that counts the program's own
 * instructions (emulation) gives `pause` for the calling thread, which the
 * framework calls with 1 as the thread enters its outermost library call
 * (or the overflow engine's work) and with 0 as it leaves it or runs the
 * program's handler (framework/guard.c). */
void clab_guard_set_pause(void (*pause)(int on));

/* Backend registry (framework/registry.c). */
const clab_unit_ops *clab_backend_find(const char *name);

/* Records the calling thread's error detail; returns err. */
int clab_seterr(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Machine-wide objects shared by several units (a simulated node, say):
 * created on first request under key, destroyed with the machine. */
typedef void *(*clab_shared_create)(clab_machine *m, int *err);
void *clab_machine_shared(clab_machine *m, const char *key,
			  clab_shared_create create, void (*destroy)(void *),
			  int *err);

/* The machine's activity driver, used by include/counterlab/sim.h. */
typedef struct clab_sim_ops {
	int (*advance)(void *sim, int hwthread, uint64_t cycles);
	int (*work)(void *sim, int hwthread, uint64_t cycles,
		    const char *const *events, const uint64_t *counts, int n);
	uint64_t (*now)(void *sim, int hwthread);
	int (*set_activity)(void *sim, int hwthread, const char *profile);
	/* kind: enum clab_msg of sim.h; NULL when the machine has no NIC */
	int (*message)(void *sim, int hwthread, int kind, uint64_t bytes);
	/* NULL when the machine has no torus network */
	int (*traffic)(void *sim, int hwthread, const char *pattern, double *seconds);
	/* Host clock: brings the thread's simulated time up to its CPU time
	 * (called by the calling OS thread for its own hardware thread). */
	void (*sync)(void *sim, int hwthread);
	/* The OS thread bound to hwthread let go of it (it exited or was
	 * unregistered): the next one starts afresh (may be NULL). */
	void (*detach)(void *sim, int hwthread);
	/* In a forked child, before anything else touches the machine: the
	 * parent's other threads are gone, and a lock one of them held at the
	 * fork would stay held for ever, so the simulator makes its locks anew
	 * (may be NULL). What such a thread was changing is its own. */
	void (*forked)(void *sim);
} clab_sim_ops;
void clab_machine_set_sim(clab_machine *m, const clab_sim_ops *ops, void *sim);

/* Hardware threads of the machine, from its [machine] cores and
 * threads_per_core (the simulators' node layout). */
int clab_machine_nhwthreads(const clab_machine *m);
/* Cores of its topology (on a host topology, hwloc's count of this host's). */
int clab_machine_ncores(const clab_machine *m);
int clab_machine_threads_per_core(const clab_machine *m);

/* A whole number at the start of s: decimal digits, or hexadecimal after
 * 0x when hex is set; nothing before them (strtoull would skip a blank and
 * take " -7" as 2^64-7) and no octal (010 is ten). *end: what follows.
 * 0 when s does not start with one or it overflows. */
int clab_read_u64(const char *s, int hex, uint64_t *v, const char **end);

/* Integer setting of the machine with a default (clab_read_u64, hex
 * allowed); CLAB_E_PROFILE on a malformed or out-of-range value. */
int clab_machine_setting_u64(const clab_machine *m, const char *key,
			     uint64_t def, uint64_t min, uint64_t max,
			     uint64_t *out);
/* The same for key `key` of the unit of profile section `section`. */
int clab_machine_unit_u64(const clab_machine *m, const char *section,
			  const char *key, uint64_t def, uint64_t min,
			  uint64_t max, uint64_t *out);

/* Path of data file NAME (or a path as given) in the profile directory's
 * subfolder sub ("presets", "activity"), ext appended when NAME has none.
 * malloc'd. */
char *clab_machine_file(const clab_machine *m, const char *sub,
			const char *name, const char *ext);

/* Loads an INI file (iniparser), rejecting keys outside sections; on error
 * NULL with err and a message naming the file and `what` it is. */
struct _dictionary_;
struct _dictionary_ *clab_ini_load(const char *path, int err, const char *what);

/* Opens a data file that a profile or spec names (a map, a preset table,
 * ...) for reading: a regular file only, as a device (/dev/zero) would be
 * read forever and a FIFO block; on error NULL with err and a message
 * naming `what` and the path. */
FILE *clab_data_open(const char *path, int err, const char *what);

/* Writes a file whole or not at all: open gives a stream to a new file
 * beside path (beside a symlink's target, which the link keeps), commit
 * renames it over path once everything was written, discard removes it.
 * A path that exists and is no regular file is refused (a device or FIFO
 * would be replaced). On error err and a message naming `what`. */
typedef struct clab_outfile {
	FILE *f;
	char *tmp, *path;
} clab_outfile;
int clab_outfile_open(clab_outfile *o, const char *path, int err, const char *what);
int clab_outfile_commit(clab_outfile *o, int err, const char *what);
void clab_outfile_discard(clab_outfile *o);

#ifdef __cplusplus
}
#endif
#endif
