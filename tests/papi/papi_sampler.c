/* A sampling profiler as TAU, Caliper or HPCToolkit build one: interval
 * timers (the process's ITIMER_PROF and ITIMER_REAL, and a CPU-time timer
 * per thread, SIGEV_THREAD_ID) whose handler reads the thread's running
 * event sets with PAPI_read and PAPI_read_ts, or hands their counts over
 * with PAPI_accum, while the four threads themselves run the machine and
 * read, start and stop sets. A signal often lands inside one of the
 * thread's own library calls, which may hold the very lock the handler's
 * read needs.
 *
 * Verdicts: no hang (each profile runs in a child; the parent's alarm
 * kills a child that does not finish and fails); every call succeeds;
 * what a handler reads never decreases and is never below what its
 * thread last read; PAPI_accum never hands over a negative count, and the
 * counts it handed over plus the set's last ones add up to what a
 * counterlab set of the same events, started just before and never reset,
 * counted (exactly on the virtual clock, where only the thread moves its
 * counts). Runs for a fixed number of samples per thread, on every
 * profile and clock. PAPI runs one set per component and thread, so the
 * read and the accumulated set are of two components; where the handler
 * may read only one (Gemini: the Linux units read /proc with malloc,
 * which a signal handler must not call) threads take turns. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <counterlab/counterlab.h>
#include <counterlab/sim.h>
#include "check.h"

enum { NTHREADS = 4, SAMPLES = 400, LIMIT_S = 120, MAXEV = 4 };

typedef struct profile {
	const char *spec;
	const char *r[MAXEV]; /* read by the handler and the thread */
	const char *acomp;    /* component of a[] */
	const char *a[MAXEV]; /* accumulated by the handler (names in acomp) */
	const char *s[MAXEV]; /* started, read and stopped by the thread */
	const char *l[MAXEV]; /* node-wide, thread 0 only, read by both */
	int turns;            /* r and a are of one component: threads alternate */
	int advance;          /* virtual clock: the thread runs the machine */
	const char *traffic;  /* every so often the thread sends this */
	int exact;            /* accumulated counts equal the reference's */
} profile;

#define BGQ_SETS                                                                 \
	.r = {"PAPI_TOT_CYC", "PAPI_TOT_INS"},                                   \
	.acomp = "kernel", .a = {"PEVT_CNKHWT_FIT", "PEVT_CNKHWT_SYSCALL"},      \
	.s = {"io:::PEVT_MU_PKT_INJ"},                                           \
	.l = {"l2:::PEVT_L2_HITS", "l2:::PEVT_L2_MISSES", "l2:::L2_ACCESSES"}

static const profile profiles[] = {
	{"bgq:clock=virtual", BGQ_SETS, .advance = 1, .exact = 1},
	{"bgq:clock=virtual,tick=100000", BGQ_SETS, .advance = 1, .exact = 1},
	{"bgq:clock=host", BGQ_SETS},
	{"gemini", .r = {"network:::TILE_VC0_PHITS", "network:::TILE_VC0_PKTS"},
	 .acomp = "network", .a = {"TILE_VC0_PHITS", "TILE_VC0_PKTS"}, .turns = 1,
	 .s = {"io:::rchar"}, .traffic = "pingpong:a=0,b=32,bytes=8,iters=3"},
	{"host", .r = {"perf::TASK-CLOCK", "perf::PAGE-FAULTS"},
	 .acomp = "kernel", .a = {"perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES"},
	 .s = {"io:::rchar"}},
};

static int count(const char *const *names)
{
	return count_names(names, MAXEV);
}

/* A thread's sets, and what its handler found (a handler cannot print). */
typedef struct tstate {
	const profile *p;
	int idx;
	int r, a, s, l;  /* event sets, PAPI_NULL when the thread has none */
	int nr, na, nl;
	clab_thread *th; /* the counterlab thread of ref */
	clab_evset *ref; /* a's events, never reset */
	volatile int ready;
	volatile long samples;
	long long hlast[MAXEV], llast[MAXEV]; /* r: the handler's, the thread's last */
	long long hl2[MAXEV], tl2[MAXEV];     /* l: likewise */
	long long acc[MAXEV];
	volatile int fail_line, fail_rc, fail_ev;
	const char *volatile fail_what;
	volatile long long fail_was, fail_now;
} tstate;

static __thread tstate *me;

#define FAIL(t, what, ev, rc_, was, now) do { if (!(t)->fail_line) { \
	(t)->fail_what = (what); (t)->fail_ev = (ev); (t)->fail_rc = (rc_); \
	(t)->fail_was = (was); (t)->fail_now = (now); (t)->fail_line = __LINE__; } } while (0)

/* v[] (of set `what`) against the last values of the same reader, and at
 * least floor[]. */
