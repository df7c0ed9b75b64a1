/* The simulated BG/Q processor unit: counter groups and borrowing, the A2
 * signal and L1p rules, 14-bit counters accumulated on the scan, and
 * deterministic counts from rate profiles and explicit work. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "../opcodes.h"
#include "../../sim_backends/bgq/node.h"

#define GROUP(g) (0x111111u << (g))

static clab_machine *m;
static clab_component *core;

static int setup(void **state)
{
	(void)state;
	m = open_machine("bgq:clock=virtual");
	core = clab_machine_component(m, "core");
	return core ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	clab_machine_close(m);
	return 0;
}

static clab_thread *hw(int h) { return attach_hw(m, h); }

static uint64_t used(clab_evset *s)
{
	uint64_t u = 0;
	for (int i = 0; i < clab_evset_size(s); i++)
		u |= clab_evset_counters(s, i);
	return u;
}

static const char *const *const opcodes = clab_opcode_events; /* the XU ones */

/* A thread uses its own group of 6 counters, borrows its sibling's for 12,
 * all four for 24; 25 never fit. */
static void groups_and_borrowing(void **state)
{
	(void)state;
	clab_thread *t = hw(2 * 4 + 0); /* core 2, thread 0 */
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, opcodes, 6), CLAB_OK);
	assert_int_equal(used(s), GROUP(0));
	assert_int_equal(program(core, t, &s, opcodes, 7), CLAB_OK);
	assert_int_equal(used(s) & ~(GROUP(0) | GROUP(1)), 0);
	assert_int_equal(__builtin_popcount(used(s)), 7);
	assert_int_equal(program(core, t, &s, opcodes, 13), CLAB_OK);
	assert_int_equal(__builtin_popcount(used(s)), 13);
	assert_int_equal(program(core, t, &s, opcodes, 24), CLAB_OK);
	assert_int_equal(used(s), 0xffffffu);
	assert_int_equal(program(core, t, &s, opcodes, 25), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "24 counters"));
	assert_int_equal(clab_evset_size(s), 24); /* unchanged by the failure */
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* A sibling's running event set keeps its group: no borrowing, and the
 * refusal comes at start, naming the holder. Programming alone never
 * fails for what other sets hold. */
