/* bench/read_latency: cost of one PAPI_read of a 4-event set of one of
 * counterlab's components, against one read() of a Linux perf_event
 * software counter (the cheapest real counter read there is without a PMU).
 *
 *   read_latency [-c COMPONENT] [-l LIVE] host|virtual|virtual-tick [REPS [BATCH]]
 *
 * Modes: host (bgq:clock=host), virtual (bgq:clock=virtual: a read reads,
 * time passes only when the program advances it), virtual-tick (virtual
 * with tick=800: every read first simulates one scan interval, so it also
 * pays one UPC_C scan of every counter). COMPONENT: core (default), l2, io
 * or kernel. LIVE: hardware threads of the node that have run before the
 * reads (default 1, the reader): node-wide units sum over them. The machine
 * is opened once per process, when PAPI is initialized, so each mode needs
 * a process of its own. Batches of BATCH calls are timed with
 * CLOCK_MONOTONIC, REPS of them for each side, alternating; the medians (ns
 * per call) are compared. Prints one JSON object on stdout. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "papi.h"
#include "counterlab/backend.h"
#include "counterlab/sim.h"

#define NEV 4
static const struct {
	const char *component;
	const char *events[NEV];
} sets[] = {
	{"core", {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_FP_OPS", "PAPI_L1_DCM"}},
	{"l2", {"l2:::PEVT_L2_HITS", "l2:::PEVT_L2_MISSES", "l2:::PEVT_L2_FETCH_LINE",
		"l2:::PEVT_L2_STORE_LINE"}},
	{"io", {"io:::PEVT_MU_PKT_INJ", "io:::PEVT_MU_MSG_INJ",
		"io:::PEVT_MU_FIFO_PKT_RCV", "io:::PEVT_MU_PORT0_PEND_RD"}},
	{"kernel", {"kernel:::PEVT_CNKHWT_SYSCALL", "kernel:::PEVT_CNKHWT_FIT",
		    "kernel:::PEVT_CNKNODE_MUINT", "kernel:::PEVT_CNKNODE_NDINT"}},
};
static const char *const *event_names;

static volatile long long sink;

static _Noreturn void die(const char *what, const char *detail)
{
	fprintf(stderr, "read_latency: %s%s%s\n", what, detail ? ": " : "",
		detail ? detail : "");
	exit(1);
}

static void die_papi(const char *what, int rc)
{
	die(what, PAPI_strerror(rc));
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A software counter on the calling thread, any CPU, read_format 0. */
static int open_sw_counter(const char **which)
{
	static const struct { uint64_t config; const char *name; } kinds[] = {
		{PERF_COUNT_SW_TASK_CLOCK, "PERF_COUNT_SW_TASK_CLOCK"},
		{PERF_COUNT_SW_CPU_CLOCK, "PERF_COUNT_SW_CPU_CLOCK"},
	};
	int err = 0;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_SOFTWARE;
		a.config = kinds[i].config;
		a.read_format = 0;
		a.exclude_kernel = 1; /* allowed at perf_event_paranoid 2 */
		a.exclude_hv = 1;
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fd >= 0) {
			*which = kinds[i].name;
			return fd;
		}
		err = errno;
	}
	die("perf_event_open (software counter)", strerror(err));
	return -1;
}

static double batch_perf(int fd, int n)
{
	uint64_t v = 0;
	long long acc = 0;
	double t0 = now_ns();
	for (int i = 0; i < n; i++) {
		if (read(fd, &v, sizeof v) != (ssize_t)sizeof v)
			die("read of the perf_event fd", strerror(errno));
		acc += (long long)v;
	}
	double t1 = now_ns();
	sink += acc;
	return (t1 - t0) / n;
}

/* noinline: callgrind counts the reads by this function (bench/run.sh) */
static __attribute__((noinline)) double batch_papi(int es, int n, long long *vals)
{
	long long acc = 0;
	double t0 = now_ns();
	for (int i = 0; i < n; i++) {
		int rc = PAPI_read(es, vals);
		if (rc != PAPI_OK)
			die_papi("PAPI_read", rc);
		acc += vals[0];
	}
	double t1 = now_ns();
	sink += acc;
	return (t1 - t0) / n;
}

static int parse_count(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == 0 || *end || v < 1 || v > 100000000)
		die("bad count", what);
	return (int)v;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-c core|l2|io|kernel] [-l LIVE] host|virtual|virtual-tick [REPS [BATCH]]\n",
		argv0);
	exit(2);
}

/* Hardware threads 1..live-1 of the node run a little, so that node-wide
 * reads have that many threads to sum over. */
static void make_live(int live)
{
	clab_machine *m;
	if (clab_machine_default(&m))
		die("clab_machine_default", clab_errmsg());
	for (int h = 0, made = 1; made < live; h++) {
		clab_thread *t;
		if (h >= clab_machine_nhwthreads(m))
			die("not enough hardware threads for -l", NULL);
		if (clab_thread_attach_at(m, h, &t))
			continue; /* the reader's own thread */
		if (clab_thread_advance(t, 1000))
			die("clab_thread_advance", clab_errmsg());
		clab_thread_detach(t);
		made++;
	}
}

