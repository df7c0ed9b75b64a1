/* Node-wide (slow) overflow of a set whose crossing another thread's work
 * brings: its owner's handler runs at once, whatever the other thread
 * does next. Thread B arms PEVT_L2_HITS and waits; thread A, armed on the
 * same counter from earlier, reads on its clock until both sets cross in
 * the same read. A's handler then waits for B's to have run: it can only
 * if B's interrupt went out before A's own handler (a signal held back to
 * the end of A's call would never come, and A's handler would wait in
 * vain).
 *
 * Then the careless user's version of the same: two threads armed on the
 * counter, each reading on its own clock, many rounds, sets destroyed
 * every round. Run freely, how the threads interleave decides how many
 * crossings are left unseen when a set stops (the other thread's reads
 * may all land between a set's last read and its stop), so those rounds
 * check only what no interleaving changes: no call beyond what the count
 * allows, and calls at all. Run in turns (a read each), the order is
 * fixed and each thread's handler runs once per threshold of what its own
 * set counts, but for the last crossings before its stop (rounds that
 * lost half or all of their calls showed every second run before). */
#include <stdatomic.h>
#include <time.h>
#include "check.h"

#define PERIOD 10000
static const char *const l2[] = {"l2:::PEVT_L2_HITS"};
static atomic_int a_calls, b_calls, a_saw_b;
static pthread_barrier_t started;
static pthread_t thread_a, thread_b;

