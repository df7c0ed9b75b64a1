/* counterlab's QEMU TCG plugin (activity = emulated; docs/emulated.md): classifies every executed guest instruction, runs
 * the A2's data caches, a branch predictor and an in-order timing model,
 * and keeps the counts of each guest thread in its slot of the file that
 * counterlab-run created (../emulated.h), where the program's
 * libcounterlab reads them.
 *
 * Arguments (qemu-x86_64 -plugin FILE,ARG=VALUE,...):
 *   slots=PATH        the slot file (required)
 *   cache=a2|cachegrind   the caches' policy (default a2, see below)
 *   summary=PATH      at exit, the process's totals as "name value" lines
 *
 * Counting: at translation, each instruction is classified from its
 * disassembly; a block's classes are added when the block starts to run
 * (while the process has one thread, at the next system call: see
 * add_runs), and a conditional branch that ends a block is resolved (taken
 * or not) when the next block starts. Memory accesses are counted as they
 * happen, pieces of one access (QEMU splits 16- and 32-byte accesses into
 * 8-byte ones) joined again. A thread's counts reach its slot, where the
 * program reads them, at its next system call (settle).
 *
 * Caches (geometry from IBM's A2/BG/Q documentation): L1D 16 KB, 8-way,
 * 64-byte lines, one per guest thread (threads take cores breadth-first,
 * so each has its own core up to 17 threads); the node's L2, 32 MB, 16-way,
 * 128-byte lines, shared by the process's threads. Replacement LRU in both.
 * Policy a2: the L1D is write-through without write allocation (a store
 * miss leaves the L1D unchanged) and every store goes on to the L2;
 * policy cachegrind: both caches allocate on writes, the L2 sees only L1
 * misses, and accesses are counted as cachegrind counts them, which is
 * valgrind's translation's loads and stores: a store by the instruction
 * that just loaded the same bytes is not counted (a "modify" is one read),
 * the memory operand of a packed FMA is read one element at a time, that
 * of (v)cvtps2pd too, that of a 256-bit vmovddup as two 8-byte loads (see
 * vex_split), and an access across two lines is one miss at most. (Policy
 * a2 counts an access across two lines as one per line.)
 * L1I (the A2's: 16 KB, 4-way, 64-byte lines), per thread: a block's code
 * lines are looked up as it starts to run (x86 code standing for the
 * PowerPC code a compiler would make of it, line for line), unless no
 * line was filled since they were last found; a miss waits L2_LATENCY for
 * the reload (the L2 model is not looked up for code) and replaces the
 * set's oldest line (the modeller's choice: then a hit changes nothing).
 * L1p stream prefetcher (policy a2; counts only, timing unchanged): 32
 * lines of 128 bytes per thread; an L1D load miss in the line after a
 * recent such miss establishes a stream and L1P_DEPTH lines ahead of it
 * are set up (the modeller's choice: a depth BG/Q codes set with
 * L1P_SetStreamDepth; the hardware's adaptive depth is not modelled),
 * replacing the oldest; a miss in a held line is a hit when the L2 holds
 * the line (else the prefetch from memory is still on its way: a demand
 * fetch) and sets up the stream's next line; a store to a held line
 * invalidates it. Not modelled: TLBs, the list prefetcher.
 *
 * Branch predictor (modeller's choice): 1024 two-bit counters indexed by
 * the branch's address, starting weakly not-taken; unconditional and
 * indirect branches, calls and returns are taken to be predicted.
 *
 * Timing (in-order, one thread per core; BR_PENALTY and MEM_LATENCY are
 * the modeller's choices, of the order published for the A2 and BG/Q): one
 * A2 instruction issued per cycle unless it waits for a register, plus
 * BR_PENALTY cycles per mispredicted branch, L2_LATENCY per load that
 * misses the L1D and hits the L2 or per L1I miss, MEM_LATENCY per load
 * that misses the L2; stores do not stall (store queue).
 * Register dependencies, at translation (schedule): each block's A2
 * instructions issue in order, each when the registers it reads are ready
 * (from capstone's registers read and written; a register written before
 * the block is taken as ready at its start, so a dependency across blocks,
 * a loop's carried one included, costs nothing), and the cycles they wait
 * are the block's stall cycles (IS1 stalls), added with its instructions
 * when it runs: the run-time cost is unchanged (one exception to the order:
 * a value moved from an integer into an FP register through memory,
 * schedule_via). Loads are taken to hit the
 * L1D (a miss adds its latency besides); a value stored to memory and
 * loaded again (a loop-carried chain through memory) is no register
 * dependency: the load takes the hit latency. The latencies (LAT_*) are
 * the A2's as LLVM's PowerPC A2 scheduling model gives them from IBM's A2
 * user's manual: simple integer 1 cycle, compares, shifts and rotates 2,
 * integer multiply 6, divide 39 (word) or 71 (doubleword), integer load 6
 * and FP load 7 on an L1D hit, FP arithmetic 6, FP compare 5, FP divide 72
 * (59 single), square root 69 (65 single); L2_LATENCY 82 from the same
 * model. An x86 FP register move or conversion counts as FP (6).
 *
 * Timer: the program's libcounterlab asks for a signal every so many of a
 * thread's cycles while it has sets to interrupt (clab_emu_timer); it is
 * sent before the block that reaches them runs.
 *
 * Deterministic: counts depend on the guest's instructions and addresses
 * only (counterlab-run turns address-space randomization off); a
 * multithreaded program's shared L2 depends on how its threads interleave. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <capstone/capstone.h>
#include <qemu-plugin.h>
#include "../emulated.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum { BR_PENALTY = 10, L2_LATENCY = 82, MEM_LATENCY = 350 };
enum { BHT_SIZE = 1024 };

/* Issue latencies: cycles from an instruction's issue to that of one that
 * reads its result (the A2's figures, see the header) */
enum {
	LAT_INT = 1,                    /* simple integer, moves, branches */
	LAT_INT_CMP = 2,                /* compares, shifts and rotates */
	LAT_INT_MUL = 6,
	LAT_INT_DIVW = 39, LAT_INT_DIVD = 71,
	LAT_LOAD = 6, LAT_FP_LOAD = 7,  /* an L1D hit */
	LAT_FP = 6,                     /* FP arithmetic, moves and conversions */
	LAT_FP_CMP = 5,
	LAT_FP_DIVD = 72, LAT_FP_DIVS = 59, LAT_FP_SQRTD = 69, LAT_FP_SQRTS = 65,
};

/* ---- caches: sets of tags, most recently used first ------------------- */

/* The geometry is fixed (constants let the compiler unroll the lookups). */
enum {
	L1_LINE_SHIFT = 6, L1_WAYS = 8, L1_SETS = 16384 / 64 / L1_WAYS,
	L2_LINE_SHIFT = 7, L2_WAYS = 16, L2_SET_BITS = 14, /* 32 MB / 128 B / 16 ways */
	L2_SETS = 1 << L2_SET_BITS,
	IL1_LINE_SHIFT = 6, IL1_WAYS = 4, IL1_SETS = 16384 / 64 / IL1_WAYS,
};

/* The L1p's stream prefetcher: 32 lines of 128 bytes (the L2's), DEPTH lines
 * set up ahead of a stream, a stream detected when an L1D load miss that
 * the L1p does not serve is in the line after one that did the same (the
 * last such line of each of HISTORY buckets of lines is remembered) */
enum { L1P_LINES = 32, L1P_DEPTH = 2, L1P_HISTORY = 64, L1P_BUCKETS = 512 };

/* Looks tag t (0 is an empty way) up in a set of `ways`, from way `from`
 * (the caller saw that those before it differ); on a hit it becomes the
 * most recent; on a miss it is installed when `allocate`, and the least
 * recent goes. Returns 1 on a hit, and in *way (unless NULL) the way it
 * was found in or replaced. Unrolled, a hit in way w is a path of its own
 * that moves exactly the w tags before it. (A macro: the L1D's tags are a
 * line + 1, the L2's a line's bits above its set + 1, of 32 bits, so that
 * its 16 ways are one 64-byte host line.) */
#define SET_REF(name, tag_t)                                                                   \
	static inline __attribute__((always_inline)) int name(tag_t *set, int ways, tag_t t,    \
							       int allocate, int from, int *way) \
	{                                                                                      \
		if (from == 0 && set[0] == t) {                                                \
			if (way)                                                               \
				*way = 0;                                                      \
			return 1;                                                              \
		}                                                                              \
		int w;                                                                         \
		_Pragma("GCC unroll 16")                                                       \
		for (w = from ? from : 1; w < ways; w++)                                       \
			if (set[w] == t)                                                       \
				break;                                                         \
		int hit = w < ways;                                                            \
		if (!hit) {                                                                    \
			if (!allocate)                                                         \
				return 0;                                                      \
			w = ways - 1;                                                          \
		}                                                                              \
		if (way)                                                                       \
			*way = w;                                                              \
		_Pragma("GCC unroll 16")                                                       \
		for (int k = ways - 1; k > 0; k--)                                             \
			if (k <= w)                                                            \
				set[k] = set[k - 1];                                           \
		set[0] = t;                                                                    \
		return hit;                                                                    \
	}
SET_REF(set_ref, uint64_t)
SET_REF(set_ref32, uint32_t)

/* ---- per-thread state ------------------------------------------------- */

typedef struct tbinfo {
	/* what every run reads, first */
	uint64_t pc;              /* where the block starts */
	uint64_t fallthrough;     /* the address after its last instruction */
	uint64_t cond_fall;       /* the same when a conditional branch ends it, else 0 */
	uint64_t code_first, code_last; /* the L1I lines of its code */
	uint64_t il1_seen;        /* a thread's il1_stamp when its lines were last found in
				   * its L1I (0: never) */
	/* while the process has one thread: runs not yet added to its counts */
	uint64_t runs;
	struct tbinfo *next_run;  /* the next block with runs */
	unsigned bht;             /* its conditional branch's predictor entry */
	int nz;                   /* the classes of its instructions that are not 0: */
	uint8_t idx[CLAB_HQ_N];   /* which, */
	uint64_t n[CLAB_HQ_N];    /* how many (a block adds a few: fewer adds per run) */
	uint64_t cycles;          /* its instructions' cycles, dependency stalls included */
} tbinfo;

typedef struct memref {
	uint64_t seq, pc, addr;   /* pc: the instruction's address | its VEX_SPLIT */
	unsigned size;
	int store;
} memref;

/* Policy a2, an access of an instruction that QEMU may make in pieces
 * (a2_piece), counted as it came: what a piece must match to continue it */
typedef struct a2join {
	uint64_t seq, end;        /* end: the address after it */
	uint64_t key;             /* the instruction's memref.pc, a store in bit 63 */
	unsigned size;
} a2join;

/* The fields every access reads first */
typedef struct vcpu {
	uint64_t seq;            /* blocks run: tells executions of an instruction apart */
	uint64_t l1_absent;      /* line + 1 of the last store that missed the L1 (policy
				  * a2), while no lookup has brought it in since: the
				  * same line again misses and changes nothing (0: none) */
	memref pend;             /* the access being joined by on_piece (size 0: none;
				  * else live[index] is NULL: see pend_start) */
	a2join join;
	uint64_t prev_fall;      /* when a conditional branch ends the block just run, the
				  * address after it (0: none), */
	unsigned prev_bht;       /* and its predictor entry */
	unsigned index;          /* its vcpu's */
	tbinfo *ran;             /* the blocks with runs (see add_runs) */
	clab_emu_slot *slot;
	int paused;              /* the simulator's own work (CLAB_EMU_SYSCALL) */
	uint64_t timer_at;       /* cycles at which the thread's timer fires (0: none) */
	uint64_t timer_period;
	uint64_t unadded_cycles; /* of the runs add_runs has not added yet */
	int timer_signal;        /* the host's number of the guest's signal */
	memref last_load;        /* the last load counted */
	memref atomic_load;      /* the last load of an instruction that may be atomic */
	uint64_t il1_stamp;       /* its number + 1 << 48 | the L1I's fills so far: no line
				   * leaves the L1I but for a fill */
	uint64_t l1[L1_SETS * L1_WAYS]; /* the L1D's tags */
	uint64_t il1[IL1_SETS * IL1_WAYS]; /* the L1I's */
	uint8_t il1_next[IL1_SETS]; /* the way each set fills next (in order of arrival) */
	uint64_t l1p[L1P_LINES];  /* 128-byte line + 1 of each prefetched line (0: none) */
	uint8_t l1p_used[L1P_LINES];
	unsigned l1p_next;        /* the next to be replaced (in order of arrival) */
	/* by bucket of lines (l1p_bucket), the first slot + 1 holding a line
	 * of it (0: none); by slot, the next of its bucket */
	uint8_t l1p_slot[L1P_BUCKETS], l1p_chain[L1P_LINES];
	uint64_t l1p_recent[L1P_HISTORY]; /* by line % HISTORY, line + 1 of the last miss
					   * it did not serve */
	uint8_t bht[BHT_SIZE];
	/* the counts since they were last added to slot->q (settle): the
	 * latencies of branch and load misses are added there, as their
	 * counts give them (pending_cycles) */
	uint64_t q[CLAB_HQ_N];
} vcpu;

static clab_emu_file *file;
static vcpu *cpus[CLAB_EMU_SLOTS];
static vcpu *live[CLAB_EMU_SLOTS]; /* cpus[i] while it counts (not paused, nothing
				    * pending), else NULL */
/* vcpu 0 (a single-threaded program's only one) at a fixed address: its
 * common paths (with_vcpu) read its fields directly, with no read of a
 * pointer first on each one's chain of loads */