static void monotone(tstate *t, const char *what, const long long *v, long long *last,
		     const long long *floor, int n)
{
	for (int i = 0; i < n; i++) {
		if (v[i] < last[i])
			FAIL(t, what, i, 0, last[i], v[i]);
		if (floor && v[i] < floor[i])
			FAIL(t, what, i, 0, floor[i], v[i]);
		last[i] = v[i];
	}
}

enum { OP_READ, OP_READ_TS, OP_ACCUM, OP_L2 };

/* Handlers nest: SIGALRM may land in the SIGPROF handler. PAPI_accum is a
 * read, then a reset: an accum that interrupts another between the two
 * hands the same counts over again, on any PAPI. So a nested handler
 * reads and never accumulates. */
static __thread volatile int depth;

static void on_sample(int sig)
{
	(void)sig;
	int saved = errno;
	tstate *t = me;
	depth++;
	/* nested, with nothing but the accumulated set: nothing to do */
	if (t && t->ready && (depth == 1 || t->r != PAPI_NULL || t->l != PAPI_NULL)) {
		int ops[4], nops = 0;
		if (t->r != PAPI_NULL) {
			ops[nops++] = OP_READ;
			ops[nops++] = OP_READ_TS;
		}
		if (t->a != PAPI_NULL && depth == 1)
			ops[nops++] = OP_ACCUM;
		if (t->l != PAPI_NULL)
			ops[nops++] = OP_L2;
		long long v[MAXEV], before[MAXEV], cyc;
		int rc = PAPI_OK;
		switch (ops[t->samples % nops]) {
		case OP_READ:
			if ((rc = PAPI_read(t->r, v)) == PAPI_OK)
				monotone(t, "read set (handler)", v, t->hlast, t->llast, t->nr);
			break;
		case OP_READ_TS:
			if ((rc = PAPI_read_ts(t->r, v, &cyc)) == PAPI_OK)
				monotone(t, "read set (handler)", v, t->hlast, t->llast, t->nr);
			break;
		case OP_ACCUM:
			memcpy(before, t->acc, sizeof before);
			if ((rc = PAPI_accum(t->a, t->acc)) == PAPI_OK)
				for (int i = 0; i < t->na; i++)
					if (t->acc[i] < before[i])
						FAIL(t, "accumulated set", i, 0, before[i], t->acc[i]);
			break;
		default:
			if ((rc = PAPI_read(t->l, v)) == PAPI_OK)
				monotone(t, "node-wide set (handler)", v, t->hl2, t->tl2, t->nl);
		}
		if (rc != PAPI_OK)
			FAIL(t, "a handler's call", 0, rc, 0, 0);
		t->samples++;
	}
	depth--;
	errno = saved;
}

static void block_samples(int how)
{
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGPROF);
	sigaddset(&ss, SIGALRM);
	pthread_sigmask(how, &ss, NULL);
}

static int user_only; /* the kernel domain is refused: the sets count the user's */

/* The accumulated set, as PAPI's and as a counterlab reference set. */
static void accum_sets(tstate *t)
{
	const profile *p = t->p;
	char name[MAXEV][128];
	const char *names[MAXEV];
	clab_machine *m;
	CHECK(clab_machine_default(&m) == 0 && clab_thread_attach(m, &t->th) == 0, "attach");
	clab_component *c = clab_machine_component(m, p->acomp);
	CHECK(c && clab_evset_create(c, t->th, &t->ref) == 0, "reference set");
	if (user_only)
		CHECK(clab_evset_set_context(t->ref, CLAB_CTX_USER) == 0, "reference context");
	for (int i = 0; i < t->na; i++) {
		uint32_t code;
		CHECK(clab_event_lookup(c, p->a[i], &code) == 0 && clab_evset_add(t->ref, code) == 0,
		      "reference %s: %s", p->a[i], clab_errmsg());
		snprintf(name[i], sizeof name[i], "%s:::%s", p->acomp, p->a[i]);
		names[i] = name[i];
	}
	t->a = make_set(names, t->na);
	CHECK(clab_evset_start(t->ref) == 0, "reference start: %s", clab_errmsg());
	CHECK_PAPI(PAPI_start(t->a));
}

static pthread_barrier_t started;

