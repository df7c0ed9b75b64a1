/* A PAPI program reading the network component while the torus model
 * carries a ping-pong between rank 0 (node 0) and rank 16 (node 1, its E
 * neighbour) of the default 4x4x4x4x2, 16 ranks per node, ABCDET map.
 * Node 0 sends each 8-byte message as one packet of two 32-byte chunks on
 * its E+ link, deterministically (an eager message); node 1's answer
 * arrives on the same link (half way round a ring of 2 goes minus from
 * node 1, whose coordinates sum to an odd number). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <counterlab/sim.h>
#include "check.h"

#define ITERS 3
#define E_PLUS 0x200 /* link 9 */
#define E_MINUS 0x100

/* The counts of one ping-pong run on a set of the given events. */
static void measure(const char *const *names, int n, long long *v, double *secs)
{
	int es = make_set(names, n);
	CHECK_PAPI(PAPI_start(es));
	int rc = clab_sim_traffic("pingpong:a=0,b=16,bytes=8,iters=3", secs);
	CHECK(rc == 0, "clab_sim_traffic: %d", rc);
	CHECK_PAPI(PAPI_stop(es, v));
	drop_set(es);
}

static void expect_add_fails(const char *const *names, int n, int want)
{
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	for (int i = 0; i < n - 1; i++)
		CHECK_PAPI(PAPI_add_named_event(es, names[i]));
	int rc = PAPI_add_named_event(es, names[n - 1]);
	CHECK(rc == want, "adding %s: %s, want %s", names[n - 1], PAPI_strerror(rc),
	      PAPI_strerror(want));
	drop_set(es);
}

static int start_rc;

static void start_set(const void *es)
{
	start_rc = PAPI_start(*(const int *)es);
}

/* In a thread of its own: a network set whose start gives `want`; with
 * verbose errors, a refusal says why, and only that (PAPI stops the set
 * after a failed start, which has nothing to say). */