static vcpu cpu0;
static uint32_t *l2; /* the L2's tags (l2_tag): L2_SETS x L2_WAYS */
static uint16_t *l2_dirty; /* per set, bit w: way w holds data stored since it came in */
static pthread_mutex_t l2_lock = PTHREAD_MUTEX_INITIALIZER;
static int threads; /* the process may have more than one thread: lock the L2 */
static uint64_t l2_mru; /* line + 1 of the L2's last lookup, which left it most recent
			 * in its set: the same line again is a hit that changes
			 * nothing (0: none) */
/* With one thread, the L2 line + 1 of a store that found it the most recent
 * of its L2 set and not in the L1p, while both still hold (0: none): a
 * store to it again changes neither (a2_store_l2) */
static uint64_t store_seen;
static int cachegrind_policy;
static const char *summary_path;
static uint64_t totals[CLAB_HQ_N]; /* of threads that exited */
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;

static vcpu *cpu_new(unsigned int i)
{
	if (i >= CLAB_EMU_SLOTS)
		return NULL;
	vcpu *v = i == 0 ? &cpu0 : calloc(1, sizeof *v);
	if (!v) {
		fprintf(stderr, "counterlab plugin: out of memory\n");
		exit(1);
	}
	memset(v->bht, 1, sizeof v->bht);
	v->il1_stamp = (uint64_t)(i + 1) << 48;
	v->slot = &file->slot[i];
	v->index = i;
	cpus[i] = live[i] = v;
	return v;
}

/* every callback asks: the common case inline */
static inline vcpu *cpu_of(unsigned int i)
{
	return i < CLAB_EMU_SLOTS && cpus[i] ? cpus[i] : cpu_new(i);
}

/* A common path's call of fn(v, args...) with the thread's vcpu v while it
 * counts (NULL: the uncommon path), vcpu 0's at its fixed address (so fn
 * is inlined twice) */
#define with_vcpu(i, fn, ...)                                                          \
	do {                                                                           \
		if (__builtin_expect((i) == 0 && live[0] != NULL, 1))                  \
			fn(&cpu0, __VA_ARGS__);                                        \
		else                                                                   \
			fn((i) < CLAB_EMU_SLOTS ? live[i] : NULL, __VA_ARGS__);        \
	} while (0)

/* The thread of a block or an access, when it counts (NULL: paused) */
static inline vcpu *counting(unsigned int i)
{
	vcpu *v = i < CLAB_EMU_SLOTS ? live[i] : NULL;
	if (__builtin_expect(!v, 0) && (v = cpu_of(i)) && v->paused)
		return NULL;
	return v;
}

/* ---- memory accesses -------------------------------------------------- */

/* An access's size and direction, which QEMU's calls read from its
 * description, a 32-bit number. A call for each access would cost more
 * than the rest of its lookup, so they are read where QEMU 7.2 puts them:
 * the size's log2 in bits 4-6, a store in bit 17, nothing above; at start
 * the calls are asked about every such description (kinds_check), and
 * where one answers otherwise (another QEMU) every description is read
 * through them. */
enum { KIND_BITS = 18 };
static int kinds_direct; /* the fields are where 7.2 puts them */

static int kinds_check(void)
{
	for (uint32_t info = 0; info < 1u << KIND_BITS; info++)
		if (qemu_plugin_mem_size_shift(info) != (info >> 4 & 7) ||
		    qemu_plugin_mem_is_store(info) != (info >> 17 & 1))
			return 0;
	return 1;
}

static inline unsigned direct_size(qemu_plugin_meminfo_t info) { return 1u << (info >> 4 & 7); }
static inline int direct_store(qemu_plugin_meminfo_t info) { return (int)(info >> 17 & 1); }

static inline void kind_of(qemu_plugin_meminfo_t info, unsigned *size, int *store)
{
	if (__builtin_expect(kinds_direct && !(info >> KIND_BITS), 1)) {
		*size = direct_size(info);
		*store = direct_store(info);
	} else {
		*size = 1u << qemu_plugin_mem_size_shift(info);
		*store = qemu_plugin_mem_is_store(info);
	}
}

/* Line's tag in the L2: its bits above the set + 1. QEMU gives an x86-64
 * program 47-bit addresses, so a tag has 26 bits. */
static inline uint32_t l2_tag(uint64_t line)
{
	return (uint32_t)(line >> L2_SET_BITS) + 1;
}

static inline uint32_t *l2_set(uint64_t line)
{
	return l2 + (line & (L2_SETS - 1)) * L2_WAYS;
}

static inline uint16_t *l2_dirty_of(uint64_t line)
{
	return l2_dirty + (line & (L2_SETS - 1));
}

/* The L2 lookup of l2_lookup, keeping each way's dirty bit with it: a line
 * that a store (v's, store 1) finds or brings in becomes dirty, and one
 * evicted dirty is written back to memory, whole (v's write-back) */
static int l2_ref_dirty(vcpu *v, uint64_t line, int store)
{
	int w, hit = set_ref32(l2_set(line), L2_WAYS, l2_tag(line), 1, 0, &w);
	uint16_t *d = l2_dirty_of(line);
	unsigned mine = *d >> w & 1, below = *d & ((1u << w) - 1);
	if (!hit) { /* way w's line went */
		v->q[CLAB_HQ_L2_WRITEBACKS] += mine;
		mine = 0;
	}
	*d = (uint16_t)((*d & ~((2u << w) - 1)) | below << 1 | mine | (unsigned)store);
	return hit;
}

/* An L2 lookup of line by thread v (a store's: store 1), with allocation.
 * A hit on the line most recently referenced needs no lock: another
 * thread's lookup in progress cannot evict it (it is the most recent of 16
 * ways), so the hit is right in either order. */
static __attribute__((noinline)) int l2_lookup(vcpu *v, uint64_t line, int store)
{
	if (!threads) {
		if (!(((store_seen - 1) ^ line) & (L2_SETS - 1)))
			store_seen = 0; /* its set may change */
		l2_mru = line + 1;
		return l2_ref_dirty(v, line, store);
	}
	pthread_mutex_lock(&l2_lock);
	int hit = l2_ref_dirty(v, line, store);
	__atomic_store_n(&l2_mru, line + 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&l2_lock);
	return hit;
}

/* The common L2 hits, which need no lookup: the line most recently
 * referenced, and (with one thread: no lock) the most recent of its set.
 * Returns 0 when it takes a lookup. */
static inline int l2_hit_fast(uint64_t line)
{
	uint64_t t = line + 1;
	if (__atomic_load_n(&l2_mru, __ATOMIC_RELAXED) == t)
		return 1;
	if (!threads && l2_set(line)[0] == l2_tag(line)) {
		l2_mru = t;
		return 1;
	}
	return 0;
}

/* A store's hit that changes nothing: on the most recent line of its set,
 * dirty already (read without the lock, as l2_hit_fast) */
static inline int l2_store_hit_fast(uint64_t line)
{
	return l2_set(line)[0] == l2_tag(line) && (*l2_dirty_of(line) & 1);
}

static inline int l2_ref(vcpu *v, uint64_t line, int store)
{
	return (store ? l2_store_hit_fast(line) : l2_hit_fast(line)) || l2_lookup(v, line, store);
}

static inline uint64_t *l1_set(vcpu *v, uint64_t line)
{
	return v->l1 + (line & (L1_SETS - 1)) * L1_WAYS;
}

/* An L1 lookup with allocation, of a line that is none of the `from` most
 * recent of its set */
static inline __attribute__((always_inline)) int l1_lookup(vcpu *v, uint64_t line, int from)
{
	if (set_ref(l1_set(v, line), L1_WAYS, line + 1, 1, from, NULL))
		return 1;
	if (v->l1_absent == line + 1)
		v->l1_absent = 0; /* brought in */
	return 0;
}

static __attribute__((noinline)) int l1_lookup_out(vcpu *v, uint64_t line)
{
	return l1_lookup(v, line, 1);
}

/* L1 lookup with allocation: a hit on the most recent line of its set
 * changes nothing */
static inline int l1_ref(vcpu *v, uint64_t line)
{
	return l1_set(v, line)[0] == line + 1 || l1_lookup_out(v, line);
}

/* ---- the L1p's stream prefetcher (policy a2; counts only) ------------ */

/* Line pl's bucket: consecutive lines in consecutive buckets, lines a
 * power of two apart (FFTs) mostly apart */
static inline unsigned l1p_bucket(uint64_t pl)
{
	return (unsigned)((pl ^ pl >> 9 ^ pl >> 18) % L1P_BUCKETS);
}

/* Whether 128-byte line pl may be held (no: it is not) */
static inline int l1p_may_hold(const vcpu *v, uint64_t pl)
{
	return v->l1p_slot[l1p_bucket(pl)] != 0;
}

/* The slot holding 128-byte line pl, -1: none */
static int l1p_find(const vcpu *v, uint64_t pl)
{
	for (unsigned s = v->l1p_slot[l1p_bucket(pl)]; s; s = v->l1p_chain[s - 1])
		if (v->l1p[s - 1] == pl + 1)
			return (int)s - 1;
	return -1;
}

/* Slot i holds line pl from now on (set: 1) or no longer (0) */
static void l1p_hold(vcpu *v, int i, uint64_t pl, int set)
{
	uint8_t *link = &v->l1p_slot[l1p_bucket(pl)];
	v->l1p[i] = set ? pl + 1 : 0;
	v->l1p_used[i] = 0;
	if (set) {
		if (pl + 1 == store_seen)
			store_seen = 0;
		v->l1p_chain[i] = *link;
		*link = (uint8_t)(i + 1);
		return;
	}
	while (*link != i + 1)
		link = &v->l1p_chain[*link - 1];
	*link = v->l1p_chain[i];
}

/* Sets line pl up ahead of a stream, unless it is held: it replaces the
 * line that came first */
static void l1p_prefetch(vcpu *v, uint64_t pl)
{
	if (l1p_find(v, pl) >= 0)
		return;
	unsigned i = v->l1p_next;
	v->l1p_next = (i + 1) % L1P_LINES;
	if (v->l1p[i]) {
		if (!v->l1p_used[i])
			v->q[CLAB_HQ_L1P_EVICT_UNUSED]++;
		l1p_hold(v, (int)i, v->l1p[i] - 1, 0);
	}
	l1p_hold(v, (int)i, pl, 1);
	v->q[CLAB_HQ_L1P_LINES]++;
}

static int l1p_recent(const vcpu *v, uint64_t pl)
{
	return v->l1p_recent[pl % L1P_HISTORY] == pl + 1;
}

/* A load that missed the L1D in (64-byte) line: a prefetched line serves
 * it when the L2 held it (else the prefetch from memory is still under way
 * and becomes the demand fetch), and its stream goes on DEPTH lines ahead;
 * a miss whose line follows a recent one starts a stream */
static void l1p_load_miss(vcpu *v, uint64_t line, int l2_hit)
{
	uint64_t pl = line >> (L2_LINE_SHIFT - L1_LINE_SHIFT);
	int i = l1p_find(v, pl);
	if (i >= 0) {
		v->q[l2_hit ? CLAB_HQ_L1P_HITS : CLAB_HQ_L1P_PF2DFC]++;
		v->l1p_used[i] = 1;
		l1p_prefetch(v, pl + L1P_DEPTH);
		return;
	}
	if (l1p_recent(v, pl))
		return; /* the line's other half missed already */
	if (l1p_recent(v, pl - 1)) {
		v->q[CLAB_HQ_L1P_STREAMS]++;
		for (uint64_t d = 1; d <= L1P_DEPTH; d++)
			l1p_prefetch(v, pl + d);
	}
	v->l1p_recent[pl % L1P_HISTORY] = pl + 1;
}

/* A store (every store passes the L1p: the L1D writes through) to a
 * 128-byte line the L1p holds invalidates it there */
static __attribute__((noinline)) void l1p_store_check(vcpu *v, uint64_t pl)
{
	int i = l1p_find(v, pl);
	if (i >= 0) {
		v->q[CLAB_HQ_L1P_WRT_INVAL]++;
		l1p_hold(v, i, pl, 0);
	}
}


/* A load that missed the L1D, and the L2 too when l2_miss (its latency:
 * pending_cycles) */
static inline void load_missed(uint64_t *q, int l2_miss)
{
	q[CLAB_HQ_L1D_LOAD_MISSES]++;
	q[CLAB_HQ_LLC_MISSES] += (uint64_t)l2_miss;
}

/* Policy a2: a load's lookups past the L1D, which it missed */
static __attribute__((noinline)) void a2_load_miss(vcpu *v, uint64_t line)
{
	int l2_hit = l2_ref(v, line >> (L2_LINE_SHIFT - L1_LINE_SHIFT), 0);
	l1p_load_miss(v, line, l2_hit);
	load_missed(v->q, !l2_hit);
}

/* ... the lookups of one line by a load that is none of the three most
 * recent of its set (a hit on those needs no stack frame) */
static __attribute__((noinline)) void a2_load_l1(vcpu *v, uint64_t line)
{
	if (!l1_lookup(v, line, 3))
		a2_load_miss(v, line);
}

/* A tag written alone (GCC would pair two in a vector register built
 * before the first test, which most loads pass) */
static inline void tag_put(uint64_t *at, uint64_t tag)
{
	__atomic_store_n(at, tag, __ATOMIC_RELAXED);
}

/* Policy a2: a load's lookups of one line. A hit in the set's second or
 * third most recent line (streams that share a set take turns) moves it
 * first here, without a call. */
