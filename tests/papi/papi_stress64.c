/* 64 threads at once, each doing a seeded random walk of PAPI calls on
 * several event sets of its own (create, add, remove, start, stop, read,
 * reset, accum, destroy) while the machine runs, and a process-wide
 * SIGPROF sampler reading each thread's probe set (a set of a component
 * the walk leaves alone, running from the thread's start). Threads end by
 * cleaning up and unregistering, by leaving their sets stopped, or by
 * leaving them running and exiting without a word to PAPI.
 *
 * Verdicts, per profile (each in a child; the parent's alarm turns a hang
 * into a failure): no crash, no hang; every call returns what the state
 * of the set and thread call for, the documented refusals included (a
 * second running set of a component in a thread: PAPI_EISRUN; a stopped
 * one stopped again: PAPI_ENOTRUN; counters held by other threads' sets:
 * PAPI_ECNFLCT at start; a thread beyond the node's hardware threads:
 * PAPI_ECNFLCT at registration, until one leaves); a running set's counts
 * never decrease between two reads of the same reader. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <counterlab/sim.h>
#include "check.h"

enum { NTHREADS = 64, OPS = 10000, NSETS = 4, MAXEV = 4, NCOMP = 3, LIMIT_S = 300 };

typedef struct comp {
	const char *ev[MAXEV];
} comp;

typedef struct profile {
	const char *spec;
	comp probe;          /* read by the sampler */
	comp walk[NCOMP];    /* the random walk's components */
	int advance;         /* virtual clock: the walk runs the machine */
	const char *traffic; /* or sends this now and then */
} profile;

static const profile profiles[] = {
	{"bgq:clock=virtual", .probe = {{"l2:::PEVT_L2_HITS", "l2:::PEVT_L2_MISSES", "l2:::L2_ACCESSES"}},
	 .walk = {{{"PAPI_TOT_CYC", "PAPI_TOT_INS", "PEVT_L1P_BAS_MISS", "PEVT_INST_XU_IADD"}},
		  {{"kernel:::PEVT_CNKHWT_FIT", "kernel:::PEVT_CNKHWT_SYSCALL"}},
		  {{"io:::PEVT_MU_PKT_INJ", "io:::PEVT_MU_MSG_INJ"}}},
	 .advance = 1},
	{"bgq:clock=host", .probe = {{"l2:::PEVT_L2_HITS", "l2:::PEVT_L2_MISSES", "l2:::L2_ACCESSES"}},
	 .walk = {{{"PAPI_TOT_CYC", "PAPI_TOT_INS", "PEVT_L1P_BAS_MISS", "PEVT_INST_XU_IADD"}},
		  {{"kernel:::PEVT_CNKHWT_FIT", "kernel:::PEVT_CNKHWT_SYSCALL"}},
		  {{"io:::PEVT_MU_PKT_INJ", "io:::PEVT_MU_MSG_INJ"}}}},
	{"gemini", .probe = {{"network:::TILE_VC0_PHITS", "network:::TILE_VC0_PKTS"}},
	 .walk = {{{"io:::rchar", "io:::wchar"}}},
	 .traffic = "pingpong:a=0,b=32,bytes=8,iters=3"},
	{"host", .probe = {{"kernel:::perf::PAGE-FAULTS", "kernel:::perf::CONTEXT-SWITCHES"}},
	 .walk = {{{"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CPU-CLOCK"}},
		  {{"io:::rchar", "io:::wchar"}}}},
};

static int count(const char *const *names)
{
	return count_names(names, MAXEV);
}

typedef struct pset {
	int es, comp, n;
	int ev[MAXEV];  /* event indices into the component's list */
	int running;
	long long last[MAXEV];
} pset;

typedef struct tstate {
	const profile *p;
	int idx, registered, refused;
	unsigned seed;
	pset set[NSETS];
	int nsets;
	int probe, nprobe;
	long long hlast[MAXEV], tlast[MAXEV]; /* probe: the sampler's, the thread's */
	volatile int ready;
	volatile long samples;
	int fail_line, fail_rc;
	char fail[256];
} tstate;

static __thread tstate *me;

