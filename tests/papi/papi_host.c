/* The host machine through the PAPI API (COUNTERLAB_MACHINE=host): the core
 * component lists the kernel's software events and counts them with
 * values proved by construction; libpfm4's modifiers (":u", ":k=1") are
 * taken and honoured; hardware events are absent with the
 * reason when the kernel has no PMU; the kernel component counts context
 * switches where the kernel domain is permitted and is refused with the
 * reason where not. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <perfmon/pfmlib_perf_event.h>
#include "check.h"
#include "../perf_probe.h"

static long long thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile int overflows;

static void on_overflow(int es, void *pc, long long vec, void *ctx)
{
	(void)es;
	(void)pc;
	(void)ctx;
	if (vec == 2) /* the set's second event, task-clock */
		overflows++;
}

/* Every event of component cidx, by PAPI's enumeration. */
static int listed(int cidx, const char *want, int *nhw)
{
	int code = PAPI_NATIVE_MASK, found = 0;
	*nhw = 0;
	CHECK_PAPI(PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx));
	do {
		char name[PAPI_MAX_STR_LEN];
		CHECK_PAPI(PAPI_event_code_to_name(code, name));
		if (strstr(name, want) && strlen(strstr(name, want)) == strlen(want))
			found = 1;
		if (strstr(name, "PERF_COUNT_HW"))
			(*nhw)++;
	} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
	return found;
}