static inline __attribute__((always_inline)) void a2_load_line(vcpu *v, uint64_t line)
{
	uint64_t t = line + 1, *set = l1_set(v, line), s0 = set[0], s1;
	if (s0 == t)
		return;
	if ((s1 = set[1]) == t) {
		tag_put(&set[1], s0);
		tag_put(&set[0], t);
	} else if (set[2] == t) {
		tag_put(&set[2], s1);
		tag_put(&set[1], s0);
		tag_put(&set[0], t);
	} else {
		a2_load_l1(v, line);
	}
}

/* ... a store's L2 lookup that is not a hit on its most recent line,
 * dirty */
static __attribute__((noinline)) void a2_store_l2_lookup(vcpu *v, uint64_t line)
{
	if (!l2_lookup(v, line, 1))
		v->q[CLAB_HQ_L2_STORE_MISSES]++;
}

/* ... a store's L2 lookup, after the L1p's, when its line may be there */
static __attribute__((noinline)) void a2_store_l1p(vcpu *v, uint64_t line)
{
	l1p_store_check(v, line);
	if (!l2_store_hit_fast(line))
		a2_store_l2_lookup(v, line);
}

/* ... a store's L1p and L2 lookups (write-through: they see every store):
 * in the common case, a line whose L1p bucket holds none, a byte's test */
static inline __attribute__((always_inline)) void a2_store_l2(vcpu *v, uint64_t line)
{
	line >>= L2_LINE_SHIFT - L1_LINE_SHIFT;
	if (line + 1 == store_seen)
		return;
	if (__builtin_expect(l1p_may_hold(v, line), 0))
		a2_store_l1p(v, line);
	else if (!l2_store_hit_fast(line))
		a2_store_l2_lookup(v, line);
	else if (!threads)
		store_seen = line + 1;
}

/* ... a store's lookups of a line that is not the most recent of its L1
 * set: a miss leaves the L1 as it was */
static __attribute__((noinline)) void a2_store_l1(vcpu *v, uint64_t line)
{
	if (!set_ref(l1_set(v, line), L1_WAYS, line + 1, 0, 1, NULL)) {
		v->q[CLAB_HQ_L1D_STORE_MISSES]++;
		v->l1_absent = line + 1;
	}
	a2_store_l2(v, line);
}

/* ... a store's lookups of one line. Every call is last in its caller, so
 * the common case needs no stack frame. */
static inline __attribute__((always_inline)) void a2_store_line(vcpu *v, uint64_t line)
{
	uint64_t t = line + 1;
	if (t == v->l1_absent) {
		v->q[CLAB_HQ_L1D_STORE_MISSES]++;
	} else if (l1_set(v, line)[0] != t) {
		a2_store_l1(v, line);
		return;
	}
	a2_store_l2(v, line);
}

static inline __attribute__((always_inline)) void a2_line(vcpu *v, uint64_t line, int store)
{
	if (store)
		a2_store_line(v, line);
	else
		a2_load_line(v, line);
}

/* ... lines first to last, for the rarer accesses across two lines */
static __attribute__((noinline)) void a2_lines(vcpu *v, uint64_t first, uint64_t last, int store)
{
	for (uint64_t line = first; line <= last; line++)
		a2_line(v, line, store);
}

/* A load that valgrind splits (policy cachegrind): the bits of an
 * instruction's memref.pc above its address say into how many pieces, of
 * what size, how far apart. */
#define SPLIT(pieces, size_log2, stride_log2) \
	((uint64_t)(pieces) << 48 | (uint64_t)(size_log2) << 52 | (uint64_t)(stride_log2) << 56)
/* ... and an instruction that QEMU may make atomic (see atomic_rmw) */
#define MAY_BE_ATOMIC (1ull << 60)

static void count_access(vcpu *v, const memref *a)
{
	if (a->pc >> 48 && cachegrind_policy && !a->store) {
		memref piece = *a;
		unsigned n = a->pc >> 48 & 15, stride = 1u << (a->pc >> 56 & 15);
		piece.pc &= (1ull << 48) - 1;
		piece.size = 1u << (a->pc >> 52 & 15);
		for (unsigned i = 0; i < n; i++, piece.addr += stride)
			count_access(v, &piece);
		return;
	}
	uint64_t *q = v->q;
	if (a->store) {
		if (cachegrind_policy && v->last_load.seq == a->seq && v->last_load.pc == a->pc &&
		    v->last_load.addr == a->addr && v->last_load.size == a->size)
			return; /* a modify: cachegrind's one read */
		q[a->size >= 16 ? CLAB_HQ_QSTORES : CLAB_HQ_STORES]++;
	} else {
		q[a->size >= 16 ? CLAB_HQ_QLOADS : CLAB_HQ_LOADS]++;
		if (cachegrind_policy) { /* by field: a copy of the whole would wait
					  * on on_piece's stores into it */
			v->last_load.seq = a->seq;
			v->last_load.pc = a->pc;
			v->last_load.addr = a->addr;
			v->last_load.size = a->size;
		}
	}
	uint64_t first = a->addr >> L1_LINE_SHIFT;
	uint64_t last = (a->addr + a->size - 1) >> L1_LINE_SHIFT;
	if (cachegrind_policy) {
		/* as cachegrind: an access across a line boundary looks up both
		 * lines and is one miss at most; one that misses the L1 looks
		 * all its bytes up in the L2 */
		int miss = 0;
		for (uint64_t line = first; line <= last; line++)
			miss |= !l1_ref(v, line);
		if (!miss)
			return;
		miss = 0;
		for (uint64_t line = a->addr >> L2_LINE_SHIFT;
		     line <= (a->addr + a->size - 1) >> L2_LINE_SHIFT; line++)
			miss |= !l2_ref(v, line, a->store);
		if (!a->store) {
			load_missed(q, miss);
		} else {
			q[CLAB_HQ_L1D_STORE_MISSES]++;
			q[CLAB_HQ_L2_STORE_MISSES] += (uint64_t)miss;
		}
		return;
	}
	/* an access across a line boundary looks up both lines */
	for (uint64_t line = first; line <= last; line++)
		a2_line(v, line, a->store);
}

/* An access is pending from now on: the thread's callbacks take their
 * uncommon paths (live is NULL), which count it first (flush_pending).
 * Then the common paths need not ask. */
static inline void pend_start(vcpu *v)
{
	live[v->index] = NULL;
}

static inline void flush_pending(vcpu *v)
{
	memref *p = &v->pend;
	if (p->size) {
		count_access(v, p);
		p->size = 0;
		live[v->index] = v->paused ? NULL : v;
	}
}

/* QEMU 7.2 reports an atomic read-modify-write (a locked instruction, or
 * xchg, once the process has a second thread) as one access that
 * qemu_plugin_mem_is_store calls a store; without a second thread the same
 * instruction is a load, then a store. So the store of an instruction that
 * may be atomic (MAY_BE_ATOMIC), when its load did not come first, is such
 * an access: its load is counted before it. Returns 1 then. */
static int atomic_rmw(vcpu *v, const memref *a)
{
	memref *l = &v->atomic_load;
	if (!a->store) {
		*l = *a;
		return 0;
	}
	return !(l->seq == a->seq && l->pc == a->pc && l->addr == a->addr);
}

/* The load of a may-be-atomic access that came as its store alone
 * (atomic_rmw), counted before the store. */
static void count_rmw_load(vcpu *v, const memref *a)
{
	if (atomic_rmw(v, a)) {
		memref load = *a;
		load.store = 0;
		count_access(v, &load);
	}
}

/* A memory callback's thread (NULL: not counting), the access's size and
 * direction */
static inline vcpu *access_of(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
			      unsigned *size, int *store)
{
	vcpu *v = counting(vcpu_index);
	if (!v)
		return NULL;
	kind_of(info, size, store);
	return v;
}

/* An access of an instruction that QEMU may make in pieces (see
 * in_pieces), policy cachegrind or one that may be atomic: a piece that
 * continues the pending access joins it. */
static void on_piece(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
		     void *udata)
{
	unsigned size;
	int store;
	vcpu *v = access_of(vcpu_index, info, &size, &store);
	if (!v)
		return;
	uint64_t pc = (uint64_t)(uintptr_t)udata & ~MAY_BE_ATOMIC;
	memref *p = &v->pend;
	if (p->size && p->seq == v->seq && p->pc == pc && p->store == store &&
	    p->addr + p->size == vaddr && p->size + size <= 64) {
		p->size += size; /* the next piece of one access */
		return;
	}
	flush_pending(v);
	*p = (memref){.seq = v->seq, .pc = pc, .addr = vaddr, .size = size, .store = store};
	pend_start(v);
	if ((uintptr_t)udata & MAY_BE_ATOMIC)
		count_rmw_load(v, p);
}

/* An access of any other instruction: counted as it comes. */
static __attribute__((noinline)) void access_general(vcpu *v, uint64_t vaddr, unsigned size,
						     int store, uintptr_t id)
{
	flush_pending(v);
	memref a = {.seq = v->seq, .pc = id & ~MAY_BE_ATOMIC, .addr = vaddr, .size = size,
		    .store = store};
	if (id & MAY_BE_ATOMIC)
		count_rmw_load(v, &a);
	count_access(v, &a);
}

static void on_access(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
		      void *udata)
{
	unsigned size;
	int store;
	vcpu *v = access_of(vcpu_index, info, &size, &store);
	if (v)
		access_general(v, vaddr, size, store, (uintptr_t)udata);
}

/* The start of a2_one's and a2_piece's uncommon cases (a thread not
 * counting or new, an access pending, a description read through the
 * calls): as access_of, with nothing pending */
static vcpu *access_settled(unsigned int vcpu_index, qemu_plugin_meminfo_t info, unsigned *size,
			    int *store)
{
	vcpu *v = access_of(vcpu_index, info, size, store);
	if (v)
		flush_pending(v);
	return v;
}

/* ... and a2_one's accesses of 16 bytes or more, or near or across a
 * line's end */
static __attribute__((noinline)) void a2_one_slow(unsigned int i, qemu_plugin_meminfo_t info,
						  uint64_t vaddr, uintptr_t id)
{
	unsigned size;
	int store;
	vcpu *v = access_settled(i, info, &size, &store);
	if (!v)
		return;
	uint64_t line = vaddr >> L1_LINE_SHIFT;
	if (size >= 16 || line != (vaddr + size - 1) >> L1_LINE_SHIFT) {
		access_general(v, vaddr, size, store, id);
		return;
	}
	v->q[store ? CLAB_HQ_STORES : CLAB_HQ_LOADS]++;
	a2_line(v, line, store);
}

/* The descriptions a2_one reads directly (with kinds_direct): 7.2's, of
 * at most 8 bytes */
#define A2_ONE_INFO ((1u << KIND_BITS) - 1 - (4u << 4))

/* Policy a2, an instruction that QEMU does not make atomic: an access is
 * counted as it comes, the lines it touches looked up in order. The
 * common case (the thread counts, with nothing pending, and the access,
 * at most 8 bytes, starts at most 8 bytes before its line's end, so it
 * stays within the line) is a path of a few instructions without a stack
 * frame: every instruction here is paid hundreds of millions of times.
 * (One callback for both directions: QEMU 7.2 calls one registered for
 * loads alone on stores only, and one for stores alone on both.) An
 * instruction whose accesses are all loads, or all stores, gets a callback
 * for that direction (dir 0 or 1; -1: either), whose common case is that
 * direction alone (another goes the slow way): the host predicts the
 * direction of one instruction's accesses, not that of every
 * instruction's in turn. */
static inline __attribute__((always_inline)) void a2_one_on(vcpu *v, unsigned int i,
							     qemu_plugin_meminfo_t info,
							     uint64_t vaddr, void *udata, int dir)
{
	/* a description read the slow way, or of the other direction */
	uint32_t other = (info ^ (dir > 0 ? 1u << 17 : 0)) &
			 ~(dir >= 0 ? A2_ONE_INFO & ~(1u << 17) : A2_ONE_INFO);
	if (__builtin_expect(!v || other ||
			     (vaddr & ((1u << L1_LINE_SHIFT) - 1)) > (1u << L1_LINE_SHIFT) - 8, 0)) {
		a2_one_slow(i, info, vaddr, (uintptr_t)udata);
		return;
	}
	if (dir >= 0 ? dir : direct_store(info)) {
		v->q[CLAB_HQ_STORES]++;
		a2_store_line(v, vaddr >> L1_LINE_SHIFT);
	} else {
		v->q[CLAB_HQ_LOADS]++;
		a2_load_line(v, vaddr >> L1_LINE_SHIFT);
	}
}

static void a2_one(unsigned int i, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	with_vcpu(i, a2_one_on, i, info, vaddr, udata, -1);
}

static void a2_load(unsigned int i, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	with_vcpu(i, a2_one_on, i, info, vaddr, udata, 0);
}

static void a2_store(unsigned int i, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	with_vcpu(i, a2_one_on, i, info, vaddr, udata, 1);
}

/* ... and one whose accesses QEMU may make in pieces (16 and 32 bytes in
 * 8-byte ones): a piece that continues the one before is the same access,
 * only the lines it adds are looked up, and the access moves to the quad
 * class as it reaches 16 bytes. */
static inline uint64_t join_key(uintptr_t id, int store)
{
	return id | (uint64_t)store << 63;
}

static inline int a2_continues(const vcpu *v, uint64_t vaddr, unsigned size, uint64_t key)
{
	const a2join *j = &v->join;
	return j->end == vaddr && j->key == key && j->seq == v->seq && j->size + size <= 64;
}

/* ... a piece that continues the access: it grows, into the quad class as
 * it reaches 16 bytes */
