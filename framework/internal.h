/* Private to framework/: the structures behind the public handles. */
#ifndef CLAB_FRAMEWORK_INTERNAL_H
#define CLAB_FRAMEWORK_INTERNAL_H

#include <pthread.h>
#include "counterlab/backend.h"

#define CLAB_MAX_COMPONENTS 8
#define CLAB_MAX_SHARED 8
#define CLAB_MAX_SETTINGS 32
#define CLAB_MAX_HWTHREADS 1024
#define CLAB_EVSET_MAX 64
#define CLAB_TIMER_US 100 /* host-clock overflow timer, CPU microseconds */

/* A postfix program over an event's terms. */
enum { CLAB_TOK_TERM, CLAB_TOK_CONST, CLAB_TOK_ADD, CLAB_TOK_SUB,
       CLAB_TOK_MUL, CLAB_TOK_DIV };
typedef struct clab_token {
	int kind;
	int64_t value; /* term index or constant */
} clab_token;
#define CLAB_MAX_TOKENS 32

typedef struct clab_preset {
	char *name;
	char *descr;
	enum clab_derived derived;
	char *postfix;
	int nterms;
	uint32_t terms[CLAB_MAX_TERMS]; /* native (or qualified) codes */
	int ntok;
	clab_token tok[CLAB_MAX_TOKENS];
} clab_preset;

/* A native event with qualifier values, interned under a code of its own. */
typedef struct clab_qualified {
	char *name;
	clab_evreq req;
} clab_qualified;

struct clab_component {
	clab_machine *machine;
	char *name;
	char *description;
	const clab_unit_ops *ops;
	void *unit;
	clab_unit_desc desc;
	clab_preset *presets;
	int npreset;
	char *presets_note; /* how PAPI's preset table served the unit (NULL: not asked) */
	pthread_mutex_t lock; /* guards the interned table */
	clab_qualified *qual;
	int nqual, qual_cap;
	char *disabled; /* why it cannot count (open said CLAB_E_NODEV), or NULL */
};

/* A hardware thread as one OS thread held it. A handle outlives its
 * attachment until it is detached and no event set names it (a thread that
 * exited leaves its sets to whoever frees them), so a new OS thread never
 * inherits it: the next one gets a new handle. */
struct clab_thread {
	clab_machine *machine;
	int hwthread;
	pthread_t owner;
	pid_t tid;         /* the owner's OS thread id: where its overflow
			    * signals go (safe to send to after it exited) */
	int attached;      /* holds its hardware thread (machine lock) */
	int held;          /* attaches not yet detached (machine lock) */
	int refs;          /* event sets that name it (machine lock) */
	clab_evset *sets;  /* those sets, through clab_evset.tnext (machine lock) */
	/* multiplexing (mpx.c): the thread's running multiplexed sets, linked
	 * through their mpx state; clab_thread_run stops at their switch
	 * deadlines */
	clab_evset *mpx_running;
};

typedef struct clab_setting {
	char *key;
	char *value;
} clab_setting;

struct clab_machine {
	char *name;
	char *path;
	char *dir; /* profile directory: presets/ and activity/ live here */
	clab_setting settings[CLAB_MAX_SETTINGS];
	int nsettings;
	int ncomp;
	clab_component comp[CLAB_MAX_COMPONENTS];
	int cores, threads_per_core;
	int packages, numa_nodes; /* of the topology, at least 1 each */
	int nslots; /* hardware threads OS threads attach to (all PUs, or any number on the host) */
	int host;   /* topology = host: hwloc's view of this machine */
	struct clab_hw_info *hw; /* [hardware] (hwinfo.c), NULL: none */
	pthread_mutex_t lock;
	clab_thread **slot; /* per hardware thread: its handle, NULL when free */
	struct {
		char *key;
		void *obj;
		void (*destroy)(void *);
	} shared[CLAB_MAX_SHARED];
	int nshared;
	const clab_sim_ops *sim_ops;
	void *sim;
};

/* An event set (evset.c). */
typedef struct evset_event {
	uint32_t code;
	enum clab_derived derived;
	const clab_token *tok; /* postfix program, for DERIVED_POSTFIX */
	int ntok;
	int nterms;
	int req[CLAB_MAX_TERMS]; /* index into the set's request list */
} evset_event;

/* How a set counts when it does not simply program its requests as one
 * backend set (multiplexing, mpx.c, installs one with clab_evset_drive).
 * evset.c calls it; it does not know who provides it. */
