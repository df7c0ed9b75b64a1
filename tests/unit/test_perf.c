/* The linux-perf backend on this host: software events listed and counted
 * with values proved by construction (fresh pages touched, CPU time spent,
 * sleeps), libpfm4's modifiers taken and honoured, hardware events absent
 * with the reason when the kernel has no PMU, every refusal with its own
 * message, and libpfm4's encodings of real PMU events against a golden
 * table (tests/unit/data/perf_encodings.tsv). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "helpers.h"
#include "counterlab/backend.h"
#include "../../backends/linux/perf.h"
#include "../perf_probe.h"

#define GOLDEN "tests/unit/data/perf_encodings.tsv"


static int kernel_counts_hw(void)
{
	return kernel_opens(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A set of the named events of component comp of the host, started. */
typedef struct host {
	clab_machine *m;
	clab_component *c;
	clab_thread *t;
	clab_evset *s;
} host;

/* n fresh pages of the base size, each its own fault when first touched:
 * where transparent huge pages are "always", a 2 MB region would otherwise
 * fault in once */
static char *fresh_pages(int n)
{
	size_t len = (size_t)n * (size_t)sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);
	assert_int_equal(madvise(mem, len, MADV_NOHUGEPAGE), 0);
	return mem;
}

static void host_open(host *h, const char *comp, const char *const *names, int n)
{
	memset(h, 0, sizeof *h);
	h->m = open_machine("host");
	h->c = clab_machine_component(h->m, comp);
	assert_non_null(h->c);
	assert_int_equal(clab_thread_attach(h->m, &h->t), CLAB_OK);
	int rc = program(h->c, h->t, &h->s, names, n);
	if (rc)
		fail_msg("program: %s", clab_errmsg());
}

static void host_close(host *h)
{
	clab_evset_destroy(h->s);
	clab_thread_detach(h->t);
	clab_machine_close(h->m);
}

/* The listing: software events by libpfm4's names and aliases; generic
 * hardware events exactly when the kernel counts them, and otherwise a note
 * that says why, which a failed lookup repeats. */
/* Why hardware events are absent: no PMU at all, or one libpfm4 names
 * from the CPU that the kernel does not count with (a VM without a
 * virtual PMU). */
static int says_no_hw(const char *why)
{
	return strstr(why, "no hardware PMU") || strstr(why, "the kernel counts no hardware event");
}

static void lists_software_events(void **state)
{
	(void)state;
	clab_machine *m = open_machine("host");
	clab_component *c = clab_machine_component(m, "core");
	assert_non_null(c);
	uint32_t a, b;
	assert_int_equal(clab_event_lookup(c, "perf::TASK-CLOCK", &a), CLAB_OK);
	assert_int_equal(clab_event_lookup(c, "perf::PERF_COUNT_SW_TASK_CLOCK", &b), CLAB_OK);
	assert_int_not_equal(a, b); /* an alias is listed as libpfm4 lists it */
	clab_event_info ei;
	assert_int_equal(clab_event_get_info(c, a, &ei), CLAB_OK);
	assert_string_equal(ei.group, "perf");
	assert_int_equal(ei.hw_id, 1); /* PERF_COUNT_SW_TASK_CLOCK */
	clab_component_info ci;
	clab_component_get_info(c, &ci);
	assert_string_equal(ci.backend, "linux-perf");
	/* presets come from PAPI's table only for a hardware PMU (one that
	 * libpfm4 names from the CPU is looked up even where the kernel
	 * cannot count with it) */
	assert_non_null(ci.pmus);
	int core_pmu = 0;
	for (int i = 0; ci.pmus[i]; i++)
		core_pmu |= strcmp(ci.pmus[i], "perf") != 0;
	if (!kernel_counts_hw() && !core_pmu)
		assert_string_equal(ci.presets_note,
				    "no PAPI presets: no hardware PMU (PAPI's table has none for software events)");
	assert_string_equal(ci.pmus[0], "perf");
	int rc = clab_event_lookup(c, "perf::INSTRUCTIONS", &a);
	if (kernel_counts_hw()) {
		assert_int_equal(rc, CLAB_OK);
	} else {
		assert_int_equal(rc, CLAB_E_NOEVENT);
		assert_true(says_no_hw(clab_errmsg()));
		assert_true(says_no_hw(ci.note));
		for (int i = 0; i < ci.nnative; i++) {
			assert_int_equal(clab_event_get_info(c, (uint32_t)i, &ei), CLAB_OK);
			assert_null(strstr(ei.name, "PERF_COUNT_HW"));
		}
	}
	/* the kernel component holds the profile's five kernel-ish events,
	 * each under both of libpfm4's names, and the syscall tracepoints
	 * where the kernel gives them */
	clab_component *k = clab_machine_component(m, "kernel");
	assert_non_null(k);
	clab_component_get_info(k, &ci);
	int plain = 0;
	for (int i = 0; i < ci.nnative; i++) {
		assert_int_equal(clab_event_get_info(k, (uint32_t)i, &ei), CLAB_OK);
		plain += strncmp(ei.name, "perf::syscalls:", 15) != 0;
	}
	assert_int_equal(plain, 10);
	assert_int_equal(clab_event_lookup(k, "perf::MAJOR-FAULTS", &a), CLAB_OK);
	assert_int_equal(clab_event_lookup(k, "perf::TASK-CLOCK", &a), CLAB_E_NOEVENT);
	clab_machine_close(m);
}

