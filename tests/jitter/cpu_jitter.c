/* LD_PRELOAD shim: each thread's CPU clock runs at a rate that changes at
 * random, as CPU time does for the same work on a busy machine (caches,
 * steal, frequency). tests/papi-suite.sh --jitter runs PAPI's suite under
 * it to find the rows whose verdict follows CPU time.
 *
 * CLOCK_THREAD_CPUTIME_ID and CLOCK_PROCESS_CPUTIME_ID readings go through
 * it: the CPU time that passed since a thread's previous reading is scaled
 * by a rate drawn anew at each reading, in [0.6, 1.4] (seeded by
 * CLAB_JITTER_SEED and the thread id), so two measurements of the same work
 * differ as on a busy machine. Readings stay monotone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static int (*real_gettime)(clockid_t, struct timespec *);
static uint64_t seed = 1;

__attribute__((constructor)) static void init(void)
{
	real_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	const char *s = getenv("CLAB_JITTER_SEED");
	if (s)
		seed = strtoull(s, NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
}

static __thread struct {
	int on;
	uint64_t real, fake, rng;
} th[2];

static uint64_t draw(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t jitter(int k, uint64_t real)
{
	typeof(th[0]) *t = &th[k];
	if (!t->on) {
		t->on = 1;
		t->rng = seed ^ ((uint64_t)syscall(SYS_gettid) << 20 | (uint64_t)k);
		t->real = t->fake = real;
	}
	if (real > t->real) {
		double rate = 0.6 + (double)(draw(&t->rng) % 801) / 1000.0;
		t->fake += (uint64_t)((double)(real - t->real) * rate);
		t->real = real;
	}
	return t->fake;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (!real_gettime)
		real_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	int rc = real_gettime(clk, ts);
	int k = clk == CLOCK_THREAD_CPUTIME_ID ? 0 : clk == CLOCK_PROCESS_CPUTIME_ID ? 1 : -1;
	if (rc || k < 0)
		return rc;
	uint64_t ns = jitter(k, (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec);
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
	return 0;
}