typedef struct clab_evset_driver {
	/* Plans the expanded events: need[i] is the mask of requests (into
	 * reqs) event i reads. On failure the set is as before. */
	int (*program)(clab_evset *s, const clab_evreq *reqs, int nreq,
		       const uint64_t *need, int n);
	int (*start)(clab_evset *s);  /* acquires the unit and counts */
	int (*stop)(clab_evset *s);   /* stops and releases; counts stay */
	/* The counts both ways at one instant: scaled estimates and the
	 * counts as counted */
	int (*read)(clab_evset *s, int64_t *scaled, int64_t *raw);
	int (*reset)(clab_evset *s);
	uint64_t (*counters)(const clab_evset *s, int i);
	/* Time passed: work due now (may run in a signal handler). */
	void (*poll)(clab_evset *s);
	void (*free)(clab_evset *s);  /* the driver's state and backend sets */
} clab_evset_driver;

/* What other parts of the framework must hear of every set (overflow.c
 * registers one at load time). */
typedef struct clab_evset_hooks {
	int (*programmed)(clab_evset *s); /* events changed (the set is stopped) */
	void (*started)(clab_evset *s);
	void (*stopped)(clab_evset *s);
	void (*destroyed)(clab_evset *s);
} clab_evset_hooks;
void clab_evset_hook(const clab_evset_hooks *h);

/* The thread a set names holds a reference from the set's create to its
 * destroy (machine.c keeps them and registers these at load time). */
typedef struct clab_evset_threads {
	int (*ref)(clab_thread *t, clab_evset *s);
	void (*unref)(clab_thread *t, clab_evset *s);
} clab_evset_threads;
void clab_evset_threads_use(const clab_evset_threads *th);

/* A set's last completed values for cap events (evset.c): two copies of
 * each kind, a writer fills the one readers are not pointed at and then
 * points them at it; and what a reset from a signal handler took off. */
enum { CLAB_SNAP_SCALED, CLAB_SNAP_RAW }; /* kinds; raw apart only when driven */
typedef struct clab_snap {
	int cap;
	struct clab_snap *retired; /* the smaller one before it, freed with the set */
	int64_t v[]; /* [2 copies][2 kinds][cap], then taken off: [2 kinds][cap] */
} clab_snap;

struct clab_evset {
	clab_component *c;
	clab_thread *t;
	clab_evset *tnext; /* next set of t (machine lock) */
	int orphan;        /* t's OS thread is gone: the set cannot start */
	int halted;        /* stopped for its user (exit, fork): their stop succeeds */
	int n;
	evset_event *ev;   /* n of them, room for ncap (a set keeps only what it holds) */
	int nreq;
	clab_evreq *req;   /* nreq of them, room for ncap */
	int plain;         /* event i is request i, not derived: counts are values */
	int ncap;
	void *bset; /* backend's planned set (the current group's when driven) */
	int running;
	int ctx;           /* enum clab_context counted (0: CLAB_CTX_ALL) */
	const clab_evset_driver *drv; /* NULL: one backend set */
	struct clab_ovf *ovf; /* overflow arming (overflow.c), NULL if never armed */
	struct clab_mpx *mpx; /* multiplexing state (mpx.c), NULL: off */
	/* for reads from a signal handler that interrupted a call of the
	 * set's thread (guard.c): the last completed values, and what a reset
	 * there took from them (subtracted from every read until the next
	 * reset or start) */
	clab_snap *snap;   /* room for ncap, swapped whole when it grows */
	/* bit 0: the complete copy; above it a sequence, bumped before and
	 * after a write (odd while one is open): one word, so that a write
	 * ends with one store */
	unsigned snap_state;
	int64_t *snap_v[2]; /* each copy's values (scaled kind), for the writer */
	volatile int has_off;
	/* clab_evset_read_at's short way, fixed when the events or the way of
	 * counting change (plan_read): a plain set on one backend set takes
	 * the unit's counts as its values, by the read the unit chose for it */
	int direct;
	clab_read_fn rd;
	void *rd_unit;
};

/* evset.c, for drivers. The program() flags of the set's context. */
int clab_evset_plan_flags(const clab_evset *s);
/* Event i's value from counts raw[] of the set's requests. */
int64_t clab_evset_fold_one(const clab_evset *s, int i, const uint64_t *raw);
/* Installs (or with NULL removes) a driver and programs the set's events
 * again under it; on failure the set keeps its old driver. */