static void *second_set(void *want)
{
	const char *one[] = {"network:::PEVT_NW_CYCLES"};
	CHECK_PAPI(PAPI_register_thread());
	int es = make_set(one, 1);
	char err[4096];
	CHECK_PAPI(PAPI_set_debug(PAPI_VERB_ECONT));
	capture_stderr(start_set, &es, err, sizeof err);
	CHECK_PAPI(PAPI_set_debug(PAPI_QUIET));
	int rc = start_rc;
	CHECK(rc == (int)(intptr_t)want, "second thread's start: %s, want %s",
	      PAPI_strerror(rc), PAPI_strerror((int)(intptr_t)want));
	CHECK(rc == PAPI_OK ? !strstr(err, "counterlab") :
	      strstr(err, "counterlab") && !strstr(err, "not running"),
	      "second thread's start said: '%s'", err);
	long long v;
	if (rc == PAPI_OK)
		CHECK_PAPI(PAPI_stop(es, &v));
	drop_set(es);
	CHECK_PAPI(PAPI_unregister_thread());
	return NULL;
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,activity=none", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	CHECK_PAPI(PAPI_thread_init(pthread_self));
	CHECK(PAPI_get_component_index("network") >= 0, "no network component");

	long long v[4];
	double secs;
	const char *all[] = {"network:::PEVT_NW_USER_ESC_PP_SENT", "network:::PEVT_NW_USER_PP_RECV",
			     "network:::PEVT_NW_USER_DYN_PP_SENT", "network:::PEVT_NW_CYCLES"};
	measure(all, 4, v, &secs);
	CHECK(v[0] == 2 * ITERS, "escape chunks sent %lld, want %d", v[0], 2 * ITERS);
	CHECK(v[1] == ITERS, "packets received %lld, want %d", v[1], ITERS);
	CHECK(v[2] == 0, "dynamic chunks %lld, want 0 (eager messages)", v[2]);
	/* the thread waited the modelled time: network cycles at 500 MHz */
	double want_cycles = secs * 500e6;
	CHECK(secs > 0 && v[3] >= want_cycles - 2 && v[3] <= want_cycles + 2,
	      "network cycles %lld, want %.0f", v[3], want_cycles);

	/* attached to E+ only: all of it; to E- only: none */
	const char *eplus[] = {"network:::PEVT_NW_USER_ESC_PP_SENT:links=0x200",
			       "network:::PEVT_NW_USER_PP_RECV:links=0x200"};
	measure(eplus, 2, v, &secs);
	CHECK(v[0] == 2 * ITERS && v[1] == ITERS, "E+ link: %lld %lld", v[0], v[1]);
	const char *eminus[] = {"network:::PEVT_NW_USER_ESC_PP_SENT:links=0x100",
				"network:::PEVT_NW_USER_PP_RECV:links=0x100"};
	measure(eminus, 2, v, &secs);
	CHECK(v[0] == 0 && v[1] == 0, "E- link: %lld %lld", v[0], v[1]);

	/* generic events take their VC mask as a qualifier */
	const char *generic[] = {"network:::PEVT_NW_SENT:vc=0x20", "network:::PEVT_NW_SENT:vc=0x40",
				 "network:::PEVT_NW_RECV:vc=0x70"};
	measure(generic, 3, v, &secs);
	CHECK(v[0] == 2 * ITERS && v[1] == 0 && v[2] == ITERS, "generic: %lld %lld %lld",
	      v[0], v[1], v[2]);

	/* the unit's limits */
	const char *five_sent[] = {"network:::PEVT_NW_USER_PP_SENT", "network:::PEVT_NW_USER_DYN_PP_SENT",
				   "network:::PEVT_NW_USER_ESC_PP_SENT", "network:::PEVT_NW_SYS_PP_SENT",
				   "network:::PEVT_NW_USER_PRI_PP_SENT"};
	expect_add_fails(five_sent, 5, PAPI_ECNFLCT);
	const char *two_recv[] = {"network:::PEVT_NW_USER_PP_RECV", "network:::PEVT_NW_SYS_PP_RECV"};
	expect_add_fails(two_recv, 2, PAPI_ECNFLCT);
	const char *vc_clash[] = {"network:::PEVT_NW_USER_PP_RECV", "network:::PEVT_NW_SYS_PP_RECV_FIFO"};
	expect_add_fails(vc_clash, 2, PAPI_ECNFLCT);
	/* each link has its own counters: events on different links fit,
	 * two _RECV events on one link do not */
	const char *links_clash[] = {"network:::PEVT_NW_USER_PP_RECV:links=0x1",
				     "network:::PEVT_NW_SYS_PP_RECV:links=0x3"};
	expect_add_fails(links_clash, 2, PAPI_ECNFLCT);
	/* ... so a PAPI set holds more events than one link has counters:
	 * 4 _SENT and a _RECV on each of E+ and E-, and the cycles */
	const char *two_links[] = {
		"network:::PEVT_NW_USER_ESC_PP_SENT:links=0x200", "network:::PEVT_NW_USER_DYN_PP_SENT:links=0x200",
		"network:::PEVT_NW_SYS_PP_SENT:links=0x200", "network:::PEVT_NW_USER_PRI_PP_SENT:links=0x200",
		"network:::PEVT_NW_USER_PP_RECV:links=0x200",
		"network:::PEVT_NW_USER_ESC_PP_SENT:links=0x100", "network:::PEVT_NW_USER_DYN_PP_SENT:links=0x100",
		"network:::PEVT_NW_SYS_PP_SENT:links=0x100", "network:::PEVT_NW_USER_PRI_PP_SENT:links=0x100",
		"network:::PEVT_NW_USER_PP_RECV:links=0x100", "network:::PEVT_NW_CYCLES"};
	long long v11[11];
	measure(two_links, 11, v11, &secs);
	CHECK(v11[0] == 2 * ITERS && v11[4] == ITERS && v11[5] == 0 && v11[9] == 0,
	      "11 events on E+ and E-: %lld %lld %lld %lld", v11[0], v11[4], v11[5], v11[9]);
	const char *bad_vc[] = {"network:::PEVT_NW_USER_PP_SENT:vc=0x20"};
	expect_add_fails(bad_vc, 1, PAPI_EATTR);
	const char *bad_links[] = {"network:::PEVT_NW_SENT:links=0x800"};
	expect_add_fails(bad_links, 1, PAPI_EATTR);

	/* one running set at a time holds the node's network unit: another
	 * thread's set is added, but refused at start while the first runs */
	const char *one[] = {"network:::PEVT_NW_CYCLES"};
	int first = make_set(one, 1);
	CHECK_PAPI(PAPI_start(first));
	pthread_t th;
	void *ret;
	CHECK(pthread_create(&th, NULL, second_set, (void *)(intptr_t)PAPI_ECNFLCT) == 0, "thread");
	CHECK(pthread_join(th, &ret) == 0 && ret == NULL, "second thread failed");
	long long c;
	CHECK_PAPI(PAPI_stop(first, &c));
	CHECK(pthread_create(&th, NULL, second_set, (void *)(intptr_t)PAPI_OK) == 0, "thread");
	CHECK(pthread_join(th, &ret) == 0 && ret == NULL, "second thread failed");
	drop_set(first);

	/* no overflow on the network unit */
	int es = make_set(one, 1);
	int rc = PAPI_overflow(es, PAPI_NATIVE_MASK, 1000, 0, NULL);
	CHECK(rc != PAPI_OK, "PAPI_overflow on the network unit succeeded");
	drop_set(es);

	PAPI_shutdown();
	printf("papi_network: PASSED\n");
	return 0;
}
