/* The call guard: a call from a signal handler that interrupted a library
 * call of the same thread (a sampling profiler's SIGPROF) must not wait
 * for a lock that call may hold. The test plays the interrupted call:
 * inside the guard and holding the core lock of its thread's PUnit, it
 * raises a signal whose handler reads, accumulates and starts sets. An
 * alarm turns a deadlock into a failure. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "../../framework/internal.h"
#include "../../sim_backends/bgq/bgq.h"

static clab_machine *m;
static clab_component *core, *l2;

static int setup(void **state)
{
	(void)state;
	m = open_machine("bgq:clock=virtual,activity=compute");
	core = clab_machine_component(m, "core");
	l2 = clab_machine_component(m, "l2");
	alarm(120);
	return core && l2 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	clab_machine_close(m);
	return 0;
}

/* What the handler did. */
static struct {
	clab_evset *cs, *la, *lb, *idle;
	int64_t core[2], l2[2], acc[2];
	int rc_core, rc_l2, rc_accum, rc_start;
	char why[512];
} h;

static void on_signal(int sig)
{
	(void)sig;
	h.rc_core = clab_evset_read(h.cs, h.core);
	h.rc_l2 = clab_evset_read(h.lb, h.l2);
	h.rc_accum = clab_evset_accum(h.la, h.acc);
	h.rc_start = clab_evset_start(h.idle);
	snprintf(h.why, sizeof h.why, "%s", clab_errmsg());
}

/* The thread is inside a library call that holds its core's lock, as a
 * read does, when the signal comes. */
static void interrupt_call(int hw, int open)
{
	int err;
	bgq_node *n = bgq_node_get(m, &err);
	assert_non_null(n);
	signal(SIGUSR1, on_signal);
	clab_enter(NULL);
	int was = open ? clab_guard_open() : 0;
	bgq_lock *lock = &n->core[hw / BGQ_TPC].lock;
	if (!open)
		bgq_lock_take(lock);
	raise(SIGUSR1);
	if (!open)
		bgq_lock_drop(lock);
	if (open)
		clab_guard_close(was);
	clab_leave(CLAB_OK);
}

static void read_ok(clab_evset *s, int64_t *v)
{
	int rc = clab_evset_read(s, v);
	if (rc)
		fail_msg("read: %s", clab_errmsg());
}

/* Reads answer with the set's last completed values (the thread ran on
 * since), an accumulation hands those over and counts on from them, other
 * calls are refused with the reason; afterwards the sets count on as if
 * the reset had happened where their values were taken. */
static void test_interrupted_call(void **state)
{
	(void)state;
	memset(&h, 0, sizeof h);
	clab_thread *t = attach_hw(m, 4);
	const char *cev[] = {"PEVT_CYCLES", "PEVT_L1P_BAS_MISS"};
	const char *lev[] = {"PEVT_L2_HITS", "PEVT_L2_MISSES"};
	assert_int_equal(program(core, t, &h.cs, cev, 2), CLAB_OK);
	assert_int_equal(program(l2, t, &h.la, lev, 2), CLAB_OK);
	assert_int_equal(program(l2, t, &h.lb, lev, 2), CLAB_OK);
	assert_int_equal(program(l2, t, &h.idle, lev, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(h.cs), CLAB_OK);
	assert_int_equal(clab_evset_start(h.lb), CLAB_OK);
	assert_int_equal(clab_evset_start(h.la), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 100000), CLAB_OK);
	int64_t c1[2], a1[2], b1[2];
	read_ok(h.cs, c1);
	read_ok(h.la, a1);
	read_ok(h.lb, b1);
	assert_true(c1[1] > 0 && a1[0] > 0);
	assert_int_equal(clab_thread_advance(t, 50000), CLAB_OK);

	interrupt_call(4, 0);
	assert_int_equal(h.rc_core, CLAB_OK);
	assert_int_equal(h.rc_l2, CLAB_OK);
	assert_int_equal(h.rc_accum, CLAB_OK);
	assert_memory_equal(h.core, c1, sizeof c1);
	assert_memory_equal(h.l2, b1, sizeof b1);
	assert_memory_equal(h.acc, a1, sizeof a1);
	assert_int_equal(h.rc_start, CLAB_E_STATE);
	assert_non_null(strstr(h.why, "signal handler that interrupted"));

	/* the thread's own reads go on from the truth; la counts from a1 */
	int64_t c2[2], a2[2], b2[2];
	read_ok(h.cs, c2);
	assert_true(c2[0] >= c1[0] + 50000 - 800 && c2[1] > c1[1]);
	assert_int_equal(clab_evset_stop(h.la, a2), CLAB_OK);
	assert_int_equal(clab_evset_stop(h.lb, b2), CLAB_OK);
	for (int i = 0; i < 2; i++)
		assert_int_equal(a2[i] + a1[i], b2[i]);
	/* a start counts from zero again, the reset taken back */
	assert_int_equal(clab_evset_start(h.la), CLAB_OK);
	read_ok(h.la, a2);
	assert_true(a2[0] < a1[0]);

	/* where the guard knows the thread holds no lock (an overflow
	 * handler's depth), calls take locks: reads are current, starts go */
	assert_int_equal(clab_thread_advance(t, 50000), CLAB_OK);
	assert_int_equal(clab_evset_stop(h.la, a2), CLAB_OK);
	interrupt_call(4, 1);
	assert_int_equal(h.rc_core, CLAB_OK);
	assert_true(h.core[0] > c2[0]);
	assert_int_equal(h.rc_start, CLAB_OK);
	assert_int_equal(clab_evset_stop(h.idle, NULL), CLAB_OK);

	clab_evset_destroy(h.cs);
	clab_evset_destroy(h.la);
	clab_evset_destroy(h.lb);
	clab_evset_destroy(h.idle);
	clab_thread_detach(t);
}

