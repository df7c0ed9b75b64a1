/* Private to sim_backends/bgq/: the simulated Blue Gene/Q node. */
#ifndef CLAB_BGQ_H
#define CLAB_BGQ_H

#include <pthread.h>
#include "counterlab/backend.h"
#include "counterlab/torus.h"
#include "../activity/activity.h"
#include "../activity/hostmap.h"
#include "../torus/machine_net.h"

enum bgq_src {
	BGQ_SRC_A2_AXU, BGQ_SRC_A2_IU, BGQ_SRC_A2_XU, BGQ_SRC_A2_LSU,
	BGQ_SRC_A2_MMU, BGQ_SRC_L1P_BASE, BGQ_SRC_L1P_SWITCH, BGQ_SRC_L1P_STREAM,
	BGQ_SRC_L1P_LIST, BGQ_SRC_WAKEUP, BGQ_SRC_OP_XU, BGQ_SRC_OP_AXU,
	BGQ_SRC_OP_FP_OPS, BGQ_SRC_OP_FP_INSTR, BGQ_SRC_OP_ALL, BGQ_SRC_L2,
	BGQ_SRC_L2_SLICE, BGQ_SRC_MU, BGQ_SRC_PCIE, BGQ_SRC_DEVBUS, BGQ_SRC_NW,
	BGQ_SRC_CNKNODE, BGQ_SRC_CNKPROC, BGQ_SRC_CNKHWT,
};

enum { BGQ_Q_MASK };  /* PUnit qualifiers */
enum { BGQ_Q_SLICE }; /* L2 unit qualifiers */
enum { BGQ_Q_LINKS, BGQ_Q_VC }; /* network unit qualifiers */

typedef struct bgq_attr {
	uint8_t src;      /* enum bgq_src */
	uint32_t sel;     /* selector: signal, opcode group mask, VC mask ... */
	uint8_t core_shared; /* needs all four counter groups of the core */
	uint8_t edge;     /* counts edges rather than cycles */
} bgq_attr;

/* A row of data/bgq_relations.csv: lhs = rhs (sum), lhs <= rhs (le), or
 * lhs never counts on a compute node (zero), and why. Sides are sums of
 * events with optional integer weights ("4*PEVT_X+PEVT_Y"). */
enum bgq_rel { BGQ_REL_SUM, BGQ_REL_LE, BGQ_REL_ZERO };
typedef struct bgq_relation {
	const char *lhs;
	uint8_t kind;     /* enum bgq_rel */
	const char *rhs;
	const char *why;
} bgq_relation;

#include "bgq_events.h" /* generated: bgq_<unit>_natives[], bgq_<unit>_attr[],
			 * bgq_relations[] */

#define BGQ_CORES 17
#define BGQ_TPC 4
#define BGQ_HWTHREADS (BGQ_CORES * BGQ_TPC)
#define BGQ_CTRS 24
#define BGQ_SCAN 800         /* cycles between UPC_C accumulation scans */
#define BGQ_OVF_LATENCY 4    /* cycles from a PUnit counter's crossing to its interrupt */
#define BGQ_HW_BITS 14       /* width of a UPC_P hardware counter */
#define BGQ_MHZ 1600
#define BGQ_CPU_SAMPLE_NS 20000 /* host clock: CPU time resampled this often */
#define BGQ_EV_CYCLES 210    /* index of PEVT_CYCLES */
#define BGQ_EV_L1P_MISS 145  /* index of PEVT_L1P_BAS_MISS: loads that go on to L2 */
#define BGQ_EV_FST 214       /* PEVT_INST_XU_FST, _QST, _ST: the store classes; */
#define BGQ_EV_QST 216       /* the A2's L1D writes through, so each store is */
#define BGQ_EV_ST 233        /* looked up in the L2 */
#define BGQ_MAX_TERMS 64
#define BGQ_MEMO 32          /* a counter's memoized in-period sums (truth.c) */
#define BGQ_L2_SLICES 16
#define BGQ_L2_CTRS 16       /* fixed counters per slice */
#define BGQ_SET_MAX 64       /* events in a node-wide unit's set */
#define BGQ_SET_MAX_NEV (BGQ_SET_MAX + 1)
#define BGQ_CHANGE_LOG 256   /* node changes a node-wide sum can catch up on */

