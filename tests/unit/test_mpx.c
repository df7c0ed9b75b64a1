/* Multiplexing on the simulated BG/Q processor unit: first-fit packing with
 * a hidden cycle counter (groups of 23, 11 or 5 user events), round-robin
 * turns exactly every period on the virtual clock, normalized estimates
 * that equal separately measured counts for constant rates, raw counts,
 * statistics, on-demand and refused switches, and errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "../opcodes.h"

#define P 1000000 /* period: whole counts per turn for the compute rates */

static clab_machine *m;
static clab_component *core;

static int setup_each(void **state)
{
	(void)state;
	m = open_machine("bgq:clock=virtual,tick=0,activity=compute");
	core = clab_machine_component(m, "core");
	return core ? 0 : -1;
}

static int teardown_each(void **state)
{
	(void)state;
	clab_machine_close(m);
	return 0;
}


static clab_thread *hw(int core_, int smt) { return attach_hw(m, core_ * 4 + smt); }

/* A multiplexed set of names[0..n) on thread t. */
static clab_evset *mpx_set(clab_thread *t, uint64_t period,
			   const char *const *names, int n)
{
	clab_evset *s = NULL;
	assert_int_equal(clab_evset_create(core, t, &s), CLAB_OK);
	assert_int_equal(clab_evset_set_multiplex(s, period), CLAB_OK);
	int rc = program(core, t, &s, names, n);
	if (rc)
		fail_msg("program %d events: %s", n, clab_errmsg());
	return s;
}

static void stats(clab_evset *s, clab_mpx_stats *st)
{
	assert_int_equal(clab_evset_mpx_stats(s, st), CLAB_OK);
}

/* 30 events: 23 + the hidden cycles fill all 24 counters, 7 go on. */
static void packs_23_and_7(void **state)
{
	(void)state;
	clab_thread *t = hw(0, 0);
	clab_evset *s = mpx_set(t, P, clab_opcode_events, 30);
	clab_mpx_stats st;
	stats(s, &st);
	assert_int_equal(st.ngroups, 2);
	assert_int_equal(st.nevents[0], 23);
	assert_int_equal(st.nevents[1], 7);
	for (int i = 0; i < 30; i++)
		assert_int_equal(st.group_of[i], i < 23 ? 0 : 1);
	/* the first group holds every counter, one of them for the cycles */
	uint64_t used = 0;
	for (int i = 0; i < 30; i++)
		used |= clab_evset_counters(s, i);
	assert_int_equal(__builtin_popcountll(used), 23);
	assert_int_equal(clab_evset_counters(s, 29), 0); /* waits its turn */
	uint64_t period;
	assert_int_equal(clab_evset_get_multiplex(s, &period), CLAB_OK);
	assert_int_equal(period, P);
	clab_evset_destroy(s);
}

/* A cap on a group's events (as BGPM's events-per-group): 30 events in
 * groups of at most 5 where the counters would take 23; only on a
 * multiplexed, stopped set. */
static void packs_by_cap(void **state)
{
	(void)state;
	clab_thread *t = hw(3, 0);
	clab_evset *s = NULL;
	assert_int_equal(clab_evset_create(core, t, &s), CLAB_OK);
	assert_int_equal(clab_evset_set_mpx_group_max(s, 5), CLAB_E_STATE); /* not multiplexed */
	assert_int_equal(clab_evset_set_multiplex(s, P), CLAB_OK);
	assert_int_equal(clab_evset_set_mpx_group_max(s, -1), CLAB_E_INVAL);
	assert_int_equal(clab_evset_set_mpx_group_max(s, 5), CLAB_OK);
	assert_int_equal(program(core, t, &s, clab_opcode_events, 30), CLAB_OK);
	clab_mpx_stats st;
	stats(s, &st);
	assert_int_equal(st.ngroups, 6);
	for (int i = 0; i < 30; i++)
		assert_int_equal(st.group_of[i], i / 5);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_set_mpx_group_max(s, 11), CLAB_E_STATE); /* running */
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	clab_evset_destroy(s);
}

/* Sibling threads holding counter groups shrink what a group may borrow:
 * own group only -> 5 events a group, own + sibling -> 11. */