/* N fresh pages, one byte written to each: at least N faults, and not many
 * more (the test's own code and stack are already mapped; under
 * AddressSanitizer every 8 pages also touch a fresh page of shadow). */
static void counts_page_faults(void **state)
{
	(void)state;
	enum { N = 512, SLACK = N / 4 + 32 };
	const char *ev[] = {"perf::PAGE-FAULTS", "perf::MINOR-FAULTS", "perf::MAJOR-FAULTS"};
	host h;
	host_open(&h, "core", ev, 3);
	long page = sysconf(_SC_PAGESIZE);
	char *mem = fresh_pages(N);
	int64_t v[3];
	assert_int_equal(clab_evset_start(h.s), CLAB_OK);
	for (int i = 0; i < N; i++)
		mem[(long)i * page] = 1;
	assert_int_equal(clab_evset_stop(h.s, v), CLAB_OK);
	munmap(mem, (size_t)(N * page));
	if (v[0] < N || v[0] >= N + SLACK)
		fail_msg("%d fresh pages touched: %lld page faults", N, (long long)v[0]);
	assert_true(v[1] >= N && v[1] <= v[0]);
	assert_int_equal(v[0], v[1] + v[2]);
	/* stopped: the counts stay as they were, whatever happens meanwhile */
	mem = fresh_pages(N);
	for (int i = 0; i < N; i++)
		mem[(long)i * page] = 1;
	int64_t w[3];
	assert_int_equal(clab_evset_read(h.s, w), CLAB_OK);
	assert_int_equal(w[0], v[0]);
	/* reset, then a second run counts from zero */
	assert_int_equal(clab_evset_reset(h.s), CLAB_OK);
	assert_int_equal(clab_evset_read(h.s, w), CLAB_OK);
	assert_int_equal(w[0], 0);
	assert_int_equal(clab_evset_start(h.s), CLAB_OK);
	assert_int_equal(madvise(mem, (size_t)(N * page), MADV_DONTNEED), 0);
	for (int i = 0; i < N / 2; i++)
		mem[(long)i * page] = 1;
	assert_int_equal(clab_evset_read(h.s, w), CLAB_OK);
	assert_true(w[0] >= N / 2 && w[0] < N / 2 + SLACK);
	/* a reset while running starts again from zero too */
	assert_int_equal(clab_evset_reset(h.s), CLAB_OK);
	for (int i = N / 2; i < N; i++)
		mem[(long)i * page] = 1;
	assert_int_equal(clab_evset_stop(h.s, w), CLAB_OK);
	assert_true(w[0] >= N / 2 && w[0] < N / 2 + SLACK);
	munmap(mem, (size_t)(N * page));
	host_close(&h);
}

/* A busy loop of T ms of this thread's CPU time: task-clock (ns) agrees
 * with the thread's CPU clock within 10% + 2 ms. */
static void task_clock_follows_cpu_time(void **state)
{
	(void)state;
	const char *ev[] = {"perf::TASK-CLOCK", "perf::CPU-CLOCK"};
	host h;
	host_open(&h, "core", ev, 2);
	const uint64_t T = 60000000; /* ns */
	int64_t v[2];
	uint64_t t0 = thread_cpu_ns();
	assert_int_equal(clab_evset_start(h.s), CLAB_OK);
	volatile uint64_t sink __attribute__((unused)) = 0;
	while (thread_cpu_ns() - t0 < T)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
	assert_int_equal(clab_evset_stop(h.s, v), CLAB_OK);
	uint64_t spent = thread_cpu_ns() - t0;
	int64_t tol = (int64_t)(spent / 10) + 2000000;
	if (llabs(v[0] - (int64_t)spent) > tol)
		fail_msg("task-clock %lld ns, thread CPU time %llu ns", (long long)v[0],
			 (unsigned long long)spent);
	assert_true(v[0] >= (int64_t)T - tol);
	assert_true(v[1] > 0);
	host_close(&h);
}