static inline void a2_grow(vcpu *v, unsigned size, int store)
{
	a2join *j = &v->join;
	if (j->size < 16 && j->size + size >= 16) {
		v->q[store ? CLAB_HQ_STORES : CLAB_HQ_LOADS]--;
		v->q[store ? CLAB_HQ_QSTORES : CLAB_HQ_QLOADS]++;
	}
	j->size += size;
	j->end += size;
}

static __attribute__((noinline)) void a2_piece_of(vcpu *v, uint64_t vaddr, unsigned size,
						  int store, uintptr_t id)
{
	uint64_t line = vaddr >> L1_LINE_SHIFT, last = (vaddr + size - 1) >> L1_LINE_SHIFT;
	uint64_t key = join_key(id, store);
	if (a2_continues(v, vaddr, size, key)) {
		a2_grow(v, size, store);
		line = ((vaddr - 1) >> L1_LINE_SHIFT) + 1;
	} else {
		v->q[store ? (size >= 16 ? CLAB_HQ_QSTORES : CLAB_HQ_STORES)
			   : (size >= 16 ? CLAB_HQ_QLOADS : CLAB_HQ_LOADS)]++;
		v->join = (a2join){.seq = v->seq, .key = key, .end = vaddr + size, .size = size};
	}
	if (__builtin_expect(line == last, 1))
		a2_line(v, line, store);
	else if (line < last) /* across a line boundary (line > last: none new) */
		a2_lines(v, line, last, store);
}

static __attribute__((noinline)) void a2_piece_slow(unsigned int i, qemu_plugin_meminfo_t info,
						    uint64_t vaddr, uintptr_t id)
{
	unsigned size;
	int store;
	vcpu *v = access_settled(i, info, &size, &store);
	if (v)
		a2_piece_of(v, vaddr, size, store, id);
}

/* The common case first: a piece that continues the access before within
 * the line that access reached, so no line is looked up (the second,
 * third and fourth of a 32-byte access) */
static inline __attribute__((always_inline)) void a2_piece_on(vcpu *v, unsigned int i,
							       qemu_plugin_meminfo_t info,
							       uint64_t vaddr, void *udata)
{
	if (__builtin_expect(!v || info >> KIND_BITS, 0)) {
		a2_piece_slow(i, info, vaddr, (uintptr_t)udata);
		return;
	}
	unsigned size = direct_size(info);
	int store = direct_store(info);
	if (a2_continues(v, vaddr, size, join_key((uintptr_t)udata, store)) &&
	    !(((vaddr - 1) ^ (vaddr + size - 1)) >> L1_LINE_SHIFT)) {
		a2_grow(v, size, store);
		return;
	}
	a2_piece_of(v, vaddr, size, store, (uintptr_t)udata);
}

static void a2_piece(unsigned int i, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	with_vcpu(i, a2_piece_on, i, info, vaddr, udata);
}

/* ---- blocks ----------------------------------------------------------- */

/* While the process has one thread, a block's run only counts the run
 * (the blocks are shared by threads): the block's classes times its runs
 * are added to the counts at the next system call, where the program
 * reads them (and before a second thread starts), and at exit. */
static void add_runs(vcpu *v)
{
	uint64_t *q = v->q;
	for (tbinfo *tb = v->ran, *next; tb; tb = next) {
		for (int i = 0; i < tb->nz; i++)
			q[tb->idx[i]] += tb->n[i] * tb->runs;
		tb->runs = 0;
		next = tb->next_run;
		tb->next_run = NULL;
	}
	v->ran = NULL;
	v->unadded_cycles = 0;
}

/* The cycles that the misses counted in v->q wait */
static inline uint64_t pending_cycles(const vcpu *v)
{
	const uint64_t *q = v->q;
	return q[CLAB_HQ_BRANCH_MISSES] * BR_PENALTY + q[CLAB_HQ_LLC_MISSES] * MEM_LATENCY +
	       (q[CLAB_HQ_L1D_LOAD_MISSES] - q[CLAB_HQ_LLC_MISSES]) * L2_LATENCY;
}

/* All that is pending counted and added to the slot: before the counts
 * are read */
static void settle(vcpu *v)
{
	flush_pending(v);
	add_runs(v);
	v->q[CLAB_HQ_CYCLES] += pending_cycles(v);
	for (int i = 0; i < CLAB_HQ_N; i++)
		v->slot->q[i] += v->q[i];
	memset(v->q, 0, sizeof v->q);
}

/* The thread's timer (clab_emu_timer): when its cycles reach timer_at, the
 * guest gets the signal before its next block, and the timer goes on from
 * there (ticks missed are not made up, as a POSIX timer's overruns). */
static __attribute__((noinline)) void timer_tick(vcpu *v, const tbinfo *tb)
{
	if (!threads)
		v->unadded_cycles += tb->cycles;
	uint64_t now = v->slot->q[CLAB_HQ_CYCLES] + v->q[CLAB_HQ_CYCLES] + pending_cycles(v) +
		       v->unadded_cycles;
	if (now < v->timer_at)
		return;
	v->timer_at = now + v->timer_period;
	syscall(SYS_tgkill, (pid_t)getpid(), (pid_t)syscall(SYS_gettid), v->timer_signal);
}

/* The host signal QEMU delivers as guest signal g: it maps the host's
 * real-time signals, from the host's SIGRTMIN, onto the guest's from 32. */
static int host_signal(int g)
{
	return g >= 32 ? g - 32 + SIGRTMIN : g;
}

/* The L1I lookups of a block's code (x86 code standing for the PowerPC
 * code a compiler would make of it): a miss waits for the reload from the
 * L2, and the line replaces the set's oldest. Then the timer, as at the
 * end of every block. */
static __attribute__((noinline)) void code_fetch(vcpu *v, tbinfo *tb)
{
	for (uint64_t line = tb->code_first; line <= tb->code_last; line++) {
		unsigned s = (unsigned)(line & (IL1_SETS - 1));
		uint64_t *set = v->il1 + s * IL1_WAYS;
		int hit = 0;
		for (int w = 0; w < IL1_WAYS; w++)
			hit |= set[w] == line + 1;
		if (!hit) {
			set[v->il1_next[s]] = line + 1;
			v->il1_next[s] = (uint8_t)((v->il1_next[s] + 1) % IL1_WAYS);
			v->il1_stamp++;
			v->q[CLAB_HQ_IL1_MISSES]++;
			v->q[CLAB_HQ_IL1_MISS_CYCLES] += L2_LATENCY;
			v->q[CLAB_HQ_CYCLES] += L2_LATENCY;
		}
	}
	/* one store: threads that share the block read it whole */
	__atomic_store_n(&tb->il1_seen, v->il1_stamp, __ATOMIC_RELAXED);
	if (v->timer_at)
		timer_tick(v, tb);
}

/* a two-bit counter's next value and (bit 2) a misprediction: [counter << 1 | taken] */
static const uint8_t bht_next[8] = {0, 1 | 4, 0, 2 | 4, 1 | 4, 3, 2 | 4, 3};

/* A run of block tb by thread v */
static inline __attribute__((always_inline)) void tb_ran(vcpu *v, tbinfo *tb)
{
	/* a pending access stays pending: a new block's seq ends it, and the
	 * next access, system call or exit counts it, in the same order */
	uint64_t *q = v->q;
	uint64_t fall = v->prev_fall;
	if (fall) { /* without branches: the guest's may be random */
		uint8_t *ctr = &v->bht[v->prev_bht];
		unsigned taken = tb->pc != fall, next = bht_next[*ctr << 1 | taken];
		q[CLAB_HQ_BRANCH_MISSES] += next >> 2; /* their cycles: pending_cycles */
		q[CLAB_HQ_TAKEN] += taken;
		/* written only when it changes: the next read of a counter that
		 * stays (a loop's branch) then need not wait for this write */
		if ((next & 3) != *ctr)
			*ctr = (uint8_t)(next & 3);
	}
	if (!threads) {
		if (tb->runs++ == 0) {
			tb->next_run = v->ran;
			v->ran = tb;
		}
	} else {
		for (int i = 0; i < tb->nz; i++)
			q[tb->idx[i]] += tb->n[i];
	}
	v->prev_fall = tb->cond_fall;
	v->prev_bht = tb->bht;
	v->seq++;
	/* a block whose lines the thread's L1I held with no fill since needs no
	 * lookup: a hit changes nothing (the calls are last: the common case
	 * needs no stack frame) */
	if (__builtin_expect(__atomic_load_n(&tb->il1_seen, __ATOMIC_RELAXED) != v->il1_stamp, 0))
		code_fetch(v, tb);
	else if (__builtin_expect(v->timer_at != 0, 0))
		timer_tick(v, tb);
}

/* ... out of line, for a thread new or paused */
static __attribute__((noinline)) void on_tb_rare(unsigned int vcpu_index, tbinfo *tb)
{
	vcpu *v = counting(vcpu_index);
	if (v)
		tb_ran(v, tb);
}

/* The common case (a thread that counts) needs no stack frame */
static inline __attribute__((always_inline)) void on_tb_on(vcpu *v, unsigned int vcpu_index,
							    void *udata)
{
	if (__builtin_expect(!v, 0))
		on_tb_rare(vcpu_index, udata);
	else
		tb_ran(v, udata);
}

static void on_tb(unsigned int vcpu_index, void *udata)
{
	with_vcpu(vcpu_index, on_tb_on, vcpu_index, udata);
}

/* ---- classification --------------------------------------------------- */

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Splits AT&T operands at the commas outside parentheses: at most 4. */
static int operands(const char *ops, const char *op[4], size_t len[4])
{
	int k = 0, depth = 0;
	const char *start = ops;
	for (const char *c = ops;; c++) {
		if (*c == '(')
			depth++;
		else if (*c == ')')
			depth--;
		if ((*c == ',' && depth == 0) || *c == 0) {
			while (*start == ' ')
				start++;
			if (c > start && k < 4) {
				op[k] = start;
				len[k++] = (size_t)(c - start);
			}
			if (*c == 0)
				return k;
			start = c + 1;
		}
	}
}

/* A memory operand in AT&T syntax: neither a register (%) nor an
 * immediate ($): "(%rdi)", "-0x88(%rbp)", "0x18311(%rip)". */
static int is_mem(const char *op) { return op[0] != '%' && op[0] != '$'; }

/* Mnemonics that name memory without reading or writing it (lea, nop) or
 * only touch it (prefetch, clflush). */
static int no_access(const char *mn)
{
	return starts(mn, "lea") || starts(mn, "nop") || starts(mn, "prefetch") ||
	       starts(mn, "clflush") || starts(mn, "clwb");
}

/* x87 stores: they write their memory operand without reading it; every
 * other x87 instruction only reads its memory operand. */
static int x87_store(const char *mn)
{
	return mn[0] == 'f' && (starts(mn, "fst") || starts(mn, "fist") || starts(mn, "fnst") ||
				starts(mn, "fsave") || starts(mn, "fnsave") ||
				starts(mn, "fbstp") || starts(mn, "fxsave"));
}

/* Mnemonics that read a memory destination without writing it (bt, not
 * bts, btr, btc; x87 loads; ldmxcsr). */
static int reads_dest(const char *mn)
{
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	return (starts(mn, "cmp") && !starts(mn, "cmpxchg")) || starts(mn, "test") ||
	       starts(mn, "push") || starts(b, "ucomis") || starts(b, "comis") ||
	       (starts(mn, "bt") && mn[2] != 's' && mn[2] != 'r' && mn[2] != 'c') ||
	       starts(mn, "mul") || starts(mn, "imul") || starts(mn, "div") ||
	       starts(mn, "idiv") || starts(b, "ldmxcsr") || (mn[0] == 'f' && !x87_store(mn));
}

/* Operations that write a memory destination without reading it (besides
 * the moves): x87 stores, extracts, stmxcsr. */
static int writes_dest(const char *mn)
{
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	return x87_store(mn) || starts(b, "pextr") || starts(b, "extract") ||
	       starts(b, "stmxcsr") || starts(b, "cvtps2ph");
}

/* Plain moves other than mov*: x87 loads and stores of a value as it is
 * (fld, fst, fstp with a size suffix; not fild, fist, which convert),
 * string loads and stores, setcc. */
static int other_move(const char *mn)
{
	static const char *const x87[] = {"flds", "fldl", "fldt", "fsts", "fstl",
					  "fstps", "fstpl", "fstpt"};
	for (size_t i = 0; i < sizeof x87 / sizeof x87[0]; i++)
		if (!strcmp(mn, x87[i]))
			return 1;
	return starts(mn, "lods") || starts(mn, "stos") || starts(mn, "set");
}

/* Moves and conversions whose vector operand is at most 8 bytes of memory. */
static int narrow_vector(const char *mn)
{
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	size_t l = strlen(b);
	return !strcmp(b, "movd") || !strcmp(b, "movq") || starts(b, "movlp") ||
	       starts(b, "movhp") || starts(b, "pinsr") || starts(b, "pextr") ||
	       starts(b, "broadcast") || starts(b, "cvt") || starts(b, "movddup") ||
	       starts(b, "extractps") || (l > 2 && (!strcmp(b + l - 2, "ss") || !strcmp(b + l - 2, "sd")));
}

/* The index of the (last) memory operand among ops, -1: none (or one
 * that is not accessed: lea, nop, prefetch); *k: how many operands;
 * *nmem: how many of them are memory (2: a string move or compare). */
