/* Activity from the host (activity = host): the mapping of host counts onto
 * BG/Q event classes, worked by hand; replay files and their errors (and a
 * fuzz of the parser); and the whole path through a simulated node, the
 * host's counts replayed from a file (no machine here has a PMU to count
 * them live), as PUnit counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "../../sim_backends/activity/hostmap.h"

/* count of event in out, 0 when absent */
static uint64_t got(const clab_hostmap_out *o, const char *event)
{
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->event[i], event) == 0)
			return o->count[i];
	return 0;
}

/* A sample shaped like perf stat's on a loop over an array on an x86 core:
 * 1 ms of CPU time, 3.2 M instructions (IPC about 1 at 3 GHz). */
static void maps_by_hand(void **state)
{
	(void)state;
	clab_host_sample d = {.cpu_ns = 1000000, .have = (1u << (CLAB_HQ_FP + 1)) - 1}; /* all a host counts */
	d.q[CLAB_HQ_INSTRUCTIONS] = 3200000;
	d.q[CLAB_HQ_BRANCHES] = 400000;
	d.q[CLAB_HQ_BRANCH_MISSES] = 2000;
	d.q[CLAB_HQ_LOADS] = 900000;
	d.q[CLAB_HQ_STORES] = 300000;
	d.q[CLAB_HQ_L1D_LOAD_MISSES] = 50000;
	d.q[CLAB_HQ_LLC_MISSES] = 4000;
	d.q[CLAB_HQ_FP] = 600000;
	clab_hostmap_out o;
	clab_hostmap(&d, 1600, &o);
	/* integer = 3.2M - 0.4M - 0.9M - 0.3M - 0.6M = 1.0M */
	assert_int_equal(got(&o, "PEVT_INST_XU_IADD"), 1000000);
	assert_int_equal(got(&o, "PEVT_INST_XU_LD"), 900000);
	assert_int_equal(got(&o, "PEVT_INST_XU_ST"), 300000);
	assert_int_equal(got(&o, "PEVT_INST_XU_BRC"), 400000);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FADD"), 600000);
	assert_int_equal(got(&o, "PEVT_XU_BR_MISPRED_COMMIT"), 2000);
	assert_int_equal(got(&o, "PEVT_LSU_COMMIT_LD_MISSES"), 50000);
	assert_int_equal(got(&o, "PEVT_L1P_BAS_MISS"), 50000);
	assert_int_equal(got(&o, "PEVT_L2_MISSES"), 4000);
	assert_int_equal(got(&o, "PEVT_XU_ANY_FLUSH"), 2000); /* one per misprediction */
	/* the host's loads do not tell FP data from integer: all LD */
	assert_int_equal(got(&o, "PEVT_INST_XU_FLD"), 0);
	assert_int_equal(got(&o, "PEVT_INST_XU_FST"), 0);
	/* 1 ms at 1600 MHz is 1.6M cycles, but the XU classes sum to 2.6M and
	 * the A2 completes one XU instruction per cycle: 2.6M cycles */
	assert_int_equal(o.cycles, 2600000);
	/* the quad FPU idles in every cycle that completes no FP instruction */
	assert_int_equal(got(&o, "PEVT_AXU_IDLE"), 2600000 - 600000);
	/* it runs in all of them (its core busy), and issued each XU
	 * instruction once; all of them together would not fit in the cycles
	 * of one issue each (the emulator's timing): no total issue count, no
	 * system calls (the host counts none) */
	assert_int_equal(got(&o, "PEVT_XU_THRD_RUNNING"), 2600000);
	assert_int_equal(got(&o, "PEVT_XU_PROC_BUSY"), 2600000);
	assert_int_equal(got(&o, "PEVT_IU_FXU_ISSUE_COUNT"), 2600000);
	assert_int_equal(got(&o, "PEVT_IU_TOT_ISSUE_COUNT"), 0);
	assert_int_equal(got(&o, "PEVT_XU_RUN_INSTR"), 0);
	assert_int_equal(got(&o, "PEVT_CNKHWT_SYSCALL"), 0);
	/* branch commits, cacheable loads, stores and L1p loads follow from
	 * these (data/bgq_relations.csv) */
	assert_int_equal(o.n, 14);
}

