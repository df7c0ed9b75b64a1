/* Host counts onto BG/Q event classes (see hostmap.h and docs/host.md, "Activity
 * from the host"). The rules, one per row of `rules` below:
 *   - loads, stores and branches are the XU classes LD, ST and BRC (under
 *     emulation the load/store classes count instructions with a memory
 *     operand); the load/store unit's and branch unit's commits follow
 *     from the classes (the node's relations table);
 *   - floating-point instructions (when a host event counts them) are the
 *     scalar FP add class: one operation each;
 *   - every other instruction is an integer add (the A2's commonest class);
 *   - L1D load misses go to the L1 prefetcher, which serves none of them
 *     on the host (under emulation, those that hit its prefetched lines),
 *     and the host's last-level misses are the L2's misses;
 *   - a mispredicted branch flushes what follows it (a cycle of
 *     PEVT_XU_ANY_FLUSH; no other flush is modelled), and the quad FPU's
 *     last stage idles in every cycle it completes no FP instruction
 *     (PEVT_AXU_IDLE + PEVT_AXU_INSTR_COMMIT = cycles, as IBM's punit_mux
 *     example shows on a BG/Q);
 *   - time is the thread's CPU time at the core's clock, but never fewer
 *     cycles than instructions: the A2 completes at most one XU and one AXU
 *     instruction per cycle, a host core several; the thread runs in all
 *     of those cycles (PEVT_XU_THRD_RUNNING; its core is busy in them,
 *     PEVT_XU_PROC_BUSY), and its XU instructions were issued once each
 *     to the XU (no flushed one is issued again here); under emulation
 *     all its instructions were issued once and committed in the run state
 *     (PEVT_IU_TOT_ISSUE_COUNT, PEVT_XU_RUN_INSTR).
 * Emulated execution (emulated.h) counts more: unconditional branches are
 * the BRU class, taken branches the branch unit's taken commits, fused
 * multiply-adds, multiplies and divides their own classes (FMA, FMUL,
 * FDIV), 4-wide FP the quad classes, integer operations the XU group of
 * the PowerPC instruction a compiler would write for them (IBM's opcode
 * group table: imul IMUL, and/or/xor/not and register copies ILOG as `or`
 * is, cmp ICMP, shifts and extensions BITS, cmov and setcc IMOV as isel,
 * syscall INT and the kernel's system-call interrupt; add, sub, lea, inc
 * and zeroing stay integer adds), and
 * the cycles multiplies and divides occupy their unit, instruction
 * fetches (a cache read of four instructions, its signal up a cycle) the
 * IU's fetch and fetched-group events, scalar FP
 * compares, conversions, rounding, register copies, sign and select
 * operations and square roots the AXU groups of fcmpu, fcfid and fctiwz,
 * frsp, fmr, fabs and fsel, fsqrt, atomics their load-and-reserve and
 * store-conditional (the LSCX group, the LSU's larx and stcx counts) and
 * with fences their synchronizing instructions (SYNC, the L1p switch's
 * msync for a sync), and the load/store classes count the
 * A2 instructions an x86 one makes (a memory operand of arithmetic is a
 * load of its own), those of FP data apart (FLD, FST); time is the
 * plugin's timing model, whose register dependency stalls are the issue
 * stage's (IS1) stalls, all of them read-after-write and of the AXU when
 * the instruction works on FP registers, else of the FXU; L1I misses are
 * reloads through the L1p's switch; the L1p stream prefetcher's model
 * gives its streams, lines, hits, prefetches that became demand fetches,
 * unused evictions and stores that invalidate a prefetched line (a
 * prefetch that became a demand fetch went on to L2: the L1p's misses are
 * the L1D's load misses less its hits); the L2 writes the dirty lines it
 * evicts back whole; the FPSCR's exception summary (FX) is set when the
 * program's FP exception flags go from all clear to one set (an edge of
 * FX, PEVT_AXU_FP_EXCEPT).
 * Approximate by nature: on the host, x86 instructions with a memory
 * operand count as loads instead of integer work; branch misses depend on
 * the predictor. */
#include <string.h>
#include "hostmap.h"