/* Sleeping gives the CPU away: one context switch per nanosleep at least,
 * counted in the kernel domain (host.ini's kernel component counts both);
 * where the kernel refuses that domain, adding is refused with the value
 * of perf_event_paranoid and the fix. */
static void sleeping_switches_context(void **state)
{
	(void)state;
	const char *ev[] = {"perf::CONTEXT-SWITCHES", "perf::CPU-MIGRATIONS"};
	host h;
	if (!kernel_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0)) {
		memset(&h, 0, sizeof h);
		h.m = open_machine("host");
		h.c = clab_machine_component(h.m, "kernel");
		assert_int_equal(clab_thread_attach(h.m, &h.t), CLAB_OK);
		assert_int_equal(program(h.c, h.t, &h.s, ev, 2), CLAB_E_SYS);
		assert_non_null(strstr(clab_errmsg(), "perf_event_paranoid is"));
		clab_component_info ci;
		clab_component_get_info(h.c, &ci);
		assert_non_null(strstr(ci.note, "the all domain is refused"));
		host_close(&h);
		return;
	}
	host_open(&h, "kernel", ev, 2);
	int64_t v[2];
	assert_int_equal(clab_evset_start(h.s), CLAB_OK);
	assert_int_equal(clab_evset_read(h.s, v), CLAB_OK);
	int64_t before = v[0];
	for (int i = 0; i < 5; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	assert_int_equal(clab_evset_stop(h.s, v), CLAB_OK);
	assert_true(v[0] - before >= 5);
	assert_true(v[1] >= 0);
	host_close(&h);
}

/* System calls through tracepoints (host.ini's kernel component asks for
 * the syscalls subsystem): where the kernel and libpfm4 give them, N
 * getppid() calls are N sys_enter_getppid (a call counterlab never makes
 * itself; it does call getpid); elsewhere the note says why. */
static void syscall_tracepoints(void **state)
{
	(void)state;
	clab_machine *m = open_machine("host");
	clab_component *k = clab_machine_component(m, "kernel");
	uint32_t code;
	if (clab_event_lookup(k, "perf::syscalls:sys_enter_getppid", &code) != CLAB_OK) {
		clab_component_info ci;
		clab_component_get_info(k, &ci);
		if (!strstr(ci.note, "tracepoints (syscalls)"))
			fail_msg("no syscall tracepoints, and the note does not say why: %s", ci.note);
		clab_machine_close(m);
		return;
	}
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	clab_evset *s = NULL;
	assert_int_equal(clab_evset_create(k, t, &s), CLAB_OK);
	assert_int_equal(clab_evset_add(s, code), CLAB_OK);
	int64_t v;
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	assert_int_equal(clab_evset_stop(s, &v), CLAB_OK);
	assert_int_equal(v, 100);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
}

/* Contexts (PAPI's domains) per set: the kernel component counts both by
 * default; a set told to count only user context sees no context switch
 * (they happen in the kernel), one told kernel context sees them all. The
 * core component counts user context by default (host.ini's domain). */
