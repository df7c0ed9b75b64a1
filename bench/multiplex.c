/* Accuracy of multiplexed estimates, printed as one JSON object.
 *
 * 30 opcode events on one hardware thread take two groups (23 + 7, beside
 * each group's hidden cycle counter). Ground truth: the same events counted
 * without multiplexing, in two plain sets on other threads that run the
 * same activity for as long. Every run lasts R = 10.37 phase lengths.
 * Profiles: steady (constant rates) and phases (two phases of L = 10^7
 * cycles with different rates, alternating). Switch periods L/1 .. L/100.
 * Turns: "deadline" (groups change exactly every period, as
 * clab_thread_advance does on the virtual clock) and "jittered" (switches
 * by clab_evset_switch at period * U(0.7, 1.3), as a host timer delivers
 * them). For each run, the error of the normalized estimates (count *
 * cycles of all groups / cycles of the event's group) and of plain
 * round-robin scaling (count * number of groups, which assumes equal
 * slices), both from the same run's raw counts.
 * Targets: max error <= 1% steady, <= 5% phases at period L/20. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/counterlab.h"
#include "counterlab/sim.h"
#include "../tests/opcodes.h"

#define N 30
#define L 10000000ull            /* phase length of phases.ini */
#define R (L * 1037 / 100)       /* cycles of every run */

static const char *const *const names = clab_opcode_events;
static const int divisors[] = {1, 2, 5, 10, 20, 50, 100};
#define NDIV (int)(sizeof divisors / sizeof *divisors)

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "multiplex bench: %s: %s: %s\n", what, clab_strerror(rc),
			clab_errmsg());
		exit(1);
	}
}

static clab_machine *m;
static clab_component *core;
static int next_core; /* every run on a fresh core: its thread starts at 0 */

static clab_evset *make_set(clab_thread **t, uint64_t period, int from, int to)
{
	uint32_t codes[N];
	clab_evset *s;
	check(clab_thread_attach_at(m, 4 * next_core++, t), "attach");
	for (int i = from; i < to; i++)
		check(clab_event_lookup(core, names[i], &codes[i - from]), names[i]);
	check(clab_evset_create(core, *t, &s), "create");
	if (period)
		check(clab_evset_set_multiplex(s, period), "set_multiplex");
	check(clab_evset_program(s, codes, to - from), "program");
	return s;
}

static void truth(int64_t *v)
{
	clab_thread *ta, *tb;
	clab_evset *a = make_set(&ta, 0, 0, 23), *b = make_set(&tb, 0, 23, N);
	check(clab_evset_start(a), "start");
	check(clab_evset_start(b), "start");
	check(clab_thread_advance(ta, R), "advance");
	check(clab_thread_advance(tb, R), "advance");
	check(clab_evset_stop(a, v), "stop");
	check(clab_evset_stop(b, v + 23), "stop");
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / (double)(1ull << 53);
}

typedef struct errs { double max, mean; } errs;

static errs error(const int64_t *est, const int64_t *want)
{
	errs e = {0, 0};
	int n = 0;
	for (int i = 0; i < N; i++) {
		if (!want[i])
			continue;
		double d = fabs((double)est[i] - (double)want[i]) / (double)want[i];
		e.max = d > e.max ? d : e.max;
		e.mean += d;
		n++;
	}
	e.mean /= n ? n : 1;
	return e;
}

static int first = 1;
static int meets_all = 1;

static void run(const char *profile, int jitter, int div, const int64_t *want)
{
	uint64_t period = L / (uint64_t)div;
	clab_thread *t;
	/* jittered: the set never switches by itself, a "timer" switches it */
	clab_evset *s = make_set(&t, jitter ? UINT64_MAX / 4 : period, 0, N);
	check(clab_evset_start(s), "start");
	if (jitter) {
		uint64_t at = 0;
		for (;;) {
			uint64_t next = at + (uint64_t)((double)period * (0.7 + 0.6 * uniform()));
			if (next >= R)
				break;
			check(clab_thread_advance(t, next - at), "advance");
			check(clab_evset_switch(s), "switch");
			at = next;
		}
		check(clab_thread_advance(t, R - at), "advance");
	} else {
		check(clab_thread_advance(t, R), "advance");
	}
	int64_t norm[N], raw[N], rr[N];
	check(clab_evset_stop(s, norm), "stop");
	check(clab_evset_read_raw(s, raw), "read_raw");
	clab_mpx_stats st;
	check(clab_evset_mpx_stats(s, &st), "stats");
	for (int i = 0; i < N; i++)
		rr[i] = raw[i] * st.ngroups;
	errs en = error(norm, want), er = error(rr, want);
	double target = strcmp(profile, "steady") == 0 ? 0.01 : div == 20 ? 0.05 : -1;
	int meets = target < 0 || en.max <= target;
	meets_all &= meets;
	printf("%s{\"profile\":\"%s\",\"turns\":\"%s\",\"period\":%llu,\"period_of_phase\":\"1/%d\","
	       "\"groups\":%d,\"switches\":%llu,\"group_cycles\":[%llu,%llu],"
	       "\"normalized_max_err\":%.6f,\"normalized_mean_err\":%.6f,"
	       "\"roundrobin_max_err\":%.6f,\"roundrobin_mean_err\":%.6f",
	       first ? "" : ",", profile, jitter ? "jittered" : "deadline",
	       (unsigned long long)period, div, st.ngroups,
	       (unsigned long long)st.switches, (unsigned long long)st.cycles[0],
	       (unsigned long long)st.cycles[1], en.max, en.mean, er.max, er.mean);
	if (target >= 0)
		printf(",\"target\":%.2f,\"meets_target\":%s", target, meets ? "true" : "false");
	printf("}");
	first = 0;
	clab_evset_destroy(s);
}

int main(void)
{
	const char *profiles[] = {"steady", "phases"};
	printf("{\"benchmark\":\"multiplex\",\"events\":%d,\"run_cycles\":%llu,"
	       "\"phase_cycles\":%llu,\"error\":\"|estimate - truth| / truth over events with truth > 0\","
	       "\"cases\":[", N, (unsigned long long)R, (unsigned long long)L);
	for (int p = 0; p < 2; p++) {
		char spec[128];
		snprintf(spec, sizeof spec, "bgq:clock=virtual,tick=0,activity=%s", profiles[p]);
		check(clab_machine_open(spec, &m), spec);
		core = clab_machine_component(m, "core");
		if (!core)
			check(CLAB_E_NOCOMP, "core");
		next_core = 0;
		int64_t want[N];
		truth(want);
		for (int jitter = 0; jitter < 2; jitter++)
			for (int d = 0; d < NDIV; d++)
				run(profiles[p], jitter, divisors[d], want);
		clab_machine_close(m);
	}
	printf("],\"meets_targets\":%s}\n", meets_all ? "true" : "false");
	return 0;
}