#define FAILED(t, rc_, ...) do { if (!(t)->fail_line) { \
	(t)->fail_line = __LINE__; (t)->fail_rc = (rc_); \
	snprintf((t)->fail, sizeof (t)->fail, __VA_ARGS__); } } while (0)

static void on_sample(int sig)
{
	(void)sig;
	int saved = errno;
	tstate *t = me;
	if (t && t->ready) {
		long long v[MAXEV];
		int rc = PAPI_read(t->probe, v);
		if (rc != PAPI_OK)
			t->fail_rc = rc, t->fail_line = t->fail_line ? t->fail_line : __LINE__;
		for (int i = 0; rc == PAPI_OK && i < t->nprobe; i++) {
			if (v[i] < t->hlast[i] && !t->fail_line) {
				t->fail_line = __LINE__;
				t->fail_rc = i;
			}
			t->hlast[i] = v[i];
		}
		t->samples++;
	}
	errno = saved;
}

static const char *name_of(const tstate *t, const pset *s, int k)
{
	return t->p->walk[s->comp].ev[s->ev[k]];
}

/* Whether the thread runs another set of s's component. */
static int comp_busy(const tstate *t, const pset *s)
{
	for (int i = 0; i < t->nsets; i++)
		if (&t->set[i] != s && t->set[i].running && t->set[i].comp == s->comp)
			return 1;
	return 0;
}

static void expect(tstate *t, int rc, int want, int also, const char *what, const pset *s)
{
	if (rc != want && rc != also)
		FAILED(t, rc, "%s on a set of %d events%s: %s, want %s", what, s ? s->n : 0,
		       s && s->running ? " (running)" : "", PAPI_strerror(rc), PAPI_strerror(want));
}

static void check_read(tstate *t, pset *s)
{
	long long v[MAXEV];
	int rc = PAPI_read(s->es, v);
	expect(t, rc, PAPI_OK, PAPI_OK, "read", s);
	if (rc != PAPI_OK || !s->running)
		return;
	for (int k = 0; k < s->n; k++) {
		if (v[k] < s->last[k])
			FAILED(t, 0, "%s went from %lld to %lld", name_of(t, s, k), s->last[k], v[k]);
		s->last[k] = v[k];
	}
}

static void drop(tstate *t, int i)
{
	pset *s = &t->set[i];
	long long v[MAXEV];
	if (s->running)
		expect(t, PAPI_stop(s->es, v), PAPI_OK, PAPI_OK, "stop", s);
	expect(t, PAPI_cleanup_eventset(s->es), PAPI_OK, PAPI_OK, "cleanup", s);
	expect(t, PAPI_destroy_eventset(&s->es), PAPI_OK, PAPI_OK, "destroy", s);
	t->set[i] = t->set[--t->nsets];
}

