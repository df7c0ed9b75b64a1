/* Overflow on the simulated BG/Q node, on the virtual clock: the PUnit's
 * fast overflow (interrupt BGQ's 4 cycles after the crossing, counters
 * frozen until the handler returns), the L2 and I/O units' slow overflow
 * (seen on the next 800-cycle scan, counting on until the handler), re-arm
 * and restart, overflow vectors, CNK's performance-monitor counter, and the
 * errors. Threads do explicit work only (activity=none), so every crossing
 * time follows from the work's even spread. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"

#define LATENCY 4 /* PUnit: cycles from crossing to interrupt */
#define SCAN 800  /* L2/I/O: accumulation scan period */
#define MAXCALLS 4096
#define BGQ_THREADS 68

static clab_machine *m;
static clab_component *core, *l2, *io, *kernel, *network;

/* What the handler saw, call by call. */
static struct call {
	uint64_t vector, now;
	int64_t v[4];
} calls[MAXCALLS];
static int ncalls;
static clab_thread *cur;        /* the thread whose clock the handler notes */
static uint64_t handler_cycles; /* work each handler call does itself */
static int64_t during[4];       /* a read after that work */

static void handler(clab_evset *s, uint64_t vector, void *pc, void *uc, void *arg)
{
	(void)pc;
	(void)uc;
	(void)arg;
	assert_true(ncalls < MAXCALLS);
	struct call *c = &calls[ncalls++];
	c->vector = vector;
	c->now = clab_thread_now(cur);
	assert_int_equal(clab_evset_read(s, c->v), CLAB_OK);
	if (handler_cycles) {
		assert_int_equal(clab_thread_advance(cur, handler_cycles), CLAB_OK);
		assert_int_equal(clab_evset_read(s, during), CLAB_OK);
	}
}

static int setup(void **state)
{
	(void)state;
	m = open_machine("bgq:clock=virtual,tick=0,activity=none");
	core = clab_machine_component(m, "core");
	l2 = clab_machine_component(m, "l2");
	io = clab_machine_component(m, "io");
	kernel = clab_machine_component(m, "kernel");
	network = clab_machine_component(m, "network");
	return core && l2 && io && kernel && network ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	clab_machine_close(m);
	return 0;
}

static void reset_calls(clab_thread *t)
{
	ncalls = 0;
	cur = t;
	handler_cycles = 0;
}

/* Work: n events of `ev` spread over `cycles` (with PEVT_L1P_BAS_MISS along
 * for L2 misses, which only come from L1p misses). */
static void work(clab_thread *t, uint64_t cycles, const char *ev, uint64_t n)
{
	const char *names[2] = {ev, "PEVT_L1P_BAS_MISS"};
	uint64_t counts[2] = {n, n};
	int two = strcmp(ev, "PEVT_L2_MISSES") == 0;
	assert_int_equal(clab_thread_work(t, cycles, names, counts, two ? 2 : 1), CLAB_OK);
}

/* Fast overflow on PEVT_CYCLES: the handler reads the threshold plus the
 * interrupt latency, exactly; the counters stay frozen while it runs (its
 * own work does not count) and the next threshold is a period from there. */
