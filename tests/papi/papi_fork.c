/* fork() while an event set runs, as real PAPI allows: the child inherits
 * PAPI's state. While the parent's main thread counts, another of its
 * threads reads its own sets in a loop (so at a fork it is often inside a
 * library call, holding a unit's locks: the core's, the network's). Each child must be able to
 * read and stop (PAPI_OK, not "currently counting") the inherited set,
 * with counts no lower than the parent's read before the fork (on the
 * host clock, higher by the CPU time the parent spent between that read
 * and the fork), start it again on its own work, clean it up and destroy
 * it; make a new set and count; and shut PAPI down. The parent goes on counting. On the virtual
 * and host clocks of bgq, on gemini and on the host; a watchdog fails a
 * child that hangs. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define FORKS 25

static const struct machine {
	const char *spec, *event;
	long long least; /* what the child's own work counts at least */
	const char *other; /* the other thread reads this too (NULL: none) */
	long long burnt; /* what the parent's 2 ms of CPU time between its
			  * read and the fork count at least (0: not checked) */
} machines[] = {
	{"bgq:clock=virtual,tick=100000", "PAPI_TOT_CYC", 100000, "network:::PEVT_NW_USER_PP_SENT", 0},
	/* 1.6 GHz: 3.2 M cycles, half of them asked for */
	{"bgq:clock=host", "PAPI_TOT_CYC", 1, "network:::PEVT_NW_USER_PP_SENT", 1600000},
	{"gemini", "io:::wchar", 4096, "network:::TILE_VC0_PHITS", 0},
	{"host", "perf::TASK-CLOCK", 1, NULL, 0},
};

static const struct machine *M;

/* Waits for child pid, `seconds` at most (a watchdog: a child that hangs
 * in fork's own handlers never reaches its alarm): 1 if it exited with 0. */