/* Node events: everything a hardware thread can cause, indexed as PUnit
 * events, then the 16 L2 counters (combined view), the I/O unit and the
 * CNK counters. Each thread keeps its own truth of every node event; the
 * node-wide units read sums over threads. */
#define BGQ_NEV_L2 BGQ_N_PUNIT
#define BGQ_NEV_IO (BGQ_NEV_L2 + BGQ_L2_CTRS)
#define BGQ_NEV_CNK (BGQ_NEV_IO + BGQ_N_IOUNIT)
#define BGQ_N_NEV (BGQ_NEV_CNK + BGQ_N_CNKUNIT)

/* What makes a node event count. */
enum bgq_feed {
	BGQ_FEED_RATE,     /* rates of activity profiles, counts of work */
	BGQ_FEED_DERIVED,  /* follows from other node events */
	BGQ_FEED_MESSAGE,  /* message-unit traffic (clab_sim_message) */
	BGQ_FEED_CLOCK,    /* kernel timers firing at fixed periods (cnk.c) */
	BGQ_FEED_OVERFLOW, /* performance-monitor interrupts */
	BGQ_FEED_NONE,     /* PCIe and DevBus: idle on a compute node */
};

/* An activity profile resolved against the node events: rates (ppm) of the
 * primary events per phase and cumulative counts at phase starts. */
typedef struct bgq_profile {
	char *name;
	int nphase;
	uint64_t period;
	uint64_t *cycles;   /* [nphase] */
	uint64_t *ppm;      /* [nphase][BGQ_N_NEV] */
	uint64_t *prefix;   /* [nphase + 1][BGQ_N_NEV]: counts before phase */
	uint64_t sys_ppb;   /* system calls per 10^9 cycles, over a period */
} bgq_profile;

typedef struct bgq_hwt {
	uint64_t now;       /* simulated cycles lived */
	uint64_t next_scan; /* its core's first scan point after now */
	uint64_t act;       /* of which spent running the activity profile */
	const bgq_profile *prof;
	uint64_t work[BGQ_N_NEV];   /* counts of explicit work done so far */
	uint64_t wver;      /* bumped when work[] or perfmon change (atomic) */
	int lived;          /* its bit in bgq_node.live is set */
	/* a work segment in progress: counts spread over [w0, w0+wlen) */
	uint64_t w0, wlen;
	const uint64_t *wcount;
	/* the OS thread whose clock (CPU time, or host counts) h follows, by
	 * the address of a thread-local of its own (clock.c; NULL: none since
	 * the last detach) */
	const void *owner;
	/* host clock: CPU time at binding, last sample and when it was taken;
	 * from these, the cycles at wall time w are origin_cycles + (w +
	 * base_ns) x 8 / 5 until sample_due */
	uint64_t origin_ns, origin_cycles;
	uint64_t cpu_ns, sample_wall;
	uint64_t base_ns, sample_due;
	/* overflow handlers running on the thread (its clock holds still), and
	 * whether one ran during the current host catch-up */
	int in_handler, handled;
	uint64_t perfmon;   /* performance-monitor interrupts taken (atomic) */
	/* kernel context: its share of every count in parts per 10^9, and
	 * (once the share has changed) the kernel counts banked under the
	 * earlier shares with the counts they were taken from: [2][BGQ_N_NEV] */
	uint64_t kppb;
	uint64_t *kbank;
	/* activity = host: the owner's counts, and the last sample taken */
	clab_host_sampler *hs;
	clab_host_sample hlast;
} bgq_hwt;

/* A PUnit counter. It counts a weighted sum of primary events of its
 * contributor threads (the owner, or the whole core for core events). */