static void fast_overflow_skid_and_freeze(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 0);
	static const char *const ev[] = {"PEVT_INST_XU_IADD", "PEVT_CYCLES"};
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, ev, 2), CLAB_OK);
	const uint64_t P = 10000;
	assert_int_equal(clab_evset_overflow(s, 1, P, handler, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow_period(s, 1), P);
	reset_calls(t);
	handler_cycles = 1000;
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	const uint64_t run = 100000;
	assert_int_equal(clab_thread_advance(t, run), CLAB_OK);
	int64_t end[2];
	assert_int_equal(clab_evset_stop(s, end), CLAB_OK);
	/* handler k reads k * (P + LATENCY) cycles: the threshold k*P + ...
	 * was crossed, and LATENCY more cycles passed before the freeze */
	assert_true(ncalls >= 9);
	for (int k = 0; k < ncalls; k++) {
		assert_int_equal(calls[k].vector, 1u << 1);
		assert_int_equal(calls[k].v[1], (int64_t)((k + 1) * (P + LATENCY)));
	}
	assert_int_equal(ncalls, (int)(run / (P + LATENCY)));
	/* the handler's own cycles were not counted */
	assert_int_equal(end[1], (int64_t)run);
	assert_int_equal(during[1], calls[ncalls - 1].v[1]);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* An event with a slower rate: the handler's read exceeds the threshold by
 * at most LATENCY cycles' worth of it. */
static void fast_overflow_rate(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 4);
	static const char *const ev[] = {"PEVT_INST_XU_IADD"};
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, ev, 1), CLAB_OK);
	const uint64_t P = 777;
	assert_int_equal(clab_evset_overflow(s, 0, P, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	/* 3 events per 10 cycles: 4 cycles hold at most 2 */
	work(t, 1000000, "PEVT_INST_XU_IADD", 300000);
	int64_t end[1];
	assert_int_equal(clab_evset_stop(s, end), CLAB_OK);
	assert_int_equal(end[0], 300000);
	int64_t threshold = (int64_t)P;
	assert_true(ncalls > 300);
	for (int k = 0; k < ncalls; k++) {
		assert_true(calls[k].v[0] >= threshold);
		assert_true(calls[k].v[0] - threshold <= 2);
		threshold = calls[k].v[0] + (int64_t)P;
	}
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* Slow overflow on the L2 unit: the interrupt comes on the first scan at
 * or after the crossing (latency in [0, 800) cycles), the count kept rising
 * meanwhile, and the next threshold is a period past what the handler read. */
static void slow_overflow_latency(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 8);
	static const char *const ev[] = {"PEVT_L2_MISSES"};
	clab_evset *s = NULL;
	assert_int_equal(program(l2, t, &s, ev, 1), CLAB_OK);
	const uint64_t P = 1000, N = 20000, L = 100000;
	assert_int_equal(clab_evset_overflow(s, 0, P, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_thread_advance(t, 123), CLAB_OK); /* off the scan grid */
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	uint64_t t0 = clab_thread_now(t);
	work(t, L, "PEVT_L2_MISSES", N);
	int64_t end[1];
	assert_int_equal(clab_evset_stop(s, end), CLAB_OK);
	assert_int_equal(end[0], (int64_t)N);
	assert_true(ncalls >= 15);
	uint64_t threshold = P;
	int rose = 0;
	for (int k = 0; k < ncalls; k++) {
		/* the work reaches count c at cycle t0 + ceil(c * L / N) */
		uint64_t tc = t0 + (threshold * L + N - 1) / N;
		uint64_t lat = calls[k].now - tc;
		assert_true(calls[k].now >= tc);
		assert_true(lat < SCAN);
		assert_int_equal(calls[k].now % SCAN, 0);
		assert_true((uint64_t)calls[k].v[0] >= threshold);
		rose |= (uint64_t)calls[k].v[0] - threshold > 1;
		threshold = (uint64_t)calls[k].v[0] + P;
	}
	assert_true(rose); /* unlike a frozen unit */
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* The slow unit stops while its handler runs and restarts after it: the
 * handler's own events are not counted by the set. */
static void slow_overflow_handler_stops_unit(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 12);
	static const char *const ev[] = {"PEVT_MU_PKT_INJ"};
	clab_evset *s = NULL;
	assert_int_equal(program(io, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 10, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	/* one message of 8 packets at a time: counts jump, the scan sees them */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(clab_thread_message(t, CLAB_MSG_SEND, 8 * 512), CLAB_OK);
		assert_int_equal(clab_thread_advance(t, SCAN), CLAB_OK);
	}
	int64_t end[1];
	assert_int_equal(clab_evset_stop(s, end), CLAB_OK);
	assert_int_equal(end[0], 32);
	/* thresholds 10 (seen at 16), 26 (seen at 32) */
	assert_int_equal(ncalls, 2);
	assert_int_equal(calls[0].v[0], 16);
	assert_int_equal(calls[1].v[0], 32);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* Node-wide counts of another thread that arrive while the owner cannot
 * take its interrupt yet (here: the signal blocked, as while another
 * handler runs) have passed many thresholds: the handler is called once
 * per period all the same, as a counter counting on would have
 * interrupted, and the owner's set keeps every count. */
static void slow_overflow_counts_of_others(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 40), *w = attach_hw(m, 44);
	static const char *const ev[] = {"PEVT_L2_MISSES"};
	clab_evset *s = NULL, *ws = NULL;
	assert_int_equal(program(l2, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(program(l2, w, &ws, ev, 1), CLAB_OK);
	const uint64_t P = 1000, N = 20000, L = 100000;
	assert_int_equal(clab_evset_overflow(s, 0, P, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_start(ws), CLAB_OK);
	sigset_t sig, old;
	sigemptyset(&sig);
	sigaddset(&sig, clab_overflow_signal());
	pthread_sigmask(SIG_BLOCK, &sig, &old);
	work(w, L, "PEVT_L2_MISSES", N);
	assert_int_equal(ncalls, 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL); /* the interrupt is taken */
	/* the first came on the scan after count P; the others follow at
	 * once, a period apart */
	assert_true(ncalls >= (int)(N / P) - 1 && ncalls <= (int)(N / P));
	for (int k = 0; k < ncalls; k++) {
		assert_int_equal(calls[k].vector, 1);
		assert_int_equal(calls[k].v[0], (int64_t)N);
	}
	int64_t end[1], wend[1];
	assert_int_equal(clab_evset_stop(ws, wend), CLAB_OK);
	assert_int_equal(clab_evset_stop(s, end), CLAB_OK);
	assert_int_equal(end[0], (int64_t)N);
	assert_int_equal(wend[0], (int64_t)N);
	clab_evset_destroy(s);
	clab_evset_destroy(ws);
	clab_thread_detach(w);
	clab_thread_detach(t);
}

/* While the handler runs, the set leaves out its own thread's events
 * (the handler's), but not what other threads counted meanwhile. */
static clab_thread *other;
static void handler_with_work(clab_evset *s, uint64_t vector, void *pc, void *uc, void *arg)
{
	handler(s, vector, pc, uc, arg);
	if (ncalls == 1) {
		work(cur, 1000, "PEVT_L2_MISSES", 300);   /* the handler's own */
		work(other, 1000, "PEVT_L2_MISSES", 200); /* another thread's */
		assert_int_equal(clab_evset_read(s, during), CLAB_OK);
	}
}

static void slow_overflow_handler_leaves_out_its_own(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 48);
	other = attach_hw(m, 52);
	static const char *const ev[] = {"PEVT_L2_MISSES"};
	clab_evset *s = NULL, *os = NULL;
	assert_int_equal(program(l2, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(program(l2, other, &os, ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 1000, handler_with_work, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_start(os), CLAB_OK);
	work(t, 10000, "PEVT_L2_MISSES", 1500);
	assert_int_equal(ncalls, 1);
	/* inside: the other thread's 200 count, the handler's 300 do not */
	assert_int_equal(during[0], calls[0].v[0] + 200);
	int64_t end[1], oend[1];
	assert_int_equal(clab_evset_stop(s, end), CLAB_OK);
	assert_int_equal(clab_evset_stop(os, oend), CLAB_OK);
	assert_int_equal(end[0], 1500 + 200);
	assert_int_equal(oend[0], 1500 + 300 + 200);
	clab_evset_destroy(s);
	clab_evset_destroy(os);
	clab_thread_detach(other);
	clab_thread_detach(t);
}

/* A crossing noted on another thread's clock (a message it received at
 * once), behind the owner's: the owner takes the interrupt at its own
 * time, its clock never goes back. */
static void slow_overflow_other_clock(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 56), *w = attach_hw(m, 60);
	static const char *const ev[] = {"PEVT_MU_PKT_INJ"};
	clab_evset *s = NULL;
	assert_int_equal(program(io, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 10, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_thread_advance(t, 1000000), CLAB_OK);
	assert_int_equal(clab_thread_advance(w, 123), CLAB_OK); /* off the scan grid */
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_message(w, CLAB_MSG_SEND, 16 * 512), CLAB_OK);
	uint64_t before = clab_thread_now(t);
	assert_true(clab_thread_now(w) < before);
	assert_int_equal(clab_thread_advance(t, 1000), CLAB_OK);
	assert_int_equal(clab_thread_now(t), before + 1000);
	assert_int_equal(ncalls, 1);
	assert_true(calls[0].now >= before);
	assert_int_equal(calls[0].v[0], 16);
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	clab_evset_destroy(s);
	clab_thread_detach(w);
	clab_thread_detach(t);
}

/* Several events overflowing within one interrupt share one call whose
 * vector names each by its index in the set. */
static void overflow_vector(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 16);
	static const char *const ev[] = {"PEVT_INST_XU_ILOG", "PEVT_INST_XU_IADD",
					 "PEVT_CYCLES"};
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, ev, 3), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 1, 500, handler, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 2, 500, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	/* IADD at one per cycle crosses with the cycles */
	work(t, 1000, "PEVT_INST_XU_IADD", 1000);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].vector, (1u << 1) | (1u << 2));
	/* IADD at one per 2 cycles: the cycles overflow alone in between */
	work(t, 4000, "PEVT_INST_XU_IADD", 2000);
	assert_true(ncalls >= 8);
	int cycles_alone = 0, iadd = 0;
	for (int k = 1; k < ncalls; k++) {
		assert_int_equal(calls[k].vector & ~6u, 0);
		cycles_alone += calls[k].vector == 1u << 2;
		iadd += !!(calls[k].vector & (1u << 1));
		/* a bit is set exactly when its event passed its threshold */
		if (calls[k].vector & (1u << 1))
			assert_true(calls[k].v[1] >= 1000);
	}
	assert_true(cycles_alone >= 4);
	assert_true(iadd >= 2);
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* Stop and start again: thresholds count from the new start; disarming
 * stops the calls. */
static void restart_and_disarm(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 20);
	static const char *const ev[] = {"PEVT_CYCLES"};
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 1000, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 1500), CLAB_OK);
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	assert_int_equal(ncalls, 1);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 1500), CLAB_OK);
	assert_int_equal(ncalls, 2);
	assert_int_equal(calls[1].v[0], 1000 + LATENCY);
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 0, NULL, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 5000), CLAB_OK);
	assert_int_equal(ncalls, 2);
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* Period 1, the smallest: one interrupt every 1 + LATENCY cycles, no
 * count lost, no hang. */
