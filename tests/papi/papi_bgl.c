/* A PAPI program reading the BG/L network unit (machines/bgl.ini) while
 * the torus model carries a ping-pong between rank 0 at (0,0,0) and rank 1
 * at (1,0,0) (XYZT: the leftmost letter fastest) of a 2x2x2 torus. An
 * 8-byte message is one packet of one 32-byte chunk (16-byte header) on
 * the deterministic (bubble normal) VC; node 0 sends on X+, and node 1's
 * answer (half way round a ring of 2 goes minus from node 1, whose
 * coordinates sum to an odd number) arrives on node 0's X+ link too, so
 * node 0 returns an ack and a token ack per answer on X+. The thread waits
 * the modelled time at 700 MHz. */
#include <stdint.h>
#include <string.h>
#include <counterlab/sim.h>
#include "check.h"

#define ITERS 3

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgl:torus=2x2x2,ppn=1", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	CHECK(PAPI_get_component_index("network") >= 0, "no network component");

	const char *ev[] = {"network:::BGL_UPC_TS_XP_PKTS", "network:::BGL_UPC_TS_XP_32B_CHUNKS",
			    "network:::BGL_UPC_TS_XP_VCBN_CHUNKS", "network:::BGL_UPC_TS_XP_VCD0_CHUNKS",
			    "network:::BGL_UPC_TS_XP_ACKS", "network:::BGL_UPC_TS_XM_PKTS",
			    "network:::BGL_UPC_TS_XP_LINK_AVAIL_NO_VCD0_VCD_VCBN_TOKENS"};
	long long v[7];
	int es = make_set(ev, 7);
	uint64_t t0 = clab_sim_now();
	double secs;
	CHECK_PAPI(PAPI_start(es));
	CHECK(clab_sim_traffic("pingpong:bytes=8,iters=3", &secs) == 0, "clab_sim_traffic");
	CHECK_PAPI(PAPI_stop(es, v));
	drop_set(es);
	CHECK(v[0] == ITERS && v[1] == ITERS && v[2] == ITERS && v[3] == 0,
	      "X+ packets %lld, chunks %lld, deterministic %lld, dynamic %lld; want 3 3 3 0",
	      v[0], v[1], v[2], v[3]);
	CHECK(v[4] == ITERS && v[5] == 0 && v[6] == 0, "X+ acks %lld (want 3), X- packets %lld, no-token %lld (want 0)",
	      v[4], v[5], v[6]);
	double want = secs * 700e6;
	CHECK(secs > 0 && clab_sim_now() - t0 >= want - 2 && clab_sim_now() - t0 <= want + 2,
	      "the thread waited %llu cycles, want %.0f", (unsigned long long)(clab_sim_now() - t0), want);

	/* the UPC unit's 48 counters: a 49th event is refused */
	static char name[80];
	const char *dir[] = {"XP", "XM", "YP", "YM", "ZP", "ZM"};
	const char *what[] = {"PKTS", "32B_CHUNKS", "VCD0_CHUNKS", "VCD1_CHUNKS", "VCBN_CHUNKS",
			      "VCBP_CHUNKS", "ACKS", "TOKEN_ACKS", "LINK_AVAIL_NO_VCBN_TOKENS"};
	es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	for (int k = 0; k < 49; k++) {
		snprintf(name, sizeof name, "network:::BGL_UPC_TS_%s_%s", dir[k / 9], what[k % 9]);
		int rc = PAPI_add_named_event(es, name);
		CHECK(k < 48 ? rc == PAPI_OK : rc == PAPI_ECNFLCT, "adding event %d (%s): %s", k + 1,
		      name, PAPI_strerror(rc));
	}
	drop_set(es);
	CHECK(clab_sim_work(10, NULL, NULL, 0) != 0, "explicit work on BG/L should be refused");
	PAPI_shutdown();
	puts("papi_bgl: PASSED");
	return 0;
}