typedef struct bgq_ctr {
	void *set;          /* owning acquired set, NULL when free */
	int running;
	int nterm;
	uint16_t term[BGQ_MAX_TERMS];
	uint8_t weight[BGQ_MAX_TERMS];
	uint8_t contrib;    /* bit t: counts hw thread t of the core */
	uint64_t start;     /* contributors' weighted truth at start/reset */
	uint64_t acc;       /* UPC_C 64-bit accumulation; its low 14 bits are
			     * the hardware counter at the last scan */
	/* fast overflow, armed when ovf_period > 0: the count that interrupts
	 * next, the cycle the interrupt is due (0: none), and whether it is
	 * waiting for the handler */
	uint64_t ovf_period, ovf_next, ovf_fire;
	void *ovf_cookie;
	int ovf_req;
	int ovf_hit;
	int frozen;         /* stopped by an overflow until the handler returns */
	int owner;          /* hardware thread of the owning set */
	int exclude;        /* CLAB_PLAN_EXCLUDE_* contexts it does not count */
	/* Per contributor: what the counter had counted when its thread's
	 * profile entered the current phase lap (with the work so far), and
	 * the sum of its terms' rates there. A read that only moves time
	 * within the phase adds rate x cycles without summing the profile's
	 * history again (truth.c, rated_truth). Not part of the value: kept
	 * by reads under the core lock. */
	struct bgq_ctr_rates {
		const bgq_profile *prof;
		uint64_t wver, laps, base, sum_ppm;
		int ph;       /* prof NULL: none yet */
	} rates[BGQ_TPC];
	/* A counter of one thread: its terms' distinct non-zero rates there,
	 * each with the summed weight of the terms at that rate. */
	int nrate;
	uint32_t rate_ppm[BGQ_MAX_TERMS];
	uint16_t rate_w[BGQ_MAX_TERMS];
	/* Their common period (cycles, a divisor of 10^6): over one, every
	 * term counts a whole ppm x period / 10^6, together per_period; so
	 * the rounded terms at r add up to per_period x (r / period) and
	 * their sum at r % period, which scans ask for at a few offsets
	 * only (BGQ_SCAN apart): memo_val[x / memo_step] for x (key x + 1;
	 * memo_step 0: too many offsets to keep). */
	uint32_t period, memo_step;
	uint64_t per_period;
	uint32_t memo_key[BGQ_MEMO], memo_val[BGQ_MEMO];
} bgq_ctr;

/* Stores a count that a read without the writer's lock may be loading at
 * the same moment (clock.c's read_unlocked, bgq_sum_count): one whole
 * store, as the read takes it. */
static inline void bgq_count_set(uint64_t *at, uint64_t v)
{
	__atomic_store_n(at, v, __ATOMIC_RELAXED);
}

/* A node-wide counter (L2, I/O) armed for slow overflow: the interrupt comes
 * on the first accumulation scan at or after the crossing. `part` keeps
 * each thread's share as of its last move, so a thread that moves can find
 * the crossing on its own clock. */
#define BGQ_SLOW_MAX 64
typedef struct bgq_slow {
	void *set;             /* NULL: free */
	void *cookie;
	int req, nev;
	int running;           /* the set counts */
	int hit;               /* detected, waiting for the handler */
	uint64_t period, next; /* next: node-wide total that overflows */
	uint64_t detect;       /* cycle of the pending detection (0: none) */
	uint64_t fired;        /* node-wide total when the interrupt was detected */
	uint64_t held_own;     /* the owner's own count when its handler began */
	int owner;             /* hardware thread of the set */
	uint64_t part[BGQ_HWTHREADS];
} bgq_slow;

/* What a scan of one hardware thread needs of its held counters that count
 * it alone by their rates (no contexts): packed, so that the scan takes
 * each value in a few multiply-adds (scan.c). Valid for one phase lap,
 * work version and counter configuration (bgq_core.cfg, which covers the
 * counters' starts); over the lap, a counter's count since its start at
 * offset r is base + pp x (r / period) + the in-period
 * sum at r % period, kept for the offsets scans meet (BGQ_SCAN apart:
 * slot x / step, key x + 1). n < 0: no plan (rates of too many offsets).
 * The lap is the thread's activity cycles [act0, act0 + span): a scan
 * knows it from act alone (a new profile comes with a new work version). */
typedef struct bgq_scan_plan {
	uint64_t act0, span;       /* span 0: none built yet */
	uint64_t wver, cfg;
	int n;
	uint32_t rest;             /* held counters the scan takes one by one */
	int whole;                 /* n > 0 and no rest: the plan is the scan */
	uint32_t period, step;
	struct bgq_plan_entry {
		struct bgq_ctr *c;
		uint64_t base, pp; /* base: less the counter's start */
	} e[BGQ_CTRS];
	uint32_t key[BGQ_MEMO];
	uint32_t val[BGQ_MEMO][BGQ_CTRS];
} bgq_scan_plan;

/* A core's lock: taking and dropping it uncontended is one atomic
 * operation each, inline (a pthread mutex pair costs some 70
 * instructions, a good part of a read that moves the clock); a thread
 * that finds it taken sleeps on a futex. v: 0 free, 1 taken, 2 taken and
 * maybe waited for. */
