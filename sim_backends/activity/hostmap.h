/* Activity from the real program: the host's own counts of the calling
 * thread, mapped onto the BG/Q PUnit's event classes so that a simulated
 * hardware thread does what the program really does (docs/host.md, "Activity from
 * the host"). The mapping is here (hostmap.c); the counts come from a
 * sampler over perf_event (backends/linux/hostcount.c), or from a file of
 * recorded samples (COUNTERLAB_HOST_REPLAY). */
#ifndef CLAB_HOSTMAP_H
#define CLAB_HOSTMAP_H

#include <stdint.h>

/* What the host counts, as libpfm4's generic perf events name it, then
 * what only emulated execution sees (emulated.h): there, branches are the
 * conditional ones and loads and stores the accesses of up to 8 bytes. */
enum clab_hq {
	CLAB_HQ_INSTRUCTIONS,   /* under emulation: the A2 instructions they make */
	CLAB_HQ_BRANCHES,
	CLAB_HQ_BRANCH_MISSES,
	CLAB_HQ_LOADS,
	CLAB_HQ_STORES,
	CLAB_HQ_L1D_LOAD_MISSES,
	CLAB_HQ_LLC_MISSES,
	CLAB_HQ_FP,             /* scalar FP instructions of no class below */
	CLAB_HQ_CYCLES,         /* the timing model's cycles (else CPU time) */
	CLAB_HQ_JUMPS,          /* unconditional branches, calls, returns */
	CLAB_HQ_TAKEN,          /* taken conditional branches */
	CLAB_HQ_FMA,            /* scalar fused multiply-adds */
	CLAB_HQ_QFP,            /* 4-wide FP instructions of no class below */
	CLAB_HQ_QFMA,           /* 4-wide fused multiply-adds */
	CLAB_HQ_QLOADS,         /* loads of 16 bytes and more */
	CLAB_HQ_QSTORES,        /* stores of 16 bytes and more */
	CLAB_HQ_L1D_STORE_MISSES,
	CLAB_HQ_L2_STORE_MISSES, /* stores that missed the L2: part of PEVT_L2_MISSES */
	CLAB_HQ_LD_INSNS,       /* the integer load and store instructions they make */
	CLAB_HQ_ST_INSNS,
	CLAB_HQ_QLD_INSNS,      /* the same with a 16-byte or wider operand */
	CLAB_HQ_QST_INSNS,
	CLAB_HQ_GUEST_INSNS,    /* x86 instructions executed (no BG/Q event) */
	CLAB_HQ_FMUL,           /* scalar FP multiplies */
	CLAB_HQ_FDIV,           /* scalar FP divides */
	CLAB_HQ_QMUL,           /* 4-wide FP multiplies */
	CLAB_HQ_FLD_INSNS,      /* the load and store instructions of FP data */
	CLAB_HQ_FST_INSNS,      /* narrower than 16 bytes (not in LD/ST_INSNS) */
	CLAB_HQ_DEP_STALLS,     /* cycles issue waited on a register (in CYCLES) */
	CLAB_HQ_IL1_MISSES,     /* L1 instruction cache misses */
	CLAB_HQ_IL1_MISS_CYCLES, /* cycles waiting for their reloads (in CYCLES) */
	CLAB_HQ_L1P_HITS,       /* L1D load misses served by a prefetched L1p line */
	CLAB_HQ_L1P_PF2DFC,     /* ... that met one still on its way from memory */
	CLAB_HQ_L1P_STREAMS,    /* streams the L1p established */
	CLAB_HQ_L1P_LINES,      /* lines it prefetched */
	CLAB_HQ_L1P_WRT_INVAL,  /* stores to a line valid in it (which invalidate it) */
	CLAB_HQ_L1P_EVICT_UNUSED, /* prefetched lines replaced before any use */
	/* integer operations by the A2's XU opcode group (emulation; the
	 * rest of the integer work is the integer add group) */
	CLAB_HQ_IMUL,
	CLAB_HQ_IDIV,
	CLAB_HQ_ILOG,
	CLAB_HQ_ICMP,
	CLAB_HQ_IMOV,           /* quick moves: isel, mfcr, mftb and the like */
	CLAB_HQ_BITS,           /* shifts, rotates, sign extensions */
	CLAB_HQ_SYSCALLS,
	CLAB_HQ_MULDIV_BUSY,    /* cycles the multiplier or divider is occupied */
	/* scalar FP instructions by the A2's other AXU groups (emulation) */
	CLAB_HQ_FCMP,
	CLAB_HQ_FCVT,           /* conversions between integer and FP */
	CLAB_HQ_FRND,           /* rounding (to single: frsp) */
	CLAB_HQ_FMOV,           /* register copies */
	CLAB_HQ_FOTH,           /* sign, absolute value, select (min, max) */
	CLAB_HQ_FSQRT,
	CLAB_HQ_AXU_DEP_STALLS, /* the DEP_STALLS of instructions on FP registers */
	/* what atomics and fences make (emulation): load-and-reserve and
	 * store-conditional instructions, synchronizing ones (sync, isync,
	 * lwsync) and of those the memory barriers sent to the L2 (sync) */
	CLAB_HQ_LARX,
	CLAB_HQ_STCX,
	CLAB_HQ_SYNCS,
	CLAB_HQ_MSYNCS,
	CLAB_HQ_IFETCHES,       /* instruction cache reads, four A2 instructions each */
	CLAB_HQ_L2_WRITEBACKS,  /* dirty lines the L2 evicted, written to memory whole */
	CLAB_HQ_FP_EXCEPT,      /* FP exception flags going from all clear to one
				 * set (the program's side counts it: emulated.c) */
	CLAB_HQ_N
};

