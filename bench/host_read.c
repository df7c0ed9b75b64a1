/* bench/host_read: cost of one PAPI_read of one Linux software event
 * through whichever libpapi the dynamic linker gives this program, and of
 * one bare read() of a perf_event group of the same event in the same
 * process (the floor: every perf-based PAPI_read makes that system call).
 *
 *   host_read [EVENT [REPS [BATCH]]]     default perf::TASK-CLOCK 201 2000
 *
 * Built once without an rpath; bench/run.sh runs it with LD_LIBRARY_PATH
 * naming counterlab's libpapi (COUNTERLAB_MACHINE=host: the core component
 * over linux-perf) and then Debian's (its perf_event component), so both
 * read the same event in the same command. A libpapi that cannot count the
 * event (a component disabled, say) gets "available": false and PAPI's
 * reason. Batches of BATCH calls are timed with the thread's CPU clock (on
 * a shared machine, time other processes run is not ours), REPS of them
 * for each side, alternating in short batches so that load falls on both
 * alike; medians are ns per call. When the libpapi is counterlab's,
 * counterlab's own read of the same event (clab_evset_read) is timed too,
 * which splits PAPI_read into PAPI's layer and counterlab's. Prints one
 * JSON object on stdout. */
#define _GNU_SOURCE
#include <dlfcn.h>
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
#include "counterlab/counterlab.h"

/* counterlab's own read of the same event, when the libpapi is ours (found
 * through the dynamic linker, so the program runs on any libpapi) */
typedef struct clab_api {
	int (*machine_default)(clab_machine **);
	clab_component *(*component)(clab_machine *, const char *);
	int (*attach)(clab_machine *, clab_thread **);
	int (*create)(clab_component *, clab_thread *, clab_evset **);
	int (*lookup)(clab_component *, const char *, uint32_t *);
	int (*add)(clab_evset *, uint32_t);
	int (*start)(clab_evset *);
	int (*read)(clab_evset *, int64_t *);
} clab_api;