typedef struct bgq_lock {
	int v;
} bgq_lock;
void bgq_lock_wait(bgq_lock *l); /* node.c */
void bgq_lock_wake(bgq_lock *l);

static inline void bgq_lock_take(bgq_lock *l)
{
	int was = 0;
	if (!__atomic_compare_exchange_n(&l->v, &was, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		bgq_lock_wait(l);
}

static inline void bgq_lock_drop(bgq_lock *l)
{
	if (__atomic_exchange_n(&l->v, 0, __ATOMIC_RELEASE) == 2)
		bgq_lock_wake(l);
}

typedef struct bgq_core {
	bgq_lock lock;
	void *group[BGQ_TPC];  /* set holding counter group g (counters c%4==g) */
	bgq_ctr ctr[BGQ_CTRS];
	uint32_t armed;        /* bit i: ctr[i] has an overflow period (punit.c) */
	uint32_t held[BGQ_TPC]; /* bit i: ctr[i] is a set's and counts thread t
				 * (punit.c): what a scan of t looks at */
	/* odd while a writer (core lock held) changes what a read returns:
	 * reads that move no clock take the counts without the lock and try
	 * again, or take the lock, when it moved (clock.c, read_unlocked) */
	unsigned seq;
	int l1p_mode;          /* src of the L1p mode in use, -1 none */
	int l1p_users;
	int nsets[BGQ_TPC];    /* planned sets of each hardware thread */
	uint32_t phase;        /* scan offset of this core's ring position */
	/* bumped by every writer but the scans (bgq_core_writing) and when a
	 * counter thaws: the scans' plans of the counters are stale */
	uint64_t cfg;
	/* each hardware thread's, from its first set on (punit.c; NULL: its
	 * scans take each counter on its own) */
	bgq_scan_plan *plan[BGQ_TPC];
} bgq_core;

typedef struct bgq_node {
	clab_machine *m;
	int host_clock;
	int follow_host;    /* activity = host or emulated */
	int emulated;       /* activity = emulated */
	const char *fp_event; /* host_fp_event: counts the host's FP instructions */
	uint64_t tick;
	int moves[2];       /* [is_read]: bgq_node_moves, fixed at the start */
	pthread_mutex_t prof_lock;
	bgq_profile **profs;
	int nprof;
	bgq_hwt hwt[BGQ_HWTHREADS];
	bgq_core core[BGQ_CORES];
	uint64_t live[2];      /* bit h: thread h has lived or worked */
	/* bumped on every change of thread h, under its core lock; kept
	 * together so that node-wide reads check all threads in a few lines */
	uint64_t version[BGQ_HWTHREADS];
	uint64_t changes;      /* bumped with any thread's version */
	/* change q was thread h's: entry q % BGQ_CHANGE_LOG holds q << 8 | h */
	uint64_t change_log[BGQ_CHANGE_LOG];
	uint64_t msg_seq;      /* messages so far: spreads them over MU ports */
	pthread_mutex_t slow_lock; /* after a core lock; guards slow[] */
	int nslow;             /* entries in use (read unlocked as a hint) */
	bgq_slow slow[BGQ_SLOW_MAX];
	/* the CNK's cost in cycles per system call and per timer interrupt,
	 * and its timer periods (bgq_node_set_kernel) */
	uint64_t sys_cycles, irq_cycles, fit_period, dec_period;
} bgq_node;

/* A change of what reads of core k return (core lock held): opened by the
 * outermost writer only, so that writers may call writers. */
static inline int bgq_core_open(bgq_core *k)
{
	if (k->seq & 1)
		return 0;
	__atomic_store_n(&k->seq, k->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return 1;
}

static inline int bgq_core_writing(bgq_core *k)
{
	k->cfg++;
	return bgq_core_open(k);
}

static inline void bgq_core_written(bgq_core *k, int opened)
{
	if (opened)
		__atomic_store_n(&k->seq, k->seq + 1, __ATOMIC_RELEASE);
}

/* node.c and its rooms (node.h) */
bgq_node *bgq_node_get(clab_machine *m, int *err);
/* A set's counts as reads take them (bgq_plan_read): n of them, the count
 * of request i at at[i], of hardware thread hw's set, whose clock a read
 * catches up first while the set is acquired. Changed under the core lock. */
typedef struct bgq_read_plan {
	bgq_node *node;
	int hw, n;
	int acquired;
	const uint64_t *at[BGQ_CTRS];
} bgq_read_plan;
/* The read and reader ops of a unit whose sets begin with their read
 * plan. Reads give UPC_C's value as of the last scan, up to BGQ_SCAN
 * cycles old. */
int bgq_plan_read(void *unit, void *set, uint64_t *vals);
clab_read_fn bgq_plan_reader(void *unit, void *set);
/* Brings hw thread h's clock up to date for an operation of its owner:
 * host clock: CPU time; virtual clock with is_read: `tick` cycles. Core
 * lock held. */
void bgq_node_catch_up(bgq_node *n, int h, int is_read);
/* What moves a thread's clock when its owner reads or acts, 0 nothing
 * (inline: on the virtual clock without a tick, a read only reads): the
 * host clock, activity = host, or on reads the virtual clock's tick. */
enum { BGQ_MOVES_HOST = 1, BGQ_MOVES_FOLLOW, BGQ_MOVES_TICK };
static inline int bgq_node_moves(const bgq_node *n, int is_read)
{
	return n->moves[is_read != 0];
}
/* A scan moves counts, not what they are made of (no cfg change). Where
 * reads move the clock, every read takes the core lock (clock.c,
 * bgq_plan_read): no reader needs the scan opened. */
static inline int bgq_core_scanning(const bgq_node *n, bgq_core *k)
{
	return n->moves[1] ? 0 : bgq_core_open(k);
}
static inline void bgq_node_sync(bgq_node *n, int h, int is_read)
{
	if (bgq_node_moves(n, is_read))
		bgq_node_catch_up(n, h, is_read);
}
/* The CNK's costs and timers, which set the kernel's share of each
 * thread's counts (before any thread counts). */
void bgq_node_set_kernel(bgq_node *n, uint64_t sys_cycles, uint64_t irq_cycles,
			 uint64_t fit_period, uint64_t dec_period);
/* Weighted truth of counter c's terms over its contributors. */
uint64_t bgq_ctr_truth(const bgq_node *n, int core, const bgq_ctr *c);

/* relations.c: how PUnit events follow from one another. */
/* PUnit event ev (with its mask qualifier) as weighted primary terms (node
 * events: PUnit primaries, or the CNK's performance-monitor interrupts). */
int bgq_terms_for(int ev, uint64_t mask, uint16_t *term, uint8_t *weight);
int bgq_event_class(int e);   /* a single opcode class */
int bgq_event_primary(int e); /* counts on its own (a rate or work) */
/* The relation row defining PUnit event e: its right side (sum), or why it
 * never counts (zero, *is_zero set); NULL for primaries and opcode groups. */
const char *bgq_event_relation(int e, int *is_zero);
/* The terms of a relation side appended to the n so far (-1: a name that
 * is no PUnit or CNK event). */
int bgq_expr_terms(const char *expr, uint16_t *term, uint8_t *weight, int n);
/* The `le` rows hold on rates or counts v[] (indexed by node event). */
int bgq_relations_check(const uint64_t *v, const char *what);

/* Node event of native event ev of a unit, and its feed. */
enum bgq_unit { BGQ_UNIT_PUNIT, BGQ_UNIT_L2, BGQ_UNIT_IO, BGQ_UNIT_CNK };
int bgq_nev_of(enum bgq_unit unit, int ev);
enum bgq_feed bgq_nev_feed(int nev);
const char *bgq_nev_name(int nev);
/* A running sum of node events over the node's threads (or one thread),
 * each thread at its own clock. It keeps every thread's last values and
 * the thread version they were taken at, so an update recomputes only the
 * threads that changed since: a read of a node-wide unit costs one check
 * per live thread plus the work of the threads that moved. */
typedef struct bgq_sum {
	int k, only;                  /* only: one thread (>= 0) or all (-1) */
	int nev[BGQ_SET_MAX_NEV];
	int kind[BGQ_SET_MAX_NEV];    /* bgq_nev_kind of each */
	int timeless;                 /* all of them move only with work[] or
				       * perfmon (wver), not with time */
	uint64_t total[BGQ_SET_MAX_NEV];
	uint64_t seen[BGQ_HWTHREADS]; /* version (timeless: wver) of each thread in val */
	uint64_t changes;             /* the node's changes when last summed */
	uint64_t *val;                /* [BGQ_HWTHREADS][k] */
} bgq_sum;

int bgq_sum_init(bgq_sum *s, const int *nev, int k, int only);
void bgq_sum_free(bgq_sum *s);
/* Brings s->total (and s->val) up to date. Takes core locks one at a time.
 * Inline: a read where nothing changed since looks at one word. */
void bgq_node_sum_since(bgq_node *n, bgq_sum *s, uint64_t changes);
static inline void bgq_node_sum(bgq_node *n, bgq_sum *s)
{
	uint64_t changes = __atomic_load_n(&n->changes, __ATOMIC_ACQUIRE);
	if (changes != __atomic_load_n(&s->changes, __ATOMIC_RELAXED))
		bgq_node_sum_since(n, s, changes);
}

/* A sum's count i, of all its threads (h < 0) or of thread h: another
 * thread summing the same set may be moving it. */
static inline uint64_t bgq_sum_count(const bgq_sum *s, int h, int i)
{
	return __atomic_load_n(h < 0 ? &s->total[i] : &s->val[(size_t)h * (size_t)s->k + (size_t)i],
			       __ATOMIC_RELAXED);
}

/* The same for thread h alone, its core lock held. */
void bgq_node_sum_thread(bgq_node *n, bgq_sum *s, int h);
/* bgq_node_sync for node-wide units: takes and drops h's core lock. */
void bgq_node_sync_thread(bgq_node *n, int h, int is_read);

/* Overflow (overflow.c). PUnit counters carry their own arming (bgq_ctr); a
 * frozen set's counters stop as on bgq_punit stop. */
void bgq_ctr_freeze(bgq_node *n, int core, bgq_ctr *c);
void bgq_ctr_thaw(bgq_node *n, int core, bgq_ctr *c);
/* Slow overflow of request req (node event nev) of a node-wide set owned
 * by hardware thread hw: arm (period 0: disarm), start counting from now
 * (set's entries: next = total now + period), stop, hold while the
 * owner's handler runs and resume after it. */
int bgq_slow_arm(bgq_node *n, void *set, int hw, int req, int nev,
		 uint64_t period, void *cookie, const char *what);
enum bgq_slow_mode { BGQ_SLOW_STOP, BGQ_SLOW_HOLD, BGQ_SLOW_RESUME };
void bgq_slow_run(bgq_node *n, void *set, enum bgq_slow_mode mode);
/* The set's entry for its event `req` counts from part[g], each thread's
 * share where the set's own counter starts (its base is their sum). */
void bgq_slow_start(bgq_node *n, void *set, int req, const uint64_t *part);
void bgq_slow_drop(bgq_node *n, void *set);

/* Positions in the I/O unit's table (checked by tests/unit/test_nodewide). */
enum {
	MU_PKT_INJ = 0, MU_MSG_INJ = 1, MU_FIFO_PKT_RCV = 2, MU_RGET_PKT_RCV = 3,
	MU_PUT_PKT_RCV = 4, MU_PORT0 = 5, /* 16B_WRT, 32B_RD, 64B_RD, 128B_RD */
	MU_SLV_PORT_RD = 17, MU_SLV_PORT_WRT = 18,
	MU_PEND0 = 19, /* PEND_WRT, PEND_RD per port */
	MU_EVENTS = 25,
};
/* a master port's counters, in that order */
enum { MU_WRT16, MU_RD32, MU_RD64, MU_RD128 };
#define MU_PORT(p, what) (MU_PORT0 + 4 * (p) + (what))

/* mu.c: message-unit counts of one message, indexed like the I/O unit's
 * table; seq spreads messages over the MU's master ports. */
int bgq_mu_message(uint64_t seq, int kind, uint64_t bytes, uint64_t *count);

/* The machine's torus (sim_backends/torus/machine_net.h), shared by the
 * network, I/O and CNK units and the traffic of clab_sim_traffic. */
typedef clab_machine_net bgq_net;
static inline bgq_net *bgq_net_get(clab_machine *m, int *err)
{
	return clab_machine_net_get(m, "bgq", err);
}

/* nodewide.c: units whose fixed counters always count (L2, I/O, CNK). An
 * event set notes where its counters stood at start and reports the
 * difference; the unit's kind computes the counters' current values. */

typedef struct bgq_fixed_set {
	int hw, n, running;
	int acquired;              /* admitted by the unit's node-wide rules */
	int held;                  /* its overflow handler runs */
	uint64_t ovf_period[BGQ_SET_MAX]; /* overflow arming, applied at acquire */
	void *ovf_cookie;
	int ev[BGQ_SET_MAX];       /* index into the unit's native table */
	int64_t arg[BGQ_SET_MAX];  /* the event's qualifiers, as the kind keeps them */
	uint64_t base[BGQ_SET_MAX], stopped[BGQ_SET_MAX];
	uint64_t held_own[BGQ_SET_MAX]; /* its thread's own values when the handler began */
	bgq_sum sum[2];            /* the unit's running sums (values()) */
	uint8_t timer[BGQ_SET_MAX]; /* CNK: event i counts a timer of the thread's clock */
} bgq_fixed_set;

typedef struct bgq_fixed_unit bgq_fixed_unit;

typedef struct bgq_fixed_kind {
	const clab_native *natives;
	/* The qualifiers of request r as the set's arg (may be NULL: 0). */
	int64_t (*arg)(const clab_evreq *r);
	/* The rules on one set's own events (may be NULL). */
	int (*check)(const bgq_fixed_set *s);
	/* Node-wide rules on a set that starts, beside the acquired sets
	 * (may be NULL); `replace` is going. retire undoes admit. */
	int (*admit)(bgq_fixed_unit *u, const bgq_fixed_set *s,
		     const bgq_fixed_set *replace);
	void (*retire)(bgq_fixed_unit *u, const bgq_fixed_set *s);
	/* Current values of the set's events: the node's (only < 0) or what
	 * hardware thread `only` added to them. */
	int (*values)(bgq_fixed_unit *u, bgq_fixed_set *s, int only, uint64_t *v);
	/* The node event request i counts one for one, for slow overflow;
	 * -1 with a message when it cannot overflow (NULL: none can). */
	int (*overflow_nev)(const bgq_fixed_set *s, int i);
} bgq_fixed_kind;

struct bgq_fixed_unit {
	bgq_node *node;
	const bgq_fixed_kind *kind;
	pthread_mutex_t lock;       /* guards the node-wide state below */
	int l2_sliced, l2_sets;     /* L2: mode fixed by the first set */
	char l2_first[64];          /* an event of the set that fixed it */
	uint64_t fit_period, dec_period, irq_packets; /* CNK */
	uint64_t latency;           /* I/O: cycles a port request is pending */
	int nw_sets;                /* network: sets holding the unit (0 or 1) */
	int nw_holder;              /* network: hardware thread of that set */
	bgq_net *net;               /* network: the node's torus */
};

int bgq_fixed_open(clab_machine *m, const bgq_fixed_kind *kind,
		   bgq_fixed_unit **out);
void bgq_fixed_close(void *unit);
void bgq_fixed_forked(void *unit);
int bgq_fixed_program(void *unit, int hw, const clab_evreq *reqs, int n,
		      int flags, void *replace, void **set);
void bgq_fixed_discard(void *unit, void *set);
int bgq_fixed_acquire(void *unit, void *set, void *replace);
void bgq_fixed_release(void *unit, void *set);
int bgq_fixed_start(void *unit, void *set);
int bgq_fixed_stop(void *unit, void *set);
int bgq_fixed_read(void *unit, void *set, uint64_t *vals);
int bgq_fixed_reset(void *unit, void *set);
uint64_t bgq_fixed_counters(void *unit, void *set, int i);
int bgq_fixed_overflow(void *unit, void *set, int i, uint64_t period, void *cookie);
int bgq_fixed_handler(void *unit, void *set, int on);

/* The ops of a node-wide unit: its name, keys and open, the rest shared. */
#define BGQ_FIXED_OPS(NAME, KEYS, OPEN) {                                      \
	.name = NAME, .keys = KEYS, .open = OPEN, .close = bgq_fixed_close,    \
	.program = bgq_fixed_program, .discard = bgq_fixed_discard,            \
	.acquire = bgq_fixed_acquire, .release = bgq_fixed_release,            \
	.start = bgq_fixed_start, .stop = bgq_fixed_stop,                      \
	.read = bgq_fixed_read, .reset = bgq_fixed_reset,                      \
	.counters = bgq_fixed_counters, .overflow = bgq_fixed_overflow,        \
	.handler = bgq_fixed_handler, .forked = bgq_fixed_forked,              \
}


#endif