static void borrowing_blocked(void **state)
{
	(void)state;
	clab_thread *t0 = hw(3 * 4 + 0), *t1 = hw(3 * 4 + 1);
	clab_evset *a = NULL, *b = NULL;
	assert_int_equal(program(core, t1, &b, opcodes, 2), CLAB_OK);
	assert_int_equal(used(b) & ~GROUP(1), 0);
	assert_int_equal(clab_evset_start(b), CLAB_OK);
	assert_int_equal(program(core, t0, &a, opcodes, 6), CLAB_OK);
	assert_int_equal(program(core, t0, &a, opcodes, 7), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "cannot start"));
	assert_non_null(strstr(clab_errmsg(), "hardware thread 13"));
	assert_non_null(strstr(clab_errmsg(), "PEVT_INST_XU"));
	/* thread 0's core-wide event needs all four groups */
	const char *busy[] = {"PEVT_XU_PROC_BUSY"};
	clab_evset *c = NULL;
	assert_int_equal(program(core, t0, &c, busy, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(c), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "4 counter groups"));
	/* its own group is free: six events start */
	assert_int_equal(program(core, t0, &a, opcodes, 6), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_OK);
	assert_int_equal(clab_evset_stop(a, NULL), CLAB_OK);
	/* once the sibling stops, thread 0 may borrow */
	assert_int_equal(clab_evset_stop(b, NULL), CLAB_OK);
	assert_int_equal(program(core, t0, &a, opcodes, 7), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_OK);
	assert_int_equal(clab_evset_start(b), CLAB_E_CONFLICT);
	assert_int_equal(clab_evset_stop(a, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(c), CLAB_OK);
	clab_evset_destroy(b);
	clab_evset_destroy(a);
	clab_evset_destroy(c); /* destroying a running set releases it */
	a = NULL;
	assert_int_equal(program(core, t0, &a, busy, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_OK);
	clab_evset_destroy(a);
	clab_thread_detach(t0);
	clab_thread_detach(t1);
}

/* Any number of sets per thread; one runs at a time when they need the
 * same counters. A stopped set keeps its counts for reads, reset zeroes
 * them, a restart counts from zero. */
static void two_sets_per_thread(void **state)
{
	(void)state;
	clab_thread *t = hw(8 * 4 + 0);
	clab_evset *a = NULL, *b = NULL, *c = NULL;
	const char *cyc[] = {"PEVT_CYCLES"};
	assert_int_equal(program(core, t, &a, cyc, 1), CLAB_OK);
	assert_int_equal(program(core, t, &b, opcodes, 6), CLAB_OK);
	assert_int_equal(program(core, t, &c, opcodes, 3), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_OK);
	assert_int_equal(clab_evset_start(b), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "hardware thread 32 (PEVT_CYCLES)"));
	/* a set holds whole counter groups: even 3 events wait for a's */
	assert_int_equal(clab_evset_start(c), CLAB_E_CONFLICT);
	clab_thread_advance(t, 5000);
	int64_t va[1], v2[1], vb[6];
	assert_int_equal(clab_evset_stop(a, va), CLAB_OK);
	assert_true(va[0] >= 5000);
	/* b runs now, a keeps its counts */
	assert_int_equal(clab_evset_start(b), CLAB_OK);
	clab_thread_advance(t, 7000);
	assert_int_equal(clab_evset_read(a, v2), CLAB_OK);
	assert_int_equal(v2[0], va[0]);
	int64_t acc[1] = {0};
	assert_int_equal(clab_evset_accum(a, acc), CLAB_OK);
	assert_int_equal(acc[0], va[0]);
	assert_int_equal(clab_evset_read(a, v2), CLAB_OK);
	assert_int_equal(v2[0], 0); /* accum resets, also a stopped set */
	assert_int_equal(clab_evset_stop(b, vb), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_OK);
	assert_int_equal(clab_evset_stop(a, v2), CLAB_OK);
	assert_true(v2[0] < 1000); /* from zero */
	clab_evset_destroy(a);
	clab_evset_destroy(b);
	clab_evset_destroy(c);
	clab_thread_detach(t);
}

/* XU events live on counters 16-23; A2 signals feed one counter each, so a
 * thread's own group carries two events of one A2 unit, four with its
 * sibling's group, never five. */
static void a2_signals(void **state)
{
	(void)state;
	clab_thread *t = hw(4 * 4 + 0);
	clab_evset *s = NULL;
	const char *xu[] = {"PEVT_XU_THRD_RUNNING", "PEVT_XU_TIMEBASE_TICK",
			    "PEVT_XU_SPR_READ_COMMIT", "PEVT_XU_SPR_WRITE_COMMIT",
			    "PEVT_XU_STALLED_ON_WAITRSV"};
	assert_int_equal(program(core, t, &s, xu, 2), CLAB_OK);
	assert_int_equal(used(s), (1u << 16) | (1u << 20));
	assert_int_equal(program(core, t, &s, xu, 4), CLAB_OK);
	assert_int_equal(used(s), (1u << 16) | (1u << 17) | (1u << 20) | (1u << 21));
	assert_int_equal(program(core, t, &s, xu, 5), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "5 events"));
	/* opcode events still fit beside them */
	const char *mix[] = {"PEVT_XU_THRD_RUNNING", "PEVT_XU_TIMEBASE_TICK",
			     "PEVT_INST_XU_IADD", "PEVT_INST_XU_ILOG"};
	assert_int_equal(program(core, t, &s, mix, 4), CLAB_OK);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