static void step(tstate *t)
{
	const profile *p = t->p;
	int ncomp = 0;
	while (ncomp < NCOMP && p->walk[ncomp].ev[0])
		ncomp++;
	int op = rand_r(&t->seed) % 11;
	pset *s = t->nsets ? &t->set[rand_r(&t->seed) % t->nsets] : NULL;
	long long v[MAXEV];
	int rc;
	if (op == 0 || !s) { /* a new set with one event */
		if (t->nsets == NSETS)
			return;
		pset *n = &t->set[t->nsets];
		memset(n, 0, sizeof *n);
		n->es = PAPI_NULL;
		n->comp = rand_r(&t->seed) % ncomp;
		expect(t, PAPI_create_eventset(&n->es), PAPI_OK, PAPI_OK, "create", NULL);
		n->ev[0] = rand_r(&t->seed) % count(p->walk[n->comp].ev);
		rc = PAPI_add_named_event(n->es, p->walk[n->comp].ev[n->ev[0]]);
		expect(t, rc, PAPI_OK, PAPI_OK, "add", n);
		n->n = 1;
		t->nsets++;
		return;
	}
	int nev = count(p->walk[s->comp].ev);
	switch (op) {
	case 1: { /* add an event it lacks */
		int e = rand_r(&t->seed) % nev, dup = 0;
		for (int k = 0; k < s->n; k++)
			dup |= s->ev[k] == e;
		if (dup)
			return;
		rc = PAPI_add_named_event(s->es, p->walk[s->comp].ev[e]);
		expect(t, rc, s->running ? PAPI_EISRUN : PAPI_OK, PAPI_ECNFLCT, "add", s);
		if (rc == PAPI_OK) {
			s->ev[s->n] = e;
			s->last[s->n++] = 0;
		}
		return;
	}
	case 2: { /* remove one, keeping one */
		if (s->n < 2)
			return;
		int k = rand_r(&t->seed) % s->n;
		rc = PAPI_remove_named_event(s->es, name_of(t, s, k));
		expect(t, rc, s->running ? PAPI_EISRUN : PAPI_OK, PAPI_OK, "remove", s);
		if (rc == PAPI_OK) {
			s->ev[k] = s->ev[s->n - 1];
			s->last[k] = s->last[s->n - 1];
			s->n--;
		}
		return;
	}
	case 3: /* start */
		rc = PAPI_start(s->es);
		if (s->running || comp_busy(t, s))
			expect(t, rc, PAPI_EISRUN, PAPI_EISRUN, "start", s);
		else
			expect(t, rc, PAPI_OK, PAPI_ECNFLCT, "start", s);
		if (rc == PAPI_OK) {
			s->running = 1;
			memset(s->last, 0, sizeof s->last);
		}
		return;
	case 4: /* stop */
		rc = PAPI_stop(s->es, v);
		expect(t, rc, s->running ? PAPI_OK : PAPI_ENOTRUN, PAPI_OK, "stop", s);
		for (int k = 0; rc == PAPI_OK && k < s->n; k++)
			if (v[k] < s->last[k])
				FAILED(t, 0, "%s stopped at %lld after a read of %lld", name_of(t, s, k),
				       v[k], s->last[k]);
		s->running = 0;
		return;
	case 5: case 6:
		check_read(t, s);
		return;
	case 7: /* reset */
		expect(t, PAPI_reset(s->es), PAPI_OK, PAPI_OK, "reset", s);
		memset(s->last, 0, sizeof s->last);
		return;
	case 8: { /* accum: counts handed over are never negative */
		long long acc[MAXEV] = {0};
		expect(t, PAPI_accum(s->es, acc), PAPI_OK, PAPI_OK, "accum", s);
		for (int k = 0; k < s->n; k++)
			if (acc[k] < 0)
				FAILED(t, 0, "accum handed over %lld of %s", acc[k], name_of(t, s, k));
		memset(s->last, 0, sizeof s->last);
		return;
	}
	case 9: /* destroy */
		drop(t, (int)(s - t->set));
		return;
	default: { /* the thread works, and reads its probe */
		if (p->advance)
			expect(t, clab_sim_advance(1000 + rand_r(&t->seed) % 50000), 0, 0, "advance", NULL);
		else if (p->traffic && rand_r(&t->seed) % 16 == 0)
			expect(t, clab_sim_traffic(p->traffic, NULL), 0, 0, "traffic", NULL);
		rc = PAPI_read(t->probe, v);
		expect(t, rc, PAPI_OK, PAPI_OK, "probe read", NULL);
		for (int k = 0; rc == PAPI_OK && k < t->nprobe; k++) {
			if (v[k] < t->tlast[k])
				FAILED(t, 0, "probe %s went from %lld to %lld", p->probe.ev[k],
				       t->tlast[k], v[k]);
			t->tlast[k] = v[k];
		}
	}
	}
}

static void block_samples(void)
{
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);
}