const char *const clab_hq_name[CLAB_HQ_N] = {
	"instructions", "branches", "branch_misses", "loads", "stores",
	"l1d_load_misses", "llc_misses", "fp", "cycles", "jumps", "taken", "fma", "qfp",
	"qfma", "qloads", "qstores", "l1d_store_misses", "l2_store_misses", "ld_insns", "st_insns",
	"qld_insns", "qst_insns", "guest_instructions", "fmul", "fdiv", "qmul",
	"fld_insns", "fst_insns", "dep_stalls", "il1_misses", "il1_miss_cycles", "l1p_hits", "l1p_pf2dfc",
	"l1p_streams", "l1p_lines", "l1p_wrt_inval", "l1p_evict_unused", "imul", "idiv", "ilog",
	"icmp", "imov", "bits", "syscalls", "muldiv_busy", "fcmp", "fcvt", "frnd", "fmov", "foth",
	"fsqrt", "axu_dep_stalls", "larx", "stcx", "syncs", "msyncs",
	"ifetches", "l2_writebacks", "fp_except",
};

const char *const clab_hq_event[CLAB_HQ_N] = {
	"perf::INSTRUCTIONS", "perf::BRANCHES", "perf::BRANCH-MISSES",
	"perf::L1-DCACHE-LOADS", "perf::L1-DCACHE-STORES",
	"perf::L1-DCACHE-LOAD-MISSES", "perf::LLC-LOAD-MISSES",
	/* the rest: no generic host event counts them */
};

/* derived quantities after the host's own */
enum { Q_INTEGER = CLAB_HQ_N, Q_XU, Q_ISSUED, Q_LSCX, Q_L1P_MISSES, Q_L2_MISSES, Q_ALL_BRANCHES,
       Q_ALL_TAKEN, Q_LD, Q_ST, Q_FLD, Q_FST, Q_QLD, Q_QST, Q_FXU_DEP_STALLS, Q_N };