static int64_t switches_in(clab_evset *s)
{
	int64_t v;
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	for (int i = 0; i < 5; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	assert_int_equal(clab_evset_stop(s, &v), CLAB_OK);
	return v;
}

static void contexts_per_set(void **state)
{
	(void)state;
	clab_machine *m = open_machine("host");
	clab_component_info ci;
	clab_component_get_info(clab_machine_component(m, "core"), &ci);
	assert_true(ci.contexts);
	assert_int_equal(ci.default_context, CLAB_CTX_USER);
	clab_component *k = clab_machine_component(m, "kernel");
	clab_component_get_info(k, &ci);
	assert_int_equal(ci.default_context, CLAB_CTX_ALL);
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	const char *ev[] = {"perf::CONTEXT-SWITCHES"};
	clab_evset *s = NULL;
	int rc = program(k, t, &s, ev, 1);
	if (!kernel_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0)) {
		assert_int_equal(rc, CLAB_E_SYS); /* both contexts: refused */
		assert_non_null(strstr(clab_errmsg(), "perf_event_paranoid is"));
		assert_int_equal(clab_evset_set_context(s, CLAB_CTX_USER), CLAB_OK);
		assert_int_equal(program(k, t, &s, ev, 1), CLAB_OK); /* user alone is allowed */
		assert_int_equal(switches_in(s), 0);
		assert_int_equal(clab_evset_set_context(s, CLAB_CTX_KERNEL), CLAB_E_SYS);
		assert_int_equal(clab_evset_get_context(s), CLAB_CTX_USER); /* kept */
	} else {
		assert_int_equal(rc, CLAB_OK);
		assert_true(switches_in(s) >= 5);
		assert_int_equal(clab_evset_set_context(s, CLAB_CTX_USER), CLAB_OK);
		assert_int_equal(clab_evset_get_context(s), CLAB_CTX_USER);
		assert_int_equal(switches_in(s), 0);
		assert_int_equal(clab_evset_set_context(s, CLAB_CTX_KERNEL), CLAB_OK);
		assert_true(switches_in(s) >= 5);
	}
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
}

/* The set counts the thread that starts it, even when planned by another
 * (the pages are mapped here: cmocka's asserts belong to the main thread). */
static char *touched;
static void *touch_pages(void *arg)
{
	clab_evset *s = arg;
	long page = sysconf(_SC_PAGESIZE);
	char *mem = touched;
	static int64_t v;
	if (clab_evset_start(s))
		return NULL;
	for (int i = 0; i < 300; i++)
		mem[(long)i * page] = 1;
	if (clab_evset_stop(s, &v))
		return NULL;
	munmap(mem, (size_t)(300 * page));
	return &v;
}

static void counts_the_starting_thread(void **state)
{
	(void)state;
	const char *ev[] = {"perf::PAGE-FAULTS"};
	host h;
	host_open(&h, "core", ev, 1);
	pthread_t th;
	void *res = NULL;
	touched = fresh_pages(300);
	assert_int_equal(pthread_create(&th, NULL, touch_pages, h.s), 0);
	assert_int_equal(pthread_join(th, &res), 0);
	assert_non_null(res);
	int64_t v = *(int64_t *)res;
	assert_true(v >= 300 && v < 300 + 300 / 4 + 32); /* shadow pages under ASan */
	host_close(&h);
}

/* Every refusal with its own error and a message that says what to do. */
static void refusals(void **state)
{
	(void)state;
	clab_machine *m = open_machine("host");
	clab_component *c = clab_machine_component(m, "core");
	uint32_t code;
	assert_int_equal(clab_event_lookup(c, "perf::NO-SUCH-EVENT", &code), CLAB_E_NOEVENT);
	assert_non_null(strstr(clab_errmsg(), "perf::NO-SUCH-EVENT"));
	/* no overflow yet: refused with the reason */
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	clab_evset *s = NULL;
	const char *ev[] = {"perf::TASK-CLOCK"};
	assert_int_equal(program(c, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 1000000, NULL, NULL), CLAB_E_INVAL);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);

	/* profile errors: a bad domain, an event libpfm4 does not list */
	assert_int_equal(clab_machine_open("host:core.domain=hyper", &m), CLAB_E_PROFILE);
	assert_non_null(strstr(clab_errmsg(), "use user, kernel or all"));
	assert_int_equal(clab_machine_open("host:kernel.events=perf::NOPE", &m), CLAB_E_PROFILE);
	assert_non_null(strstr(clab_errmsg(), "'perf::NOPE' is not an event libpfm4 lists"));
	for (const char *const *bad = (const char *const[]){"host:core.scope=package",
			"host:core.pmus=gpu", "host:core.pmus=uncore", NULL}; *bad; bad++) {
		assert_int_equal(clab_machine_open(*bad, &m), CLAB_E_PROFILE);
		assert_non_null(strstr(clab_errmsg(), "scope is thread or node"));
	}

	/* the kernel domain: the kernel decides by perf_event_paranoid (or
	 * the capabilities of root); a refusal names the value and the fix */
	m = open_machine("host:core.domain=kernel");
	c = clab_machine_component(m, "core");
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	s = NULL;
	int rc = program(c, t, &s, ev, 1);
	if (clab_perf_paranoid() > 1 && geteuid() != 0) {
		assert_int_equal(rc, CLAB_E_SYS);
		assert_non_null(strstr(clab_errmsg(), "perf_event_paranoid is"));
	} else {
		assert_int_equal(rc, CLAB_OK);
		int64_t v;
		assert_int_equal(clab_evset_start(s), CLAB_OK);
		assert_int_equal(clab_evset_stop(s, &v), CLAB_OK);
	}
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
}