static void a_handler(int es, void *pc, long long vector, void *ctx)
{
	(void)es, (void)pc, (void)vector, (void)ctx;
	/* up to 10 s for B's handler (it takes microseconds when it runs) */
	for (int i = 0; i < 10000 && !atomic_load(&b_calls); i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	if (atomic_fetch_add(&a_calls, 1) == 0)
		atomic_store(&a_saw_b, atomic_load(&b_calls));
}

static void b_handler(int es, void *pc, long long vector, void *ctx)
{
	(void)es, (void)pc, (void)vector, (void)ctx;
	atomic_fetch_add(&b_calls, 1);
}

static int armed_set(PAPI_overflow_handler_t fn)
{
	int es = make_set(l2, 1), code;
	CHECK_PAPI(PAPI_event_name_to_code((char *)l2[0], &code));
	CHECK_PAPI(PAPI_overflow(es, code, PERIOD, 0, fn));
	return es;
}

static void *run_a(void *arg)
{
	(void)arg;
	CHECK_PAPI(PAPI_register_thread());
	int es = armed_set(a_handler);
	long long v;
	CHECK_PAPI(PAPI_start(es));
	pthread_barrier_wait(&started); /* B arms and starts */
	pthread_barrier_wait(&started);
	for (int i = 0; i < 1000 && !atomic_load(&a_calls); i++)
		CHECK_PAPI(PAPI_read(es, &v));
	CHECK_PAPI(PAPI_stop(es, &v));
	drop_set(es);
	CHECK_PAPI(PAPI_unregister_thread());
	return NULL;
}

static void *run_b(void *arg)
{
	(void)arg;
	CHECK_PAPI(PAPI_register_thread());
	pthread_barrier_wait(&started);
	int es = armed_set(b_handler);
	long long v;
	CHECK_PAPI(PAPI_start(es));
	pthread_barrier_wait(&started);
	/* B's own clock stands still: only A's reads move the counter */
	for (int i = 0; i < 10000 && !atomic_load(&a_calls); i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	CHECK_PAPI(PAPI_stop(es, &v));
	drop_set(es);
	CHECK_PAPI(PAPI_unregister_thread());
	return NULL;
}

static void interrupt_goes_out_at_once(void)
{
	pthread_barrier_init(&started, NULL, 2);
	pthread_create(&thread_a, NULL, run_a, NULL);
	pthread_create(&thread_b, NULL, run_b, NULL);
	pthread_join(thread_a, NULL);
	pthread_join(thread_b, NULL);
	pthread_barrier_destroy(&started);
	CHECK(atomic_load(&a_calls) >= 1, "A's handler never ran");
	CHECK(atomic_load(&a_saw_b) >= 1,
	      "B's handler had not run when A's ran: B's interrupt waited for A");
	printf("A's handler: %d call(s), B's before it: %d\n", atomic_load(&a_calls),
	       atomic_load(&a_saw_b));
}

/* The careless user's rounds: handler calls against each set's own count. */
static __thread int round_calls;
static void count_handler(int es, void *pc, long long vector, void *ctx)
{
	(void)es, (void)pc, (void)vector, (void)ctx;
	round_calls++;
}

/* Turns: with `lockstep`, each reader waits for its turn before each
 * step (register, arm and start; each read; stop and clean up) and hands
 * the turn to the other after it. */
static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv = PTHREAD_COND_INITIALIZER;
static int turn, lockstep;

static void my_turn(int me)
{
	if (!lockstep) /* free rounds: no lock between the readers at all */
		return;
	pthread_mutex_lock(&turn_lock);
	while (turn != me)
		pthread_cond_wait(&turn_cv, &turn_lock);
	pthread_mutex_unlock(&turn_lock);
}

static void pass_turn(int me)
{
	if (!lockstep)
		return;
	pthread_mutex_lock(&turn_lock);
	turn = !me;
	pthread_cond_broadcast(&turn_cv);
	pthread_mutex_unlock(&turn_lock);
}

typedef struct reading {
	int me;
	long long count, calls;
} reading;

static void *reader(void *arg)
{
	reading *rd = arg;
	long long v = 0;
	my_turn(rd->me);
	CHECK_PAPI(PAPI_register_thread());
	int es = armed_set(count_handler);
	round_calls = 0;
	CHECK_PAPI(PAPI_start(es));
	pass_turn(rd->me);
	for (int i = 0; i < 100; i++) {
		my_turn(rd->me);
		CHECK_PAPI(PAPI_read(es, &v));
		pass_turn(rd->me);
	}
	my_turn(rd->me);
	CHECK_PAPI(PAPI_stop(es, &v));
	drop_set(es);
	CHECK_PAPI(PAPI_unregister_thread());
	pass_turn(rd->me);
	rd->count = v;
	rd->calls = round_calls;
	return NULL;
}

static void rounds(int n, int in_turns)
{
	lockstep = in_turns;
	for (int r = 0; r < n; r++) {
		pthread_t t[2];
		reading rd[2] = {{0, 0, 0}, {1, 0, 0}};
		turn = 0;
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, reader, &rd[i]);
		for (int i = 0; i < 2; i++) {
			pthread_join(t[i], NULL);
			/* in turns, what the last reads before a set stops make
			 * it cross may still wait for its scan: a call or two
			 * short (the other thread's last read adds less than a
			 * threshold) */
			long long want = rd[i].count / PERIOD;
			CHECK(rd[i].calls <= want + 1 && (in_turns ? rd[i].calls >= want - 2 : rd[i].calls > 0),
			      "round %d thread %d%s: %lld handler calls for a count of %lld (threshold %d)",
			      r, i, in_turns ? " (in turns)" : "", rd[i].calls, rd[i].count, PERIOD);
		}
	}
	printf("%d rounds of two armed readers%s: calls follow each set's count\n", n,
	       in_turns ? " in turns" : "");
}

/* One thread whose handler reads and resets its set, which restarts the
 * threshold (its reads move its clock, and what its own thread does while
 * the handler runs does not count): the set still counts what an unarmed
 * set counts over the same reads, a threshold per call. */
static int reset_es = PAPI_NULL, reset_calls;
static long long reset_sum;
static void reset_handler(int es, void *pc, long long vector, void *ctx)
{
	(void)es, (void)pc, (void)vector, (void)ctx;
	long long v;
	CHECK_PAPI(PAPI_read(reset_es, &v));
	CHECK(v >= PERIOD && v < 2 * PERIOD, "the handler read %lld (threshold %d)", v, PERIOD);
	reset_sum += v;
	reset_calls++;
	CHECK_PAPI(PAPI_reset(reset_es));
}

static long long read_200(int armed)
{
	long long v;
	reset_es = armed ? armed_set(reset_handler) : make_set(l2, 1);
	CHECK_PAPI(PAPI_start(reset_es));
	for (int i = 0; i < 200; i++)
		CHECK_PAPI(PAPI_read(reset_es, &v));
	CHECK_PAPI(PAPI_stop(reset_es, &v));
	drop_set(reset_es);
	return v;
}

static void reset_in_handler(void)
{
	long long plain = read_200(0), last = read_200(1), total = reset_sum + last;
	CHECK(total > plain - PERIOD && total < plain + PERIOD,
	      "with a reset in the handler the set counted %lld (%d calls), unarmed %lld", total,
	      reset_calls, plain);
	CHECK(reset_calls == total / PERIOD || reset_calls == total / PERIOD - 1,
	      "%d handler calls for %lld counted", reset_calls, total);
	printf("reset in the handler: %d calls, %lld counted (unarmed: %lld)\n", reset_calls, total, plain);
}

/* A forked child starts the armed set it inherited: its interrupts reach
 * the child's own thread (the parent's thread id is no thread of the
 * child's). */
static void forked_child_overflows(void)
{
	reset_calls = 0;
	reset_sum = 0;
	reset_es = armed_set(reset_handler);
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		long long v;
		alarm(60);
		CHECK_PAPI(PAPI_start(reset_es));
		for (int i = 0; i < 100; i++)
			CHECK_PAPI(PAPI_read(reset_es, &v));
		CHECK_PAPI(PAPI_stop(reset_es, &v));
		CHECK(reset_calls >= (reset_sum + v) / PERIOD - 1 && reset_calls > 0,
		      "forked child: %d handler calls for %lld counted", reset_calls, reset_sum + v);
		printf("forked child: %d handler calls\n", reset_calls);
		fflush(stdout);
		_exit(0);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked child failed");
	drop_set(reset_es);
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=100000", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	interrupt_goes_out_at_once();
	rounds(20, 0);
	rounds(20, 1);
	reset_in_handler();
	forked_child_overflows();
	PAPI_shutdown();
	return 0;
}