static int waited(pid_t pid, const char *what, int seconds)
{
	int st = 0;
	for (int i = 0; i < seconds * 100; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		CHECK(r >= 0, "waitpid");
		if (r == pid) {
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				return 1;
			fprintf(stderr, "FAILED: %s %s %d\n", what,
				WIFEXITED(st) ? "exited with" : "was killed by signal",
				WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			return 0;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fprintf(stderr, "FAILED: %s hung (killed after %d s)\n", what, seconds);
	return 0;
}

/* ms of the calling thread's CPU time spent. */
static void burn_cpu(long ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	volatile double x __attribute__((unused)) = 0;
	do {
		for (int i = 0; i < 10000; i++)
			x += 1e-9;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ms * 1000000L);
}

/* Work the event counts: CPU time, and 4096 bytes written. */
static void work(void)
{
	volatile double x __attribute__((unused)) = 0;
	for (int i = 0; i < 200000; i++)
		x += 1e-9;
	int fd = open("/dev/null", O_WRONLY);
	static char buf[4096];
	CHECK(fd >= 0 && write(fd, buf, sizeof buf) == (ssize_t)sizeof buf, "write /dev/null");
	close(fd);
}

static int one_event_set(const char *event)
{
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	int rc = PAPI_add_named_event(es, event);
	CHECK(rc == PAPI_OK, "add %s: %s", event, PAPI_strerror(rc));
	return es;
}

static volatile int stop_reader;
static volatile long reads;

static void *reader(void *arg)
{
	(void)arg;
	CHECK_PAPI(PAPI_register_thread());
	int es[2] = {one_event_set(M->event), M->other ? one_event_set(M->other) : PAPI_NULL};
	int n = M->other ? 2 : 1;
	for (int i = 0; i < n; i++)
		CHECK_PAPI(PAPI_start(es[i]));
	long long v;
	while (!stop_reader) {
		for (int i = 0; i < n; i++)
			CHECK_PAPI(PAPI_read(es[i], &v));
		reads++;
	}
	for (int i = 0; i < n; i++) {
		CHECK_PAPI(PAPI_stop(es[i], &v));
		CHECK_PAPI(PAPI_cleanup_eventset(es[i]));
		CHECK_PAPI(PAPI_destroy_eventset(&es[i]));
	}
	CHECK_PAPI(PAPI_unregister_thread());
	return NULL;
}

/* The child's own work, counted by es from zero. */
static void count_own_work(int es, const char *what)
{
	long long v, w;
	CHECK_PAPI(PAPI_start(es));
	work();
	CHECK_PAPI(PAPI_read(es, &v));
	CHECK_PAPI(PAPI_stop(es, &w));
	CHECK(v >= M->least && w >= v, "child: %s counted %lld then %lld (want >= %lld)", what,
	      v, w, M->least);
}

/* The child: the inherited set es (running per PAPI, counts at least
 * before), then a set of its own. */
static void child(int es, long long before)
{
	alarm(30); /* a hang fails, by SIGALRM */
	long long v = -1, w = -1;
	CHECK_PAPI(PAPI_read(es, &v));
	CHECK(v >= before + M->burnt, "child: inherited set reads %lld, the parent had %lld%s", v, before,
	      M->burnt ? " before 2 ms of CPU time, which the fork left out" : "");
	int rc = PAPI_stop(es, &w);
	CHECK(rc == PAPI_OK, "child: PAPI_stop of the inherited running set: %s", PAPI_strerror(rc));
	CHECK(w >= v, "child: PAPI_stop gave %lld after a read of %lld", w, v);
	CHECK_PAPI(PAPI_read(es, &v));
	CHECK(v == w, "child: stopped set reads %lld, stopped at %lld", v, w);
	count_own_work(es, "the inherited set, started again");
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));

	int mine = one_event_set(M->event);
	count_own_work(mine, "a new set");
	CHECK_PAPI(PAPI_cleanup_eventset(mine));
	CHECK_PAPI(PAPI_destroy_eventset(&mine));
	PAPI_shutdown();
	exit(0);
}

static void run_machine(void)
{
	setenv("COUNTERLAB_MACHINE", M->spec, 1);
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	CHECK(rc == PAPI_VER_CURRENT, "PAPI_library_init: %d", rc);
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	int es = one_event_set(M->event);
	CHECK_PAPI(PAPI_start(es));
	pthread_t th;
	CHECK(pthread_create(&th, NULL, reader, NULL) == 0, "pthread_create");
	while (reads < 10)
		sched_yield();
	long long last = 0, v;
	for (int i = 0; i < FORKS; i++) {
		work();
		CHECK_PAPI(PAPI_read(es, &v));
		CHECK(v >= last, "parent: %lld after %lld", v, last);
		last = v;
		if (M->burnt)
			burn_cpu(2);
		fflush(stdout);
		pid_t pid = fork();
		CHECK(pid >= 0, "fork");
		if (pid == 0)
			child(es, v);
		char what[128];
		snprintf(what, sizeof what, "%s: child %d", M->spec, i);
		CHECK(waited(pid, what, 60), "%s", what);
	}
	stop_reader = 1;
	CHECK(pthread_join(th, NULL) == 0, "pthread_join");
	work();
	CHECK_PAPI(PAPI_stop(es, &v));
	CHECK(v >= last, "parent: stopped at %lld after %lld", v, last);
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));
	PAPI_shutdown();
	printf("%s: %d children stopped, read, restarted and destroyed the inherited set "
	       "and counted (%ld reads by the other thread meanwhile)\n", M->spec, FORKS, reads);
}

int main(void)
{
	int ok = 1;
	for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) {
		fflush(stdout);
		pid_t pid = fork(); /* a process per machine: PAPI reads it once */
		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			M = &machines[i];
			run_machine();
			exit(0);
		}
		ok &= waited(pid, machines[i].spec, 600);
	}
	CHECK(ok, "a machine's checks failed (above)");
	printf("PASSED\n");
	return 0;
}