/* What only emulated execution counts (one thread's slot): 1000 scalar
 * FMAs, 500 4-wide FMAs, 300 4-wide adds, 200 scalar FP; 400 conditional
 * branches of which 250 taken, 100 jumps; 900 small and 60 wide loads by
 * 800 integer, 200 FP and 60 quad instructions, 300 small and 40 wide
 * stores by 250 integer, 50 FP and 40 quad; the timing model's cycles.
 * Classes count instructions, commits accesses. */
static void maps_emulated_by_hand(void **state)
{
	(void)state;
	clab_host_sample d = {.have = (UINT64_C(1) << CLAB_HQ_N) - 1};
	d.q[CLAB_HQ_INSTRUCTIONS] = 6000;
	d.q[CLAB_HQ_FMA] = 1000;
	d.q[CLAB_HQ_QFMA] = 500;
	d.q[CLAB_HQ_QFP] = 300;
	d.q[CLAB_HQ_FP] = 200;
	d.q[CLAB_HQ_BRANCHES] = 400;
	d.q[CLAB_HQ_TAKEN] = 250;
	d.q[CLAB_HQ_JUMPS] = 100;
	d.q[CLAB_HQ_LOADS] = 900;
	d.q[CLAB_HQ_QLOADS] = 60;
	d.q[CLAB_HQ_STORES] = 300;
	d.q[CLAB_HQ_QSTORES] = 40;
	d.q[CLAB_HQ_LD_INSNS] = 800;
	d.q[CLAB_HQ_QLD_INSNS] = 60;
	d.q[CLAB_HQ_ST_INSNS] = 250;
	d.q[CLAB_HQ_QST_INSNS] = 40;
	d.q[CLAB_HQ_FLD_INSNS] = 200;
	d.q[CLAB_HQ_FST_INSNS] = 50;
	d.q[CLAB_HQ_L1D_STORE_MISSES] = 7;
	d.q[CLAB_HQ_CYCLES] = 9000;
	/* of which 500 waited on registers and 246 on 3 L1I reloads; 30 L1D
	 * load misses, 8 of them missing the L2 too; the L1p served 10 from
	 * lines of its 2 streams (20 lines set up), met 4 still on their way,
	 * lost 5 to stores and 1 unused */
	d.q[CLAB_HQ_DEP_STALLS] = 500;
	d.q[CLAB_HQ_AXU_DEP_STALLS] = 120;
	d.q[CLAB_HQ_IL1_MISSES] = 3;
	d.q[CLAB_HQ_IL1_MISS_CYCLES] = 246;
	d.q[CLAB_HQ_L1D_LOAD_MISSES] = 30;
	d.q[CLAB_HQ_LLC_MISSES] = 8;
	d.q[CLAB_HQ_L1P_HITS] = 10;
	d.q[CLAB_HQ_L1P_PF2DFC] = 4;
	d.q[CLAB_HQ_L1P_STREAMS] = 2;
	d.q[CLAB_HQ_L1P_LINES] = 20;
	d.q[CLAB_HQ_L1P_WRT_INVAL] = 5;
	d.q[CLAB_HQ_L1P_EVICT_UNUSED] = 1;
	/* of the integer operations, 40 multiplies (a busy cycle each), 2
	 * divides (39 each), 300 logical, 200 compares, 30 quick moves, 100
	 * shifts and extensions, 1 system call */
	d.q[CLAB_HQ_IMUL] = 40;
	d.q[CLAB_HQ_IDIV] = 2;
	d.q[CLAB_HQ_MULDIV_BUSY] = 40 + 2 * 39;
	d.q[CLAB_HQ_ILOG] = 300;
	d.q[CLAB_HQ_ICMP] = 200;
	d.q[CLAB_HQ_IMOV] = 30;
	d.q[CLAB_HQ_BITS] = 100;
	d.q[CLAB_HQ_SYSCALLS] = 1;
	/* 5 atomics (a load-and-reserve, a store-conditional, a sync and an
	 * isync each) and 2 lwsync fences */
	d.q[CLAB_HQ_LARX] = 5;
	d.q[CLAB_HQ_STCX] = 5;
	d.q[CLAB_HQ_SYNCS] = 12;
	d.q[CLAB_HQ_MSYNCS] = 5;
	d.q[CLAB_HQ_IFETCHES] = 1500; /* four instructions each */
	d.q[CLAB_HQ_L2_WRITEBACKS] = 9; /* dirty lines evicted */
	d.q[CLAB_HQ_L2_STORE_MISSES] = 3; /* stores to lines the L2 did not hold */
	/* and scalar FP besides the arithmetic: 10 compares, 20 conversions,
	 * 5 roundings, 30 register copies, 6 sign or select, 4 square roots */
	d.q[CLAB_HQ_FCMP] = 10;
	d.q[CLAB_HQ_FCVT] = 20;
	d.q[CLAB_HQ_FRND] = 5;
	d.q[CLAB_HQ_FMOV] = 30;
	d.q[CLAB_HQ_FOTH] = 6;
	d.q[CLAB_HQ_FSQRT] = 4;
	d.cpu_ns = 1; /* ignored: the timing model's cycles rule */
	clab_hostmap_out o;
	clab_hostmap(&d, 1600, &o);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FMA"), 1000);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_QMA"), 500);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_QADD"), 300);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FADD"), 200);
	assert_int_equal(got(&o, "PEVT_INST_XU_BRC"), 400);
	assert_int_equal(got(&o, "PEVT_INST_XU_BRU"), 100);
	/* taken commits hold the jumps too: PAPI_BR_TKN = 350 - 100 */
	assert_int_equal(got(&o, "PEVT_XU_BR_TAKEN_COMMIT"), 350);
	assert_int_equal(got(&o, "PEVT_INST_XU_LD"), 800);
	assert_int_equal(got(&o, "PEVT_INST_XU_QLD"), 60);
	assert_int_equal(got(&o, "PEVT_INST_XU_ST"), 250);
	assert_int_equal(got(&o, "PEVT_INST_XU_QST"), 40);
	/* FP loads and stores are classes of their own (AXU loads and
	 * stores in the node: FLD + QLD, FST + QST) */
	assert_int_equal(got(&o, "PEVT_INST_XU_FLD"), 200);
	assert_int_equal(got(&o, "PEVT_INST_XU_FST"), 50);
	/* the commits follow from the classes in the node: never fed */
	assert_int_equal(got(&o, "PEVT_XU_BR_COMMIT"), 0);
	assert_int_equal(got(&o, "PEVT_LSU_COMMIT_CACHEABLE_LDS"), 0);
	assert_int_equal(got(&o, "PEVT_LSU_COMMIT_STS"), 0);
	assert_int_equal(got(&o, "PEVT_LSU_COMMIT_ST_MISSES"), 7);
	/* integer adds = 6000 - 500 branches - 1400 load/store instructions -
	 * 2075 FP - 673 other integer operations - 22 of the atomics and
	 * fences = 1330: the classes sum to the instructions */
	assert_int_equal(got(&o, "PEVT_INST_XU_IADD"), 1330);
	assert_int_equal(got(&o, "PEVT_INST_XU_LSCX"), 10);
	assert_int_equal(got(&o, "PEVT_LSU_LARX_FINISHED"), 5);
	assert_int_equal(got(&o, "PEVT_LSU_COMMIT_STCX"), 5);
	assert_int_equal(got(&o, "PEVT_INST_XU_SYNC"), 12);
	assert_int_equal(got(&o, "PEVT_L1P_SW_MSYNC"), 5);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FCMP"), 10);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FCVT"), 20);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FRND"), 5);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FMOV"), 30);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FOTH"), 6);
	assert_int_equal(got(&o, "PEVT_INST_QFPU_FSQ"), 4);
	assert_int_equal(got(&o, "PEVT_INST_XU_IMUL"), 40);
	assert_int_equal(got(&o, "PEVT_INST_XU_IDIV"), 2);
	assert_int_equal(got(&o, "PEVT_XU_MULT_DIV_BUSY"), 118);
	assert_int_equal(got(&o, "PEVT_INST_XU_ILOG"), 300);
	assert_int_equal(got(&o, "PEVT_INST_XU_ICMP"), 200);
	assert_int_equal(got(&o, "PEVT_INST_XU_IMOV"), 30);
	assert_int_equal(got(&o, "PEVT_INST_XU_BITS"), 100);
	assert_int_equal(got(&o, "PEVT_INST_XU_INT"), 1);
	assert_int_equal(got(&o, "PEVT_CNKHWT_SYSCALL"), 1); /* the kernel's count */
	/* the XU's issues: 500 + 1400 + 1330 + 673 + 22; with the FP, every
	 * instruction issued and committed once */
	assert_int_equal(got(&o, "PEVT_IU_FXU_ISSUE_COUNT"), 3925);
	assert_int_equal(got(&o, "PEVT_IU_TOT_ISSUE_COUNT"), 6000);
	assert_int_equal(got(&o, "PEVT_XU_RUN_INSTR"), 6000);
	assert_int_equal(got(&o, "PEVT_XU_THRD_RUNNING"), 9000);
	assert_int_equal(got(&o, "PEVT_XU_PROC_BUSY"), 9000);
	assert_int_equal(o.cycles, 9000);
	assert_int_equal(got(&o, "PEVT_AXU_IDLE"), 9000 - 2075);
	assert_int_equal(got(&o, "PEVT_XU_ANY_FLUSH"), 0); /* no misprediction */
	assert_int_equal(got(&o, "PEVT_IU_IS1_STALL_CYC"), 500);
	/* all read-after-write; the AXU's 120, the FXU's the rest */
	assert_int_equal(got(&o, "PEVT_IU_RAW_DEP_HIT_CYC"), 500);
	assert_int_equal(got(&o, "PEVT_IU_AXU_FXU_DEP_HIT_CYC"), 500);
	assert_int_equal(got(&o, "PEVT_IU_AXU_DEP_HIT_CYC"), 120);
	assert_int_equal(got(&o, "PEVT_IU_FXU_DEP_HIT_CYC"), 380);
	assert_int_equal(got(&o, "PEVT_IU_WAW_DEP_HIT_CYC"), 0);
	assert_int_equal(got(&o, "PEVT_IU_IL1_MISS"), 3);
	assert_int_equal(got(&o, "PEVT_IU_IL1_MISS_CYC"), 246);
	assert_int_equal(got(&o, "PEVT_L1P_SW_I_FETCH"), 3); /* the reloads */
	/* a cache read each, its signal up a cycle, a group of four fetched */
	assert_int_equal(got(&o, "PEVT_IU_ICACHE_FETCH"), 1500);
	assert_int_equal(got(&o, "PEVT_IU_ICACHE_FETCH_CYC"), 1500);
	assert_int_equal(got(&o, "PEVT_IU_INSTR_FETCHED"), 1500);
	assert_int_equal(got(&o, "PEVT_IU_INSTR_FETCHED_CYC"), 1500);
	assert_int_equal(got(&o, "PEVT_LSU_COMMIT_LD_MISSES"), 30);
	/* the L1p passes on what it did not serve: 30 - 10 (PEVT_L1P_BAS_LD
	 * = HIT + MISS follows in the node) */
	assert_int_equal(got(&o, "PEVT_L1P_BAS_HIT"), 10);
	assert_int_equal(got(&o, "PEVT_L1P_BAS_MISS"), 20);
	assert_int_equal(got(&o, "PEVT_L1P_BAS_PF2DFC"), 4);
	assert_int_equal(got(&o, "PEVT_L2_MISSES"), 8 + 3); /* the loads' and the stores' */
	assert_int_equal(got(&o, "PEVT_L2_STORE_LINE"), 9); /* written back whole */
	/* a store instruction is one L2 lookup: more store misses than the
	 * 340 store instructions (each across a line's end, missing twice)
	 * add 340 */
	d.q[CLAB_HQ_L2_STORE_MISSES] = 400;
	clab_hostmap(&d, 1600, &o);
	assert_int_equal(got(&o, "PEVT_L2_MISSES"), 8 + 340);
	assert_int_equal(got(&o, "PEVT_L1P_STRM_STRM_ESTB"), 2);
	assert_int_equal(got(&o, "PEVT_L1P_STRM_LINE_ESTB"), 20);
	assert_int_equal(got(&o, "PEVT_L1P_STRM_WRT_INVAL"), 5);
	assert_int_equal(got(&o, "PEVT_L1P_STRM_EVICT_UNUSED"), 1);
}