static const struct rule {
	const char *event;
	int q;
} rules[] = {
	{"PEVT_INST_XU_LD", Q_LD},
	{"PEVT_INST_XU_ST", Q_ST},
	{"PEVT_INST_XU_FLD", Q_FLD},
	{"PEVT_INST_XU_FST", Q_FST},
	{"PEVT_INST_XU_QLD", Q_QLD},
	{"PEVT_INST_XU_QST", Q_QST},
	{"PEVT_INST_XU_BRC", CLAB_HQ_BRANCHES},
	{"PEVT_INST_XU_BRU", CLAB_HQ_JUMPS},
	{"PEVT_INST_XU_IADD", Q_INTEGER},
	{"PEVT_INST_XU_IMUL", CLAB_HQ_IMUL},
	{"PEVT_INST_XU_IDIV", CLAB_HQ_IDIV},
	{"PEVT_INST_XU_ILOG", CLAB_HQ_ILOG},
	{"PEVT_INST_XU_ICMP", CLAB_HQ_ICMP},
	{"PEVT_INST_XU_IMOV", CLAB_HQ_IMOV},
	{"PEVT_INST_XU_BITS", CLAB_HQ_BITS},
	{"PEVT_INST_XU_INT", CLAB_HQ_SYSCALLS},
	{"PEVT_INST_XU_LSCX", Q_LSCX},
	{"PEVT_LSU_LARX_FINISHED", CLAB_HQ_LARX},
	{"PEVT_LSU_COMMIT_STCX", CLAB_HQ_STCX},
	{"PEVT_INST_XU_SYNC", CLAB_HQ_SYNCS},
	{"PEVT_L1P_SW_MSYNC", CLAB_HQ_MSYNCS},
	{"PEVT_XU_MULT_DIV_BUSY", CLAB_HQ_MULDIV_BUSY},
	{"PEVT_IU_FXU_ISSUE_COUNT", Q_XU},
	{"PEVT_IU_TOT_ISSUE_COUNT", Q_ISSUED},
	{"PEVT_XU_RUN_INSTR", Q_ISSUED},
	{"PEVT_CNKHWT_SYSCALL", CLAB_HQ_SYSCALLS},
	{"PEVT_INST_QFPU_FADD", CLAB_HQ_FP},
	{"PEVT_INST_QFPU_FMA", CLAB_HQ_FMA},
	{"PEVT_INST_QFPU_QADD", CLAB_HQ_QFP},
	{"PEVT_INST_QFPU_QMA", CLAB_HQ_QFMA},
	{"PEVT_INST_QFPU_FMUL", CLAB_HQ_FMUL},
	{"PEVT_INST_QFPU_FDIV", CLAB_HQ_FDIV},
	{"PEVT_INST_QFPU_QMUL", CLAB_HQ_QMUL},
	{"PEVT_INST_QFPU_FCMP", CLAB_HQ_FCMP},
	{"PEVT_INST_QFPU_FCVT", CLAB_HQ_FCVT},
	{"PEVT_INST_QFPU_FRND", CLAB_HQ_FRND},
	{"PEVT_INST_QFPU_FMOV", CLAB_HQ_FMOV},
	{"PEVT_INST_QFPU_FOTH", CLAB_HQ_FOTH},
	{"PEVT_INST_QFPU_FSQ", CLAB_HQ_FSQRT},
	{"PEVT_XU_BR_TAKEN_COMMIT", Q_ALL_TAKEN},
	{"PEVT_XU_BR_MISPRED_COMMIT", CLAB_HQ_BRANCH_MISSES},
	{"PEVT_XU_ANY_FLUSH", CLAB_HQ_BRANCH_MISSES},
	{"PEVT_LSU_COMMIT_LD_MISSES", CLAB_HQ_L1D_LOAD_MISSES},
	{"PEVT_LSU_COMMIT_ST_MISSES", CLAB_HQ_L1D_STORE_MISSES},
	{"PEVT_L1P_BAS_MISS", Q_L1P_MISSES},
	{"PEVT_L2_MISSES", Q_L2_MISSES},
	{"PEVT_L2_STORE_LINE", CLAB_HQ_L2_WRITEBACKS},
	{"PEVT_IU_IS1_STALL_CYC", CLAB_HQ_DEP_STALLS},
	{"PEVT_IU_RAW_DEP_HIT_CYC", CLAB_HQ_DEP_STALLS},
	{"PEVT_IU_AXU_FXU_DEP_HIT_CYC", CLAB_HQ_DEP_STALLS},
	{"PEVT_IU_AXU_DEP_HIT_CYC", CLAB_HQ_AXU_DEP_STALLS},
	{"PEVT_IU_FXU_DEP_HIT_CYC", Q_FXU_DEP_STALLS},
	{"PEVT_IU_ICACHE_FETCH", CLAB_HQ_IFETCHES},
	{"PEVT_IU_ICACHE_FETCH_CYC", CLAB_HQ_IFETCHES},
	{"PEVT_IU_INSTR_FETCHED", CLAB_HQ_IFETCHES},
	{"PEVT_IU_INSTR_FETCHED_CYC", CLAB_HQ_IFETCHES},
	{"PEVT_IU_IL1_MISS", CLAB_HQ_IL1_MISSES},
	{"PEVT_IU_IL1_MISS_CYC", CLAB_HQ_IL1_MISS_CYCLES},
	{"PEVT_L1P_SW_I_FETCH", CLAB_HQ_IL1_MISSES},
	{"PEVT_L1P_BAS_HIT", CLAB_HQ_L1P_HITS},
	{"PEVT_L1P_BAS_PF2DFC", CLAB_HQ_L1P_PF2DFC},
	{"PEVT_L1P_STRM_STRM_ESTB", CLAB_HQ_L1P_STREAMS},
	{"PEVT_L1P_STRM_LINE_ESTB", CLAB_HQ_L1P_LINES},
	{"PEVT_L1P_STRM_WRT_INVAL", CLAB_HQ_L1P_WRT_INVAL},
	{"PEVT_L1P_STRM_EVICT_UNUSED", CLAB_HQ_L1P_EVICT_UNUSED},
	{"PEVT_AXU_FP_EXCEPT", CLAB_HQ_FP_EXCEPT},
};
/* every rule, PEVT_XU_THRD_RUNNING, _PROC_BUSY and PEVT_AXU_IDLE fit in an output */
_Static_assert(sizeof rules / sizeof rules[0] + 3 <= CLAB_HOSTMAP_MAX, "CLAB_HOSTMAP_MAX");