static int mem_operand(const char *mn, const char *ops, int *k, int *nmem)
{
	const char *op[4];
	size_t len[4];
	int mem = -1;
	*k = operands(ops, op, len);
	*nmem = 0;
	for (int i = 0; i < *k; i++)
		if (is_mem(op[i])) {
			mem = i;
			++*nmem;
		}
	return no_access(mn) ? -1 : mem;
}

/* x87 instructions whose memory is the FPU's control or status word or
 * its saved state, not FP data: integer loads and stores. */
static int x87_state(const char *mn)
{
	static const char *const st[] = {"fldcw", "fnstcw", "fstcw", "fnstsw", "fstsw",
					 "fldenv", "fnstenv", "fstenv", "frstor", "fnsave",
					 "fsave", "fxsave", "fxrstor"};
	for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
		if (starts(mn, st[i]))
			return 1;
	return 0;
}

/* Whether the memory an instruction loads or stores is FP data that a
 * PowerPC compiler moves through an FP register (lfd, lfs, stfd, stfs;
 * lfiwax and stfiwx for fild and fist; lfd and fcfid for an integer it
 * converts to FP): a vector register beside it that moves less than 16
 * bytes (scalar SSE and AVX, movlps, broadcasts; also movd and movq,
 * whose 4 or 8 bytes go through an FP register there too), x87 data, or
 * a conversion of FP memory into an integer register (cvttsd2si). */
static int fp_data(const char *mn, int vec, int wide)
{
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	return (vec && !wide) || (mn[0] == 'f' && !x87_state(mn)) ||
	       (starts(b, "cvt") && strstr(b, "2si"));
}

/* A value moved between a general register and an FP (vector) one: the
 * A2 has no instruction for that, so a PowerPC compiler goes through
 * memory, a store from one register file and a load into the other.
 * VIA_TO_FP: an integer converted (cvtsi2sd: stw or std, lfiwax or lfd,
 * fcfid), moved (movq %rax,%xmm0: std, lfd) or inserted (pinsrq: std,
 * lfd and the insert); VIA_FROM_FP: the reverse (cvttsd2si: fctiwz,
 * stfiwx, lwz; movq %xmm0,%rax: stfd, ld; pextrq: the extract, stfd, ld);
 * 0: neither. */
enum { VIA_TO_FP = 1, VIA_FROM_FP = 2 };

static int is_vreg(const char *op)
{
	return starts(op, "%xmm") || starts(op, "%ymm") || starts(op, "%zmm") || starts(op, "%mm");
}

static int is_gpr(const char *op)
{
	return op[0] == '%' && !is_vreg(op) && !starts(op, "%st");
}

static int via_memory(const char *mn, const char *ops)
{
	const char *b = mn[0] == 'v' ? mn + 1 : mn, *op[4];
	size_t len[4];
	int k = operands(ops, op, len);
	if (k < 2)
		return 0;
	int src = op[0][0] == '$'; /* (an immediate: the element) */
	if (k < src + 2 || !(starts(b, "cvt") || !strcmp(b, "movd") || !strcmp(b, "movq") ||
			     starts(b, "pinsr") || starts(b, "pextr") || !strcmp(b, "extractps")))
		return 0;
	return is_gpr(op[src]) && is_vreg(op[k - 1]) ? VIA_TO_FP
	       : is_vreg(op[src]) && is_gpr(op[k - 1]) ? VIA_FROM_FP : 0;
}

/* An x86 instruction counts as the A2 instructions a compiler would emit
 * for it (the A2 is a load/store machine): a move to or from memory is one
 * load or store (a string move is a load and a store); any other
 * instruction that reads memory is a load, the operation, and a store when
 * memory is also its destination (AT&T syntax: the destination last; a
 * lone operand is written unless the mnemonic only reads it); one that
 * writes memory without reading it (an x87 store, an extract) is the
 * operation and a store. Wide (the quad classes): a vector register beside it and
 * not a scalar or 8-byte move (AT&T spells no operand size, so this is
 * read from the mnemonic); else FP (FLD, FST) when the data is (fp_data),
 * else integer (LD, ST). The accesses themselves are counted as they
 * happen. */
static void mem_class(const char *mn, const char *ops, uint64_t *n)
{
	int k, nmem, mem = mem_operand(mn, ops, &k, &nmem);
	if (mem < 0 && (starts(mn, "push") || starts(mn, "pop"))) {
		/* a register saved to or restored from the stack: the store or
		 * load a PowerPC compiler would write */
		n[mn[1] == 'u' ? CLAB_HQ_ST_INSNS : CLAB_HQ_LD_INSNS]++;
		return;
	}
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	if (mem < 0) {
		int via = via_memory(mn, ops);
		if (via) { /* a store and a load: a move is those two alone */
			n[via == VIA_TO_FP ? CLAB_HQ_ST_INSNS : CLAB_HQ_FST_INSNS]++;
			n[via == VIA_TO_FP ? CLAB_HQ_FLD_INSNS : CLAB_HQ_LD_INSNS]++;
			n[CLAB_HQ_INSTRUCTIONS] += starts(b, "mov") ? 1 : 2;
		}
		return;
	}
	if (nmem == 2) {
		/* movs: a load and a store; cmps: two loads and the compare */
		n[CLAB_HQ_LD_INSNS]++;
		n[starts(mn, "movs") ? CLAB_HQ_ST_INSNS : CLAB_HQ_LD_INSNS]++;
		n[CLAB_HQ_INSTRUCTIONS] += starts(mn, "movs") ? 1 : 2;
		return;
	}
	int move = starts(b, "mov") || starts(b, "lddqu") || starts(b, "broadcast") ||
		   other_move(mn);
	int writes = writes_dest(mn);
	int dest = writes || (mem == k - 1 && !reads_dest(mn));
	int vec = strstr(ops, "%xmm") || strstr(ops, "%ymm") || strstr(ops, "%zmm");
	int wide = vec && !narrow_vector(mn), fp = fp_data(mn, vec, wide);
	int ld = wide ? CLAB_HQ_QLD_INSNS : fp ? CLAB_HQ_FLD_INSNS : CLAB_HQ_LD_INSNS;
	int st = wide ? CLAB_HQ_QST_INSNS : fp ? CLAB_HQ_FST_INSNS : CLAB_HQ_ST_INSNS;
	if (move) {
		n[dest ? st : ld]++;
		return;
	}
	if (writes) { /* the operation, then the store */
		n[st]++;
		n[CLAB_HQ_INSTRUCTIONS]++;
		return;
	}
	n[ld]++;
	n[CLAB_HQ_INSTRUCTIONS]++; /* the operation, besides the load */
	if (dest) {
		n[st]++;
		n[CLAB_HQ_INSTRUCTIONS]++;
	}
}

/* Two operands, the same register both (xor %eax,%eax; test %eax,%eax) */
static int one_operand_twice(const char *const op[4], const size_t len[4], int k)
{
	return k == 2 && len[0] == len[1] && !strncmp(op[0], op[1], len[0]);
}

/* The XU opcode group of an integer instruction's operation, as the
 * PowerPC instruction a compiler writes for it falls in IBM's opcode group
 * table, or -1: the integer add group (add, sub, lea, inc, neg, a constant
 * loaded, a register zeroed: addi, li), a plain move to or from memory (a
 * load or store alone), or not a general-purpose register's work (SSE,
 * x87). A register copy is `mr`, that is `or`; cmov is isel; setcc reads
 * the condition register (mfcr); shifts, rotates, bit tests and sign or
 * zero extensions are rotate-and-mask or extend instructions; `test` of a
 * register with itself is a compare with 0, with a mask an `and.`. */
static int int_group(const char *mn, const char *ops)
{
	if (strstr(ops, "mm") || strstr(ops, "%st") || mn[0] == 'f')
		return -1;
	const char *op[4];
	size_t len[4];
	int k = operands(ops, op, len), mem = 0;
	for (int i = 0; i < k; i++)
		mem |= is_mem(op[i]);
	int same = one_operand_twice(op, len, k);
	if (starts(mn, "syscall") || starts(mn, "sysenter") || !strcmp(mn, "int") ||
	    !strcmp(mn, "int3"))
		return CLAB_HQ_SYSCALLS;
	if (starts(mn, "imul") || starts(mn, "mul"))
		return CLAB_HQ_IMUL;
	if (starts(mn, "div") || starts(mn, "idiv"))
		return CLAB_HQ_IDIV;
	if (starts(mn, "cmov") || starts(mn, "set") || starts(mn, "rdtsc") || starts(mn, "cpuid") ||
	    starts(mn, "lahf") || starts(mn, "sahf"))
		return CLAB_HQ_IMOV;
	if (starts(mn, "cmpxchg"))
		return -1;
	if (starts(mn, "cmp") || starts(mn, "scas"))
		return CLAB_HQ_ICMP;
	if (starts(mn, "test"))
		return same ? CLAB_HQ_ICMP : CLAB_HQ_ILOG;
	if ((starts(mn, "xor") || starts(mn, "sub")) && same)
		return -1; /* zeroing: li */
	if (starts(mn, "and") || starts(mn, "or") || starts(mn, "xor") || starts(mn, "not") ||
	    starts(mn, "popcnt") || starts(mn, "nop") || starts(mn, "endbr") ||
	    (starts(mn, "xchg") && !mem))
		return CLAB_HQ_ILOG;
	if (starts(mn, "sh") || starts(mn, "sa") || starts(mn, "ro") || starts(mn, "rc") ||
	    starts(mn, "bt") || starts(mn, "bswap") || !strcmp(mn, "cltq") || !strcmp(mn, "cqto") ||
	    !strcmp(mn, "cltd") || !strcmp(mn, "cwtl") || !strcmp(mn, "cbtw") || !strcmp(mn, "cwtd"))
		return CLAB_HQ_BITS;
	if ((starts(mn, "movz") || starts(mn, "movs")) && k == 2 && !mem)
		return CLAB_HQ_BITS; /* (movs of a string has memory on both sides) */
	if (starts(mn, "mov") && k == 2 && !mem && op[0][0] == '%')
		return CLAB_HQ_ILOG;
	return -1;
}

/* The AXU group of a scalar SSE or AVX instruction's operation that is
 * not arithmetic, as IBM's opcode group table places the PowerPC
 * instruction a compiler writes for it, or -1: a compare (fcmpu), a
 * conversion between integer and FP (fcfid, fctiwz), to single (frsp: a
 * rounding) or from it (a copy: single values are held as double), a
 * rounding (frin), a register copy (fmr), and/or/xor of a sign mask
 * (fabs, fneg, fcpsgn: FOTH; a register xored with itself is zeroed, a
 * constant loaded). Packed conversions and compares are left out. */
static int fp_group(const char *mn, const char *ops)
{
	if (!strstr(ops, "%xmm"))
		return -1;
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	size_t l = strlen(b);
	int scalar = l > 2 && (!strcmp(b + l - 2, "sd") || !strcmp(b + l - 2, "ss"));
	int packed = l > 2 && (!strcmp(b + l - 2, "pd") || !strcmp(b + l - 2, "ps"));
	const char *op[4];
	size_t len[4];
	int k = operands(ops, op, len), regs = 1;
	for (int i = 0; i < k; i++)
		regs &= !strncmp(op[i], "%xmm", 4);
	if (starts(b, "ucomis") || starts(b, "comis") || (starts(b, "cmp") && scalar && l > 5))
		return CLAB_HQ_FCMP;
	if (!strcmp(b, "cvtsd2ss"))
		return CLAB_HQ_FRND;
	if (!strcmp(b, "cvtss2sd"))
		return CLAB_HQ_FMOV;
	if (starts(b, "cvt") && (strstr(b, "si2s") || strstr(b, "2si")))
		return CLAB_HQ_FCVT;
	if (starts(b, "round") && scalar)
		return CLAB_HQ_FRND;
	if (regs && k >= 2 && (starts(b, "movap") || starts(b, "movup") || !strcmp(b, "movsd") ||
			       !strcmp(b, "movss") || starts(b, "movdq") || !strcmp(b, "movq")))
		return CLAB_HQ_FMOV;
	if (packed && (starts(b, "and") || starts(b, "or") || starts(b, "xor")))
		return one_operand_twice(op, len, k) && starts(b, "xor") ? -1 : CLAB_HQ_FOTH;
	return -1;
}

/* The AXU group of an x87 instruction's operation that is not arithmetic
 * (classify counts that), as fp_group places SSE's: a conversion between
 * integer and FP (fild, fist, fisttp: fcfid, fctiwz), a compare (fcom,
 * fucom, fcomi, ftst: fcmpu), sign operations and a select (fchs, fabs,
 * fcmov: fneg, fabs, fsel), a rounding (frndint: frin), a copy between
 * stack registers (fld, fst, fstp of %st(i): fmr); or -1: exchanges,
 * constants, the control word and the functions that no one PowerPC
 * instruction does (fsin, fprem, fscale) */
static int x87_group(const char *mn, const char *ops)
{
	if (mn[0] != 'f' || x87_state(mn))
		return -1;
	int k, nmem, mem = mem_operand(mn, ops, &k, &nmem);
	if (starts(mn, "fild") || starts(mn, "fist"))
		return CLAB_HQ_FCVT;
	if (starts(mn, "fcom") || starts(mn, "fucom") || !strcmp(mn, "ftst"))
		return CLAB_HQ_FCMP;
	if (!strcmp(mn, "fchs") || !strcmp(mn, "fabs") || starts(mn, "fcmov"))
		return CLAB_HQ_FOTH;
	if (!strcmp(mn, "frndint"))
		return CLAB_HQ_FRND;
	/* (fst and fstp of %st(0) copy nothing: the stack is a PowerPC
	 * compiler's register allocation) */
	int store = !strcmp(mn, "fst") || !strcmp(mn, "fstp");
	if (mem < 0 && k == 1 &&
	    (!strcmp(mn, "fld") || (store && strcmp(ops, "%st(0)") && strcmp(ops, "%st"))))
		return CLAB_HQ_FMOV;
	return -1;
}