/* libpfm4's modifiers are the unit's qualifiers: an event takes those
 * libpfm4 lists for it but cpu (the set's scope says where it counts); a
 * bare switch is =1; a bad one is refused with what would work. u and k
 * decide their own context for the event: the faults of pages touched in
 * user mode count with :u, not with :u=0, in the same user-domain set;
 * period and freq (sampling is the overflow's) leave the count as it is. */
static void modifiers(void **state)
{
	(void)state;
	enum { N = 256, SLACK = N / 4 + 32 };
	clab_machine *m = open_machine("host");
	clab_component *c = clab_machine_component(m, "core");
	uint32_t bare = code_of(c, "perf::PAGE-FAULTS:u");
	assert_int_equal(code_of(c, "perf::PAGE-FAULTS:u=1"), bare);
	assert_int_equal(code_of(c, "perf::page-faults:U=0x1"), bare);
	assert_int_not_equal(code_of(c, "perf::PAGE-FAULTS:u=0"), bare);
	assert_int_not_equal(code_of(c, "perf::PAGE-FAULTS"), bare);
	clab_event_info ei;
	assert_int_equal(clab_event_get_info(c, bare, &ei), CLAB_OK);
	assert_string_equal(ei.name, "perf::PAGE-FAULTS:u=0x1");
	code_of(c, "perf::TASK-CLOCK:u=0:k=1:period=1000:freq=0:excl:mg=0:mh=1:pinned=0");
	static const struct { const char *name, *says; } bad[] = {
		{"perf::TASK-CLOCK:u=2", "u=2 is out of range: allowed 0..1"},
		{"perf::TASK-CLOCK:nosuch=1", "does not take qualifier 'nosuch' (accepts: u, k, "},
		{"perf::TASK-CLOCK:cpu=0", "does not take qualifier 'cpu'"},
		{"perf::TASK-CLOCK:period", "qualifier 'period' needs a value: period=N"},
		{"perf::TASK-CLOCK:u:u=0", "qualifier 'u' given twice"},
		{"perf::TASK-CLOCK:u=yes", "u=yes is not a number"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint32_t code;
		assert_int_equal(clab_event_lookup(c, bad[i].name, &code), CLAB_E_QUALIFIER);
		if (!strstr(clab_errmsg(), bad[i].says))
			fail_msg("%s: '%s', expected '%s'", bad[i].name, clab_errmsg(), bad[i].says);
	}
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	clab_evset *s = NULL;
	const char *ev[] = {"perf::PAGE-FAULTS:u=0", "perf::PAGE-FAULTS:u",
			    "perf::PAGE-FAULTS:period=1"};
	if (program(c, t, &s, ev, 3))
		fail_msg("program: %s", clab_errmsg());
	long page = sysconf(_SC_PAGESIZE);
	char *mem = fresh_pages(N);
	int64_t v[3];
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	for (int i = 0; i < N; i++)
		mem[(long)i * page] = 1;
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	munmap(mem, (size_t)(N * page));
	if (v[0] != 0 || v[1] < N || v[1] >= N + SLACK || v[2] < N || v[2] >= N + SLACK)
		fail_msg("%d pages: :u=0 %lld, :u %lld, :period=1 %lld faults", N,
			 (long long)v[0], (long long)v[1], (long long)v[2]);
	/* k=1 joins the kernel context to the set's user one, where permitted */
	const char *k[] = {"perf::PAGE-FAULTS:k=1"};
	int rc = program(c, t, &s, k, 1);
	if (kernel_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0)) {
		assert_int_equal(rc, CLAB_OK);
	} else {
		assert_int_equal(rc, CLAB_E_SYS);
		assert_non_null(strstr(clab_errmsg(), "perf::PAGE-FAULTS:k=1"));
		assert_non_null(strstr(clab_errmsg(), "perf_event_paranoid is"));
	}
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
}

/* Overflow by perf's sampling: handler calls for periods of task-clock
 * the kernel saw pass in user mode (the loop stays there), never more,
 * with the group stopped meanwhile and the count at the first call past
 * the threshold; none after disarming. */
