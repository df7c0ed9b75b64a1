/* A mixed machine (machines/bgq-live.ini): this host's real I/O and kernel
 * counters (/proc) beside the simulated Blue Gene/Q network unit, counted
 * together by one PAPI program. Real counts by construction: N bytes
 * written make wchar grow by N or more, sleeps are voluntary context
 * switches. Simulated counts exactly: the ping-pong of papi_network.c
 * between rank 0 (node 0) and rank 16 (its E neighbour) sends each 8-byte
 * message as one packet of two 32-byte chunks on the escape VC. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <counterlab/sim.h>
#include "check.h"

#define NBYTES (4 * 65536)
#define ITERS 3

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq-live", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	const char *comps[] = {"io", "network", "kernel"};
	for (int i = 0; i < 3; i++) {
		int cidx = PAPI_get_component_index(comps[i]);
		CHECK(cidx >= 0 && !PAPI_get_component_info(cidx)->disabled, "%s: %s", comps[i],
		      cidx >= 0 ? PAPI_get_component_info(cidx)->disabled_reason : "missing");
	}
	/* the profile has no core: that component says so */
	int core = PAPI_get_component_index("core");
	CHECK(core >= 0 && PAPI_get_component_info(core)->disabled, "core should be disabled");
	CHECK(strstr(PAPI_get_component_info(core)->disabled_reason, "no component 'core'"),
	      "core: %s", PAPI_get_component_info(core)->disabled_reason);

	const char *io[] = {"io:::wchar"};
	const char *kern[] = {"kernel:::voluntary_ctxt_switches"};
	const char *net[] = {"network:::PEVT_NW_USER_ESC_PP_SENT", "network:::PEVT_NW_USER_PP_RECV",
			     "network:::PEVT_NW_USER_DYN_PP_SENT"};
	int ios = make_set(io, 1), ks = make_set(kern, 1), ns = make_set(net, 3);
	CHECK_PAPI(PAPI_start(ios));
	CHECK_PAPI(PAPI_start(ks));
	CHECK_PAPI(PAPI_start(ns));

	char path[] = "/tmp/clab-papi-mixed-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	static char buf[65536];
	for (int i = 0; i < NBYTES / 65536; i++)
		CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf, "write");
	close(fd);
	unlink(path);
	for (int i = 0; i < 2; i++)
		usleep(1000);
	double secs;
	int rc = clab_sim_traffic("pingpong:a=0,b=16,bytes=8,iters=3", &secs);
	CHECK(rc == 0, "clab_sim_traffic: %d", rc);

	long long w, sw, nv[3];
	CHECK_PAPI(PAPI_stop(ns, nv));
	CHECK_PAPI(PAPI_stop(ks, &sw));
	CHECK_PAPI(PAPI_stop(ios, &w));
	CHECK(w >= NBYTES, "wchar grew %lld after %d bytes written", w, NBYTES);
	CHECK(sw >= 2, "voluntary switches %lld after 2 sleeps", sw);
	CHECK(nv[0] == 2 * ITERS, "escape chunks sent %lld, want %d", nv[0], 2 * ITERS);
	CHECK(nv[1] == ITERS, "packets received %lld, want %d", nv[1], ITERS);
	CHECK(nv[2] == 0, "dynamic chunks %lld, want 0 (eager messages)", nv[2]);
	printf("real: wchar +%lld (wrote %d), voluntary switches +%lld; simulated: %lld chunks sent, "
	       "%lld packets received in %.3g s of torus time\n", w, NBYTES, sw, nv[0], nv[1], secs);
	drop_set(ios);
	drop_set(ks);
	drop_set(ns);
	PAPI_shutdown();
	printf("papi_mixed: PASSED\n");
	return 0;
}