/* What the host did not count contributes nothing; a slow thread keeps
 * its CPU time; LLC misses never exceed what reaches the L2. */
static void partial_counts(void **state)
{
	(void)state;
	clab_host_sample d = {.cpu_ns = 10000000,
			      .have = 1u << CLAB_HQ_INSTRUCTIONS | 1u << CLAB_HQ_LLC_MISSES};
	d.q[CLAB_HQ_INSTRUCTIONS] = 5000000;
	d.q[CLAB_HQ_LLC_MISSES] = 70000;
	d.q[CLAB_HQ_LOADS] = 999; /* not in `have`: ignored */
	clab_hostmap_out o;
	clab_hostmap(&d, 1600, &o);
	assert_int_equal(o.cycles, 16000000); /* 10 ms at 1600 MHz */
	assert_int_equal(got(&o, "PEVT_INST_XU_IADD"), 5000000);
	assert_int_equal(got(&o, "PEVT_INST_XU_LD"), 0);
	assert_int_equal(got(&o, "PEVT_L1P_BAS_MISS"), 70000);
	assert_int_equal(got(&o, "PEVT_L2_MISSES"), 70000);
	clab_host_sample idle = {.cpu_ns = 0, .have = 1};
	clab_hostmap(&idle, 1600, &o);
	assert_int_equal(o.cycles, 0);
	assert_int_equal(o.n, 0);
}