/* Quantity names (the columns of a replay file) and libpfm4 event names
 * (CLAB_HQ_FP has none: no generic event counts floating point). */
extern const char *const clab_hq_name[CLAB_HQ_N];
extern const char *const clab_hq_event[CLAB_HQ_N];

/* Cumulative counts of one thread: CPU time and the quantities counted
 * (bit q of `have`; the others read 0). */
typedef struct clab_host_sample {
	uint64_t cpu_ns;
	uint64_t q[CLAB_HQ_N];
	uint64_t have;
} clab_host_sample;

#define CLAB_HOSTMAP_MAX 72

/* What a simulated thread does for a delta of host counts: cycles and
 * counts of BG/Q events, for the node's explicit-work path. */
typedef struct clab_hostmap_out {
	uint64_t cycles;
	int n;
	const char *event[CLAB_HOSTMAP_MAX];
	uint64_t count[CLAB_HOSTMAP_MAX];
} clab_hostmap_out;

/* Maps the counts between two samples (d = later - earlier) for a core at
 * mhz. Never fails: quantities the host did not count contribute nothing. */
void clab_hostmap(const clab_host_sample *d, unsigned mhz, clab_hostmap_out *out);

/* Samplers: counts of the calling thread. */
typedef struct clab_host_sampler clab_host_sampler;

/* Opens a sampler for the calling thread: with `emulated`, the thread's
 * slot of counts from the emulator (emulated.h); else the perf group of
 * the generic events above (fp_event, a libpfm4 name, counts CLAB_HQ_FP;
 * NULL: none), or, when COUNTERLAB_HOST_REPLAY names a file, that file's
 * samples.
 * CLAB_E_NODEV with the reason when the kernel counts no instructions
 * (no hardware PMU), CLAB_E_PARSE naming file and line for a bad file. */
int clab_host_sampler_open(int emulated, const char *fp_event, clab_host_sampler **out);
/* The thread's cumulative counts now (a replay gives its next sample and
 * then stays at the last). */
int clab_host_sampler_read(clab_host_sampler *s, clab_host_sample *out);
/* After the sync a read served: the emulator counts the thread again
 * (its work in between is the simulator's, not the program's). */
void clab_host_sampler_resume(clab_host_sampler *s);
void clab_host_sampler_close(clab_host_sampler *s);

/* A replay file's samples (exposed for the fuzz test). */
int clab_host_replay_parse(const char *text, const char *what,
			   clab_host_sample **out, int *n);

#endif