static void *worker(void *arg)
{
	tstate *t = arg;
	const profile *p = t->p;
	CHECK_PAPI(PAPI_register_thread());
	t->r = t->a = t->l = PAPI_NULL;
	if (!p->turns || t->idx % 2 == 0) {
		t->nr = count(p->r);
		t->r = make_set(p->r, t->nr);
		CHECK_PAPI(PAPI_start(t->r));
	}
	if (!p->turns || t->idx % 2 == 1) {
		t->na = count(p->a);
		accum_sets(t);
	}
	if (t->idx == 0 && (t->nl = count(p->l))) {
		t->l = make_set(p->l, t->nl);
		CHECK_PAPI(PAPI_start(t->l));
	}
	t->s = make_set(p->s, count(p->s));

	/* the thread's own CPU-time timer, 5 kHz */
	timer_t tid;
	struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF};
	ev._sigev_un._tid = gettid();
	CHECK(timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &tid) == 0, "timer_create");
	struct itimerspec its = {{0, 200000}, {0, 200000}};
	CHECK(timer_settime(tid, 0, &its, NULL) == 0, "timer_settime");
	me = t;
	t->ready = 1;
	pthread_barrier_wait(&started);

	long long v[MAXEV];
	for (long it = 0; t->samples < SAMPLES && !t->fail_line; it++) {
		if (p->advance)
			CHECK(clab_sim_advance(20000) == 0, "clab_sim_advance");
		if (p->traffic && it % 256 == 0)
			CHECK(clab_sim_traffic(p->traffic, NULL) == 0, "clab_sim_traffic %s",
			      p->traffic);
		if (t->r != PAPI_NULL) {
			CHECK_PAPI(PAPI_read(t->r, v));
			monotone(t, "read set (thread)", v, t->llast, NULL, t->nr);
		}
		if (t->l != PAPI_NULL) {
			CHECK_PAPI(PAPI_read(t->l, v));
			monotone(t, "node-wide set (thread)", v, t->tl2, NULL, t->nl);
		}
		CHECK_PAPI(PAPI_start(t->s));
		CHECK_PAPI(PAPI_read(t->s, v));
		CHECK_PAPI(PAPI_stop(t->s, v));
	}
	timer_delete(tid);
	block_samples(SIG_BLOCK);
	t->ready = 0;
	if (t->fail_line)
		return NULL;

	if (t->a != PAPI_NULL) {
		long long va[MAXEV];
		int64_t vref[MAXEV];
		CHECK_PAPI(PAPI_stop(t->a, va));
		CHECK(clab_evset_stop(t->ref, vref) == 0, "reference stop");
		for (int i = 0; i < t->na; i++) {
			long long total = t->acc[i] + va[i];
			CHECK(total >= 0 && total <= vref[i] && (!p->exact || total == vref[i]),
			      "%s thread %d: %s accumulated %lld + %lld last = %lld, the reference counted %lld",
			      p->spec, t->idx, p->a[i], t->acc[i], va[i], total, (long long)vref[i]);
		}
		clab_evset_destroy(t->ref);
		clab_thread_detach(t->th);
		drop_set(t->a);
	}
	if (t->r != PAPI_NULL) {
		CHECK_PAPI(PAPI_stop(t->r, v));
		drop_set(t->r);
	}
	if (t->l != PAPI_NULL) {
		CHECK_PAPI(PAPI_stop(t->l, v));
		drop_set(t->l);
	}
	drop_set(t->s);
	CHECK_PAPI(PAPI_unregister_thread());
	return NULL;
}

static void set_itimers(long us)
{
	struct itimerval it = {{0, us}, {0, us}};
	setitimer(ITIMER_PROF, &it, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

/* One profile, in this (child) process. */
static int sample(const profile *p)
{
	on_signal(SIGPROF, on_sample);
	on_signal(SIGALRM, on_sample);
	papi_threads_on(p->spec);
	user_only = user_domain_if_refused(p->acomp);
	pthread_barrier_init(&started, NULL, NTHREADS + 1);
	static tstate ts[NTHREADS];
	pthread_t th[NTHREADS];
	for (int i = 0; i < NTHREADS; i++) {
		ts[i] = (tstate){.p = p, .idx = i};
		CHECK(pthread_create(&th[i], NULL, worker, &ts[i]) == 0, "pthread_create");
	}
	pthread_barrier_wait(&started);
	set_itimers(1000); /* 1 kHz of the process's CPU time and of wall time */
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	set_itimers(0);
	int bad = 0;
	for (int i = 0; i < NTHREADS; i++)
		if (ts[i].fail_line) {
			fprintf(stderr, "%s thread %d: line %d: %s: %s (event %d: %lld, then %lld)\n",
				p->spec, i, ts[i].fail_line, ts[i].fail_what,
				ts[i].fail_rc ? PAPI_strerror(ts[i].fail_rc) : "a count went down",
				ts[i].fail_ev, ts[i].fail_was, ts[i].fail_now);
			bad = 1;
		}
	PAPI_shutdown();
	if (!bad)
		printf("%s: %d threads x %d samples\n", p->spec, NTHREADS, SAMPLES);
	return bad;
}

static int one(int k)
{
	return sample(&profiles[k]);
}

/* argv[1], if given: run only the profiles whose spec contains it */
int main(int argc, char **argv)
{
	return each_in_child(sizeof profiles / sizeof *profiles, &profiles[0].spec,
			     sizeof *profiles, one, LIMIT_S, argc > 1 ? argv[1] : NULL);
}