static int ovf_calls;
static int64_t ovf_first;
static void on_ovf(clab_evset *s, uint64_t vector, void *pc, void *uc, void *arg)
{
	(void)pc;
	(void)uc;
	(void)arg;
	int64_t v, w;
	if (vector != 1 || clab_evset_read(s, &v))
		return;
	if (!ovf_calls++)
		ovf_first = v;
	/* stopped while the handler runs: the count does not move */
	volatile uint64_t sink __attribute__((unused)) = 0;
	for (int i = 0; i < 200000; i++)
		sink += (uint64_t)i;
	if (clab_evset_read(s, &w) || w != v)
		ovf_first = -1;
}

static void overflow_by_sampling(void **state)
{
	(void)state;
	const char *ev[] = {"perf::TASK-CLOCK"};
	host h;
	host_open(&h, "core", ev, 1);
	clab_component_info ci;
	clab_component_get_info(h.c, &ci);
	assert_int_equal(ci.overflow, CLAB_OVF_SLOW);
	const uint64_t P = 2000000; /* 2 ms of task-clock */
	assert_int_equal(clab_evset_overflow(h.s, 0, P, on_ovf, NULL), CLAB_OK);
	ovf_calls = 0;
	ovf_first = 0;
	int64_t v;
	uint64_t t0 = thread_cpu_ns();
	assert_int_equal(clab_evset_start(h.s), CLAB_OK);
	volatile uint64_t sink = 0;
	while (thread_cpu_ns() - t0 < 60000000)
		for (int i = 0; i < 100000; i++)
			sink++;
	assert_int_equal(clab_evset_stop(h.s, &v), CLAB_OK);
	/* at most one call per period; at least two (it re-armed): how many of
	 * the 30 periods get a call of their own follows the load (16 seen
	 * with both cores busy), so no more is asked */
	if (ovf_calls < 2 || ovf_calls > (int)((uint64_t)v / P))
		fail_msg("%d handler calls for %lld ns of task-clock at a %llu ns period",
			 ovf_calls, (long long)v, (unsigned long long)P);
	assert_true(ovf_first >= (int64_t)P);
	/* disarmed: no more calls */
	assert_int_equal(clab_evset_overflow(h.s, 0, 0, NULL, NULL), CLAB_OK);
	int before = ovf_calls;
	t0 = thread_cpu_ns();
	assert_int_equal(clab_evset_start(h.s), CLAB_OK);
	while (thread_cpu_ns() - t0 < 10000000)
		for (int i = 0; i < 100000; i++)
			sink++;
	assert_int_equal(clab_evset_stop(h.s, &v), CLAB_OK);
	assert_int_equal(ovf_calls, before);
	host_close(&h);
}

/* A forked child lets go of the sets it inherited (the framework stops
 * them in the child) without stopping the parent's events, which its
 * inherited descriptors name; multiplexing is the kernel's, so asking for
 * it is no error. */
static void fork_leaves_parent_counting(void **state)
{
	(void)state;
	const char *ev[] = {"perf::TASK-CLOCK"};
	host h;
	host_open(&h, "core", ev, 1);
	assert_int_equal(clab_evset_set_multiplex(h.s, 100000), CLAB_OK);
	assert_int_equal(clab_evset_start(h.s), CLAB_OK);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	int64_t a, b;
	assert_int_equal(clab_evset_read(h.s, &a), CLAB_OK);
	uint64_t t0 = thread_cpu_ns();
	volatile uint64_t sink = 0;
	while (thread_cpu_ns() - t0 < 20000000)
		sink++;
	assert_int_equal(clab_evset_stop(h.s, &b), CLAB_OK);
	if (b - a < 15000000)
		fail_msg("after a fork the parent's task-clock moved %lld ns in 20 ms of CPU",
			 (long long)(b - a));
	host_close(&h);
}

/* Many threads attach to the host: it binds none of them to a PU. */
static void many_threads_attach(void **state)
{
	(void)state;
	clab_machine *m = open_machine("host");
	int n = (int)sysconf(_SC_NPROCESSORS_ONLN) * 4 + 1;
	assert_true(clab_machine_nhwthreads(m) >= n);
	clab_thread *t[64];
	for (int i = 0; i < n && i < 64; i++)
		assert_int_equal(clab_thread_attach_at(m, i, &t[i]), CLAB_OK);
	for (int i = 0; i < n && i < 64; i++)
		clab_thread_detach(t[i]);
	clab_machine_close(m);
}

