/* bench/overflow: what an overflow handler sees on the simulated BG/Q node,
 * and what one delivery costs.
 *
 * Skid: on the virtual clock, with threads doing explicit work at known
 * even rates, each handler call notes how far the count had passed its
 * threshold (events) and, for the slow L2 unit, how many cycles after the
 * crossing the handler ran (the crossing time follows from the work's
 * spread). Fast (PUnit) overflow at several event rates; slow (L2) with a
 * period that walks across the 800-cycle scan grid.
 *
 * Cost: time to advance the clock with an armed PUnit counter interrupting
 * every period, minus the same advance unarmed, per delivery; beside it, in
 * the same run, a bare signal round trip (pthread_kill to self, empty
 * SA_SIGINFO handler), the floor any signal-based delivery pays.
 *
 *   overflow [DELIVERIES]    prints one JSON object */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "counterlab/counterlab.h"
#include "counterlab/sim.h"

#define SCAN 800
#define MAXC 16 /* handler calls noted per run */

static uint64_t calls, overshoot[MAXC], when[MAXC];
static clab_thread *thr;

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "overflow: %s: %s\n", what, clab_errmsg());
	exit(1);
}

static void note(clab_evset *s, uint64_t vector, void *pc, void *uc, void *arg)
{
	(void)vector;
	(void)pc;
	(void)uc;
	(void)arg;
	int64_t v[1];
	if (clab_evset_read(s, v))
		die("read in handler");
	if (calls < MAXC) {
		overshoot[calls] = (uint64_t)v[0];
		when[calls] = clab_thread_now(thr);
	}
	calls++;
}

static void quiet(clab_evset *s, uint64_t vector, void *pc, void *uc, void *arg)
{
	(void)s, (void)vector, (void)pc, (void)uc, (void)arg;
	calls++;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static clab_evset *make(clab_machine *m, const char *comp, const char *ev)
{
	clab_component *c = clab_machine_component(m, comp);
	uint32_t code;
	clab_evset *s;
	if (!c || clab_event_lookup(c, ev, &code) || clab_evset_create(c, thr, &s) ||
	    clab_evset_add(s, code))
		die(ev);
	return s;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* "name":{count, mean, p50, p90, max, histogram of values 0..bins-1} */
static void dist(const char *name, uint64_t *v, uint64_t n, int width, int bins,
		 int last)
{
	uint64_t *hist = calloc((size_t)bins, sizeof *hist);
	double sum = 0;
	for (uint64_t i = 0; i < n; i++) {
		sum += (double)v[i];
		uint64_t b = v[i] / (uint64_t)width;
		hist[b < (uint64_t)bins ? b : (uint64_t)bins - 1]++;
	}
	qsort(v, n, sizeof *v, cmp_u64);
	printf("\"%s\":{\"n\":%llu,\"mean\":%.2f,\"p50\":%llu,\"p90\":%llu,\"max\":%llu,"
	       "\"bin_width\":%d,\"histogram\":[", name, (unsigned long long)n,
	       n ? sum / (double)n : 0.0, (unsigned long long)(n ? v[n / 2] : 0),
	       (unsigned long long)(n ? v[n * 9 / 10] : 0),
	       (unsigned long long)(n ? v[n - 1] : 0), width);
	for (int b = 0; b < bins; b++)
		printf("%s%llu", b ? "," : "", (unsigned long long)hist[b]);
	printf("]}%s", last ? "" : ",");
	free(hist);
}

/* First overflows of `ev` counted at `rate` events per cycle, over `runs`
 * runs whose thresholds (500 + 7 i) put the crossing at every phase of the
 * scan grid and of the events' cadence: events past the threshold when the
 * handler read, and cycles from the crossing to the handler. */
static void skid(clab_machine *m, const char *comp, const char *ev, double rate,
		 int runs, int lat_width, int last)
{
	clab_evset *s = make(m, comp, ev);
	static uint64_t over[1000], lat[1000];
	int two = strcmp(ev, "PEVT_L2_MISSES") == 0, k = 0;
	for (int i = 0; i < runs && i < 1000; i++) {
		uint64_t P = 500 + 7 * (uint64_t)i;
		uint64_t L = (uint64_t)((double)P / rate) + 2 * SCAN;
		uint64_t n = (uint64_t)(rate * (double)L);
		const char *names[] = {ev, "PEVT_L1P_BAS_MISS"};
		uint64_t counts[] = {n, n};
		if (clab_evset_overflow(s, 0, P, note, NULL) || clab_evset_start(s))
			die("arm");
		calls = 0;
		uint64_t t0 = clab_thread_now(thr);
		if (clab_thread_work(thr, L, names, counts, two ? 2 : 1))
			die("work");
		clab_evset_stop(s, NULL);
		if (!calls)
			die("no overflow");
		uint64_t tc = t0 + (P * L + n - 1) / n; /* the work reaches P here */
		over[k] = overshoot[0] - P;
		lat[k++] = when[0] - tc;
	}
	printf("\"%s\":{\"unit\":\"%s\",\"rate\":%.4f,\"runs\":%d,", ev, comp, rate, k);
	dist("overshoot_events", over, (uint64_t)k, 1, lat_width > 1 ? 200 : 6, 0);
	dist("latency_cycles", lat, (uint64_t)k, lat_width, lat_width > 1 ? SCAN / lat_width : 6, 1);
	printf("}%s", last ? "" : ",");
	clab_evset_destroy(s);
}

static volatile sig_atomic_t got;
static void bare(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	got++;
}

static double bare_signal_ns(int n)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = bare;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 5, &sa, NULL);
	double t = now_s();
	for (int i = 0; i < n; i++)
		pthread_kill(pthread_self(), SIGRTMIN + 5);
	return (now_s() - t) * 1e9 / n;
}