static void smallest_period(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 24);
	static const char *const ev[] = {"PEVT_CYCLES"};
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 1, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 1000), CLAB_OK);
	int64_t end[1];
	assert_int_equal(clab_evset_stop(s, end), CLAB_OK);
	assert_int_equal(end[0], 1000);
	assert_int_equal(ncalls, 1000 / (1 + LATENCY));
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* Each interrupt is a performance-monitor interrupt for the CNK, and one
 * of the interrupts the core takes: a sibling thread's set sees them in
 * the core-wide count (the set that overflowed is frozen while its own
 * interrupt is taken), not in its own thread's. */
static void perfmon_counts_interrupts(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 28), *sib = attach_hw(m, 29);
	static const char *const ev[] = {"PEVT_CYCLES"};
	static const char *const kev[] = {"PEVT_CNKHWT_PERFMON"};
	static const char *const sev[] = {"PEVT_XU_INTS_TAKEN", "PEVT_XU_PERF_MON_INT_TAKEN"};
	clab_evset *s = NULL, *k = NULL, *ss = NULL;
	assert_int_equal(program(core, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(program(kernel, t, &k, kev, 1), CLAB_OK);
	assert_int_equal(program(core, sib, &ss, sev, 2), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 996, handler, NULL), CLAB_OK);
	reset_calls(t);
	assert_int_equal(clab_evset_start(ss), CLAB_OK);
	assert_int_equal(clab_evset_start(k), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 10000), CLAB_OK);
	int64_t v[1], sv[2];
	assert_int_equal(clab_evset_stop(k, v), CLAB_OK);
	assert_int_equal(ncalls, 10);
	assert_int_equal(v[0], 10);
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	assert_int_equal(clab_evset_stop(ss, sv), CLAB_OK);
	assert_int_equal(sv[0], 10);
	assert_int_equal(sv[1], 0);
	clab_evset_destroy(s);
	clab_evset_destroy(k);
	clab_evset_destroy(ss);
	clab_thread_detach(sib);
	clab_thread_detach(t);
}