static void packs_by_free_groups(void **state)
{
	(void)state;
	const char *one[] = {"PEVT_INST_XU_IADD"};
	clab_thread *t0 = hw(1, 0), *t1 = hw(1, 1), *t2 = hw(1, 2);
	clab_evset *sib = NULL, *far = NULL;
	assert_int_equal(program(core, t1, &sib, one, 1), CLAB_OK);
	clab_evset *s = mpx_set(t0, P, clab_opcode_events, 30);
	clab_mpx_stats st;
	stats(s, &st);
	assert_int_equal(st.ngroups, 6);
	for (int g = 0; g < 6; g++)
		assert_int_equal(st.nevents[g], 5);
	clab_evset_destroy(s);
	clab_evset_destroy(sib);
	/* thread 2 holds its group: thread 0 still has its sibling's */
	assert_int_equal(program(core, t2, &far, one, 1), CLAB_OK);
	s = mpx_set(t0, P, clab_opcode_events, 30);
	stats(s, &st);
	assert_int_equal(st.ngroups, 3);
	assert_int_equal(st.nevents[0], 11);
	assert_int_equal(st.nevents[1], 11);
	assert_int_equal(st.nevents[2], 8);
	clab_evset_destroy(s);
	clab_evset_destroy(far);
}

/* Conflicts push an event on to the next group: a thread's counters carry
 * four XU signal events at most (one counter per A2 signal). */
static void packs_around_conflicts(void **state)
{
	(void)state;
	const char *xu[] = {"PEVT_XU_THRD_RUNNING", "PEVT_XU_TIMEBASE_TICK",
			    "PEVT_XU_SPR_READ_COMMIT", "PEVT_XU_SPR_WRITE_COMMIT",
			    "PEVT_XU_STALLED_ON_WAITRSV", "PEVT_INST_XU_IADD"};
	clab_evset *s = mpx_set(hw(2, 0), P, xu, 6);
	clab_mpx_stats st;
	stats(s, &st);
	assert_int_equal(st.ngroups, 2);
	int want[] = {0, 0, 0, 0, 1, 0}; /* first fit: IADD joins group 0 */
	for (int i = 0; i < 6; i++)
		assert_int_equal(st.group_of[i], want[i]);
	/* presets keep their terms in one group */
	const char *mix[] = {"PAPI_FP_OPS", "PAPI_TOT_INS", "PAPI_BR_CN"};
	clab_evset *p = mpx_set(hw(3, 0), P, mix, 3);
	stats(p, &st);
	assert_int_equal(st.ngroups, 1);
	clab_evset_destroy(p);
	clab_evset_destroy(s);
}

/* Ground truth: the same events counted without multiplexing, on other
 * cores whose threads run the same constant-rate profile as long. */
static void truth(int ncycles, int64_t *out)
{
	clab_evset *a = NULL, *b = NULL;
	clab_thread *ta = hw(14, 0), *tb = hw(15, 0);
	assert_int_equal(program(core, ta, &a, clab_opcode_events, 23), CLAB_OK);
	assert_int_equal(program(core, tb, &b, clab_opcode_events + 23, 7), CLAB_OK);
	assert_int_equal(clab_evset_start(a), CLAB_OK);
	assert_int_equal(clab_evset_start(b), CLAB_OK);
	assert_int_equal(clab_thread_advance(ta, (uint64_t)ncycles), CLAB_OK);
	assert_int_equal(clab_thread_advance(tb, (uint64_t)ncycles), CLAB_OK);
	assert_int_equal(clab_evset_stop(a, out), CLAB_OK);
	assert_int_equal(clab_evset_stop(b, out + 23), CLAB_OK);
	clab_evset_destroy(a);
	clab_evset_destroy(b);
}

/* Constant rates: normalized estimates equal the separate counts exactly,
 * also when the run ends inside a turn; raw counts are each group's share. */