int main(int argc, char **argv)
{
	const char *component = "core";
	int live = 1, opt;
	while ((opt = getopt(argc, argv, "c:l:")) != -1) {
		if (opt == 'c')
			component = optarg;
		else if (opt == 'l')
			live = parse_count(optarg, "LIVE");
		else
			usage(argv[0]);
	}
	argc -= optind - 1;
	argv += optind - 1;
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		if (strcmp(sets[i].component, component) == 0)
			event_names = sets[i].events;
	if (!event_names || argc < 2 || argc > 4 ||
	    (strcmp(argv[1], "host") && strcmp(argv[1], "virtual") &&
	     strcmp(argv[1], "virtual-tick")))
		usage(argv[0]);
	const char *mode = argv[1];
	int reps = argc > 2 ? parse_count(argv[2], "REPS") : 15;
	int batch = argc > 3 ? parse_count(argv[3], "BATCH") : 20000;
	/* a read against one read() of a software counter: the node-wide
	 * units summing a full node's threads, one thread's host clock, the
	 * virtual clock, the virtual clock paying a scan on every read */
	double target = live > 1 ? 0.2 : strcmp(mode, "host") == 0 ? 0.5
		      : strcmp(mode, "virtual") == 0 ? 0.1 : 0.2;

	char spec[64];
	snprintf(spec, sizeof spec, "bgq:clock=%s",
		 strcmp(mode, "virtual-tick") == 0 ? "virtual,tick=800" : mode);
	if (setenv("COUNTERLAB_MACHINE", spec, 1))
		die("setenv", strerror(errno));

	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT)
		die_papi("PAPI_library_init", rc < 0 ? rc : PAPI_EINVAL);
	int es = PAPI_NULL;
	if ((rc = PAPI_create_eventset(&es)) != PAPI_OK)
		die_papi("PAPI_create_eventset", rc);
	for (int i = 0; i < NEV; i++)
		if ((rc = PAPI_add_named_event(es, event_names[i])) != PAPI_OK) {
			fprintf(stderr, "read_latency: adding %s\n", event_names[i]);
			die_papi("PAPI_add_named_event", rc);
		}
	/* the set must belong to the component asked for */
	int cidx = PAPI_get_eventset_component(es);
	const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	if (!ci)
		die("event set has no component", NULL);
	if (strcmp(ci->name, component) != 0)
		die("event set is on another component", ci->name);
	make_live(live);
	if ((rc = PAPI_start(es)) != PAPI_OK)
		die_papi("PAPI_start", rc);

	const char *sw_kind;
	int fd = open_sw_counter(&sw_kind);

	long long vals[NEV] = {0};
	double *tp = calloc((size_t)reps, sizeof *tp);
	double *tb = calloc((size_t)reps, sizeof *tb);
	if (!tp || !tb)
		die("out of memory", NULL);

	/* warm-up: caches, branch predictors, lazy binding, CPU frequency */
	int warm = batch < 5000 ? batch : 5000;
	for (int w = 0; w < 3; w++) {
		batch_perf(fd, warm);
		batch_papi(es, warm, vals);
	}
	for (int r = 0; r < reps; r++) {
		tb[r] = batch_perf(fd, batch);
		tp[r] = batch_papi(es, batch, vals);
	}
	double min_p = tp[0], min_b = tb[0];
	for (int r = 1; r < reps; r++) {
		if (tp[r] < min_p) min_p = tp[r];
		if (tb[r] < min_b) min_b = tb[r];
	}
	double papi_ns = median(tp, reps), base_ns = median(tb, reps);
	double ratio = papi_ns / base_ns;

	long long final_vals[NEV];
	if ((rc = PAPI_stop(es, final_vals)) != PAPI_OK)
		die_papi("PAPI_stop", rc);
	close(fd);

	printf("{\"mode\":\"%s\",\"machine_spec\":\"%s\",\"component\":\"%s\",\"live_threads\":%d,\"events\":[",
	       mode, spec, ci->name, live);
	for (int i = 0; i < NEV; i++)
		printf("%s\"%s\"", i ? "," : "", event_names[i]);
	printf("],\"baseline\":\"read() of perf_event %s fd\","
	       "\"reps\":%d,\"batch\":%d,"
	       "\"papi_read_ns\":%.2f,\"perf_sw_read_ns\":%.2f,\"ratio\":%.4f,"
	       "\"papi_read_ns_min\":%.2f,\"perf_sw_read_ns_min\":%.2f,"
	       "\"final_counts\":[",
	       sw_kind, reps, batch, papi_ns, base_ns, ratio, min_p, min_b);
	for (int i = 0; i < NEV; i++)
		printf("%s%lld", i ? "," : "", final_vals[i]);
	printf("],\"target\":%.2f,\"meets_target\":%s}\n", target,
	       ratio <= target ? "true" : "false");
	free(tp);
	free(tb);
	PAPI_shutdown();
	return 0;
}