int clab_evset_drive(clab_evset *s, const clab_evset_driver *drv);
/* The driver's poll, if any. */
void clab_evset_poll(clab_evset *s);
/* The set's thread is gone: stop it and let go of the unit (machine.c). */
void clab_evset_orphan(clab_evset *s);
/* The same for a set whose thread lives on (in a forked child): it may
 * start again. */
void clab_evset_halt(clab_evset *s);

/* sim.c: a thread's simulated time passes through these, registered by
 * what falls due with it (mpx.c: switches of its multiplexed sets). */
typedef struct clab_clock_hooks {
	void (*due)(clab_thread *t);                /* the work due by now */
	uint64_t (*deadline)(const clab_thread *t); /* the next (UINT64_MAX: none) */
} clab_clock_hooks;
void clab_clock_hook(const clab_clock_hooks *h);
/* clab_thread_advance for a library call already inside the guard. */
int clab_thread_run(clab_thread *t, uint64_t cycles);

/* hwinfo.c: reads and checks the profile's [hardware] section (none: m->hw
 * stays NULL). */
int clab_hwinfo_load(clab_machine *m, struct _dictionary_ *d);

/* catalog.c */
int clab_catalog_load_presets(clab_component *c, const char *path);
/* The presets of PAPI's own table (papi_events.csv at path) for the PMUs
 * the unit lists (desc.pmus); what loaded and what not goes to
 * presets_note. */
int clab_catalog_load_papi_events(clab_component *c, const char *path);
void clab_catalog_free(clab_component *c);
int clab_catalog_req(clab_component *c, uint32_t code, clab_evreq *req);
const clab_preset *clab_catalog_preset(const clab_component *c, uint32_t code);
int clab_postfix_compile(const char *text, int nterms, clab_token *tok,
			 int *ntok);
int64_t clab_postfix_eval(const clab_token *tok, int ntok,
			  const int64_t *terms);

/* guard.c: library calls that take locks run between these. clab_enter
 * returns nonzero when the call interrupted another call of its own
 * thread (from a signal handler): it must not wait for any lock. */
#define CLAB_CALL_TLS __thread __attribute__((tls_model("initial-exec")))
typedef struct clab_call_state {
	volatile int depth;   /* library calls the thread is inside */
	volatile int open_at; /* a depth holding no lock (0: none but 0) */
	volatile int due;     /* CLAB_DUE_WORK: end-of-call work is waiting;
			       * CLAB_DUE_PAUSE: calls pause (emulation) */
	void *caller_pc;      /* where the outermost call came from */
	void (*pause)(int on); /* clab_guard_set_pause's */
} clab_call_state;
enum { CLAB_DUE_WORK = 1, CLAB_DUE_PAUSE = 2 };
/* One variable: a call finds all of it from one address. */
extern CLAB_CALL_TLS clab_call_state clab_call;
void clab_leave_due(void);
void clab_guard_pause(int on); /* (nothing without CLAB_DUE_PAUSE) */
/* Inline: every read passes here. A call from the program (outermost, or
 * from its handler that the library runs) pauses emulated counting: due's
 * CLAB_DUE_PAUSE, so that without emulation the calls test nothing more. */
static inline int clab_enter(void *caller_pc)
{
	int d = clab_call.depth++;
	if (d == 0) {
		clab_call.caller_pc = caller_pc;
		if (__builtin_expect(clab_call.due, 0))
			clab_guard_pause(1);
		return 0;
	}
	if (d != clab_call.open_at)
		return 1;
	clab_guard_pause(1);
	return 0;
}
static inline int clab_leave(int rc)
{
	int d = --clab_call.depth;
	if (d == 0) {
		if (clab_call.due)
			clab_leave_due();
	} else if (d == clab_call.open_at) {
		clab_guard_pause(0);
	}
	return rc;
}
#define CLAB_ENTER() clab_enter(__builtin_return_address(0))
int clab_guard_depth(void);
/* Work for the end of the outermost call: registered once, asked for. */
void clab_guard_at_leave(void (*fn)(void *pc));
void clab_guard_due(void);
/* Calls made from here on, at this depth, find no lock of the thread
 * held (close with what open returned). */
int clab_guard_open(void);
void clab_guard_close(int was);
void clab_guard_hold(void);
void clab_guard_unhold(void);
typedef struct clab_guard_state {
	int depth, open_at;
} clab_guard_state;
clab_guard_state clab_guard_suspend(void);
void clab_guard_resume(clab_guard_state st);
/* CLAB_E_STATE for `what` called where clab_enter said it must not wait. */
int clab_guard_refuse(const char *what);

/* overflow.c */
int clab_ovf_armed(const clab_evset *s);

#endif