static void estimates_exact(void **state)
{
	(void)state;
	const int run = 10 * P + P / 2; /* group 0: 5.5 periods, group 1: 5 */
	int64_t want[30], got[30], raw[30];
	truth(run, want);
	assert_int_equal(want[0], 150000 * 21 / 2); /* IADD at 0.15 a cycle */
	clab_thread *t = hw(4, 0);
	clab_evset *s = mpx_set(t, P, clab_opcode_events, 30);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	/* uneven steps: the advance stops at every deadline on the way */
	for (int done = 0; done < run;) {
		int step = done + 300001 < run ? 300001 : run - done;
		assert_int_equal(clab_thread_advance(t, (uint64_t)step), CLAB_OK);
		done += step;
	}
	assert_int_equal(clab_evset_stop(s, got), CLAB_OK);
	assert_memory_equal(got, want, sizeof want);
	assert_int_equal(clab_evset_read_raw(s, raw), CLAB_OK);
	assert_int_equal(raw[0], want[0] * 11 / 21);  /* 5.5 of 10.5 periods */
	assert_int_equal(raw[29], want[29] * 10 / 21); /* 5 of 10.5 */
	clab_mpx_stats st;
	stats(s, &st);
	assert_int_equal(st.switches, 10);
	assert_int_equal(st.failed_switches, 0);
	assert_int_equal(st.cycles[0], 5 * P + P / 2);
	assert_int_equal(st.cycles[1], 5 * P);
	assert_int_equal(st.turns[0], 6);
	assert_int_equal(st.turns[1], 5);
	assert_int_equal(st.elapsed, (uint64_t)run);
	clab_evset_destroy(s);
}

/* Presets through groups: derived events fold scaled terms; a preset
 * whose native a group already counts (even its hidden cycles) joins it. */
static void presets_exact(void **state)
{
	(void)state;
	const char *ev[] = {"PAPI_FP_OPS", "PAPI_TOT_INS", "PAPI_L1_DCM",
			    "PAPI_BR_CN", "PAPI_TOT_CYC"};
	clab_evset *ref = NULL, *s;
	clab_thread *tr = hw(13, 0), *t = hw(5, 0);
	assert_int_equal(program(core, tr, &ref, ev, 5), CLAB_OK);
	/* 23 opcode events fill group 0 */
	const char *all[28];
	memcpy(all, clab_opcode_events, 23 * sizeof *all);
	memcpy(all + 23, ev, sizeof ev);
	s = mpx_set(t, P, all, 28);
	clab_mpx_stats st;
	stats(s, &st);
	assert_int_equal(st.ngroups, 2);
	int want_group[] = {1, 1, 1, 0, 0};
	for (int i = 0; i < 5; i++)
		assert_int_equal(st.group_of[23 + i], want_group[i]);
	clab_evset_start(ref);
	clab_evset_start(s);
	clab_thread_advance(tr, 7 * P);
	clab_thread_advance(t, 7 * P);
	int64_t want[5], got[28];
	clab_evset_stop(ref, want);
	clab_evset_stop(s, got);
	assert_memory_equal(got + 23, want, sizeof want);
	assert_int_equal(got[27], 7 * P);
	clab_evset_destroy(ref);
	clab_evset_destroy(s);
}

/* Turns go round-robin over three groups; reset clears the counts. */
static void round_robin_and_reset(void **state)
{
	(void)state;
	clab_thread *t0 = hw(6, 0), *t2 = hw(6, 2);
	const char *one[] = {"PEVT_INST_XU_IADD"};
	clab_evset *far = NULL;
	assert_int_equal(program(core, t2, &far, one, 1), CLAB_OK);
	clab_evset *s = mpx_set(t0, P, clab_opcode_events, 30); /* 11, 11, 8 */
	clab_mpx_stats st;
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	int order[] = {1, 2, 0, 1, 2, 0, 1};
	for (int k = 0; k < 7; k++) {
		clab_thread_advance(t0, P);
		stats(s, &st);
		assert_int_equal(st.current, order[k]);
		assert_int_equal(st.switches, (uint64_t)k + 1);
	}
	assert_int_equal(clab_evset_reset(s), CLAB_OK);
	int64_t v[30];
	assert_int_equal(clab_evset_read(s, v), CLAB_OK);
	for (int i = 0; i < 30; i++)
		assert_int_equal(v[i], 0);
	stats(s, &st);
	assert_int_equal(st.elapsed, 0);
	clab_thread_advance(t0, 3 * P);
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	assert_int_equal(v[0], 150000 * 3); /* IADD at 0.15 over 3 periods */
	stats(s, &st);
	assert_int_equal(st.current, 1);
	/* every run begins with the first group */
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	stats(s, &st);
	assert_int_equal(st.current, 0);
	assert_int_equal(st.switches, 0);
	assert_int_equal(st.turns[0], 1);
	assert_int_equal(st.turns[1], 0);
	clab_evset_destroy(s);
	clab_evset_destroy(far);
}