static void replay_files(void **state)
{
	(void)state;
	clab_host_sample *v;
	int n;
	assert_int_equal(clab_host_replay_parse("# recorded\ncpu_ns instructions loads\n"
						"0 0 0\n\n1000 200 50\n  2000\t400 100\n",
						"t", &v, &n), CLAB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(v[2].cpu_ns, 2000);
	assert_int_equal(v[2].q[CLAB_HQ_INSTRUCTIONS], 400);
	assert_int_equal(v[2].q[CLAB_HQ_LOADS], 100);
	assert_int_equal(v[2].have, 1u << CLAB_HQ_INSTRUCTIONS | 1u << CLAB_HQ_LOADS);
	free(v);
	static const struct { const char *text, *msg; } bad[] = {
		{"cpu_ns cpu_cycles\n1 2\n", "column 'cpu_cycles' is unknown"},
		{"cpu_ns loads loads\n1 2 3\n", "column 'loads' is repeated"},
		{"cpu_ns cpu_ns\n1 2\n", "column 'cpu_ns' is repeated"},
		{"instructions\n1\n", "no cpu_ns column"},
		{"cpu_ns instructions\n1 x\n", "t:2: field 2 is not a whole number"},
		{"cpu_ns instructions\n1 -2\n", "field 2 is not a whole number"},
		{"cpu_ns instructions\n1 99999999999999999999\n", "below 2^64"},
		{"cpu_ns instructions\n1 2 3\n", "more fields than the header's 2"},
		{"cpu_ns instructions\n1\n", "field 2 is not"},
		{"cpu_ns instructions\n5 10\n6 9\n", "t:3: a count went back"},
		{"cpu_ns instructions\n", "no samples"},
		{"", "no samples"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(clab_host_replay_parse(bad[i].text, "t", &v, &n), CLAB_E_PARSE);
		if (!strstr(clab_errmsg(), bad[i].msg))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, clab_errmsg(), bad[i].msg);
	}
}

/* Random edits of a good file: the parser accepts or says why, never
 * crashes, and what it accepts is cumulative. */
static void replay_fuzz(void **state)
{
	(void)state;
	static const char good[] = "cpu_ns instructions branches loads fp\n0 0 0 0 0\n"
				   "100 50 10 20 5\n200 90 20 40 9\n# end\n";
	static const char alphabet[] = "0123456789 \t\n#-xcpu_nsfloadbr";
	srand(7);
	for (int it = 0; it < 20000; it++) {
		char text[sizeof good + 8];
		memcpy(text, good, sizeof good);
		int edits = 1 + rand() % 4;
		for (int e = 0; e < edits; e++)
			text[rand() % (sizeof good - 1)] = alphabet[rand() % (sizeof alphabet - 1)];
		clab_host_sample *v;
		int n;
		int rc = clab_host_replay_parse(text, "fuzz", &v, &n);
		if (rc == CLAB_OK) {
			assert_true(n >= 1);
			for (int i = 1; i < n; i++)
				assert_true(v[i].cpu_ns >= v[i - 1].cpu_ns);
			free(v);
		} else {
			assert_int_equal(rc, CLAB_E_PARSE);
			assert_non_null(strstr(clab_errmsg(), "fuzz"));
		}
	}
}

/* A replay file at path (a mkstemp template), open for writing; the
 * caller writes its header and steps, then replay_on() points the host
 * sampler at it. */
static FILE *replay_file(char *path)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	return f;
}