static clab_evset *clab_set(const char *event, clab_api *api)
{
	void **f = (void **)api;
	static const char *const names[] = {
		"clab_machine_default", "clab_machine_component", "clab_thread_attach",
		"clab_evset_create", "clab_event_lookup", "clab_evset_add",
		"clab_evset_start", "clab_evset_read",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!(f[i] = dlsym(RTLD_DEFAULT, names[i])))
			return NULL;
	clab_machine *m;
	clab_component *c;
	clab_thread *t;
	clab_evset *s;
	uint32_t code;
	if (api->machine_default(&m) || !(c = api->component(m, "core")) ||
	    api->attach(m, &t) || api->create(c, t, &s) || api->lookup(c, event, &code) ||
	    api->add(s, code) || api->start(s))
		return NULL;
	return s;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* JSON string body: quotes and backslashes dropped (reasons are prose) */
static void put_str(const char *s)
{
	for (; *s; s++)
		if (*s != '"' && *s != '\\' && (unsigned char)*s >= ' ')
			putchar(*s);
}

static const char *papi_lib(void)
{
	Dl_info info;
	return dladdr((void *)PAPI_read, &info) && info.dli_fname ? info.dli_fname : "?";
}

/* Why no component of this libpapi counts the event. */
static void unavailable(const char *event, int rc, const char *extra)
{
	printf("{\"papi_lib\":\"%s\",\"event\":\"%s\",\"available\":false,\"reason\":\"",
	       papi_lib(), event);
	put_str(PAPI_strerror(rc));
	for (int c = 0; c < PAPI_num_components(); c++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(c);
		if (ci && ci->disabled) {
			printf("; %s disabled: ", ci->name);
			put_str(ci->disabled_reason);
		}
	}
	printf("\"%s}\n", extra);
}

/* PAPI's software-defined events: a counter this program registers with
 * libsde (when the libpapi beside it has one), so that PAPI_read of it
 * costs PAPI's own layer plus a memory read. In a libpapi whose perf_event
 * component cannot start (no PMU libpfm4 knows), that is the nearest
 * stock read there is. The interface, as declared by PAPI's sde_lib.h. */
static long long sde_counter;

static int sde_register(void)
{
	void *lib = dlopen("libsde.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!lib)
		return 0;
	void *(*init)(const char *) = (void *(*)(const char *))dlsym(lib, "papi_sde_init");
	int (*reg)(void *, const char *, int, int, void *) =
		(int (*)(void *, const char *, int, int, void *))dlsym(lib, "papi_sde_register_counter");
	void *h = init ? init("clabbench") : NULL;
	/* mode 0: read-only, delta; type 0: long long */
	return h && reg && reg(h, "reads", 0, 0, &sde_counter) == 0;
}

static int start_set(int *es, const char *event)
{
	*es = PAPI_NULL;
	int rc = PAPI_create_eventset(es);
	if (rc == PAPI_OK)
		rc = PAPI_add_named_event(*es, event);
	if (rc == PAPI_OK)
		rc = PAPI_start(*es);
	return rc;
}

int main(int argc, char **argv)
{
	const char *event = argc > 1 ? argv[1] : "perf::TASK-CLOCK";
	int reps = argc > 2 ? atoi(argv[2]) : 201, batch = argc > 3 ? atoi(argv[3]) : 2000;
	if (reps < 1 || reps > 10000 || batch < 1) {
		fprintf(stderr, "host_read: REPS 1..10000, BATCH >= 1\n");
		return 2;
	}
	int sde = sde_register();
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		fprintf(stderr, "host_read: PAPI_library_init failed (%s)\n", papi_lib());
		return 1;
	}
	int es, es_sde = PAPI_NULL, rc = start_set(&es, event);
	if (rc != PAPI_OK)
		es = PAPI_NULL;
	if (sde && start_set(&es_sde, "sde:::clabbench::reads") != PAPI_OK)
		es_sde = PAPI_NULL;
	if (es == PAPI_NULL && es_sde == PAPI_NULL) {
		unavailable(event, rc, "");
		return 0;
	}
	/* the floor: one perf group of TASK-CLOCK read as PAPI's perf_event
	 * reads its groups (PERF_FORMAT_GROUP with both times) */
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("host_read: perf_event_open");
		return 1;
	}
	clab_api api;
	clab_evset *cs = es != PAPI_NULL ? clab_set(event, &api) : NULL;
	double *tp = calloc((size_t)reps, sizeof *tp), *tr = calloc((size_t)reps, sizeof *tr);
	double *tc = calloc((size_t)reps, sizeof *tc), *ts = calloc((size_t)reps, sizeof *ts);
	double *trs = calloc((size_t)reps, sizeof *trs);
	long long v = 0, last = 0, vs = 0;
	uint64_t buf[4];
	volatile uint64_t sink __attribute__((unused)) = 0;
	for (int r = -1; r < reps; r++) { /* r = -1 warms up */
		double t0 = now_ns();
		for (int i = 0; es != PAPI_NULL && i < batch; i++)
			if (PAPI_read(es, &v) != PAPI_OK) {
				fprintf(stderr, "host_read: PAPI_read failed\n");
				return 1;
			}
		double t1 = now_ns();
		for (int i = 0; i < batch; i++) {
			if (read(fd, buf, sizeof buf) != sizeof buf) {
				perror("host_read: read");
				return 1;
			}
			sink += buf[3];
		}
		double t2 = now_ns();
		int64_t w;
		for (int i = 0; cs && i < batch; i++)
			if (api.read(cs, &w)) {
				fprintf(stderr, "host_read: clab_evset_read failed\n");
				return 1;
			}
		double t3 = now_ns();
		for (int i = 0; es_sde != PAPI_NULL && i < batch; i++) {
			sde_counter++;
			if (PAPI_read(es_sde, &vs) != PAPI_OK) {
				fprintf(stderr, "host_read: PAPI_read of the SDE counter failed\n");
				return 1;
			}
		}
		double t4 = now_ns();
		for (int i = 0; es_sde != PAPI_NULL && i < batch; i++) {
			if (read(fd, buf, sizeof buf) != sizeof buf) {
				perror("host_read: read");
				return 1;
			}
			sde_counter++;
			if (PAPI_read(es_sde, &vs) != PAPI_OK) {
				fprintf(stderr, "host_read: PAPI_read of the SDE counter failed\n");
				return 1;
			}
		}
		double t5 = now_ns();
		if (r >= 0) {
			trs[r] = (t5 - t4) / batch;
			tp[r] = (t1 - t0) / batch;
			tr[r] = (t2 - t1) / batch;
			tc[r] = (t3 - t2) / batch;
			ts[r] = (t4 - t3) / batch;
		}
		if (v < last) {
			fprintf(stderr, "host_read: %s went back (%lld after %lld)\n", event, v, last);
			return 1;
		}
		last = v;
	}
	if (es_sde != PAPI_NULL && vs != sde_counter) { /* the read must be real */
		fprintf(stderr, "host_read: SDE counter read %lld, is %lld\n", vs, sde_counter);
		return 1;
	}
	double mr = median(tr, reps);
	char sdef[200] = "";
	if (es_sde != PAPI_NULL)
		snprintf(sdef, sizeof sdef, ",\"papi_sde_read_ns\":%.2f,\"raw_then_sde_read_ns\":%.2f",
			 median(ts, reps), median(trs, reps));
	if (es == PAPI_NULL) {
		char extra[sizeof sdef + 64];
		snprintf(extra, sizeof extra, ",\"raw_read_ns\":%.2f%s", mr, sdef);
		unavailable(event, rc, extra);
		return 0;
	}
	double mp = median(tp, reps), mc = median(tc, reps);
	/* PAPI's own layer (PAPI_read to the component and back, our glue
	 * included) is what a stock perf_event read adds to its read() too */
	char layers[128] = "";
	if (cs)
		snprintf(layers, sizeof layers,
			 ",\"clab_read_ns\":%.2f,\"papi_layer_ns\":%.2f", mc, mp - mc);
	printf("{\"papi_lib\":\"%s\",\"event\":\"%s\",\"available\":true,\"reps\":%d,\"batch\":%d,"
	       "\"papi_read_ns\":%.2f,\"raw_read_ns\":%.2f,\"ratio_to_raw_read\":%.4f,"
	       "\"papi_read_ns_min\":%.2f,\"raw_read_ns_min\":%.2f,\"last_value\":%lld%s%s}\n",
	       papi_lib(), event, reps, batch, mp, mr, mp / mr, tp[0], tr[0], last, layers, sdef);
	return 0;
}