static void software_events(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	CHECK(ci && strcmp(ci->name, "core") == 0, "component 0 is not core");
	int nhw;
	CHECK(listed(0, "perf::TASK-CLOCK", &nhw), "perf::TASK-CLOCK not listed");
	CHECK(listed(0, "perf::PAGE-FAULTS", &nhw), "perf::PAGE-FAULTS not listed");
	int code, rc = PAPI_event_name_to_code("perf::PERF_COUNT_HW_INSTRUCTIONS", &code);
	if (kernel_opens(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1)) {
		CHECK(rc == PAPI_OK, "hardware PMU here, but no instructions event");
	} else {
		CHECK(rc == PAPI_ENOEVNT, "no hardware PMU, yet name_to_code gave %d", rc);
		CHECK(nhw == 0, "no hardware PMU, yet %d PERF_COUNT_HW events listed", nhw);
		/* no PMU at all, or one libpfm4 names from the CPU that the
		 * kernel does not count with (a VM without a virtual PMU) */
		CHECK(strstr(ci->description, "no hardware PMU") ||
		      strstr(ci->description, "the kernel counts no hardware event"),
		      "the component does not say why hardware events are absent: %s",
		      ci->description);
		int es = PAPI_NULL;
		CHECK_PAPI(PAPI_create_eventset(&es));
		CHECK(PAPI_query_event(PAPI_TOT_INS) != PAPI_OK || PAPI_add_event(es, PAPI_TOT_INS) != PAPI_OK,
		      "PAPI_TOT_INS counts without a PMU");
		CHECK_PAPI(PAPI_destroy_eventset(&es));
	}

	/* N fresh pages, one byte each; T ms of busy CPU time */
	enum { N = 400, SLACK = 100 };
	const char *names[] = {"perf::PAGE-FAULTS", "core:::perf::TASK-CLOCK"};
	int es = make_set(names, 2);
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, (size_t)(N * page), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED, "mmap");
	/* base pages, each its own fault, whatever transparent huge pages do */
	CHECK(madvise(mem, (size_t)(N * page), MADV_NOHUGEPAGE) == 0, "madvise");
	long long v[2], t0 = thread_cpu_ns();
	CHECK_PAPI(PAPI_start(es));
	for (int i = 0; i < N; i++)
		mem[(long)i * page] = 1;
	volatile long sink __attribute__((unused)) = 0;
	while (thread_cpu_ns() - t0 < 50000000)
		for (int i = 0; i < 1000; i++)
			sink += i;
	CHECK_PAPI(PAPI_stop(es, v));
	long long spent = thread_cpu_ns() - t0, faults = v[0], task = v[1];
	munmap(mem, (size_t)(N * page));
	CHECK(v[0] >= N && v[0] < N + SLACK, "%d pages touched: %lld page faults", N, v[0]);
	long long tol = spent / 10 + 2000000;
	CHECK(llabs(v[1] - spent) <= tol, "task-clock %lld ns, thread CPU time %lld ns",
	      v[1], spent);
	/* PAPI_read while running goes up; after reset it starts again */
	CHECK_PAPI(PAPI_start(es));
	long long a[2], b[2];
	CHECK_PAPI(PAPI_read(es, a));
	t0 = thread_cpu_ns();
	while (thread_cpu_ns() - t0 < 5000000)
		sink += 1;
	CHECK_PAPI(PAPI_read(es, b));
	/* a second start counts as the first did (Linux lost task-clock time
	 * of a group enabled a second time with PERF_IOC_FLAG_GROUP) */
	CHECK(llabs(b[1] - a[1] - 5000000) < 1000000, "task-clock %lld then %lld over 5 ms",
	      a[1], b[1]);
	CHECK_PAPI(PAPI_reset(es));
	CHECK_PAPI(PAPI_read(es, a));
	CHECK(a[1] < b[1], "reset did not restart task-clock (%lld after %lld)", a[1], b[1]);
	CHECK_PAPI(PAPI_stop(es, v));
	/* overflow every 1 ms of task-clock over 50 ms of CPU in user mode:
	 * one call per sample the kernel takes, so up to 50, fewer by the
	 * samples that fall in the kernel (the loop's clock reads) */
	CHECK_PAPI(PAPI_event_name_to_code("core:::perf::TASK-CLOCK", &code));
	CHECK_PAPI(PAPI_overflow(es, code, 1000000, 0, on_overflow));
	overflows = 0;
	CHECK_PAPI(PAPI_start(es));
	t0 = thread_cpu_ns();
	while (thread_cpu_ns() - t0 < 50000000)
		for (int i = 0; i < 100000; i++)
			sink += 1;
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK(overflows >= 35 && overflows <= v[1] / 1000000,
	      "%d overflow calls for %lld ns of task-clock at 1 ms", overflows, v[1]);
	printf("overflow: %d calls for %lld ns of task-clock, threshold 1 ms\n", overflows, v[1]);
	CHECK_PAPI(PAPI_overflow(es, code, 0, 0, on_overflow));
	drop_set(es);
	/* multiplexing is the kernel's: PAPI_set_multiplex is no error, and
	 * the set counts as before */
	es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_assign_eventset_component(es, 0));
	CHECK_PAPI(PAPI_set_multiplex(es));
	CHECK_PAPI(PAPI_add_named_event(es, "perf::TASK-CLOCK"));
	CHECK_PAPI(PAPI_start(es));
	t0 = thread_cpu_ns();
	while (thread_cpu_ns() - t0 < 10000000)
		sink += 1;
	CHECK_PAPI(PAPI_stop(es, v));
	CHECK(llabs(v[0] - 10000000) < 3000000, "multiplexed task-clock %lld over 10 ms", v[0]);
	drop_set(es);
	printf("software events: %d pages -> %lld faults; %lld ns CPU -> task-clock %lld\n",
	       N, faults, spent, task);
}

static void kernel_events(void)
{
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	int rc = PAPI_add_named_event(es, "kernel:::perf::CONTEXT-SWITCHES");
	if (!kernel_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0)) {
		CHECK(rc == PAPI_ESYS, "kernel domain refused by the kernel, yet add gave %s",
		      PAPI_strerror(rc));
		const PAPI_component_info_t *ci =
			PAPI_get_component_info(PAPI_get_component_index("kernel"));
		CHECK(ci && strstr(ci->description, "domain is refused"),
		      "the kernel component does not say why: %s", ci ? ci->description : "");
		printf("kernel events: refused (kernel domain not permitted), as noted\n");
	} else {
		CHECK(rc == PAPI_OK, "add kernel:::perf::CONTEXT-SWITCHES: %s", PAPI_strerror(rc));
		long long v;
		CHECK_PAPI(PAPI_start(es));
		for (int i = 0; i < 3; i++) {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
		CHECK_PAPI(PAPI_stop(es, &v));
		CHECK(v >= 3, "3 sleeps, %lld context switches", v);
		printf("kernel events: 3 sleeps -> %lld context switches\n", v);
	}
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));
	/* an event the profile did not give the kernel component */
	int code;
	CHECK(PAPI_event_name_to_code("kernel:::perf::TASK-CLOCK", &code) == PAPI_ENOEVNT,
	      "kernel:::perf::TASK-CLOCK should not exist");
}