/* Counts the group of an instruction's operation that is not FP
 * arithmetic (fp_group, x87_group, int_group); setcc to memory is the
 * condition read and a store (mem_class counted the store). */
static void int_op(const char *mn, const char *ops, uint64_t *n)
{
	int g = fp_group(mn, ops);
	if (g < 0)
		g = x87_group(mn, ops);
	if (g >= 0) {
		n[g]++;
		return;
	}
	g = int_group(mn, ops);
	if (g < 0)
		return;
	n[g]++;
	/* the multiplier is pipelined (a cycle each), the divider is not
	 * (its latency): the modeller's reading of the A2's figures */
	if (g == CLAB_HQ_IMUL)
		n[CLAB_HQ_MULDIV_BUSY]++;
	else if (g == CLAB_HQ_IDIV)
		n[CLAB_HQ_MULDIV_BUSY] += mn[strlen(mn) - 1] == 'q' ? LAT_INT_DIVD : LAT_INT_DIVW;
	if (starts(mn, "set") && strchr(ops, '('))
		n[CLAB_HQ_INSTRUCTIONS]++;
}

/* FP arithmetic: k A2 instructions of class cls (the x86 one counted one
 * already), each with a load of its own when the x86 one reads memory: an
 * FP load (lfd, lfs), a quad one when wide. */
static void fp_class(const char *mn, const char *ops, int cls, uint64_t k, int wide,
		     uint64_t *n)
{
	int nops, nmem;
	n[cls] += k;
	n[CLAB_HQ_INSTRUCTIONS] += k - 1;
	if (mem_operand(mn, ops, &nops, &nmem) >= 0) {
		n[wide ? CLAB_HQ_QLD_INSNS : CLAB_HQ_FLD_INSNS] += k;
		n[CLAB_HQ_INSTRUCTIONS] += k;
	}
}

/* How valgrind's translation loads the memory operand, when not in one
 * piece (its count of reads is cachegrind's): SPLIT(...) or 0. */
static uint64_t vex_split(const char *mn, const char *ops)
{
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	size_t l = strlen(b);
	int ymm = strstr(ops, "%ymm") != NULL;
	if (!strcmp(mn, "vmovddup") && ymm)
		return SPLIT(2, 3, 4); /* elements 0 and 2 */
	if (starts(b, "cvtps2pd"))
		return ymm ? SPLIT(4, 2, 2) : SPLIT(2, 2, 2);
	if (mn[0] == 'v' && (starts(b, "fmadd") || starts(b, "fmsub") || starts(b, "fnmadd") ||
			     starts(b, "fnmsub")) && l > 2 && b[l - 2] == 'p') {
		int dbl = b[l - 1] == 'd';
		return SPLIT((ymm ? 32 : 16) >> (dbl ? 3 : 2), dbl ? 3 : 2, dbl ? 3 : 2);
	}
	return 0;
}

/* Scalar SSE and AVX instructions (vector registers, memory of 4 or 8
 * bytes) that QEMU 7.2 reads or writes in one access. Not the scalar FMAs:
 * QEMU reads 16 bytes for their memory operand, in two pieces. */
static int scalar_sse(const char *mn)
{
	static const char *const one[] = {
		"movsd", "movss", "movq", "movd", "addsd", "addss", "subsd", "subss",
		"mulsd", "mulss", "divsd", "divss", "sqrtsd", "sqrtss", "minsd", "minss",
		"maxsd", "maxss", "ucomisd", "ucomiss", "comisd", "comiss", "cvtsd2ss",
		"cvtss2sd", "cvtsi2sdl", "cvtsi2sdq", "cvtsi2ssl", "cvtsi2ssq", "roundsd",
		"roundss", "rcpss", "rsqrtss"};
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	size_t l = strlen(b);
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
		if (!strcmp(b, one[i]))
			return 1;
	/* the compares with a predicate: cmpltsd, cmpless */
	return starts(b, "cmp") && l > 5 && (!strcmp(b + l - 2, "sd") || !strcmp(b + l - 2, "ss"));
}

/* Whether QEMU may make the instruction's access in consecutive pieces:
 * 16 bytes and more (vector registers, the state saves, cmpxchg16b), x87's
 * 10-byte operands, far pointers and far returns. */
static int in_pieces(const char *mn, const char *ops)
{
	return (strstr(ops, "mm") && !scalar_sse(mn)) || mn[0] == 'f' || strstr(mn, "xsave") ||
	       strstr(mn, "xrstor") ||
	       starts(mn, "cmpxchg16b") || starts(mn, "iret") || starts(mn, "lret") ||
	       starts(mn, "ljmp") || starts(mn, "lcall") || starts(mn, "lss") ||
	       starts(mn, "lfs") || starts(mn, "lgs");
}

/* Adds one instruction's classes to n (from its disassembly by QEMU's own
 * disassembler, AT&T syntax: mnemonics carry size suffixes, "callq",
 * "retq", "jmpq"); *cond tells a conditional branch, *split how
 * valgrind splits its load (vex_split), *pieces how QEMU makes it (in_pieces),
 * *atomic whether QEMU may make it atomic (a lock prefix, xchg). */
static void classify(const char *dis, uint64_t *n, int *cond, uint64_t *split, int *pieces,
		     int *atomic)
{
	char m[32];
	const char *ops = dis;
	int lock = 0;
	/* skip prefixes */
	for (;;) {
		size_t len = strcspn(ops, " ");
		if (len >= sizeof m)
			len = sizeof m - 1;
		memcpy(m, ops, len);
		m[len] = 0;
		ops += len;
		while (*ops == ' ')
			ops++;
		lock |= !strcmp(m, "lock");
		if (strcmp(m, "rep") && strcmp(m, "repe") && strcmp(m, "repne") && strcmp(m, "lock") &&
		    strcmp(m, "notrack") && strcmp(m, "bnd") && strcmp(m, "repz") && strcmp(m, "repnz"))
			break;
	}
	n[CLAB_HQ_INSTRUCTIONS]++;
	n[CLAB_HQ_GUEST_INSNS]++;
	*cond = 0;
	*split = vex_split(m, ops);
	*pieces = in_pieces(m, ops);
	*atomic = lock || starts(m, "xchg"); /* xchg with memory is locked */
	int jump = !strcmp(m, "jmp") || !strcmp(m, "jmpq") || starts(m, "call") ||
		   starts(m, "ret");
	if (m[0] == 'j' && !jump) {
		n[CLAB_HQ_BRANCHES]++;
		*cond = 1;
		return;
	}
	if (starts(m, "loop")) {
		n[CLAB_HQ_BRANCHES]++;
		*cond = 1;
		return;
	}
	if (jump) {
		n[CLAB_HQ_JUMPS]++;
		return;
	}
	/* fences, as the barriers a PowerPC compiler writes for them: mfence
	 * a sync (which goes to the L2), lfence and sfence an lwsync */
	if (!strcmp(m, "mfence") || !strcmp(m, "lfence") || !strcmp(m, "sfence")) {
		n[CLAB_HQ_SYNCS]++;
		n[CLAB_HQ_MSYNCS] += m[0] == 'm';
		return;
	}
	/* x87 arithmetic: scalar; with an integer operand (fiadd, ficom) the
	 * integer is converted first (lfiwax, fcfid, then the operation) */
	if (m[0] == 'f') {
		int integer = m[1] == 'i';
		const char *op = m + 1 + integer;
		int cls = starts(op, "mul") ? CLAB_HQ_FMUL : starts(op, "div") ? CLAB_HQ_FDIV
			: starts(op, "sqrt") ? CLAB_HQ_FSQRT
			: starts(op, "add") || starts(op, "sub") ? CLAB_HQ_FP
			: integer && starts(op, "com") ? CLAB_HQ_FCMP : -1;
		if (cls >= 0) {
			fp_class(m, ops, cls, 1, 0, n);
			if (integer) {
				n[CLAB_HQ_FCVT]++;
				n[CLAB_HQ_INSTRUCTIONS]++;
			}
			return;
		}
	}
	const char *b = m[0] == 'v' ? m + 1 : m; /* AVX spelling */
	int fma = starts(b, "fmadd") || starts(b, "fmsub") || starts(b, "fnmadd") ||
		  starts(b, "fnmsub");
	int mul = starts(b, "mul"), div = starts(b, "div");
	int arith = fma || mul || div || starts(b, "add") || starts(b, "sub") ||
		    starts(b, "sqrt") || starts(b, "min") || starts(b, "max");
	size_t len = strlen(b);
	if (!arith || len < 3) {
		mem_class(m, ops, n);
		int_op(m, ops, n);
		return;
	}
	const char *suf = b + len - 2;
	int scalar = !strcmp(suf, "sd") || !strcmp(suf, "ss");
	int packed = !strcmp(suf, "pd") || !strcmp(suf, "ps");
	if (!scalar && !packed) {
		mem_class(m, ops, n); /* integer mul/add/sub and the like */
		int_op(m, ops, n);
		return;
	}
	/* the A2's scalar classes; its quad unit has no divide (a reciprocal
	 * estimate and refinement), so a wide divide counts as other quad FP */
	int one = fma ? CLAB_HQ_FMA : mul ? CLAB_HQ_FMUL : div ? CLAB_HQ_FDIV
		: starts(b, "sqrt") ? CLAB_HQ_FSQRT : starts(b, "min") || starts(b, "max") ? CLAB_HQ_FOTH
		: CLAB_HQ_FP;
	int quad = fma ? CLAB_HQ_QFMA : mul ? CLAB_HQ_QMUL : CLAB_HQ_QFP;
	if (scalar) {
		fp_class(m, ops, one, 1, 0, n);
		return;
	}
	int width = strstr(ops, "zmm") ? 512 : strstr(ops, "ymm") ? 256 : 128;
	int lanes = width / (suf[1] == 'd' ? 64 : 32);
	/* the A2 has 1- and 4-wide FP: a 2-wide instruction counts as two
	 * scalar ones, wider ones as quads, so that operations stay exact */
	if (lanes < 4)
		fp_class(m, ops, one, (uint64_t)lanes, 0, n);
	else
		fp_class(m, ops, quad, (uint64_t)lanes / 4, 1, n);
}

/* A locked read-modify-write (or xchg with memory) with its classes n, as
 * a PowerPC compiler writes an atomic: sync; ldarx; the operation;
 * stdcx.; bne- back to the ldarx (the store-conditional failed); isync.
 * Its load and store become the load-and-reserve and the
 * store-conditional; cmpxchg also leaves the loop by a branch when its
 * compare fails. Returns 0 for an instruction without memory (xchg of two
 * registers), which stays as it is. */
static int atomic_classes(const char *dis, uint64_t *n)
{
	uint64_t ldst = n[CLAB_HQ_LD_INSNS] + n[CLAB_HQ_ST_INSNS];
	if (!ldst)
		return 0;
	const char *mn = starts(dis, "lock ") ? dis + 5 : dis;
	unsigned br = starts(mn, "cmpxchg") ? 2 : 1;
	n[CLAB_HQ_LD_INSNS] = n[CLAB_HQ_ST_INSNS] = 0;
	n[CLAB_HQ_LARX] = n[CLAB_HQ_STCX] = 1;
	n[CLAB_HQ_SYNCS] += 2;
	n[CLAB_HQ_MSYNCS]++;
	n[CLAB_HQ_BRANCHES] += br;
	n[CLAB_HQ_INSTRUCTIONS] = n[CLAB_HQ_INSTRUCTIONS] - ldst + 4 + br;
	return 1;
}

/* ---- an instruction's classes, kept by its bytes ---------------------- */

/* An instruction's classes depend on its bytes alone (the target that a
 * branch's disassembly spells out is never read), and the same bytes come
 * again and again (about half of a run's instructions), so they are kept,
 * by the bytes. */
typedef struct insn_classes {
	uint8_t size;             /* 0: an empty entry */
	uint8_t bytes[15];
	uint8_t cond, pieces, atomic; /* classify's answers */
	uint8_t cut;              /* the disassembly is undecodable bytes (phantom) */
	uint8_t lat, ld_lat;      /* its result's latency, its loads' (see latencies) */
	uint8_t axu;              /* it works on FP registers: its stalls are the AXU's */
	uint8_t via;              /* VIA_TO_FP, VIA_FROM_FP or 0 (via_memory) */
	uint64_t split;
	uint64_t reads, writes, addr; /* registers (DEP_*) read, written, addressing memory */
	uint8_t n[CLAB_HQ_N];     /* its classes (a count above 255 is not kept) */
} insn_classes;

enum { KNOWN = 1 << 15 };
/* by a hash of the bytes, a newer one replacing an entry: known_at[hash] is
 * its place in known + 1 (0: none), which fills from the start, so that a
 * process touches the pages of the instructions it has (a table hashed
 * directly faulted in half a short program's start-up pages) */
static insn_classes *known;
static uint16_t *known_at;
static uint32_t known_n;
_Static_assert(KNOWN <= UINT16_MAX, "known_at");
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;

/* The disassembly: QEMU 7.2's qemu_plugin_insn_disas opens a capstone
 * handle for every instruction, which costs more than the rest of the
 * block's translation put together (30 us: a start-up of 1,500
 * instructions 45 ms). The plugin keeps one handle, set up as QEMU sets
 * up its own for an x86-64 guest (64-bit mode, AT&T syntax, undecodable
 * bytes as ".byte"), so the text is QEMU's: "MNEMONIC OPERANDS", "" when
 * nothing decodes. Without a handle, QEMU's call. */