/* Closes f and opens a host-clock BG/Q that follows the replay at path. */
static clab_machine *replay_on(FILE *f, const char *path)
{
	fclose(f);
	setenv("COUNTERLAB_HOST_REPLAY", path, 1);
	return open_machine("bgq:clock=host,activity=host");
}

/* Every quantity the emulator counts, through the node: each rule's event
 * is one the node takes (a derived one would drop the whole sample), and
 * the commit counts follow from the classes fed. */
static void node_takes_every_rule(void **state)
{
	(void)state;
	char path[] = "/tmp/clab-replay-XXXXXX";
	FILE *f = replay_file(path);
	fprintf(f, "cpu_ns");
	for (int q = 0; q < CLAB_HQ_N; q++)
		fprintf(f, " %s", clab_hq_name[q]);
	fprintf(f, "\n");
	for (int i = 0; i < 64; i++) { /* per step: 60 of each, 1000 instructions, 4000 cycles */
		fprintf(f, "%d", i * 500000);
		for (int q = 0; q < CLAB_HQ_N; q++)
			fprintf(f, " %d", i * (q == CLAB_HQ_INSTRUCTIONS ? 1000 : q == CLAB_HQ_CYCLES ? 4000 : 60));
		fprintf(f, "\n");
	}
	clab_machine *m = replay_on(f, path);
	clab_component *core = clab_machine_component(m, "core");
	clab_thread *t = attach_hw(m, 0);
	static const char *const ev[] = {"PEVT_INST_XU_BRC", "PEVT_XU_BR_COMMIT",
					 "PEVT_LSU_COMMIT_CACHEABLE_LDS", "PEVT_LSU_COMMIT_STS"};
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, ev, 4), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	unlink(path); /* read by the start; gone even if a check below fails */
	int64_t a[4], b[4];
	assert_int_equal(clab_evset_read(s, a), CLAB_OK);
	assert_int_equal(clab_evset_read(s, b), CLAB_OK);
	int64_t k = (b[0] - a[0]) / 60;
	assert_true(k >= 1);
	/* BRC + BRU; LD + FLD + QLD (the instruction classes, not the
	 * accesses) and the larx; ST + FST + QST and the stcx */
	assert_int_equal(b[1] - a[1], k * 120);
	assert_int_equal(b[2] - a[2], k * 240);
	assert_int_equal(b[3] - a[3], k * 240);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
	unsetenv("COUNTERLAB_HOST_REPLAY");
}

