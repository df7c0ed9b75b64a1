/* PAPI's software overflow (PAPI_OVERFLOW_FORCE_SW) on the host clock while
 * the program reads its counters in a tight loop: the interval timer's
 * signal often lands inside one of our reads, which holds a core lock that
 * PAPI's read from the handler takes again. It must wait for the read to
 * end instead of deadlocking; alarm() turns a deadlock into a failure. */
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static volatile long handled;

static void handler(int es, void *pc, long long vec, void *ctx)
{
	(void)es; (void)pc; (void)vec; (void)ctx;
	handled++;
}

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=host", 1);
	alarm(60);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	PAPI_option_t o = {.itimer = {.ns = 1000000}}; /* 1 ms, the kernel rounds up */
	CHECK_PAPI(PAPI_get_opt(PAPI_DEF_ITIMER, &o));
	o.itimer.ns = 1000000;
	CHECK_PAPI(PAPI_set_opt(PAPI_DEF_ITIMER_NS, &o));
	const char *ev[] = {"PAPI_TOT_CYC"};
	int es = make_set(ev, 1);
	/* 1.6 GHz: an overflow every millisecond of CPU time */
	CHECK_PAPI(PAPI_overflow(es, PAPI_TOT_CYC, 1600000, PAPI_OVERFLOW_FORCE_SW, handler));
	CHECK_PAPI(PAPI_start(es));
	long long v[1], reads = 0;
	double end = cpu_seconds() + 2.0;
	while (cpu_seconds() < end) {
		CHECK_PAPI(PAPI_read(es, v));
		reads++;
	}
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK_PAPI(PAPI_overflow(es, PAPI_TOT_CYC, 0, PAPI_OVERFLOW_FORCE_SW, NULL));
	drop_set(es);
	CHECK(handled > 10, "%ld overflows in 2 s of CPU time", handled);
	printf("%lld reads, %ld overflows handled: PASSED\n", reads, handled);
	PAPI_shutdown();
	return 0;
}