static csh cs;
static cs_insn *cs_insn_buf; /* NULL: no handle */
static pthread_mutex_t cs_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- register dependencies ------------------------------------------ */

/* The registers the schedule tracks, as bits: the 16 general ones (a
 * register and its 32-, 16- and 8-bit parts are one), the 32 vector ones
 * (xmm, ymm, zmm), the flags (a PowerPC's condition register) and the x87
 * stack (one). */
enum { DEP_RSP = 7, DEP_VEC = 16, DEP_FLAGS = 48, DEP_X87 = 49, DEP_NREGS = 50, DEP_NONE = 255 };
static uint8_t reg_bit[X86_REG_ENDING]; /* by capstone's register number */

static int reg_bit_of(const char *n)
{
	static const char *const gpr[16] = {"ax", "bx", "cx", "dx", "si", "di", "bp", "sp"};
	int k;
	if (!strcmp(n, "rflags") || !strcmp(n, "eflags") || !strcmp(n, "flags"))
		return DEP_FLAGS;
	if ((n[0] == 'x' || n[0] == 'y' || n[0] == 'z') && !strncmp(n + 1, "mm", 2) &&
	    sscanf(n + 3, "%d", &k) == 1 && k >= 0 && k < 32)
		return DEP_VEC + k;
	if ((n[0] == 's' && n[1] == 't' && (n[2] == 0 || n[2] == '(')) || !strcmp(n, "fpsw"))
		return DEP_X87;
	if (n[0] == 'r' && sscanf(n + 1, "%d", &k) == 1 && k >= 8 && k < 16)
		return k; /* r8, r8d, r8w, r8b */
	for (k = 0; k < 8; k++) {
		const char *g = gpr[k];
		size_t len = strlen(n);
		/* rax eax ax; al ah; rsi esi si sil */
		if ((len == 3 && (n[0] == 'r' || n[0] == 'e') && !strcmp(n + 1, g)) || !strcmp(n, g) ||
		    (len == 2 && k < 4 && n[0] == g[0] && (n[1] == 'l' || n[1] == 'h')) ||
		    (len == 3 && k >= 4 && !strncmp(n, g, 2) && n[2] == 'l'))
			return k;
	}
	return DEP_NONE; /* rip, segments, control registers: not tracked */
}

static uint64_t reg_mask(unsigned r)
{
	return r < X86_REG_ENDING && reg_bit[r] != DEP_NONE ? 1ull << reg_bit[r] : 0;
}

/* The registers an instruction reads and writes, and those that address
 * its memory. Two reads an x86 instruction makes that a PowerPC compiler's
 * code would not: a zero idiom (xor of a register with itself) reads
 * nothing, and a move into a register does not read it (x86's scalar moves
 * keep the register's upper part; a PowerPC FP register has none). */
static void deps_of(const cs_insn *in, insn_classes *c)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;
	c->reads = c->writes = c->addr = 0;
	if (!in->detail || cs_regs_access(cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return;
	for (int k = 0; k < nrd; k++)
		c->reads |= reg_mask(rd[k]);
	for (int k = 0; k < nwr; k++)
		c->writes |= reg_mask(wr[k]);
	const cs_x86 *x = &in->detail->x86;
	uint64_t sources = 0, dest = 0;
	int regs_only = 1;
	for (int k = 0; k < x->op_count; k++) {
		const cs_x86_op *o = &x->operands[k];
		if (o->type == X86_OP_MEM) {
			c->addr |= reg_mask(o->mem.base) | reg_mask(o->mem.index);
			regs_only = 0;
		} else if (o->type == X86_OP_REG) {
			if (o->access & CS_AC_WRITE)
				dest |= reg_mask(o->reg);
			else
				sources |= reg_mask(o->reg);
		} else {
			regs_only = 0;
		}
	}
	const char *mn = in->mnemonic, *b = mn[0] == 'v' ? mn + 1 : mn;
	if (regs_only && x->op_count >= 2 && x->operands[0].reg == x->operands[x->op_count - 1].reg &&
	    (x->op_count == 2 || x->operands[1].reg == x->operands[0].reg) &&
	    (!strncmp(b, "xor", 3) || !strncmp(b, "pxor", 4) || !strncmp(b, "sub", 3) ||
	     !strncmp(b, "psub", 4)))
		c->reads &= ~(dest | sources | (1ull << DEP_FLAGS));
	else if (!strncmp(b, "mov", 3))
		c->reads &= ~(dest & ~sources & ~c->addr);
}

/* Its result's latency and that of its loads, from its classes and
 * mnemonic (b: without AVX's v) */
static void latencies(const char *mn, const char *ops, const uint64_t *n, insn_classes *c)
{
	const char *b = mn[0] == 'v' ? mn + 1 : mn;
	size_t l = strlen(b);
	int single = l > 1 && b[l - 1] == 's'; /* ss, ps; x87 is double */
	int fp_regs = strstr(ops, "%xmm") || strstr(ops, "%ymm") || strstr(ops, "%zmm") ||
		      (mn[0] == 'f' && !x87_state(mn));
	c->ld_lat = n[CLAB_HQ_FLD_INSNS] || n[CLAB_HQ_QLD_INSNS] ? LAT_FP_LOAD : LAT_LOAD;
	c->axu = (uint8_t)fp_regs;
	if (fp_regs && (starts(b, "div") || starts(mn, "fdiv")))
		c->lat = single && mn[0] != 'f' ? LAT_FP_DIVS : LAT_FP_DIVD;
	else if (fp_regs && (starts(b, "sqrt") || starts(mn, "fsqrt")))
		c->lat = single && mn[0] != 'f' ? LAT_FP_SQRTS : LAT_FP_SQRTD;
	else if (fp_regs && (starts(b, "ucomis") || starts(b, "comis") || starts(mn, "fcom") ||
			     starts(mn, "fucom") || (starts(b, "cmp") && l > 5)))
		c->lat = LAT_FP_CMP;
	else if (fp_regs)
		c->lat = LAT_FP;
	else if (starts(mn, "imul") || starts(mn, "mul"))
		c->lat = LAT_INT_MUL;
	else if (starts(mn, "div") || starts(mn, "idiv"))
		c->lat = mn[l - 1] == 'q' ? LAT_INT_DIVD : LAT_INT_DIVW;
	else if (starts(mn, "cmp") || starts(mn, "test") || starts(mn, "bt") || starts(mn, "sh") ||
		 starts(mn, "sa") || starts(mn, "ro") || starts(mn, "rc"))
		c->lat = LAT_INT_CMP;
	else
		c->lat = LAT_INT;
}

static void disas_open(void)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return;
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn_buf = cs_malloc(cs);
	if (!cs_insn_buf) {
		cs_close(&cs);
		return;
	}
	for (unsigned r = 0; r < X86_REG_ENDING; r++) {
		const char *name = cs_reg_name(cs, r);
		reg_bit[r] = (uint8_t)(name ? reg_bit_of(name) : DEP_NONE);
	}
}

/* insn's disassembly into buf (mnemonic and operands fit in 200 bytes),
 * and the registers it reads and writes into c (none without a handle) */
static void disas(struct qemu_plugin_insn *insn, char buf[200], insn_classes *c)
{
	c->reads = c->writes = c->addr = 0;
	if (!cs_insn_buf) {
		char *dis = qemu_plugin_insn_disas(insn);
		snprintf(buf, 200, "%s", dis ? dis : "");
		free(dis);
		return;
	}
	const uint8_t *code = qemu_plugin_insn_data(insn);
	size_t size = qemu_plugin_insn_size(insn);
	uint64_t pc = qemu_plugin_insn_vaddr(insn);
	pthread_mutex_lock(&cs_lock);
	if (cs_disasm_iter(cs, &code, &size, &pc, cs_insn_buf)) {
		/* "mnemonic operands" (capstone's 32 and 160 bytes fit; snprintf
		 * would cost as much as the disassembly) */
		size_t m = strlen(cs_insn_buf->mnemonic), o = strlen(cs_insn_buf->op_str);
		memcpy(buf, cs_insn_buf->mnemonic, m);
		buf[m++] = ' ';
		memcpy(buf + m, cs_insn_buf->op_str, o + 1);
		deps_of(cs_insn_buf, c);
	} else {
		buf[0] = 0;
	}
	pthread_mutex_unlock(&cs_lock);
}

/* Sets *c to insn's classes, added to n */
static void classes_of(struct qemu_plugin_insn *insn, insn_classes *c, uint64_t *n)
{
	size_t size = qemu_plugin_insn_size(insn);
	const uint8_t *bytes = qemu_plugin_insn_data(insn);
	int64_t slot = -1; /* where it is kept, -1: not */
	if (size > 0 && size <= sizeof c->bytes) {
		uint32_t h = 2166136261u; /* FNV-1a */
		for (size_t i = 0; i < size; i++)
			h = (h ^ bytes[i]) * 16777619u;
		slot = (h ^ h >> 15) & (KNOWN - 1);
		pthread_mutex_lock(&known_lock);
		const insn_classes *e = known_at[slot] ? &known[known_at[slot] - 1] : NULL;
		int hit = e && e->size == size && !memcmp(e->bytes, bytes, size);
		if (hit)
			*c = *e;
		pthread_mutex_unlock(&known_lock);
		if (hit) {
			for (int i = 0; i < CLAB_HQ_N; i++)
				n[i] += c->n[i];
			return;
		}
	}
	char dis[200];
	*c = (insn_classes){.size = (uint8_t)size};
	disas(insn, dis, c);
	c->cut = starts(dis, ".byte");
	uint64_t own[CLAB_HQ_N] = {0};
	int cond, pieces, atomic;
	classify(dis, own, &cond, &c->split, &pieces, &atomic);
	const char *ops = dis + strcspn(dis, " ");
	char mn[32];
	size_t mlen = (size_t)(ops - dis) < sizeof mn - 1 ? (size_t)(ops - dis) : sizeof mn - 1;
	memcpy(mn, dis, mlen);
	mn[mlen] = 0;
	latencies(mn, ops, own, c);
	c->via = (uint8_t)via_memory(mn, ops);
	/* the load-and-reserve's data comes from the L2, where the
	 * reservation is kept */
	if (atomic && atomic_classes(dis, own))
		c->ld_lat = L2_LATENCY;
	c->cond = (uint8_t)cond, c->pieces = (uint8_t)pieces, c->atomic = (uint8_t)atomic;
	for (int i = 0; i < CLAB_HQ_N; i++) {
		n[i] += own[i];
		c->n[i] = (uint8_t)own[i];
		if (own[i] > 255)
			slot = -1;
	}
	if (slot >= 0) {
		memcpy(c->bytes, bytes, size);
		pthread_mutex_lock(&known_lock);
		if (!known_at[slot] && known_n < KNOWN)
			known_at[slot] = (uint16_t)++known_n;
		if (known_at[slot])
			known[known_at[slot] - 1] = *c;
		pthread_mutex_unlock(&known_lock);
	}
}

/* QEMU 7.2 ends a block before an instruction that crosses a page
 * boundary (unless it is the block's first: the next block starts with
 * it), but its plugin interface still lists the instruction, as far as it
 * was read, as the block's last; it does not run there. Such a last
 * instruction is cut short at the page's end, so its disassembly is
 * undecodable bytes. */
static int phantom(struct qemu_plugin_insn *insn)
{
	uint64_t pc = qemu_plugin_insn_vaddr(insn);
	if (pc >> 12 == (pc + 14) >> 12) /* 15 bytes, the longest, fit in the page */
		return 0;
	insn_classes c;
	uint64_t n[CLAB_HQ_N] = {0};
	classes_of(insn, &c, n);
	return c.cut;
}

/* ---- the block's schedule ---------------------------------------------- */

/* The loads and the stores of the A2 instructions that c stands for */
static unsigned a2_loads(const insn_classes *c)
{
	return c->n[CLAB_HQ_LD_INSNS] + c->n[CLAB_HQ_FLD_INSNS] + c->n[CLAB_HQ_QLD_INSNS] +
	       c->n[CLAB_HQ_LARX];
}

static unsigned a2_stores(const insn_classes *c)
{
	return c->n[CLAB_HQ_ST_INSNS] + c->n[CLAB_HQ_FST_INSNS] + c->n[CLAB_HQ_QST_INSNS] +
	       c->n[CLAB_HQ_STCX];
}

/* When the registers of mask are all ready */
static uint32_t ready_of(const uint32_t *ready, uint64_t mask)
{
	uint32_t t = 0;
	for (; mask; mask &= mask - 1) {
		uint32_t r = ready[__builtin_ctzll(mask)];
		t = r > t ? r : t;
	}
	return t;
}

static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* The registers it writes are ready at `result` (the stack pointer at *t) */
static void written(const insn_classes *c, uint32_t *ready, uint32_t result, uint32_t t)
{
	for (uint64_t w = c->writes; w; w &= w - 1) {
		int r = __builtin_ctzll(w);
		ready[r] = r == DEP_RSP ? t : result;
	}
}

/* A value moved between the register files through memory (via_memory).
 * Into FP registers: the store and the load depend on the integer alone,
 * so they go as soon as it is ready (a compiler for an in-order core
 * places them early, as it does any load), in issue slots of their own
 * here, and the conversion issues when the load's data is in. Out of FP
 * registers: the conversion, the store of its result, the load. */