/* clab_evset_switch changes group at once and restarts the period; work
 * segments are atomic, so a switch due inside one comes at its end. */
static void on_demand_and_work(void **state)
{
	(void)state;
	clab_thread *t = hw(7, 0);
	clab_evset *s = mpx_set(t, P, clab_opcode_events, 30);
	clab_mpx_stats st;
	assert_int_equal(clab_evset_switch(s), CLAB_E_STATE); /* not running */
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	clab_thread_advance(t, P / 4);
	assert_int_equal(clab_evset_switch(s), CLAB_OK);
	stats(s, &st);
	assert_int_equal(st.current, 1);
	assert_int_equal(st.switches, 1);
	assert_int_equal(st.cycles[0], P / 4);
	clab_thread_advance(t, P - 1); /* the period restarted at the switch */
	stats(s, &st);
	assert_int_equal(st.current, 1);
	const char *names[] = {"PEVT_INST_XU_IADD"};
	uint64_t counts[] = {1000};
	assert_int_equal(clab_thread_work(t, 3 * P, names, counts, 1), CLAB_OK);
	stats(s, &st);
	assert_int_equal(st.current, 0);
	assert_int_equal(st.switches, 2);
	int64_t v[30];
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	stats(s, &st);
	assert_int_equal(st.cycles[1], 4 * P - 1);
	assert_int_equal(st.elapsed, P / 4 + 4 * P - 1);
	clab_evset_destroy(s);
}

/* Between turns the counters belong to nobody: another thread may take
 * them, and the group that needs them is then refused; the group counting
 * keeps counting, the refusal is counted, and estimates follow the cycles
 * each group really had. */
static void refused_switch(void **state)
{
	(void)state;
	clab_thread *t0 = hw(8, 0), *t2 = hw(8, 2);
	clab_evset *s = mpx_set(t0, P, clab_opcode_events, 30);
	clab_evset *other = NULL;
	const char *one[] = {"PEVT_INST_XU_IADD"};
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	/* group 0 holds all four counter groups: t2 may plan, not start */
	assert_int_equal(program(core, t2, &other, one, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(other), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "hardware thread 32"));
	clab_thread_advance(t0, P); /* group 1: 8 counters, own + sibling's */
	assert_int_equal(clab_evset_start(other), CLAB_OK);
	clab_thread_advance(t0, 2 * P);
	clab_mpx_stats st;
	stats(s, &st);
	assert_int_equal(st.current, 1);
	assert_int_equal(st.switches, 1);
	assert_int_equal(st.failed_switches, 2);
	assert_int_equal(clab_evset_switch(s), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "hardware thread 34 (PEVT_INST_XU_IADD)"));
	clab_evset_destroy(other);
	clab_thread_advance(t0, P); /* free again: group 0's turn */
	stats(s, &st);
	assert_int_equal(st.current, 0);
	int64_t v[30];
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	stats(s, &st);
	assert_int_equal(st.cycles[0], P);
	assert_int_equal(st.cycles[1], 3 * P);
	assert_int_equal(v[0], 150000 * 4);   /* IADD, group 0 */
	assert_int_equal(v[26], 100000 * 4);  /* QMA at 0.10, group 1 */
	clab_evset_destroy(s);
}

/* With tick, a read lets the thread run tick cycles, and the turns fall
 * inside that run as they would in clab_thread_advance. */