/* The simulated thread does what the replayed host thread did: between two
 * reads, each PUnit count grows by k times the mapping of one step of the
 * file (every step is the same; k is how many samples the reads took). */
static void node_follows_replay(void **state)
{
	(void)state;
	char path[] = "/tmp/clab-replay-XXXXXX";
	FILE *f = replay_file(path);
	fprintf(f, "cpu_ns instructions branches loads stores\n");
	for (int i = 0; i < 64; i++) /* 0.5 ms, 1M instructions per step */
		fprintf(f, "%d %d %d %d %d\n", i * 500000, i * 1000000, i * 100000, i * 300000,
			i * 100000);
	clab_machine *m = replay_on(f, path);
	clab_component *core = clab_machine_component(m, "core");
	clab_thread *t = attach_hw(m, 0);
	static const char *const ev[] = {"PEVT_INST_XU_IADD", "PEVT_INST_XU_LD",
					 "PEVT_INST_XU_ST", "PEVT_INST_XU_BRC", "PEVT_CYCLES"};
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, ev, 5), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	unlink(path); /* read by the start; gone even if a check below fails */
	int64_t a[5], b[5];
	assert_int_equal(clab_evset_read(s, a), CLAB_OK);
	assert_int_equal(clab_evset_read(s, b), CLAB_OK);
	/* one step: integer 1M - 0.1M - 0.3M - 0.1M = 0.5M, loads 0.3M,
	 * stores 0.1M, branches 0.1M; cycles max(0.5 ms x 1600 MHz = 0.8M,
	 * XU 1.0M) = 1.0M */
	static const int64_t step[] = {500000, 300000, 100000, 100000, 1000000};
	int64_t k = (b[0] - a[0]) / step[0];
	assert_true(k >= 1);
	for (int i = 0; i < 5; i++)
		if (b[i] - a[i] != k * step[i])
			fail_msg("%s grew %lld between reads, not %lld x %lld", ev[i],
				 (long long)(b[i] - a[i]), (long long)k, (long long)step[i]);
	/* a rate profile does not apply to a thread that follows the host */
	assert_int_equal(clab_thread_set_activity(t, "compute"), CLAB_E_STATE);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
	unsetenv("COUNTERLAB_HOST_REPLAY");
}