static uint32_t schedule_via(const insn_classes *c, uint32_t *ready, uint32_t *t)
{
	const uint64_t gprs = (1ull << DEP_VEC) - 1;
	unsigned all = c->n[CLAB_HQ_INSTRUCTIONS];
	uint32_t start = *t, result;
	if (c->via == VIA_TO_FP) {
		result = ready_of(ready, c->reads & gprs) + 1 + c->ld_lat;
		*t += 2;
		if (all > 2) {
			uint32_t issue = max_u32(*t, result);
			*t = issue + 1;
			result = issue + c->lat;
		}
	} else {
		uint32_t data = ready_of(ready, c->reads & ~gprs), issue;
		if (all > 2) {
			issue = max_u32(*t, data);
			*t = issue + 1;
			data = issue + c->lat;
		}
		issue = max_u32(*t, data);
		*t = issue + 2;
		result = issue + 1 + c->ld_lat;
	}
	written(c, ready, result, *t);
	return *t - start - all;
}

/* Issues instruction c's A2 instructions in order from cycle *t, one a
 * cycle: its loads when the registers that address them are ready, its
 * operations when their sources and its loads' data are, its stores when
 * what they store is; then *t is the cycle after its last, and the
 * registers it writes are ready its latency after its result's issue (the
 * stack pointer the cycle after: a PowerPC's stack frame is addressed at
 * fixed offsets). Returns the cycles it waited on registers. */
static uint32_t schedule(const insn_classes *c, uint32_t *ready, uint32_t *t)
{
	if (c->via)
		return schedule_via(c, ready, t);
	unsigned nld = a2_loads(c), nst = a2_stores(c);
	unsigned all = c->n[CLAB_HQ_INSTRUCTIONS];
	unsigned nop = all > nld + nst ? all - nld - nst : 0;
	uint32_t addr = ready_of(ready, c->addr), data = ready_of(ready, c->reads);
	uint32_t result = *t, issue, start = *t;
	if (nld) {
		issue = max_u32(*t, addr);
		*t = issue + nld;
		result = *t - 1 + c->ld_lat;
		data = max_u32(data, result);
	}
	if (nop) {
		issue = max_u32(*t, data);
		*t = issue + nop;
		result = *t - 1 + c->lat;
		data = result;
	}
	if (nst) {
		issue = max_u32(*t, max_u32(addr, data));
		*t = issue + nst;
		if (!nld && !nop)
			result = *t;
	}
	written(c, ready, result, *t);
	return *t - start - (nld + nop + nst);
}

/* The callback of policy a2 for an instruction that QEMU makes in one
 * piece: of the direction of its accesses when its classes say they are
 * all loads or all stores (a2_one_dir) */
static qemu_plugin_vcpu_mem_cb_t a2_one_of(const insn_classes *c)
{
	unsigned nld = a2_loads(c), nst = a2_stores(c);
	return nld && !nst ? a2_load : nst && !nld ? a2_store : a2_one;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	tbinfo *t = calloc(1, sizeof *t);
	if (!t || n == 0) {
		free(t);
		return;
	}
	t->pc = qemu_plugin_tb_vaddr(tb);
	if (n > 1 && phantom(qemu_plugin_tb_get_insn(tb, n - 1)))
		n--;
	/* the schedule: registers written before the block are ready */
	uint32_t ready[DEP_NREGS] = {0}, issue = 0;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		insn_classes c;
		classes_of(insn, &c, t->n);
		uint32_t waited = schedule(&c, ready, &issue);
		if (c.axu)
			t->n[CLAB_HQ_AXU_DEP_STALLS] += waited;
		uint64_t split = c.split;
		int pieces = c.pieces, atomic = c.atomic;
		if (i == n - 1) {
			t->bht = (unsigned)(pc % BHT_SIZE);
			t->fallthrough = pc + qemu_plugin_insn_size(insn);
			t->cond_fall = c.cond ? t->fallthrough : 0;
		}
		void *id = (void *)(uintptr_t)(pc | split | (atomic ? MAY_BE_ATOMIC : 0));
		qemu_plugin_register_vcpu_mem_cb(insn,
						 kinds_direct && !cachegrind_policy && !atomic
						 ? (pieces ? a2_piece : a2_one_of(&c))
						 : pieces ? on_piece : on_access,
						 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, id);
	}
	t->code_first = t->pc >> IL1_LINE_SHIFT;
	t->code_last = (t->fallthrough - 1) >> IL1_LINE_SHIFT;
	t->n[CLAB_HQ_CYCLES] = issue > t->n[CLAB_HQ_INSTRUCTIONS] ? issue : t->n[CLAB_HQ_INSTRUCTIONS];
	t->n[CLAB_HQ_DEP_STALLS] = t->n[CLAB_HQ_CYCLES] - t->n[CLAB_HQ_INSTRUCTIONS];
	/* the A2 fetches four instructions at a time (where the block starts
	 * in a group of four, x86 code does not tell) */
	t->n[CLAB_HQ_IFETCHES] = (t->n[CLAB_HQ_INSTRUCTIONS] + 3) / 4;
	t->cycles = t->n[CLAB_HQ_CYCLES];
	for (int i = 0; i < CLAB_HQ_N; i++)
		if (t->n[i]) {
			t->idx[t->nz] = (uint8_t)i;
			t->n[t->nz++] = t->n[i];
		}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, t);
	/* the blocks live as long as the process: QEMU may run them after a
	 * flush until every thread has left them */
}

/* ---- threads and the process ------------------------------------------ */

/* Every system call names the thread that runs on this vcpu: the program's
 * libcounterlab finds its slot by its thread id. */
static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
		       uint64_t a7, uint64_t a8)
{
	(void)id, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6,
		(void)a7, (void)a8;
	vcpu *v = cpu_of(vcpu_index);
	if (!v)
		return;
	settle(v);
	/* before the first thread is made, by the only thread there is */
	if (num == SYS_clone || num == SYS_clone3)
		threads = 1, store_seen = 0;
	v->slot->tid = (int64_t)syscall(SYS_gettid);
	if (num == CLAB_EMU_SYSCALL && a1 == CLAB_EMU_TIMER) {
		v->timer_period = a2;
		v->timer_at = a2 ? v->slot->q[CLAB_HQ_CYCLES] + a2 : 0; /* settled */
		v->timer_signal = host_signal((int)a3);
	} else if (num == CLAB_EMU_SYSCALL) {
		v->paused = a1 == CLAB_EMU_PAUSE;
		live[vcpu_index] = v->paused ? NULL : v;
		v->prev_fall = 0; /* no branch resolves across the pause */
	}
}

/* The slot file's identity, to find its mappings in a forked child */
static dev_t file_dev;
static ino_t file_ino;

/* A forked child would count into its parent's slots (the file is shared
 * by the two processes, emulator and program alike): every mapping of it
 * in the child, the program's and the plugin's, moves at its address onto
 * a copy of the child's own, so the child counts and reads apart from its
 * parent, its threads' slot pointers unchanged. (The emulator forks with
 * the C library's fork(), so this runs in its child, the only thread.) */
static void on_fork_child(void)
{
	int fd = memfd_create("counterlab-emu", MFD_CLOEXEC);
	FILE *maps = fopen("/proc/self/maps", "re");
	if (fd < 0 || !maps || ftruncate(fd, sizeof *file) != 0 ||
	    pwrite(fd, file, sizeof *file, 0) != (ssize_t)sizeof *file) {
		fprintf(stderr, "counterlab plugin: a forked child cannot copy its counts\n");
		exit(1);
	}
	struct { uintptr_t lo, hi; int prot; } at[8];
	int n = 0;
	char line[512], perm[8];
	uintptr_t lo, hi;
	unsigned long off, ino;
	unsigned maj, min;
	while (fgets(line, sizeof line, maps)) /* read whole before the maps change */
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %lx %x:%x %lu", &lo, &hi, perm, &off,
			   &maj, &min, &ino) == 7 && ino == file_ino &&
		    makedev(maj, min) == file_dev && off == 0 && n < 8)
			at[n++] = (typeof(at[0])){lo, hi, (perm[0] == 'r' ? PROT_READ : 0) |
						       (perm[1] == 'w' ? PROT_WRITE : 0)};
	fclose(maps);
	for (int i = 0; i < n; i++)
		if (mmap((void *)at[i].lo, at[i].hi - at[i].lo, at[i].prot, MAP_SHARED | MAP_FIXED, fd,
			 0) == MAP_FAILED) {
			perror("counterlab plugin: a forked child's counts");
			exit(1);
		}
	close(fd);
	/* as POSIX timers, the emulator's are not inherited */
	for (int c = 0; c < CLAB_EMU_SLOTS; c++)
		if (cpus[c])
			cpus[c]->timer_at = 0;
	memset(totals, 0, sizeof totals);
	summary_path = NULL; /* the totals are the parent's to report */
	file->pid = getpid();
	file->summary[0] = 0;
}

static void on_exit_vcpu(qemu_plugin_id_t id, unsigned int vcpu_index)
{
	(void)id;
	vcpu *v = cpu_of(vcpu_index);
	if (!v)
		return;
	settle(v);
	pthread_mutex_lock(&totals_lock);
	for (int i = 0; i < CLAB_HQ_N; i++) {
		totals[i] += v->slot->q[i];
		v->slot->q[i] = 0;
	}
	pthread_mutex_unlock(&totals_lock);
	/* a later thread on this vcpu starts afresh */
	v->slot->tid = 0;
	v->timer_at = 0;
	v->prev_fall = 0;
	v->pend.size = 0;
	memset(&v->join, 0, sizeof v->join);
	memset(v->bht, 1, sizeof v->bht);
	memset(v->l1, 0, sizeof v->l1);
	v->l1_absent = 0;
	memset(v->il1, 0, sizeof v->il1);
	memset(v->il1_next, 0, sizeof v->il1_next);
	v->il1_stamp++; /* what blocks saw held is gone */
	memset(v->l1p, 0, sizeof v->l1p);
	memset(v->l1p_recent, 0, sizeof v->l1p_recent);
	memset(v->l1p_slot, 0, sizeof v->l1p_slot);
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	uint64_t sum[CLAB_HQ_N];
	memcpy(sum, totals, sizeof sum);
	for (int c = 0; c < CLAB_EMU_SLOTS; c++)
		if (cpus[c]) {
			settle(cpus[c]);
			for (int i = 0; i < CLAB_HQ_N; i++)
				sum[i] += cpus[c]->slot->q[i];
		}
	if (!summary_path)
		return;
	FILE *f = fopen(summary_path, "w");
	if (!f) {
		fprintf(stderr, "counterlab plugin: cannot write summary=%s: %s\n", summary_path,
			strerror(errno));
		return;
	}
	for (int i = 0; i < CLAB_HQ_N; i++)
		if (i != CLAB_HQ_FP_EXCEPT) /* (the program counts it: emulated.c) */
			fprintf(f, "%s %" PRIu64 "\n", clab_hq_name[i], sum[i]);
	/* a full disk may show only when the lines are flushed, at fclose */
	int bad = ferror(f), e = errno;
	if (fclose(f) && !bad)
		bad = 1, e = errno;
	if (bad)
		fprintf(stderr, "counterlab plugin: cannot write summary=%s: %s\n", summary_path,
			strerror(e));
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *slots = NULL;
	int i;
	if (strcmp(info->target_name, "x86_64") != 0) {
		fprintf(stderr, "counterlab plugin: counts x86_64 guests, not %s\n", info->target_name);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			goto bad;
		*eq = 0;
		const char *val = eq + 1;
		if (!strcmp(argv[i], "slots"))
			slots = val;
		else if (!strcmp(argv[i], "summary"))
			summary_path = val;
		else if (!strcmp(argv[i], "cache") && !strcmp(val, "cachegrind"))
			cachegrind_policy = 1;
		else if (!strcmp(argv[i], "cache") && !strcmp(val, "a2"))
			cachegrind_policy = 0;
		else
			goto bad;
	}
	if (!slots) {
		fprintf(stderr, "counterlab plugin: needs slots=FILE (counterlab-run gives it)\n");
		return -1;
	}
	int fd = open(slots, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || ftruncate(fd, sizeof(clab_emu_file)) != 0 || fstat(fd, &st) != 0) {
		perror(slots);
		return -1;
	}
	file = mmap(NULL, sizeof(clab_emu_file), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	file_dev = st.st_dev;
	file_ino = st.st_ino;
	if (file == MAP_FAILED) {
		perror(slots);
		return -1;
	}
	file->nslot = CLAB_EMU_SLOTS;
	file->pid = getpid();
	file->cachegrind = (uint32_t)cachegrind_policy;
	snprintf(file->summary, sizeof file->summary, "%s", summary_path ? summary_path : "");
	file->magic = CLAB_EMU_MAGIC;
	/* page-aligned (a set per host line), its pages zero until written */
	l2 = mmap(NULL, L2_SETS * L2_WAYS * sizeof *l2, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (l2 == MAP_FAILED)
		l2 = NULL;
	l2_dirty = calloc(L2_SETS, sizeof *l2_dirty);
	known = calloc(KNOWN, sizeof *known);
	known_at = calloc(KNOWN, sizeof *known_at);
	if (!l2 || !l2_dirty || !known || !known_at) {
		fprintf(stderr, "counterlab plugin: out of memory\n");
		return -1;
	}
	kinds_direct = kinds_check();
	disas_open();
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
	pthread_atfork(NULL, NULL, on_fork_child);
	qemu_plugin_register_vcpu_exit_cb(id, on_exit_vcpu);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
bad:
	fprintf(stderr, "counterlab plugin: unknown argument '%s' (slots=FILE, cache=a2|cachegrind, "
		"summary=FILE)\n", argv[i]);
	return -1;
}