static void expect_error(clab_evset *s, int i, uint64_t period, int err,
			 const char *words)
{
	int rc = clab_evset_overflow(s, i, period, handler, NULL);
	if (rc != err)
		fail_msg("expected %d (%s), got %d", err, words, rc);
	if (!strstr(clab_errmsg(), words))
		fail_msg("message '%s' lacks '%s'", clab_errmsg(), words);
}

static void errors(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 32);
	clab_evset *n = NULL, *k = NULL, *sl = NULL, *a = NULL, *b = NULL, *c = NULL,
		   *p = NULL;
	static const char *const nev[] = {"PEVT_NW_USER_PP_SENT"};
	static const char *const kev[] = {"PEVT_CNKHWT_SYSCALL"};
	static const char *const slev[] = {"PEVT_L2_HITS_SLICE"};
	static const char *const l2ev[] = {"PEVT_L2_HITS"};
	static const char *const cev[] = {"PEVT_CYCLES", "PAPI_FMA_INS"};
	static const char *const pev[] = {"PEVT_MU_PORT0_PEND_WRT"};
	assert_int_equal(program(network, t, &n, nev, 1), CLAB_OK);
	expect_error(n, 0, 100, CLAB_E_NOSUPP, "cannot interrupt on overflow");
	assert_int_equal(program(kernel, t, &k, kev, 1), CLAB_OK);
	expect_error(k, 0, 100, CLAB_E_NOSUPP, "cannot interrupt on overflow");
	assert_int_equal(program(l2, t, &sl, slev, 1), CLAB_OK);
	expect_error(sl, 0, 100, CLAB_E_NOSUPP, "combined");
	clab_evset_destroy(sl); /* the L2 unit counts sliced or combined */
	sl = NULL;
	assert_int_equal(program(io, t, &p, pev, 1), CLAB_OK);
	expect_error(p, 0, 100, CLAB_E_NOSUPP, "pending-request");
	/* node-wide thresholds are per counter, among the running sets: the
	 * arming is the set's, the conflict comes at start */
	assert_int_equal(program(l2, t, &a, l2ev, 1), CLAB_OK);
	assert_int_equal(program(l2, t, &b, l2ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_overflow(a, 0, 100, handler, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(b, 0, 200, handler, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_OK);
	assert_int_equal(clab_evset_start(b), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "already overflows every 100"));
	assert_int_equal(clab_evset_stop(a, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(b), CLAB_OK); /* a's threshold went */
	assert_int_equal(clab_evset_start(a), CLAB_E_CONFLICT);
	assert_int_equal(clab_evset_stop(b, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(b, 0, 100, handler, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_OK);
	assert_int_equal(clab_evset_start(b), CLAB_OK); /* the same period */
	assert_int_equal(clab_evset_stop(a, NULL), CLAB_OK);
	assert_int_equal(clab_evset_stop(b, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(a, 0, 0, NULL, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(b, 0, 0, NULL, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(a, 0, 200, handler, NULL), CLAB_OK);
	/* derived events, ranges, states */
	assert_int_equal(program(core, t, &c, cev, 2), CLAB_OK);
	expect_error(c, 1, 100, CLAB_E_NOSUPP, "derived");
	expect_error(c, 5, 100, CLAB_E_INVAL, "no event 5");
	expect_error(c, 0, (1ull << 63) + 1, CLAB_E_INVAL, "1 .. 2^63");
	assert_int_equal(clab_evset_overflow(c, 0, 1ull << 63, handler, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(c), CLAB_OK);
	expect_error(c, 0, 100, CLAB_E_STATE, "running");
	assert_int_equal(clab_evset_stop(c, NULL), CLAB_OK);
	clab_evset *sets[] = {n, k, sl, a, b, c, p};
	for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
		clab_evset_destroy(sets[i]);
	clab_thread_detach(t);
}

/* The process-wide table of armed sets is full at 256: the next arming is
 * refused (it would never be delivered), and a freed place can be taken.
 * A PUnit set per hardware thread on four machines makes 272 sets. */
static void armed_table_full(void **state)
{
	(void)state;
	enum { TABLE = 256, MACHINES = 4, SETS = MACHINES * BGQ_THREADS };
	static const char *const ev[] = {"PEVT_CYCLES"};
	clab_machine *ms[MACHINES] = {m};
	static clab_thread *th[SETS];
	static clab_evset *s[SETS];
	int refused = 0;
	for (int i = 0; i < SETS; i++) {
		int k = i / BGQ_THREADS;
		if (!ms[k])
			ms[k] = open_machine("bgq:clock=virtual,tick=0,activity=none");
		clab_component *c = clab_machine_component(ms[k], "core");
		th[i] = attach_hw(ms[k], i % BGQ_THREADS);
		s[i] = NULL;
		assert_int_equal(program(c, th[i], &s[i], ev, 1), CLAB_OK);
		int rc = clab_evset_overflow(s[i], 0, 1000, handler, NULL);
		if (i < TABLE) {
			assert_int_equal(rc, CLAB_OK);
			continue;
		}
		refused++;
		assert_int_equal(rc, CLAB_E_CONFLICT);
		if (!strstr(clab_errmsg(), "256 event sets are armed"))
			fail_msg("message '%s'", clab_errmsg());
		assert_int_equal(clab_evset_overflow_period(s[i], 0), 0);
	}
	assert_int_equal(refused, SETS - TABLE);
	/* disarming frees a place */
	assert_int_equal(clab_evset_overflow(s[0], 0, 0, NULL, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s[TABLE], 0, 1000, handler, NULL), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s[0], 0, 1000, handler, NULL), CLAB_E_CONFLICT);
	/* and so does destroying an armed set */
	clab_evset_destroy(s[1]);
	s[1] = NULL;
	assert_int_equal(clab_evset_overflow(s[0], 0, 1000, handler, NULL), CLAB_OK);
	for (int i = 0; i < SETS; i++) {
		if (s[i])
			clab_evset_destroy(s[i]);
		clab_thread_detach(th[i]);
	}
	for (int k = 1; k < MACHINES; k++)
		clab_machine_close(ms[k]);
}

/* Host clock: a busy loop of some 0.07 s of CPU time with the
 * cycles armed finishes (an alarm kills a livelock) and gets one handler
 * call per period of the cycles counted, within 1%, at periods down to
 * 1,000 (where one delivery costs more CPU time than a period). */
static long host_calls;

static void host_handler(clab_evset *s, uint64_t vector, void *pc, void *uc, void *arg)
{
	(void)s;
	(void)vector;
	(void)pc;
	(void)uc;
	(void)arg;
	host_calls++;
}

static void host_clock_one_call_per_period(void **state)
{
	(void)state;
	clab_machine *hm = open_machine("bgq:clock=host");
	clab_component *hc = clab_machine_component(hm, "core");
	assert_non_null(hc);
	clab_thread *t = attach_hw(hm, 0);
	static const char *const ev[] = {"PEVT_CYCLES"};
	static const uint64_t periods[] = {100000, 10000, 1000};
	for (size_t p = 0; p < sizeof periods / sizeof *periods; p++) {
		clab_evset *s = NULL;
		assert_int_equal(program(hc, t, &s, ev, 1), CLAB_OK);
		assert_int_equal(clab_evset_overflow(s, 0, periods[p], host_handler, NULL),
				 CLAB_OK);
		host_calls = 0;
		alarm(30);
		assert_int_equal(clab_evset_start(s), CLAB_OK);
		volatile double x __attribute__((unused)) = 0;
		for (long i = 0; i < 20000000; i++)
			x += 1e-9;
		int64_t v[1];
		assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
		alarm(0);
		double want = (double)v[0] / (double)periods[p];
		printf("# host clock, period %llu: %lld cycles, %ld calls, %.0f periods\n",
		       (unsigned long long)periods[p], (long long)v[0], host_calls, want);
		assert_true(v[0] > 1000000);
		if (host_calls < want * 0.99 - 1 || host_calls > want * 1.01 + 1)
			fail_msg("period %llu: %ld calls for %lld cycles",
				 (unsigned long long)periods[p], host_calls, (long long)v[0]);
		clab_evset_destroy(s);
	}
	clab_thread_detach(t);
	clab_machine_close(hm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fast_overflow_skid_and_freeze),
		cmocka_unit_test(fast_overflow_rate),
		cmocka_unit_test(slow_overflow_latency),
		cmocka_unit_test(slow_overflow_handler_stops_unit),
		cmocka_unit_test(slow_overflow_counts_of_others),
		cmocka_unit_test(slow_overflow_handler_leaves_out_its_own),
		cmocka_unit_test(slow_overflow_other_clock),
		cmocka_unit_test(overflow_vector),
		cmocka_unit_test(restart_and_disarm),
		cmocka_unit_test(smallest_period),
		cmocka_unit_test(perfmon_counts_interrupts),
		cmocka_unit_test(errors),
		cmocka_unit_test(armed_table_full),
		cmocka_unit_test(host_clock_one_call_per_period),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