static void l1p_rules(void **state)
{
	(void)state;
	clab_thread *t0 = hw(5 * 4 + 0), *t1 = hw(5 * 4 + 1);
	clab_evset *s = NULL, *o = NULL;
	/* one counter per thread in an L1p conflict set */
	const char *same[] = {"PEVT_L1P_BAS_HIT", "PEVT_L1P_BAS_ST_32BYTE"};
	assert_int_equal(program(core, t0, &s, same, 1), CLAB_OK);
	assert_int_equal(used(s), 1u << 4);
	assert_int_equal(program(core, t0, &s, same, 2), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "PEVT_L1P_BAS_HIT and PEVT_L1P_BAS_ST_32BYTE both need counter 4"));
	/* one L1p mode per core, within a set and across running sets */
	const char *modes[] = {"PEVT_L1P_SW_MAS_SW_REQ_VAL", "PEVT_L1P_STRM_LINE_ESTB"};
	assert_int_equal(program(core, t0, &s, modes, 2), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "one mode at a time"));
	assert_int_equal(program(core, t0, &s, modes, 1), CLAB_OK);
	assert_int_equal(program(core, t1, &o, modes + 1, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_start(o), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "L1P_SWITCH mode"));
	assert_non_null(strstr(clab_errmsg(), "hardware thread 20"));
	/* the holder may change its own mode once stopped */
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	assert_int_equal(program(core, t0, &s, modes + 1, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_start(o), CLAB_OK);
	clab_evset_destroy(s);
	clab_evset_destroy(o);
	clab_thread_detach(t0);
	clab_thread_detach(t1);
}

/* 14-bit counters wrap every 16384 events; the scan adds each movement, so
 * long runs lose nothing, whether time moves in small steps (every scan
 * run one by one) or large ones. Reads lag by at most one scan. */