/* Page faults of touching n fresh pages, counted by event `name` in a set
 * of the component's default (user) domain; -1 with *rc when refused. */
static long long faults(const char *name, int n, int *rc)
{
	int es = PAPI_NULL;
	long long v = -1;
	CHECK_PAPI(PAPI_create_eventset(&es));
	*rc = PAPI_add_named_event(es, name);
	if (*rc == PAPI_OK) {
		long page = sysconf(_SC_PAGESIZE);
		char *mem = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(mem != MAP_FAILED, "mmap");
		CHECK(madvise(mem, (size_t)(n * page), MADV_NOHUGEPAGE) == 0, "madvise");
		CHECK_PAPI(PAPI_start(es));
		for (int i = 0; i < n; i++)
			mem[(long)i * page] = 1;
		CHECK_PAPI(PAPI_stop(es, &v));
		munmap(mem, (size_t)(n * page));
		CHECK_PAPI(PAPI_cleanup_eventset(es));
	}
	CHECK_PAPI(PAPI_destroy_eventset(&es));
	return v;
}

/* libpfm4's modifiers, as PAPI's perf_event component takes them: bare or
 * =0/=1; u and k each decide their own context for the event, the set's
 * domain the other. The faults of pages touched in user mode count with
 * u, not with u=0; with k=1 too (user still counted by the set's domain),
 * where the kernel permits counting its context. */
static void modifiers(void)
{
	enum { N = 300, SLACK = 100 };
	int bare, one, upper, rc;
	CHECK_PAPI(PAPI_event_name_to_code("perf::TASK-CLOCK:u", &bare));
	CHECK_PAPI(PAPI_event_name_to_code("perf::TASK-CLOCK:u=1", &one));
	CHECK_PAPI(PAPI_event_name_to_code("core:::perf::TASK-CLOCK:U=0x1", &upper));
	CHECK(bare == one && one == upper, ":u, :u=1 and :U=0x1 have codes %#x %#x %#x", bare,
	      one, upper);
	CHECK_PAPI(PAPI_event_name_to_code("perf::TASK-CLOCK:k=1", &one));
	CHECK_PAPI(PAPI_event_name_to_code("perf::TASK-CLOCK:u=1:k=0:excl=0:period=1000", &one));
	CHECK(PAPI_event_name_to_code("perf::TASK-CLOCK:u=2", &one) != PAPI_OK, ":u=2 taken");
	CHECK(PAPI_event_name_to_code("perf::TASK-CLOCK:nosuch", &one) != PAPI_OK,
	      ":nosuch taken");
	long long u = faults("perf::PAGE-FAULTS:u", N, &rc);
	CHECK(rc == PAPI_OK && u >= N && u < N + SLACK, "%d pages, :u: %lld faults (%s)", N,
	      u, PAPI_strerror(rc));
	long long u0 = faults("perf::PAGE-FAULTS:u=0", N, &rc);
	CHECK(rc == PAPI_OK && u0 == 0, "%d pages, :u=0: %lld faults (%s)", N, u0,
	      PAPI_strerror(rc));
	long long k = faults("perf::PAGE-FAULTS:k=1", N, &rc);
	if (kernel_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0)) {
		CHECK(rc == PAPI_OK && k >= N && k < N + SLACK, "%d pages, :k=1: %lld faults (%s)",
		      N, k, PAPI_strerror(rc));
		long long konly = faults("perf::PAGE-FAULTS:k:u=0", N, &rc);
		CHECK(rc == PAPI_OK && konly < SLACK, "%d pages in user mode, :k:u=0: %lld faults",
		      N, konly);
		printf("modifiers: %d pages -> :u %lld, :u=0 %lld, :k=1 %lld, :k:u=0 %lld faults\n",
		       N, u, u0, k, konly);
	} else {
		CHECK(rc == PAPI_ESYS, "kernel context refused by the kernel, yet :k=1 gave %s",
		      PAPI_strerror(rc));
		printf("modifiers: %d pages -> :u %lld, :u=0 %lld faults; :k=1 refused (kernel "
		       "context not permitted)\n", N, u, u0);
	}
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "host", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	software_events();
	modifiers();
	kernel_events();
	PAPI_shutdown();
	printf("PASSED\n");
	return 0;
}