/* Without a PMU (and without a replay) the machine says why; with a bad
 * replay file, where; activity = host needs the host clock. */
static void refusals(void **state)
{
	(void)state;
	clab_machine *m = NULL;
	assert_int_equal(clab_machine_open("bgq:clock=virtual,activity=host", &m), CLAB_E_PROFILE);
	assert_non_null(strstr(clab_errmsg(), "needs clock=host"));
	setenv("COUNTERLAB_HOST_REPLAY", "/nonexistent/replay.tsv", 1);
	int rc = clab_machine_open("bgq:clock=host,activity=host", &m);
	if (rc == CLAB_OK)
		fail_msg("opened with a missing replay file");
	assert_non_null(strstr(clab_errmsg(), "/nonexistent/replay.tsv"));
	unsetenv("COUNTERLAB_HOST_REPLAY");
	rc = clab_machine_open("bgq:clock=host,activity=host", &m);
	if (rc == CLAB_OK) { /* this host has a hardware PMU */
		clab_machine_close(m);
		return;
	}
	assert_int_equal(rc, CLAB_E_NODEV);
	assert_non_null(strstr(clab_errmsg(), "needs the host's hardware PMU"));
	assert_non_null(strstr(clab_errmsg(), "COUNTERLAB_HOST_REPLAY"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(maps_by_hand),
		cmocka_unit_test(maps_emulated_by_hand),
		cmocka_unit_test(partial_counts),
		cmocka_unit_test(replay_files),
		cmocka_unit_test(replay_fuzz),
		cmocka_unit_test(node_follows_replay),
		cmocka_unit_test(node_takes_every_rule),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests_name("hostmap", tests, NULL, NULL);
}