static double advance_s(clab_evset *s, uint64_t cycles)
{
	if (clab_evset_start(s))
		die("start");
	double t = now_s();
	if (clab_thread_advance(thr, cycles))
		die("advance");
	t = now_s() - t;
	clab_evset_stop(s, NULL);
	return t;
}

int main(int argc, char **argv)
{
	int deliveries = argc > 1 ? atoi(argv[1]) : 50000;
	if (deliveries < 1000)
		deliveries = 1000;
	clab_machine *m;
	if (clab_machine_open("bgq:clock=virtual,tick=0,activity=none", &m) ||
	    clab_thread_attach(m, &thr))
		die("open");
	printf("{\"benchmark\":\"overflow\",\"machine_spec\":\"bgq:clock=virtual,tick=0,activity=none\","
	       "\"overshoot\":\"events past the threshold the handler read\","
	       "\"latency\":\"cycles from the crossing to the handler\",\"fast\":[{");
	skid(m, "core", "PEVT_INST_XU_ICMP", 1.0, 400, 1, 1);
	printf("},{");
	skid(m, "core", "PEVT_INST_XU_IADD", 0.61, 400, 1, 1);
	printf("},{");
	skid(m, "core", "PEVT_INST_XU_ILOG", 0.15, 400, 1, 1);
	printf("}],\"slow\":[{");
	skid(m, "l2", "PEVT_L2_MISSES", 0.2061725, 400, 50, 1);
	printf("}]");
	/* cost: the same advance with and without an interrupt every P cycles */
	const uint64_t P = 1000;
	uint64_t cycles = (uint64_t)deliveries * (P + 4);
	clab_evset *s = make(m, "core", "PEVT_CYCLES");
	double best_plain = 1e9, best_armed = 1e9, best_sig = 1e9;
	uint64_t delivered = 0;
	for (int rep = 0; rep < 5; rep++) {
		double plain = advance_s(s, cycles);
		if (clab_evset_overflow(s, 0, P, quiet, NULL))
			die("arm");
		calls = 0;
		double armed = advance_s(s, cycles);
		delivered = calls;
		clab_evset_overflow(s, 0, 0, NULL, NULL);
		double sig = bare_signal_ns(deliveries);
		best_plain = plain < best_plain ? plain : best_plain;
		best_armed = armed < best_armed ? armed : best_armed;
		best_sig = sig < best_sig ? sig : best_sig;
	}
	double per = (best_armed - best_plain) * 1e9 / (double)delivered;
	printf(",\"cost\":{\"deliveries\":%llu,\"advance_plain_s\":%.4f,\"advance_armed_s\":%.4f,"
	       "\"delivery_ns\":%.1f,\"bare_signal_ns\":%.1f,\"ratio_to_bare_signal\":%.2f,"
	       "\"method\":\"best of 5: (armed - plain advance) / deliveries; bare = pthread_kill to self, empty handler\"}}\n",
	       (unsigned long long)delivered, best_plain, best_armed, per, best_sig,
	       per / best_sig);
	clab_evset_destroy(s);
	clab_machine_close(m);
	return 0;
}