static uint64_t sub_floor(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

void clab_hostmap(const clab_host_sample *d, unsigned mhz, clab_hostmap_out *out)
{
	uint64_t q[Q_N] = {0};
	for (int i = 0; i < CLAB_HQ_N; i++)
		q[i] = d->have >> i & 1 ? d->q[i] : 0;
	q[Q_ALL_BRANCHES] = q[CLAB_HQ_BRANCHES] + q[CLAB_HQ_JUMPS];
	/* taken commits include the unconditional branches (PAPI_BR_TKN
	 * subtracts them), but only when taken ones were counted at all */
	q[Q_ALL_TAKEN] = q[CLAB_HQ_TAKEN] ? q[CLAB_HQ_TAKEN] + q[CLAB_HQ_JUMPS] : 0;
	/* the load/store instruction classes: instructions when they were
	 * counted (emulation), else the accesses (the host's counts) */
	int insns = d->have >> CLAB_HQ_LD_INSNS & 1;
	q[Q_LD] = insns ? q[CLAB_HQ_LD_INSNS] : q[CLAB_HQ_LOADS];
	q[Q_ST] = insns ? q[CLAB_HQ_ST_INSNS] : q[CLAB_HQ_STORES];
	/* the host's own counts do not tell FP data from integer */
	q[Q_FLD] = insns ? q[CLAB_HQ_FLD_INSNS] : 0;
	q[Q_FST] = insns ? q[CLAB_HQ_FST_INSNS] : 0;
	q[Q_QLD] = insns ? q[CLAB_HQ_QLD_INSNS] : q[CLAB_HQ_QLOADS];
	q[Q_QST] = insns ? q[CLAB_HQ_QST_INSNS] : q[CLAB_HQ_QSTORES];
	uint64_t fp = q[CLAB_HQ_FP] + q[CLAB_HQ_FMA] + q[CLAB_HQ_QFP] + q[CLAB_HQ_QFMA] +
		      q[CLAB_HQ_FMUL] + q[CLAB_HQ_FDIV] + q[CLAB_HQ_QMUL] + q[CLAB_HQ_FCMP] +
		      q[CLAB_HQ_FCVT] + q[CLAB_HQ_FRND] + q[CLAB_HQ_FMOV] + q[CLAB_HQ_FOTH] +
		      q[CLAB_HQ_FSQRT];
	uint64_t ldst = q[Q_LD] + q[Q_ST] + q[Q_FLD] + q[Q_FST] + q[Q_QLD] + q[Q_QST];
	q[Q_LSCX] = q[CLAB_HQ_LARX] + q[CLAB_HQ_STCX];
	uint64_t ops = q[CLAB_HQ_IMUL] + q[CLAB_HQ_IDIV] + q[CLAB_HQ_ILOG] + q[CLAB_HQ_ICMP] +
		       q[CLAB_HQ_IMOV] + q[CLAB_HQ_BITS] + q[CLAB_HQ_SYSCALLS] + q[Q_LSCX] +
		       q[CLAB_HQ_SYNCS];
	q[Q_INTEGER] = sub_floor(q[CLAB_HQ_INSTRUCTIONS], q[Q_ALL_BRANCHES] + ldst + fp + ops);
	/* the L1p passes on the misses its prefetched lines do not serve
	 * (emulation), and the L2 sees only what the L1p passed on: never
	 * more misses than that */
	q[Q_L1P_MISSES] = max_u64(sub_floor(q[CLAB_HQ_L1D_LOAD_MISSES], q[CLAB_HQ_L1P_HITS]),
				  q[CLAB_HQ_LLC_MISSES]);
	/* the L2 sees every store too (the L1D writes through): one to a line
	 * it does not hold misses there as a load does and brings the line in.
	 * The node looks a store instruction up once, so the second line of
	 * one across a line's end adds no miss (approximate: the L1p would
	 * send it as two requests) */
	q[Q_L2_MISSES] = q[CLAB_HQ_LLC_MISSES] +
			 min_u64(q[CLAB_HQ_L2_STORE_MISSES], q[Q_ST] + q[Q_FST] + q[Q_QST]);
	q[Q_FXU_DEP_STALLS] = sub_floor(q[CLAB_HQ_DEP_STALLS], q[CLAB_HQ_AXU_DEP_STALLS]);

	memset(out, 0, sizeof *out);
	out->cycles = d->have >> CLAB_HQ_CYCLES & 1 ? q[CLAB_HQ_CYCLES]
		    : (uint64_t)((unsigned __int128)d->cpu_ns * mhz / 1000);
	q[Q_XU] = ldst + q[Q_ALL_BRANCHES] + q[Q_INTEGER] + ops;
	/* all of them, where the A2 issues one instruction a cycle (the
	 * emulator's timing); the host's cycles allow an XU and an AXU one */
	q[Q_ISSUED] = insns ? q[Q_XU] + fp : 0;
	out->cycles = max_u64(out->cycles, max_u64(q[Q_XU], fp));
	for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
		uint64_t v = q[rules[r].q];
		if (!v)
			continue;
		out->event[out->n] = rules[r].event;
		out->count[out->n++] = v;
		out->cycles = max_u64(out->cycles, v); /* at most once per cycle */
	}
	/* the thread runs in every cycle it counts (nothing here waits), and
	 * so its core is busy */
	if (out->cycles) {
		out->event[out->n] = "PEVT_XU_THRD_RUNNING";
		out->count[out->n++] = out->cycles;
		out->event[out->n] = "PEVT_XU_PROC_BUSY";
		out->count[out->n++] = out->cycles;
	}
	if (out->cycles > fp) {
		out->event[out->n] = "PEVT_AXU_IDLE";
		out->count[out->n++] = out->cycles - fp;
	}
}