static void reads_tick_through_turns(void **state)
{
	(void)state;
	clab_machine *mt = open_machine("bgq:clock=virtual,tick=2500000,activity=compute");
	clab_component *c = clab_machine_component(mt, "core");
	clab_thread *t = attach_hw(mt, 0);
	clab_evset *s = NULL;
	assert_int_equal(clab_evset_create(c, t, &s), CLAB_OK);
	assert_int_equal(clab_evset_set_multiplex(s, P), CLAB_OK);
	assert_int_equal(program(c, t, &s, clab_opcode_events, 30), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	int64_t v[30];
	assert_int_equal(clab_evset_read(s, v), CLAB_OK);
	assert_int_equal(clab_thread_now(t), 2500000);
	clab_mpx_stats st;
	assert_int_equal(clab_evset_mpx_stats(s, &st), CLAB_OK);
	assert_int_equal(st.switches, 2);
	assert_int_equal(st.current, 0);
	/* reads lag by up to one 800-cycle scan, estimates with them */
	assert_true(v[0] <= 150000 * 25 / 10 && v[0] > 150000 * 25 / 10 - 2 * 800);
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	assert_int_equal(v[0], 150000 * 25 / 10); /* stop adds no tick */
	clab_evset_destroy(s);
	clab_machine_close(mt);
}

/* Bad uses fail with a message and leave the set as it was. */
static void errors(void **state)
{
	(void)state;
	clab_thread *t = hw(9, 0);
	clab_evset *s = NULL;
	assert_int_equal(program(core, t, &s, clab_opcode_events, 10), CLAB_OK);
	assert_int_equal(clab_evset_set_multiplex(s, 10), CLAB_E_INVAL);
	assert_non_null(strstr(clab_errmsg(), "floor"));
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_set_multiplex(s, P), CLAB_E_STATE);
	assert_non_null(strstr(clab_errmsg(), "stopped"));
	assert_int_equal(clab_evset_switch(s), CLAB_E_STATE);
	assert_non_null(strstr(clab_errmsg(), "not multiplexed"));
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	/* on and off again around a plain set */
	assert_int_equal(clab_evset_set_multiplex(s, P), CLAB_OK);
	assert_int_equal(program(core, t, &s, clab_opcode_events, 30), CLAB_OK);
	assert_int_equal(clab_evset_set_multiplex(s, 0), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "multiplexing stays on"));
	uint64_t period;
	clab_evset_get_multiplex(s, &period);
	assert_int_equal(period, P);
	assert_int_equal(program(core, t, &s, clab_opcode_events, 10), CLAB_OK);
	assert_int_equal(clab_evset_set_multiplex(s, 0), CLAB_OK);
	clab_evset_get_multiplex(s, &period);
	assert_int_equal(period, 0);
	assert_int_equal(__builtin_popcountll(clab_evset_counters(s, 9)), 1);
	assert_int_equal(program(core, t, &s, clab_opcode_events, 30), CLAB_E_CONFLICT);
	clab_evset_destroy(s);
	/* units that cannot multiplex say so */
	clab_component *l2 = clab_machine_component(m, "l2");
	clab_evset *n = NULL;
	assert_int_equal(clab_evset_create(l2, t, &n), CLAB_OK);
	assert_int_equal(clab_evset_set_multiplex(n, P), CLAB_E_NOSUPP);
	assert_non_null(strstr(clab_errmsg(), "l2"));
	assert_non_null(strstr(clab_errmsg(), "cannot multiplex"));
	clab_evset_get_multiplex(n, &period);
	assert_int_equal(period, 0);
	clab_evset_destroy(n);
	/* an event no group can take is refused, the set unchanged */
	clab_thread *t1 = hw(9, 1);
	const char *busy[] = {"PEVT_INST_XU_IADD", "PEVT_XU_PROC_BUSY"};
	clab_evset *sib = NULL, *x = NULL;
	assert_int_equal(program(core, t1, &sib, busy, 1), CLAB_OK);
	x = mpx_set(t, P, busy, 1);
	assert_int_equal(program(core, t, &x, busy, 2), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "PEVT_XU_PROC_BUSY"));
	assert_int_equal(clab_evset_size(x), 1);
	assert_int_equal(clab_evset_start(x), CLAB_OK);
	clab_evset_destroy(x);
	clab_evset_destroy(sib);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(packs_23_and_7, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(packs_by_cap, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(packs_by_free_groups, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(packs_around_conflicts, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(estimates_exact, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(presets_exact, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(round_robin_and_reset, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(on_demand_and_work, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(refused_switch, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(reads_tick_through_turns, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(errors, setup_each, teardown_each),
	};
	return cmocka_run_group_tests_name("mpx", tests, NULL, NULL);
}