/* The golden table, line by line: every row must encode as written. */
static void golden_encodings(void **state)
{
	(void)state;
	FILE *f = fopen(GOLDEN, "r");
	if (!f)
		fail_msg("%s: %s", GOLDEN, strerror(errno));
	char line[512];
	int rows = 0, bad = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char ev[128], dom[16], src[16];
		unsigned type, xu, xk;
		unsigned long long config, config1;
		if (sscanf(line, "%127s %15s %u %llx %llx %u %u %15s", ev, dom, &type,
			   &config, &config1, &xu, &xk, src) != 8)
			fail_msg("%s: malformed row: %s", GOLDEN, line);
		struct perf_event_attr a;
		int rc = clab_perf_encode(ev, dom, &a);
		rows++;
		if (rc) {
			fprintf(stderr, "%s: %s\n", ev, clab_errmsg());
			bad++;
		} else if (a.type != type || a.config != config || a.config1 != config1 ||
			   a.exclude_user != xu || a.exclude_kernel != xk) {
			fprintf(stderr,
				"%s (%s): got type %u config %#llx config1 %#llx excl_u %u excl_k %u; "
				"expected %u %#llx %#llx %u %u (%s)\n",
				ev, dom, a.type, (unsigned long long)a.config,
				(unsigned long long)a.config1, a.exclude_user, a.exclude_kernel,
				type, config, config1, xu, xk, src);
			bad++;
		}
	}
	fclose(f);
	assert_true(rows >= 10);
	assert_int_equal(bad, 0);
	struct perf_event_attr a;
	assert_int_equal(clab_perf_encode("skl::NO_SUCH_EVENT", "user", &a), CLAB_E_NOEVENT);
	assert_non_null(strstr(clab_errmsg(), "skl::NO_SUCH_EVENT"));
	assert_int_equal(clab_perf_encode("perf::TASK-CLOCK", "hyper", &a), CLAB_E_INVAL);
}

/* A host whose libpfm4 finds a core PMU (forced: LIBPFM_FORCE_PMU=skl)
 * lists its events per unit mask; if the kernel has no PMU the note says
 * so and programming one is refused as an event the kernel cannot count.
 * libpfm4 reads the variable once per process: this runs in a child. */
static void forced_pmu_child(void)
{
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	clab_machine *m;
	/* libpfm4 forced to one PMU lists no `perf` PMU: none of the kernel
	 * component's events exist, so it takes them all */
	if (clab_machine_open("host:kernel.events=all", &m)) {
		fprintf(stderr, "open: %s\n", clab_errmsg());
		_exit(10);
	}
	clab_component *c = clab_machine_component(m, "core");
	uint32_t any_p, bare;
	if (clab_event_lookup(c, "skl::INST_RETIRED:ANY_P", &any_p) ||
	    clab_event_lookup(c, "skl::INST_RETIRED", &bare)) {
		fprintf(stderr, "lookup: %s\n", clab_errmsg());
		_exit(11);
	}
	clab_component_info ci;
	clab_component_get_info(c, &ci);
	if (strcmp(ci.pmus[0], "skl") != 0)
		_exit(12);
	/* PAPI's presets for skl, from PAPI's own table: PAPI_TOT_INS is
	 * INST_RETIRED:ANY_P there (papi_events.csv, CPU,skl) */
	uint32_t tot_ins;
	clab_event_info pi;
	if (clab_event_lookup(c, "PAPI_TOT_INS", &tot_ins) ||
	    clab_event_get_info(c, tot_ins, &pi) || !pi.is_preset || pi.nterms != 1 ||
	    pi.terms[0] != any_p || !strstr(ci.presets_note, " loaded")) {
		fprintf(stderr, "PAPI_TOT_INS from papi_events.csv: %s / %s\n", clab_errmsg(),
			ci.presets_note);
		_exit(17);
	}
	clab_thread *t;
	clab_evset *s = NULL;
	if (clab_thread_attach(m, &t) || clab_evset_create(c, t, &s))
		_exit(13);
	int rc = clab_evset_add(s, any_p);
	if (kernel_counts_hw()) {
		if (rc)
			_exit(14);
	} else {
		if (rc != CLAB_E_NOEVENT ||
		    !strstr(clab_errmsg(), "the kernel cannot count this event here")) {
			fprintf(stderr, "add: %d %s\n", rc, clab_errmsg());
			_exit(15);
		}
		if (!strstr(ci.note, "libpfm4 finds PMU skl but the kernel counts no hardware event")) {
			fprintf(stderr, "note: %s\n", ci.note);
			_exit(16);
		}
	}
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
	_exit(0);
}