/* clab_evset_read_at puts event i's value at the caller's position at[i]
 * (PAPI's order), in a call and from a handler that interrupted one, and
 * takes what a reset there took off at the same positions. */
static struct {
	clab_evset *s;
	int64_t v[4];
	int rc_read, rc_reset;
} ra;
static const int perm[3] = {2, 0, 3};

static void on_read_at(int sig)
{
	(void)sig;
	ra.rc_read = clab_evset_read_at(ra.s, ra.v, perm);
	ra.rc_reset = clab_evset_reset(ra.s);
}

static void test_read_at(void **state)
{
	(void)state;
	memset(&ra, 0, sizeof ra);
	clab_thread *t = attach_hw(m, 12);
	const char *ev[] = {"PEVT_CYCLES", "PAPI_L1_DCM", "PEVT_L1P_BAS_MISS"};
	assert_int_equal(program(core, t, &ra.s, ev, 3), CLAB_OK);
	assert_int_equal(clab_evset_start(ra.s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 100000), CLAB_OK);
	int64_t v[3], w[4] = {-1, -1, -1, -1};
	read_ok(ra.s, v); /* the virtual clock stands still between reads */
	assert_true(v[0] > 0 && v[1] > 0 && v[2] > 0);
	assert_int_equal(clab_evset_read_at(ra.s, w, perm), CLAB_OK);
	assert_true(w[2] == v[0] && w[0] == v[1] && w[3] == v[2] && w[1] == -1);

	ra.v[1] = -1;
	signal(SIGUSR1, on_read_at);
	clab_enter(NULL); /* the thread is inside a call */
	raise(SIGUSR1);
	clab_leave(CLAB_OK);
	assert_int_equal(ra.rc_read, CLAB_OK);
	assert_int_equal(ra.rc_reset, CLAB_OK);
	assert_memory_equal(ra.v, w, sizeof w);

	/* the reset there took the values it read off: nothing counted since */
	assert_int_equal(clab_evset_read_at(ra.s, w, perm), CLAB_OK);
	assert_true(w[0] == 0 && w[2] == 0 && w[3] == 0 && w[1] == -1);
	assert_int_equal(clab_thread_advance(t, 50000), CLAB_OK);
	read_ok(ra.s, v);
	assert_int_equal(clab_evset_read_at(ra.s, w, perm), CLAB_OK);
	assert_true(v[0] >= 50000 - 800 && w[2] == v[0] && w[0] == v[1] && w[3] == v[2]);
	clab_evset_destroy(ra.s);
	clab_thread_detach(t);
}

/* A set without events has no values to answer with, either way. */
static void test_empty_set(void **state)
{
	(void)state;
	clab_thread *t = attach_hw(m, 8);
	clab_evset *s = NULL;
	int64_t v[1] = {0};
	assert_int_equal(clab_evset_create(core, t, &s), CLAB_OK);
	assert_int_equal(clab_evset_reset(s), CLAB_OK);
	assert_int_equal(clab_evset_read(s, v), CLAB_E_STATE);
	clab_enter(NULL); /* as inside an interrupted call */
	assert_int_equal(clab_evset_reset(s), CLAB_OK);
	assert_int_equal(clab_evset_read(s, v), CLAB_E_STATE);
	assert_int_equal(clab_evset_accum(s, v), CLAB_E_STATE);
	clab_leave(CLAB_OK);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* An overflow handler runs inside the read whose clock move crossed the
 * threshold, and resets the set there: the values a later read from a
 * signal handler answers with are those of the last completed call, the
 * read that ran the handler (counted from the reset), never the ones from
 * before the reset. */
static struct {
	clab_evset *s;
	int resets;
	int64_t v[2];
	int rc;
} ov;

static void on_overflow(clab_evset *s, uint64_t vector, void *pc, void *uc, void *arg)
{
	(void)vector; (void)pc; (void)uc; (void)arg;
	ov.resets++;
	assert_int_equal(clab_evset_reset(s), CLAB_OK);
}

static void on_sample(int sig)
{
	(void)sig;
	ov.rc = clab_evset_read(ov.s, ov.v);
}

static void test_handler_inside_read(void **state)
{
	(void)state;
	memset(&ov, 0, sizeof ov);
	clab_machine *mt = open_machine("bgq:clock=virtual,tick=10000,activity=compute");
	clab_component *c = clab_machine_component(mt, "core");
	clab_thread *t = attach_hw(mt, 0);
	const char *ev[] = {"PEVT_CYCLES", "PEVT_INST_ALL"};
	assert_int_equal(program(c, t, &ov.s, ev, 2), CLAB_OK);
	assert_int_equal(clab_evset_overflow(ov.s, 0, 25000, on_overflow, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(ov.s), CLAB_OK);
	int64_t v[2];
	signal(SIGUSR1, on_sample);
	for (int r = 0; r < 12; r++) {
		read_ok(ov.s, v);
		assert_true(v[0] < 25000 + 10000); /* counted from the last reset */
		clab_enter(NULL); /* the thread is inside a call */
		raise(SIGUSR1);
		clab_leave(CLAB_OK);
		assert_int_equal(ov.rc, CLAB_OK);
		assert_memory_equal(ov.v, v, sizeof v);
	}
	assert_true(ov.resets >= 3);
	clab_evset_destroy(ov.s);
	clab_thread_detach(t);
	clab_machine_close(mt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interrupted_call),
		cmocka_unit_test(test_read_at),
		cmocka_unit_test(test_empty_set),
		cmocka_unit_test(test_handler_inside_read),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
