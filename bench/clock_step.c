/* bench/clock_step.so: an LD_PRELOAD clock for counting the host clock's
 * read path under callgrind at the pace it has natively.
 *
 * Under callgrind a program runs some 50 times slower, so between two
 * reads the thread's CPU time, and the simulated clock that follows it
 * (bgq:clock=host), moves some 50 times further than natively: every read
 * there crosses a UPC_C scan point, where natively about one in eight does.
 * With this library preloaded, clock_gettime(CLOCK_MONOTONIC) advances
 * CLAB_CLOCK_STEP_NS (default 65) at each call and CPU-time clocks read
 * the same value (a thread that reads in a loop is always running), so
 * the host clock's code runs unchanged and sees one step of time between
 * reads, as natively: the count is of what a native read does, and it is
 * deterministic. Other clocks are the system's. Used by bench/run.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns = 1000000000ull, step_ns = 65;
static int (*sys_clock_gettime)(clockid_t, struct timespec *);

__attribute__((constructor)) static void init(void)
{
	const char *s = getenv("CLAB_CLOCK_STEP_NS");
	if (s && *s)
		step_ns = strtoull(s, NULL, 10);
	sys_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (clk == CLOCK_MONOTONIC)
		now_ns += step_ns;
	else if (clk != CLOCK_THREAD_CPUTIME_ID && clk != CLOCK_PROCESS_CPUTIME_ID)
		return sys_clock_gettime(clk, ts);
	ts->tv_sec = (time_t)(now_ns / 1000000000u);
	ts->tv_nsec = (long)(now_ns % 1000000000u);
	return 0;
}