static void wrap_and_lag(void **state)
{
	(void)state;
	clab_thread *t = hw(6 * 4 + 0);
	clab_evset *s = NULL;
	const char *ev[] = {"PEVT_CYCLES"};
	assert_int_equal(program(core, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	uint64_t t0 = clab_thread_now(t);
	int64_t v[1];
	const uint64_t small[] = {300, 799, 1, 123, 650};
	const uint64_t large[] = {100000, 160000000, 12345677};
	for (int r = 0; r < 600; r++) {
		uint64_t d = r < 560 ? small[r % 5] : large[r % 3];
		assert_int_equal(clab_thread_advance(t, d), CLAB_OK);
		assert_int_equal(clab_evset_read(s, v), CLAB_OK);
		uint64_t lived = clab_thread_now(t) - t0;
		assert_true((uint64_t)v[0] <= lived);
		assert_true(lived - (uint64_t)v[0] < 800);
	}
	uint64_t lived = clab_thread_now(t) - t0;
	assert_true(lived > 2000000000ull); /* over 100000 wraps of 14 bits */
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	assert_int_equal((uint64_t)v[0], lived);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* Counts follow from the profile, identically on two machines. */
static void deterministic(void **state)
{
	(void)state;
	char path[] = "/tmp/clab-phases-XXXXXX.ini";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	const char *text = "[phase a]\ncycles = 1000\nPEVT_INST_XU_IADD = 0.5\n"
			   "PEVT_INST_QFPU_QMA = 0.25\n"
			   "[phase b]\ncycles = 3000\nPEVT_INST_XU_LD = 0.333\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	int64_t got[2][4];
	for (int k = 0; k < 2; k++) {
		char spec[256];
		snprintf(spec, sizeof spec, "bgq:clock=virtual,activity=%s", path);
		clab_machine *mm = open_machine(spec);
		clab_component *c = clab_machine_component(mm, "core");
		clab_thread *t;
		assert_int_equal(clab_thread_attach(mm, &t), CLAB_OK);
		clab_evset *s = NULL;
		const char *ev[] = {"PEVT_INST_ALL", "PEVT_INST_XU_IADD", "PEVT_INST_XU_LD", "PAPI_FP_OPS"};
		assert_int_equal(program(c, t, &s, ev, 4), CLAB_OK);
		clab_evset_start(s);
		clab_thread_advance(t, 10500);
		clab_evset_stop(s, got[k]);
		clab_evset_destroy(s);
		clab_machine_close(mm);
	}
	unlink(path);
	assert_memory_equal(got[0], got[1], sizeof got[0]);
	/* a lap is 4000 cycles; 10500 = two laps, phase a, 1500 cycles of b */
	int64_t iadd = 3 * 500, qma = 3 * 250, ld = 2 * 999 + 499;
	assert_int_equal(got[0][1], iadd);
	assert_int_equal(got[0][2], ld);
	assert_int_equal(got[0][0], iadd + ld + qma);
	assert_int_equal(got[0][3], 8 * qma);
}

/* Reads on the virtual clock take the counts without the core lock: one
 * taken while another thread's clock moves (scans) is of one instant. Two
 * events of the same terms count alike at every scan, so a read that saw
 * one counter of a scan and not the other would differ. The clock moves
 * until the reader has seen it move often enough (counts, not time). */
static clab_evset *torn_set;
static int torn_done;
static long torn_changed;

static void *torn_reader(void *arg)
{
	long *bad = arg;
	int64_t v[2], last = 0;
	while (!__atomic_load_n(&torn_done, __ATOMIC_ACQUIRE)) {
		if (clab_evset_read(torn_set, v) != CLAB_OK || v[0] != v[1] || v[0] < last)
			(*bad)++;
		if (v[0] != last)
			__atomic_store_n(&torn_changed, torn_changed + 1, __ATOMIC_RELEASE);
		last = v[0];
	}
	return NULL;
}

static void reads_of_one_instant(void **state)
{
	(void)state;
	clab_thread *t = hw(8);
	const char *ev[] = {"PEVT_AXU_INSTR_COMMIT", "PEVT_INST_QFPU_ALL"};
	assert_int_equal(program(core, t, &torn_set, ev, 2), CLAB_OK);
	assert_int_equal(clab_evset_start(torn_set), CLAB_OK);
	long bad = 0;
	pthread_t r;
	assert_int_equal(pthread_create(&r, NULL, torn_reader, &bad), 0);
	for (uint64_t i = 0; i < 20000 || __atomic_load_n(&torn_changed, __ATOMIC_ACQUIRE) < 2000; i++)
		assert_int_equal(clab_thread_advance(t, 800 + i % 7), CLAB_OK);
	__atomic_store_n(&torn_done, 1, __ATOMIC_RELEASE);
	pthread_join(r, NULL);
	assert_int_equal(bad, 0);
	int64_t v[2];
	assert_int_equal(clab_evset_stop(torn_set, v), CLAB_OK);
	assert_true(v[0] > 0);
	assert_int_equal(v[0], v[1]);
	clab_evset_destroy(torn_set);
	clab_thread_detach(t);
}

/* Explicit work: counts land exactly, core events see every thread of the
 * core, and impossible rates are refused. */
static void work_and_core_scope(void **state)
{
	(void)state;
	clab_thread *t0 = hw(7 * 4 + 0), *t2 = hw(7 * 4 + 2);
	clab_evset *s = NULL;
	const char *ev[] = {"PEVT_LSU_COMMIT_LD_MISSES", "PEVT_L1P_BAS_LU_STALL_SRT"};
	assert_int_equal(program(core, t0, &s, ev, 2), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	const char *names[] = {"PEVT_LSU_COMMIT_LD_MISSES", "PEVT_L1P_BAS_LU_STALL_SRT"};
	uint64_t counts[] = {4321, 100};
	assert_int_equal(clab_thread_work(t0, 100000, names, counts, 2), CLAB_OK);
	assert_int_equal(clab_thread_work(t2, 100000, names, counts, 2), CLAB_OK);
	int64_t v[2];
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	assert_int_equal(v[0], 4321);  /* thread event: own thread only */
	assert_int_equal(v[1], 200);   /* core event: both threads */
	uint64_t too_many[] = {2000, 0};
	assert_int_equal(clab_thread_work(t0, 1000, names, too_many, 1), CLAB_E_RATE);
	const char *derived[] = {"PEVT_INST_ALL"};
	assert_int_equal(clab_thread_work(t0, 1000, derived, counts, 1), CLAB_E_INVAL);
	const char *unknown[] = {"PEVT_BOGUS"};
	assert_int_equal(clab_thread_work(t0, 1000, unknown, counts, 1), CLAB_E_NOEVENT);
	clab_evset_destroy(s);
	clab_thread_detach(t0);
	clab_thread_detach(t2);
}

/* The kernel's share of each count: system calls (compute.ini: one per
 * 10^6 cycles) at bgq.ini's syscall_cycles each, and FIT interrupts every
 * fit_period cycles at irq_cycles each. */
#define SYS_PER_GCYC 1000u   /* system calls per 10^9 cycles in compute.ini */
#define SYSCALL_CYCLES 1500u
#define IRQ_CYCLES 600u
#define FIT_PERIOD (1u << 24)

static uint64_t kernel_of(uint64_t v, uint64_t sys_per_gcyc)
{
	uint64_t ppb = sys_per_gcyc * SYSCALL_CYCLES +
		       1000000000ull * IRQ_CYCLES / FIT_PERIOD;
	return (uint64_t)((unsigned __int128)v * ppb / 1000000000u);
}

static void contexts(void **state)
{
	(void)state;
	/* A thread runs one set at a time: three fresh threads on cores of
	 * their own live the same profile over the same cycles, one counting
	 * user context, one kernel, one both. */
	const int ctx[3] = {CLAB_CTX_USER, CLAB_CTX_KERNEL, CLAB_CTX_ALL};
	const char *ev[] = {"PEVT_CYCLES", "PEVT_INST_XU_IADD"};
	clab_thread *t[3];
	clab_evset *s[3] = {NULL, NULL, NULL};
	int64_t v[3][2], w[3][2];
	for (int i = 0; i < 3; i++) {
		t[i] = hw((12 + i) * 4 + 1);
		assert_int_equal(program(core, t[i], &s[i], ev, 2), CLAB_OK);
		assert_int_equal(clab_evset_get_context(s[i]), CLAB_CTX_ALL);
		assert_int_equal(clab_evset_set_context(s[i], ctx[i]), CLAB_OK);
		assert_int_equal(clab_evset_get_context(s[i]), ctx[i]);
		assert_int_equal(clab_evset_start(s[i]), CLAB_OK);
	}
	assert_int_equal(clab_evset_set_context(s[0], CLAB_CTX_ALL), CLAB_E_STATE);
	for (int i = 0; i < 3; i++) { /* a stop drains the counters: exact */
		assert_int_equal(clab_thread_advance(t[i], 10000000), CLAB_OK);
		assert_int_equal(clab_evset_stop(s[i], v[i]), CLAB_OK);
	}
	assert_int_equal(v[2][0], 10000000);
	assert_int_equal(v[1][0], kernel_of(10000000, SYS_PER_GCYC));
	assert_true(v[1][1] > 0 && v[1][1] < v[0][1] / 100);
	for (int e = 0; e < 2; e++)
		assert_int_equal(v[0][e] + v[1][e], v[2][e]);

	/* A profile without system calls: the kernel keeps what it had and
	 * takes only the timer's share from now on. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(clab_evset_start(s[i]), CLAB_OK);
		assert_int_equal(clab_thread_set_activity(t[i], "steady"), CLAB_OK);
		assert_int_equal(clab_thread_advance(t[i], 10000000), CLAB_OK);
		assert_int_equal(clab_evset_stop(s[i], w[i]), CLAB_OK);
	}
	assert_int_equal(w[2][0], 10000000);
	assert_int_equal(w[1][0], kernel_of(10000000, 0));
	for (int e = 0; e < 2; e++)
		assert_int_equal(w[0][e] + w[1][e], w[2][e]);

	/* bad contexts; units that count every context alike */
	assert_int_equal(clab_evset_set_context(s[0], 0), CLAB_E_INVAL);
	assert_int_equal(clab_evset_set_context(s[0], 4), CLAB_E_INVAL);
	clab_component *l2 = clab_machine_component(m, "l2");
	clab_evset *ls = NULL;
	const char *lev[] = {"PEVT_L2_HITS"};
	assert_int_equal(program(l2, t[0], &ls, lev, 1), CLAB_OK);
	assert_int_equal(clab_evset_set_context(ls, CLAB_CTX_USER), CLAB_E_NOSUPP);
	assert_non_null(strstr(clab_errmsg(), "every processor context alike"));
	assert_int_equal(clab_evset_set_context(ls, CLAB_CTX_ALL), CLAB_OK);
	clab_component_info ci;
	clab_component_get_info(l2, &ci);
	assert_int_equal(ci.contexts, 0);
	clab_component_get_info(core, &ci);
	assert_int_equal(ci.contexts, 1);
	clab_evset_destroy(ls);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(clab_thread_set_activity(t[i], "compute"), CLAB_OK);
		clab_evset_destroy(s[i]);
		clab_thread_detach(t[i]);
	}
}

/* The slow integration: counter c's weighted terms summed one by one from
 * the profile's prefix counts, its contributors at their clocks, thread h's
 * at `at` (h < 0: as things are). */
static uint64_t terms_at(const bgq_node *n, int core, const bgq_ctr *c, int h,
			 uint64_t at)
{
	uint64_t v = 0;
	for (int s = 0; s < BGQ_TPC; s++) {
		if (!(c->contrib >> s & 1))
			continue;
		const bgq_hwt *t = &n->hwt[core * BGQ_TPC + s];
		uint64_t when = core * BGQ_TPC + s == h ? at : t->now;
		prof_pos pos = bgq_pos_at(t, when, 0);
		for (int k = 0; k < c->nterm; k++) {
			assert_true(c->term[k] < BGQ_NEV_L2);
			v += c->weight[k] * bgq_prim_truth_at(t, &pos, c->term[k], when);
		}
	}
	return v;
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/* A virtual-clock node whose activity is the profile text. */
static clab_machine *open_profile(const char *text)
{
	char path[] = "/tmp/clab-profile-XXXXXX.ini";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char spec[256];
	snprintf(spec, sizeof spec, "bgq:clock=virtual,activity=%s", path);
	clab_machine *mm = open_machine(spec);
	unlink(path);
	return mm;
}

/* The node of a machine opened by open_profile. */
static bgq_node *node_of(clab_machine *mm)
{
	int err;
	bgq_node *n = bgq_node_get(mm, &err);
	assert_non_null(n);
	return n;
}

/* What scans and drains take from a counter's rates (the fast path: a
 * phase lap's base plus rate x cycles, in-period sums memoized) equals the
 * slow integration at random clock positions over the phases and laps of a
 * periodic profile whose rates round, with explicit work and a sibling's
 * moves in between; after a move of the owner, UPC_C holds the truth at
 * the move's last scan point, and the next scan point is BGQ_SCAN later. */
static void rates_match_terms(void **state)
{
	(void)state;
	clab_machine *mm = open_profile(
		"[phase a]\ncycles = 1000\nPEVT_INST_XU_IADD = 0.333333\n"
		"PEVT_INST_QFPU_QMA = 0.25\nPEVT_INST_XU_LD = 0.123457\n"
		"PEVT_L1P_BAS_LU_STALL_SRT = 0.05\n"
		"[phase b]\ncycles = 3337\nPEVT_INST_XU_LD = 0.333\nPEVT_INST_QFPU_FADD = 0.700001\n"
		"[phase c]\ncycles = 250001\nPEVT_INST_XU_IADD = 0.000013\n"
		"PEVT_INST_QFPU_QMA = 0.999999\nPEVT_INST_XU_ST = 0.5\n"
		"PEVT_L1P_BAS_LU_STALL_SRT = 0.000007\n");
	int core_no = 5, h = core_no * BGQ_TPC + 1;
	bgq_node *n = node_of(mm);
	bgq_core *k = &n->core[core_no];
	clab_thread *t = attach_hw(mm, h), *sib = attach_hw(mm, h + 2);
	clab_evset *s = NULL;
	const char *ev[] = {"PEVT_INST_ALL", "PEVT_INST_XU_IADD", "PEVT_CYCLES",
			    "PAPI_FP_OPS", "PEVT_INST_QFPU_ALL", "PEVT_L1P_BAS_LU_STALL_SRT"};
	assert_int_equal(program(clab_machine_component(mm, "core"), t, &s, ev, 6), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	for (int c = 0; c < BGQ_CTRS; c++)
		if (k->ctr[c].running)
			assert_int_equal(k->ctr[c].start, terms_at(n, core_no, &k->ctr[c], -1, 0));
	const char *wev[] = {"PEVT_INST_XU_IADD", "PEVT_INST_QFPU_FADD"};
	uint64_t x = 12345, checked = 0, scans = 0;
	for (int it = 0; it < 4000; it++) {
		uint64_t kind = lcg(&x) % 10, d = lcg(&x);
		d = kind < 5 ? 1 + d % 1700 : kind < 8 ? 1 + d % 400000 : 1 + d % 3000000;
		int moved = 0;
		if (kind == 3) {
			assert_int_equal(clab_thread_advance(sib, d), CLAB_OK);
		} else if (kind == 4) {
			uint64_t wc[] = {d / 3, d / 7};
			assert_int_equal(clab_thread_work(t, d, wev, wc, 2), CLAB_OK);
		} else {
			assert_int_equal(clab_thread_advance(t, d), CLAB_OK);
			moved = d >= BGQ_SCAN;
		}
		int64_t v[6];
		assert_int_equal(clab_evset_read(s, v), CLAB_OK);
		const bgq_hwt *th = &n->hwt[h];
		uint64_t last = th->now - (th->now - k->phase) % BGQ_SCAN;
		/* the thread keeps the scan point after its clock (moves take
		 * the scans on their way from it) */
		assert_true(th->now >= k->phase);
		assert_int_equal(th->next_scan, last + BGQ_SCAN);
		for (int c = 0; c < BGQ_CTRS; c++) {
			bgq_ctr *ct = &k->ctr[c];
			if (!ct->running)
				continue;
			if (moved) { /* the scan of the move's last scan point */
				assert_int_equal(ct->acc, terms_at(n, core_no, ct, h, last) - ct->start);
				scans++;
			}
			for (int j = 0; j < 3; j++) {
				uint64_t at = th->now + (j == 0 ? 0 : lcg(&x) % (j == 1 ? 5000 : 600000));
				assert_int_equal(bgq_ctr_truth_at(n, core_no, ct, h, at, 0),
						 terms_at(n, core_no, ct, h, at));
				checked++;
			}
		}
	}
	assert_true(checked > 40000 && scans > 8000);
	clab_evset_destroy(s);
	clab_thread_detach(sib);
	clab_thread_detach(t);
	clab_machine_close(mm);
}

/* The owner's running counters after a move by one scan interval: UPC_C
 * holds the truth at the move's scan point, taken by the thread's scan
 * plan (rates of few in-period offsets). */
static void scan_holds_truth(bgq_node *n, int core_no, int h, clab_thread *t)
{
	bgq_core *k = &n->core[core_no];
	assert_int_equal(clab_thread_advance(t, BGQ_SCAN), CLAB_OK);
	assert_non_null(k->plan[h % BGQ_TPC]);
	assert_true(k->plan[h % BGQ_TPC]->n > 0);
	const bgq_hwt *th = &n->hwt[h];
	uint64_t last = th->now - (th->now - k->phase) % BGQ_SCAN;
	for (int c = 0; c < BGQ_CTRS; c++)
		if (k->ctr[c].running)
			assert_int_equal(k->ctr[c].acc,
					 terms_at(n, core_no, &k->ctr[c], h, last) - k->ctr[c].start);
}

/* A scan's plan of a thread's counters lasts a phase lap, but not past a
 * change of what the counters count: within one lap, a stopped set's
 * counts hold over the scans that follow, and the same counters programmed
 * with other events count the new ones at the next scan. */
static void scan_plan_follows_counters(void **state)
{
	(void)state;
	clab_machine *mm = open_profile(
		"[phase a]\ncycles = 100000000\nPEVT_INST_XU_IADD = 0.25\n"
		"PEVT_INST_QFPU_QMA = 0.125\nPEVT_INST_XU_LD = 0.04\nPEVT_INST_XU_ST = 0.02\n"
		"PEVT_INST_QFPU_FADD = 0.3\n"
		"[phase b]\ncycles = 1000\nPEVT_INST_XU_LD = 0.5\n");
	int core_no = 7, h = core_no * BGQ_TPC + 2;
	bgq_node *n = node_of(mm);
	bgq_core *k = &n->core[core_no];
	clab_component *c = clab_machine_component(mm, "core");
	clab_thread *t = attach_hw(mm, h);
	clab_evset *s = NULL;
	const char *ev[2][5] = {
		{"PEVT_INST_ALL", "PEVT_INST_XU_IADD", "PEVT_INST_QFPU_QMA", "PEVT_INST_XU_LD",
		 "PEVT_INST_XU_ST"},
		{"PEVT_INST_QFPU_FADD", "PEVT_INST_XU_ST", "PEVT_INST_XU_LD", "PEVT_INST_XU_IADD",
		 "PEVT_INST_QFPU_ALL"}};
	assert_int_equal(program(c, t, &s, ev[0], 5), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	uint32_t held = k->held[h % BGQ_TPC];
	int64_t at_stop[5], later[5];
	for (int r = 0; r < 6; r++) {
		assert_int_equal(clab_thread_advance(t, 12345 + 800 * r), CLAB_OK);
		scan_holds_truth(n, core_no, h, t);
		assert_int_equal(clab_evset_stop(s, at_stop), CLAB_OK);
		assert_int_equal(clab_thread_advance(t, 3 * BGQ_SCAN), CLAB_OK);
		assert_int_equal(clab_evset_read(s, later), CLAB_OK);
		assert_memory_equal(at_stop, later, sizeof later);
		assert_int_equal(program(c, t, &s, ev[(r + 1) % 2], 5), CLAB_OK);
		assert_int_equal(clab_evset_start(s), CLAB_OK);
		assert_int_equal(k->held[h % BGQ_TPC], held); /* the same counters */
		scan_holds_truth(n, core_no, h, t);
	}
	assert_true(clab_thread_now(t) < 100000000); /* all in one phase lap */
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(mm);
}

/* ... and no further than its phase lap: over short phases of other rates,
 * with moves of every size between single scan intervals, each scan takes
 * the truth at its scan point. */
static void scan_plan_follows_phases(void **state)
{
	(void)state;
	clab_machine *mm = open_profile(
		"[phase a]\ncycles = 3000\nPEVT_INST_XU_IADD = 0.25\nPEVT_INST_XU_LD = 0.5\n"
		"[phase b]\ncycles = 2200\nPEVT_INST_XU_IADD = 0.125\nPEVT_INST_XU_ST = 0.75\n"
		"[phase c]\ncycles = 1300\nPEVT_INST_XU_LD = 0.2\nPEVT_INST_QFPU_FADD = 0.4\n");
	int core_no = 9, h = core_no * BGQ_TPC + 3;
	bgq_node *n = node_of(mm);
	clab_thread *t = attach_hw(mm, h);
	clab_evset *s = NULL;
	const char *ev[] = {"PEVT_INST_ALL", "PEVT_INST_XU_IADD", "PEVT_INST_XU_LD",
			    "PEVT_INST_XU_ST", "PEVT_INST_QFPU_FADD"};
	assert_int_equal(program(clab_machine_component(mm, "core"), t, &s, ev, 5), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	uint64_t x = 777;
	for (int it = 0; it < 300; it++) {
		assert_int_equal(clab_thread_advance(t, lcg(&x) % (it % 3 ? 800 : 9000)), CLAB_OK);
		scan_holds_truth(n, core_no, h, t);
	}
	assert_true(clab_thread_now(t) > 40 * 6500); /* many laps of the three phases */
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(mm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(groups_and_borrowing),
		cmocka_unit_test(borrowing_blocked),
		cmocka_unit_test(two_sets_per_thread),
		cmocka_unit_test(a2_signals),
		cmocka_unit_test(l1p_rules),
		cmocka_unit_test(wrap_and_lag),
		cmocka_unit_test(deterministic),
		cmocka_unit_test(reads_of_one_instant),
		cmocka_unit_test(work_and_core_scope),
		cmocka_unit_test(contexts),
		cmocka_unit_test(rates_match_terms),
		cmocka_unit_test(scan_plan_follows_counters),
		cmocka_unit_test(scan_plan_follows_phases),
	};
	return cmocka_run_group_tests_name("bgq-punit", tests, setup, teardown);
}
