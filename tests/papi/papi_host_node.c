/* Node-wide perf counting through PAPI (linux-perf with scope = node): the
 * same group on every CPU of the node, summed. perf::CPU-CLOCK opened on a
 * CPU for every process runs the whole time it is enabled, so over T seconds
 * the node's sum is (online CPUs) x T; sleeps of this thread are context
 * switches the node counts too. Where the kernel refuses node-wide counting
 * (perf_event_paranoid > 0 and not root) adding an event must say so.
 * The host profile's l2 (uncore PMUs) counts where the kernel has one, and
 * is otherwise disabled with the reason. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static const char profile[] =
	"[machine]\n"
	"description = node-wide perf test\n"
	"topology = host\n"
	"[kernel]\n"
	"backend = linux-perf\n"
	"scope = node\n"
	"domain = all\n"
	"events = perf::CPU-CLOCK, perf::CONTEXT-SWITCHES\n"
	"[l2]\n"
	"backend = linux-perf\n"
	"pmus = uncore\n"
	"scope = node\n";

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void on_overflow(int es, void *pc, long long vec, void *ctx)
{
	(void)es, (void)pc, (void)vec, (void)ctx;
}

static int component_of(const char *name, const PAPI_component_info_t **ci)
{
	int c = PAPI_get_component_index(name);
	CHECK(c >= 0, "no %s component", name);
	*ci = PAPI_get_component_info(c);
	return c;
}

int main(void)
{
	char path[] = "/tmp/clab-papi-node-XXXXXX.ini";
	int fd = mkstemps(path, 4);
	CHECK(fd >= 0 && write(fd, profile, sizeof profile - 1) == (ssize_t)sizeof profile - 1,
	      "writing %s", path);
	close(fd);
	setenv("COUNTERLAB_MACHINE", path, 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	unlink(path);

	const PAPI_component_info_t *ci;
	component_of("kernel", &ci);
	CHECK(!ci->disabled, "kernel disabled: %s", ci->disabled_reason);
	CHECK(strstr(ci->description, "every CPU of the node summed"), "description: %s", ci->description);

	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	int rc = PAPI_add_named_event(es, "kernel:::perf::CPU-CLOCK");
	if (rc != PAPI_OK) {
		/* refused: the note says why, and no count is made up */
		CHECK(strstr(ci->description, "perf_event_paranoid"),
		      "node-wide add refused (%s) without the reason in the note: %s",
		      PAPI_strerror(rc), ci->description);
		printf("node-wide counting refused here, as the note says: %s\n", ci->description);
	} else {
		CHECK_PAPI(PAPI_add_named_event(es, "kernel:::perf::CONTEXT-SWITCHES"));
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		long long v[2];
		double t0 = now_s();
		CHECK_PAPI(PAPI_start(es));
		for (int i = 0; i < 20; i++)
			usleep(10000);
		CHECK_PAPI(PAPI_stop(es, v));
		double t = now_s() - t0;
		double want = ncpu * t * 1e9;
		/* the clocks start and stop one CPU after the other, inside t */
		CHECK(v[0] > 0.9 * want && v[0] <= 1.01 * want,
		      "CPU-CLOCK summed over %ld CPUs: %lld ns in %.3f s (expected about %.0f)",
		      ncpu, v[0], t, want);
		CHECK(v[1] >= 20, "node context switches %lld after 20 sleeps", v[1]);
		printf("%ld CPUs, %.3f s: CPU-CLOCK %lld ns (%.3f x CPUs x time), %lld context switches\n",
		       ncpu, t, v[0], v[0] / want, v[1]);

		/* node-wide counters cannot interrupt */
		int code;
		CHECK_PAPI(PAPI_event_name_to_code("kernel:::perf::CPU-CLOCK", &code));
		CHECK(PAPI_overflow(es, code, 1000000, 0, on_overflow) != PAPI_OK,
		      "overflow armed on a node-wide counter");
	}
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));

	/* l2: uncore PMUs where the kernel has them, else the reason */
	component_of("l2", &ci);
	if (ci->disabled)
		CHECK(strstr(ci->disabled_reason, "no uncore PMU here") &&
		      strstr(ci->disabled_reason, "the kernel has:"),
		      "l2 disabled without the reason: %s", ci->disabled_reason);
	else
		CHECK(ci->num_native_events > 0, "l2 enabled with no events");
	printf("l2 (uncore): %s\n", ci->disabled ? ci->disabled_reason : "enabled");
	PAPI_shutdown();
	printf("papi_host_node: PASSED\n");
	return 0;
}
