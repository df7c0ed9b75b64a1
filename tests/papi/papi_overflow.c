/* PAPI_overflow and PAPI_profil on the simulated BG/Q node, virtual clock,
 * threads doing explicit work only: the PAPI handler gets its event set,
 * an overflow vector PAPI maps back to the right event index, and the PC of
 * the simulator call that moved time; the core counts exactly as the
 * 4-cycle fast-overflow model says; the L2 unit's slow overflow reaches
 * PAPI too; units without overflow refuse with PAPI_ENOSUPP. */
#include <stdint.h>
#include <string.h>
#include <counterlab/sim.h>
#include "check.h"

#define LATENCY 4

static int calls, last_set, last_index;
static long long last_vector;
static void *last_pc;

static void handler(int es, void *pc, long long vector, void *ctx)
{
	(void)ctx;
	int idx[4], n = 4;
	calls++;
	last_set = es;
	last_pc = pc;
	last_vector = vector;
	CHECK_PAPI(PAPI_get_overflow_event_index(es, vector, idx, &n));
	CHECK(n == 1, "one event overflowed, PAPI says %d", n);
	last_index = idx[0];
}

/* The simulated work whose PC the profile must find. */
__attribute__((noinline)) static void run_cycles(uint64_t n)
{
	CHECK(clab_sim_advance(n) == 0, "clab_sim_advance");
	__asm__ volatile("" ::: "memory");
}

/* Fast overflow on the second event: calls every period + 4 cycles. */
static void core_overflow(void)
{
	static const char *const ev[] = {"PAPI_FP_INS", "PAPI_TOT_CYC"};
	int es = make_set(ev, 2);
	const int P = 100000;
	CHECK_PAPI(PAPI_overflow(es, PAPI_TOT_CYC, P, 0, handler));
	calls = 0;
	CHECK_PAPI(PAPI_start(es));
	run_cycles(1000000);
	long long v[2];
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK(v[1] == 1000000, "cycles %lld", v[1]);
	CHECK(calls == 1000000 / (P + LATENCY), "%d calls, want %d", calls,
	      1000000 / (P + LATENCY));
	CHECK(last_set == es, "handler got event set %d, want %d", last_set, es);
	CHECK(last_index == 1, "overflow index %d, want 1", last_index);
	CHECK(last_pc != NULL, "no PC");
	CHECK_PAPI(PAPI_overflow(es, PAPI_TOT_CYC, 0, 0, handler));
	drop_set(es);
}

/* PAPI_profil: the samples land on run_cycles. */
static void core_profile(void)
{
	static const char *const ev[] = {"PAPI_TOT_CYC"};
	int es = make_set(ev, 1);
	enum { LEN = 4096 };
	static unsigned short buf[LEN / 2];
	memset(buf, 0, sizeof buf);
	/* run_cycles in the middle of the range, wherever in its page the
	 * compiler put it */
	uintptr_t start = (uintptr_t)run_cycles - LEN / 2;
	CHECK_PAPI(PAPI_profil(buf, sizeof buf, (vptr_t)start, 65536, es,
			       PAPI_TOT_CYC, 10000, PAPI_PROFIL_POSIX));
	CHECK_PAPI(PAPI_start(es));
	run_cycles(1000000);
	CHECK_PAPI(PAPI_stop(es, NULL));
	long hits = 0;
	for (int i = 0; i < LEN / 2; i++)
		hits += buf[i];
	CHECK(hits == 1000000 / (10000 + LATENCY), "%ld profile samples", hits);
	CHECK_PAPI(PAPI_profil(buf, sizeof buf, (vptr_t)start, 65536, es,
			       PAPI_TOT_CYC, 0, PAPI_PROFIL_POSIX));
	drop_set(es);
}

/* Slow overflow: the L2 unit's handler runs on a later scan. */
static void l2_overflow(void)
{
	static const char *const ev[] = {"l2:::PEVT_L2_MISSES"};
	int es = make_set(ev, 1);
	int code;
	CHECK_PAPI(PAPI_event_name_to_code("l2:::PEVT_L2_MISSES", &code));
	CHECK_PAPI(PAPI_overflow(es, code, 1000, 0, handler));
	calls = 0;
	CHECK_PAPI(PAPI_start(es));
	const char *names[] = {"PEVT_L1P_BAS_MISS", "PEVT_L2_MISSES"};
	uint64_t counts[] = {10000, 10000};
	CHECK(clab_sim_work(100000, names, counts, 2) == 0, "clab_sim_work");
	long long v[1];
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK(v[0] == 10000, "L2 misses %lld", v[0]);
	/* each threshold is passed by up to a scan's worth (80 misses) */
	CHECK(calls >= 9 && calls <= 10, "%d L2 overflows", calls);
	CHECK(last_set == es && last_index == 0, "set %d index %d", last_set, last_index);
	drop_set(es);
}

static void no_overflow(const char *event)
{
	const char *ev[] = {event};
	int es = make_set(ev, 1), code;
	CHECK_PAPI(PAPI_event_name_to_code(event, &code));
	int rc = PAPI_overflow(es, code, 1000, 0, handler);
	CHECK(rc == PAPI_ENOSUPP, "PAPI_overflow on %s: %s, want PAPI_ENOSUPP", event,
	      PAPI_strerror(rc));
	drop_set(es);
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,activity=none", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	core_overflow();
	core_profile();
	l2_overflow();
	no_overflow("network:::PEVT_NW_USER_PP_SENT");
	no_overflow("kernel:::PEVT_CNKHWT_SYSCALL");
	PAPI_shutdown();
	printf("PASSED\n");
	return 0;
}