/* PAPI's preset table, mutated: every open still succeeds (a line the
 * unit cannot use is skipped and counted in the note), none crashes.
 * Needs a core PMU for the table to be read at all: forced, in a child. */
static void papi_events_fuzz_child(void)
{
	static const char seed[] =
		"# PAPI's format\nCPU,skl\nCPU,skx\n"
		"PRESET,PAPI_TOT_INS,NOT_DERIVED,INST_RETIRED:ANY_P\n"
		"PRESET,PAPI_BR_INS,NOT_DERIVED,BR_INST_RETIRED:ALL_BRANCHES\n"
		"PRESET,PAPI_L1_DCM,DERIVED_SUB,L1D:REPLACEMENT,L2_RQSTS:ALL_DEMAND_DATA_RD\n"
		"PRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|N1|+|,FP_ARITH:SCALAR_DOUBLE,FP_ARITH:SCALAR_SINGLE\n"
		"PRESET,PAPI_TOT_CYC,NOT_DERIVED,CPU_CLK_UNHALTED:THREAD_P,NOTE,\"cycles, all\"\n"
		"CPU,amd64_fam17h_zen2\nPRESET,PAPI_TOT_INS,NOT_DERIVED,RETIRED_INSTRUCTIONS\n";
	static const char alphabet[] = ",|:_N0+\n#PRESETCPU skl";
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	char path[] = "/tmp/clab-papi-events-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		_exit(20);
	close(fd);
	setenv("COUNTERLAB_PAPI_EVENTS", path, 1);
	srand(11);
	for (int r = 0; r < 150; r++) {
		char text[sizeof seed];
		memcpy(text, seed, sizeof seed);
		for (int e = 1 + rand() % 6; e > 0; e--)
			text[rand() % (sizeof seed - 1)] = alphabet[rand() % (sizeof alphabet - 1)];
		if (rand() % 4 == 0) /* cut short */
			text[rand() % (sizeof seed - 1)] = 0;
		FILE *f = fopen(path, "w");
		fputs(text, f);
		fclose(f);
		clab_machine *m;
		if (clab_machine_open("host:kernel.events=all", &m)) {
			fprintf(stderr, "round %d: %s\n", r, clab_errmsg());
			_exit(21);
		}
		clab_component_info ci;
		clab_component_get_info(clab_machine_component(m, "core"), &ci);
		if (!ci.presets_note || !strstr(ci.presets_note, "PAPI presets")) {
			fprintf(stderr, "round %d: note %s\n", r, ci.presets_note);
			_exit(22);
		}
		clab_machine_close(m);
	}
	unlink(path);
	_exit(0);
}

static void in_child(void (*fn)(void))
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		fn();
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void papi_events_fuzz(void **state)
{
	(void)state;
	in_child(papi_events_fuzz_child);
}

static void forced_core_pmu(void **state)
{
	(void)state;
	in_child(forced_pmu_child);
}

int main(void)
{
	/* before libpfm4 initializes: PMUs absent here still encode (golden) */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	/* PAPI's preset table as the build staged it (the test binary has the
	 * library linked in, so it cannot find it beside libcounterlab) */
	setenv("COUNTERLAB_PAPI_EVENTS", CLAB_DATADIR "/../papi/papi_events.csv", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(forced_core_pmu),
		cmocka_unit_test(papi_events_fuzz),
		cmocka_unit_test(lists_software_events),
		cmocka_unit_test(counts_page_faults),
		cmocka_unit_test(task_clock_follows_cpu_time),
		cmocka_unit_test(sleeping_switches_context),
		cmocka_unit_test(contexts_per_set),
		cmocka_unit_test(syscall_tracepoints),
		cmocka_unit_test(counts_the_starting_thread),
		cmocka_unit_test(refusals),
		cmocka_unit_test(modifiers),
		cmocka_unit_test(overflow_by_sampling),
		cmocka_unit_test(many_threads_attach),
		cmocka_unit_test(fork_leaves_parent_counting),
		cmocka_unit_test(golden_encodings),
	};
	return cmocka_run_group_tests_name("linux-perf", tests, NULL, NULL);
}