static void *worker(void *arg)
{
	tstate *t = arg;
	const profile *p = t->p;
	/* a node has so many hardware threads: wait for one to be let go of */
	int rc;
	for (int tries = 0; (rc = PAPI_register_thread()) == PAPI_ECNFLCT && tries < 2000; tries++) {
		t->refused++;
		usleep(1000);
	}
	if (rc == PAPI_ECNFLCT)
		return NULL; /* no hardware thread came free: as documented */
	expect(t, rc, PAPI_OK, PAPI_OK, "register", NULL);
	if (t->fail_line)
		return NULL;
	t->registered = 1;
	t->nprobe = count(p->probe.ev);
	t->probe = make_set(p->probe.ev, t->nprobe);
	CHECK_PAPI(PAPI_start(t->probe));
	me = t;
	t->ready = 1;
	for (int i = 0; i < OPS && !t->fail_line; i++)
		step(t);
	switch (t->idx % 3) {
	case 0: /* cleans up and leaves */
		block_samples();
		t->ready = 0;
		while (t->nsets && !t->fail_line)
			drop(t, 0);
		long long v[MAXEV];
		CHECK_PAPI(PAPI_stop(t->probe, v));
		drop_set(t->probe);
		CHECK_PAPI(PAPI_unregister_thread());
		break;
	case 1: /* stops its sets, says nothing */
		for (int i = 0; i < t->nsets; i++)
			if (t->set[i].running)
				PAPI_stop(t->set[i].es, NULL);
		break;
	default: /* exits with everything running */
		break;
	}
	return NULL;
}

static int stress(const profile *p, int pidx)
{
	on_signal(SIGPROF, on_sample);
	papi_threads_on(p->spec);
	user_domain_if_refused("kernel");
	/* PAPI looks event sets up in a table it reallocates as it grows,
	 * without a lock (a thread reading a set while another's create
	 * moves the table reads freed memory: PAPI's race, seen here as a
	 * crash in PAPI_read's lookup). Grown to every set the walk can hold
	 * at once before the threads start, it never moves again. */
	enum { ROOM = NTHREADS * (NSETS + 1) + 16 };
	static int grow[ROOM];
	for (int i = 0; i < ROOM; i++) {
		grow[i] = PAPI_NULL;
		CHECK_PAPI(PAPI_create_eventset(&grow[i]));
	}
	for (int i = 0; i < ROOM; i++)
		CHECK_PAPI(PAPI_destroy_eventset(&grow[i]));
	/* PAPI gives a native event its code the first time its name is
	 * looked up, finding and then adding it without one lock around both:
	 * two threads looking a new name up at once can get two codes for it,
	 * and a set holding one refuses to remove the other (PAPI_EINVAL, seen
	 * here as a failed remove by name). Every name the walk uses is looked
	 * up once before the threads start, as a tool's start-up would. */
	for (int c = 0; c < NCOMP && p->walk[c].ev[0]; c++)
		for (int e = 0; e < count(p->walk[c].ev); e++) {
			int code;
			CHECK_PAPI(PAPI_event_name_to_code(p->walk[c].ev[e], &code));
		}
	static tstate ts[NTHREADS];
	pthread_t th[NTHREADS];
	struct itimerval it = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_PROF, &it, NULL);
	for (int i = 0; i < NTHREADS; i++) {
		ts[i] = (tstate){.p = p, .idx = i, .seed = (unsigned)(pidx * 1000 + i + 1)};
		CHECK(pthread_create(&th[i], NULL, worker, &ts[i]) == 0, "pthread_create");
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_PROF, &it, NULL);
	int bad = 0, registered = 0, refused = 0;
	long samples = 0;
	for (int i = 0; i < NTHREADS; i++) {
		registered += ts[i].registered;
		refused += ts[i].refused > 0;
		samples += ts[i].samples;
		if (ts[i].fail_line) {
			fprintf(stderr, "%s thread %d: line %d: %s%s%s\n", p->spec, i, ts[i].fail_line,
				ts[i].fail, ts[i].fail[0] ? "" : "the sampler's read ",
				ts[i].fail[0] ? "" : (ts[i].fail_rc < 0 ? PAPI_strerror(ts[i].fail_rc)
						      : "went down"));
			bad = 1;
		}
	}
	PAPI_shutdown();
	if (!bad)
		printf("%s: %d threads registered (%d waited for a hardware thread), %ld samples\n",
		       p->spec, registered, refused, samples);
	return bad;
}

static int one(int k)
{
	return stress(&profiles[k], k);
}

/* argv[1], if given: run only the profiles whose spec contains it */
int main(int argc, char **argv)
{
	return each_in_child(sizeof profiles / sizeof *profiles, &profiles[0].spec,
			     sizeof *profiles, one, LIMIT_S, argc > 1 ? argv[1] : NULL);
}
