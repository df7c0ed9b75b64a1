/* The packet engine: times worked by hand on tiny tori, conservation of
 * packets and chunks, minimal routes, no deadlock with small buffers, and
 * the flow engine's counts under deterministic routing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/torus.h"
#include "counterlab/counterlab.h"
#include "../../sim_backends/torus/packet.h"

#define ALLVC 0x7fu

typedef struct setup {
	clab_netspec spec;
	clab_torus t;
	clab_map m;
} setup;

/* machine with the --set pairs (NULL-ended), shape, ppn, default map. */
static void make(setup *s, const char *machine, const char *shape, int ppn, ...)
{
	s->spec = *clab_netspec_find(machine);
	va_list ap;
	va_start(ap, ppn);
	for (const char *k; (k = va_arg(ap, const char *));) {
		const char *v = va_arg(ap, const char *);
		if (clab_netspec_set(&s->spec, k, v))
			fail_msg("%s=%s: %s", k, v, clab_errmsg());
	}
	va_end(ap);
	if (clab_torus_init(&s->t, &s->spec, shape, ppn, NULL) || clab_map_init(&s->m, &s->t, NULL))
		fail_msg("%s %s: %s", machine, shape, clab_errmsg());
}

static clab_net *net(setup *s, enum clab_net_engine e, enum clab_net_routing r)
{
	int err;
	clab_net *n = clab_net_new(&s->t, &s->m, &err);
	assert_non_null(n);
	assert_int_equal(clab_net_configure(n, e, r, 7), CLAB_OK);
	return n;
}

/* No software costs: the phase's time is the packets' alone. */
#define BARE "o_send_s", "0", "o_recv_s", "0", "latency_s", "0"

/* Hand-worked times on a ring of 4 (generic torus: 2 GB/s links, 40 ns
 * hops, 32-byte header + 512 payload = 544 bytes = 17 chunks, drain port
 * 2 links' worth = 4 GB/s unless set). */
static void test_hand_times(void **state)
{
	(void)state;
	setup s;
	double ts;
	make(&s, "torus", "4", 1, BARE, NULL);
	/* one packet 0 -> 1: read from memory 544 / 4e9 = 136 ns; on the link
	 * 136..408 ns (544 / 2e9 = 272 ns); its head is at node 1 at 176 ns
	 * and written from 176..312 ns, but its tail arrives only at
	 * 408 + 40 = 448 ns: done at 448 ns */
	clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
	assert_int_equal(clab_net_send(n, 0, 1, 512, 1, CLAB_VC_MPI), CLAB_OK);
	assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
	assert_true(fabs(ts - 448e-9) < 1e-12);
	/* two packets 0 -> 1 (1024 bytes): the second is read 136..272 ns,
	 * waits for the link until 408, crosses 408..680, its tail arrives
	 * at 720 ns and it is written by 584 ns: done at 720 ns = one read +
	 * two packets on the link + one hop */
	assert_int_equal(clab_net_send(n, 0, 1, 1024, 1, CLAB_VC_MPI), CLAB_OK);
	assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
	assert_true(fabs(ts - 720e-9) < 1e-12);
	/* the same 1024 bytes 0 -> 2, two hops: the second packet leaves
	 * node 0 at 408 ns and node 1 at 448 ns (it is ready there 40 ns
	 * after it started), ends on the second link at 720 ns, arrives at
	 * 760 ns */
	assert_int_equal(clab_net_send(n, 0, 2, 1024, 1, CLAB_VC_MPI), CLAB_OK);
	assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
	assert_true(fabs(ts - 760e-9) < 1e-12);
	clab_net_free(n);
	clab_map_free(&s.m);

	/* a slow drain port (drain_links 0.5: 1 GB/s, 544 ns a packet):
	 * nodes 0 and 2 each send a packet to node 1. Reads 0..544 ns, links
	 * 544..816, heads at node 1 at 584; the port writes one 584..1128
	 * and the other 1128..1672 ns: 544 + 40 + 2 x 544 = 1672 ns */
	make(&s, "torus", "4", 1, BARE, "drain_links", "0.5", NULL);
	n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
	assert_int_equal(clab_net_send(n, 0, 1, 512, 1, CLAB_VC_MPI), CLAB_OK);
	assert_int_equal(clab_net_send(n, 2, 1, 512, 1, CLAB_VC_MPI), CLAB_OK);
	assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
	assert_true(fabs(ts - 1672e-9) < 1e-12);
	/* the second packet waited in node 1's input buffer 584..1128 ns
	 * (room back when its write ends at 1672): buffers held packets, and
	 * nobody lacked tokens (each link carried one packet) */
	assert_true(clab_net_count(n, 1, -1, CLAB_NET_RECV_FIFO, ALLVC) > 0);
	assert_int_equal(clab_net_count(n, 0, -1, CLAB_NET_NO_TOKEN, 0), 0);
	clab_net_free(n);
	clab_map_free(&s.m);

	/* the same with 4 packets each and buffers of 2 packets: a packet
	 * entering the ring needs room for itself and one more (the bubble),
	 * so the senders wait with free links: no-token cycles */
	make(&s, "torus", "4", 1, BARE, "drain_links", "0.5", "fifo_packets", "2", NULL);
	n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
	assert_int_equal(clab_net_send(n, 0, 1, 2048, 1, CLAB_VC_MPI), CLAB_OK);
	assert_int_equal(clab_net_send(n, 2, 1, 2048, 1, CLAB_VC_MPI), CLAB_OK);
	assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
	/* node 1 writes 8 packets of 544 ns: at least 544 + 40 + 8 x 544 */
	assert_true(ts >= (544 + 40 + 8 * 544) * 1e-9 - 1e-12);
	assert_true(clab_net_count(n, 0, 1, CLAB_NET_NO_TOKEN, 0) > 0);
	assert_true(clab_net_count(n, 2, 0, CLAB_NET_NO_TOKEN, 0) > 0);
	clab_net_free(n);
	clab_map_free(&s.m);

	/* node 0 streams 4 packets to node 2, two hops, into 2-packet
	 * buffers with a fast drain (34 ns to read a packet). With the
	 * dateline a packet needs room for itself only: packets leave node 0
	 * back to back (272 ns apart), the last one's tail reaches node 2
	 * two hops and 272 ns after it started. Under the bubble a packet
	 * enters the ring only into an empty buffer: each waits for the one
	 * before to have left node 1 (272 + 40 ns apart) */
	double t2[2];
	for (int dl = 0; dl < 2; dl++) {
		make(&s, "torus", "4", 1, BARE, "drain_links", "8", "fifo_packets", "2", "dateline",
		     dl ? "1" : "0", NULL);
		n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
		assert_int_equal(clab_net_send(n, 0, 2, 2048, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, &t2[dl]), CLAB_OK);
		clab_net_free(n);
		clab_map_free(&s.m);
	}
	assert_true(fabs(t2[1] - (34 + 3 * 272 + 2 * 40 + 272) * 1e-9) < 1e-12);
	assert_true(fabs(t2[0] - (34 + 3 * (272 + 40) + 2 * 40 + 272) * 1e-9) < 1e-12);
}

/* The router options BookSim2 is compared with, worked by hand on a
 * ring of 4 (generic torus as in test_hand_times). */
static void test_booksim_options(void **state)
{
	(void)state;
	setup s;
	double ts;
	/* tie: 64 packets 0 -> 2, half way round. parity: node 0 (even)
	 * sends all 64 x 17 chunks the + way (its link 1); random: each
	 * packet draws, so both ways carry some, the same for the same seed */
	uint64_t way[3][2];
	for (int k = 0; k < 3; k++) {
		make(&s, "torus", "4", 1, BARE, "tie", k ? "random" : "parity", NULL);
		clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
		assert_int_equal(clab_net_send(n, 0, 2, 64 * 512, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
		for (int l = 0; l < 2; l++)
			way[k][l] = clab_net_count(n, 0, l, CLAB_NET_SENT_CHUNKS, ALLVC);
		clab_net_free(n);
		clab_map_free(&s.m);
	}
	assert_int_equal(way[0][0], 0);
	assert_int_equal(way[0][1], 64 * 17);
	assert_true(way[1][0] > 0 && way[1][1] > 0);
	assert_int_equal(way[1][0] + way[1][1], 64 * 17);
	assert_memory_equal(way[1], way[2], sizeof way[1]);

	/* ports: nodes 0 and 2 send a packet each to node 1, node 1 sends
	 * two to node 2, each side of a node moving 1 GB/s (544 ns a
	 * packet). Shared (drain_links 0.5): node 1 reads its two 0..1088
	 * (the heads from 0 and 2 arrive at 584 while it reads), then writes
	 * them 1088..2176. Split (drain_links 1, half each way): it writes
	 * them 584..1672 while it reads; node 2 writes node 1's second
	 * 1128..1672 */
	for (int split = 0; split < 2; split++) {
		make(&s, "torus", "4", 1, BARE, "drain_links", split ? "1" : "0.5", "ports",
		     split ? "split" : "shared", NULL);
		clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
		assert_int_equal(clab_net_send(n, 0, 1, 512, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_send(n, 2, 1, 512, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_send(n, 1, 2, 1024, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
		assert_true(fabs(ts - (split ? 1672e-9 : 2176e-9)) < 1e-12);
		clab_net_free(n);
		clab_map_free(&s.m);
	}

	/* flow_unit: node 0 streams 6 packets to node 2 (two hops of 400 ns)
	 * into 2-packet dateline buffers, reads of 34 ns (drain_links 8).
	 * packet: a packet leaves node 1 from 400 ns after it started, its
	 * room comes back 272 ns later, so node 0 sends at 34, 306, 706,
	 * 978, 1378, 1650; the last is at node 1 at 2050 and its tail at
	 * node 2 at 2050 + 272 + 400 = 2722 ns. chunk: a head leaves the
	 * injection FIFO when its first chunk is read (2 ns) and a packet's
	 * room comes back when its first chunk has left node 1 (16 ns): node
	 * 0 sends at 2, 274, 546, 818, 1090, 1362 (its link the limit), the
	 * last tail at node 2 at 1362 + 400 + 272 + 400 = 2434 ns (eager:
	 * no rendezvous) */
	for (int chunk = 0; chunk < 2; chunk++) {
		make(&s, "torus", "4", 1, BARE, "drain_links", "8", "fifo_packets", "2", "dateline", "1",
		     "hop_s", "400e-9", "eager_max", "1000000", "flow_unit", chunk ? "chunk" : "packet", NULL);
		clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
		assert_int_equal(clab_net_send(n, 0, 2, 6 * 512, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
		assert_true(fabs(ts - (chunk ? 2434e-9 : 2722e-9)) < 1e-12);
		clab_net_free(n);
		clab_map_free(&s.m);
	}

	/* speedup: node 1 sends A1, A2 to node 2; node 0 sends P to node 2
	 * and then Q1, Q2 to node 1 (reads of 34 ns, drain_links 8; 272 ns
	 * on a link). Node 1's link + carries A1 34..306 and A2 306..578
	 * (oldest first: A2 waited since 68, P's head came at 74); node 0's
	 * link + carries P 34..306, Q1 306..578, Q2 578..850 (heads at node 1
	 * at 74, 346, 618). 0: P waits at the head of node 1's input buffer
	 * for the link until 578 (tail at node 2 at 890), Q1 behind it goes
	 * to memory when P has left, 850..884, Q2 884..918: 918 ns. 2: the
	 * crossbar moves a packet in 136 ns into the link's queue: A2 at
	 * 170, P at 306 (queued behind A2: the link sends it 578..850, its
	 * tail at node 2 at 890), so Q1 is out of the buffer by 476 and Q2
	 * written 618..652, its tail there at 890: 890 ns. 1: the queue
	 * fills no faster than the link empties it, as 0. The same with
	 * interleave (one VC here: nothing to share a link with) */
	for (int k = 0; k < 6; k++) {
		int sp = k % 3;
		char v[2] = {(char)('0' + sp), 0};
		make(&s, "torus", "4", 1, BARE, "drain_links", "8", "speedup", v, "interleave", k < 3 ? "0" : "1",
		     NULL);
		clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
		assert_int_equal(clab_net_send(n, 1, 2, 1024, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_send(n, 0, 2, 512, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_send(n, 0, 1, 1024, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
		assert_true(fabs(ts - (sp == 2 ? 890e-9 : 918e-9)) < 1e-12);
		/* the same chunks cross the same links */
		assert_int_equal(clab_net_count(n, 1, 1, CLAB_NET_SENT_CHUNKS, ALLVC), 3 * 17);
		assert_int_equal(clab_net_count(n, 0, 1, CLAB_NET_SENT_CHUNKS, ALLVC), 3 * 17);
		clab_net_free(n);
		clab_map_free(&s.m);
	}

	/* interleave, on a ring of 7 with the dateline (reads 136 ns,
	 * split ports of drain_links 4; 272 ns a packet on a link). Node 6
	 * sends Q to 1 (wrapping: the dateline buffer), on its link 136..408,
	 * at node 0 at 176; node 0 reads X (to 6) then P (to 2), P ready at
	 * 272; node 1 reads packets to 0 and 6, then R (to 3), ready at 408.
	 * 0: Q takes link 0+ 176..448, P 448..720 (at node 1 at 488); R
	 * crosses 1+ 408..680 and 2+ 448..720; P crosses 1+ 680..952, its
	 * tail at node 2 at 992 ns. 1: P's and Q's buffers differ: P joins Q
	 * on 0+ at 272, each at half rate, Q ends at 624, P at 720; P is at
	 * node 1 at 312 and takes 1+'s lane (R's too), where it cannot end
	 * before its tail is in (760): R waits until then, crosses 1+
	 * 760..1032, then 2+ up to its tail's arrival (1072) and reaches
	 * node 3 at 1112 ns. With speedup 2 as well the same: P's move into
	 * 1+'s queue ends only when its tail is in (760) */
	for (int k = 0; k < 4; k++) {
		make(&s, "torus", "7", 1, BARE, "drain_links", "4", "ports", "split", "dateline", "1",
		     "eager_max", "1000000", "interleave", k & 1 ? "1" : "0", "speedup", k & 2 ? "2" : "0", NULL);
		clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
		static const uint32_t from[] = {6, 0, 0, 1, 1, 1}, to[] = {1, 6, 2, 0, 6, 3};
		for (int i = 0; i < 6; i++)
			assert_int_equal(clab_net_send(n, from[i], to[i], 512, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
		assert_true(fabs(ts - (k & 1 ? 1112e-9 : 992e-9)) < 1e-12);
		assert_int_equal(clab_net_count(n, 0, 1, CLAB_NET_SENT_CHUNKS, ALLVC), 2 * 17);
		clab_net_free(n);
		clab_map_free(&s.m);
	}
}

/* The time of a batch of messages {from, to, bytes} on s (made), in ns;
 * frees s's map. */
static double batch_ns(setup *s, int nmsg, const uint32_t msg[][3])
{
	double ts;
	clab_net *n = net(s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
	for (int i = 0; i < nmsg; i++)
		assert_int_equal(clab_net_send(n, msg[i][0], msg[i][1], msg[i][2], 1, CLAB_VC_MPI), CLAB_OK);
	assert_int_equal(clab_net_phase_end(n, 1, &ts), CLAB_OK);
	clab_net_free(n);
	clab_map_free(&s->m);
	return ts * 1e9;
}

/* Allocators on a ring of 8 (reads of 34 ns with drain_links 8, 272 ns
 * a full packet on a link). */
static void test_allocators(void **state)
{
	(void)state;
	setup s;
	/* round_robin: a link chooses once every head of the instant is in.
	 * Hops of 272 ns: node 0 sends P1, P2 to node 3, node 1 A1 (17
	 * chunks) and A2 (2 chunks, 32 ns) to node 2. A1 takes 1+ 34..306,
	 * P1 0+ 34..306, P2 0+ 306..578; P1 arrives at node 1 at 306 as 1+
	 * frees, A2 waiting since 38: the port after the injection's, P1's
	 * link, goes (306..578); at 578 P2 arrives as 1+ frees and A2, the
	 * port after P1's, goes (578..610), then P2 610..882, at node 2 at
	 * 882, on 2+ 882..1154: its tail at node 3 at 1426 ns. A head taking
	 * a link that frees at its own instant would send P2 first and end
	 * at 1394 */
	make(&s, "torus", "8", 1, BARE, "drain_links", "8", "hop_s", "272e-9", "round_robin", "1", NULL);
	assert_true(fabs(batch_ns(&s, 2, (const uint32_t[][3]){{0, 3, 1024}, {1, 2, 544}}) - 1426) < 1e-3);

	/* round_robin 2 and inj_vcs: node 1 sends A1, A2, A3 to node 2, node
	 * 0 P1, P2 to node 3 (hops of 40 ns). inj_vcs 2: node 1 reads A1
	 * (0..34) into its injection queue 1, A2 into 0, A3 into 1; A1 takes
	 * 1+ 34..306. P1 crosses 0+ 34..306 and waits at node 1 from 74, P2
	 * 0+ 306..578 (at node 1 from 346). Per queue (round_robin 2) after
	 * A1's queue 1: P1's buffer (306..578), injection queue 0 (A2
	 * 578..850), queue 1 (A3 850..1122), P2 1122..1394, on 2+ 1162..1434:
	 * its tail at node 3 at 1474 ns.
	 * Per port (round_robin 1), or one injection FIFO holding one packet
	 * (inj_vcs 0): P1, A2, P2 (850..1122), A3 (1122..1394), A3's tail at
	 * node 2 at 1434 ns */
	for (int k = 0; k < 3; k++) {
		make(&s, "torus", "8", 1, BARE, "drain_links", "8", "round_robin", k == 1 ? "1" : "2", "inj_vcs",
		     k == 2 ? "0" : "2", NULL);
		double ts = batch_ns(&s, 2, (const uint32_t[][3]){{1, 2, 3 * 512}, {0, 3, 2 * 512}});
		assert_true(fabs(ts - (k ? 1434 : 1474)) < 1e-3);
	}

	/* round_robin 2 with interleave: each lane of a link (each VC's
	 * buffer at the far end: BookSim2's output VCs) takes its heads in
	 * turn, apart from the link's other lanes. Ring of 9 with the
	 * dateline (hops of 40 ns). Node 5 reads C (to 0: its way wraps, the
	 * dateline lane) 0..34 and A (to 7) 34..68; they share 5+ from 68,
	 * C ends at 544, A at 578 (heads at node 6 at 74 and 108). Node 6
	 * reads B1 (to 8) 0..34 and B2 (2 chunks) 34..38; B1 takes 6+'s
	 * first lane at 34, C its dateline lane at 74, the two share it, B1
	 * ends at 538. The first lane's turn is then A's (its last packet
	 * was B1), though the link last served C, whose buffer comes
	 * between: A crosses 538..850 (sharing with C's last 40 ns until
	 * 618, its tail at node 6 at 618), its tail at node 7 at 890; B2
	 * crosses 850..882, then 7+ 890..922 (its tail at node 7 at 922),
	 * its tail at node 8 at 962 ns. One turn for the whole link would
	 * give the lane to B2 (after C's buffer) and end at 922 */
	make(&s, "torus", "9", 1, BARE, "drain_links", "8", "dateline", "1", "interleave", "1", "round_robin", "2",
	     "eager_max", "1000000", NULL);
	assert_true(fabs(batch_ns(&s, 3, (const uint32_t[][3]){{5, 0, 512}, {5, 7, 512}, {6, 8, 544}}) - 962) < 1e-3);
}

/* One instant's rule (default router, ring of 8, reads of 34 ns, 272 ns
 * a packet on a link, hops of 34 ns): node 1 sends A1, A2 to node 2,
 * node 0 sends B to node 3 through node 1. A1 takes 1+ 34..306; A2 is
 * read 34..68 and waits for 1+; B crosses 0+ 34..306 and its head is at
 * node 1 at 68, the same instant. Oldest first, and of heads that began
 * to wait at one instant the one from an input link before the node's
 * own: B 306..578 (2+ 340..612, its tail at node 3 at 646), A2 578..850,
 * its tail at node 2 at 884 ns. A2 first would end at 918. */
static void test_same_instant(void **state)
{
	(void)state;
	setup s;
	make(&s, "torus", "8", 1, BARE, "drain_links", "8", "hop_s", "34e-9", NULL);
	assert_true(fabs(batch_ns(&s, 2, (const uint32_t[][3]){{1, 2, 1024}, {0, 3, 512}}) - 884) < 1e-3);
}

/* What a run gives: its time and every node's counts by link, one
 * number (a weighted sum). */
static double run_print(setup *s, enum clab_net_routing r, const char *pattern)
{
	clab_net *n = net(s, CLAB_NET_PACKET, r);
	assert_int_equal(clab_net_pattern(n, pattern), CLAB_OK);
	double sum = clab_net_totals(n).network * 1e9;
	static const int ev[] = {CLAB_NET_SENT_CHUNKS, CLAB_NET_RECV_FIFO, CLAB_NET_NO_TOKEN};
	for (uint32_t x = 0; x < s->t.nodes; x++)
		for (int l = 0; l < 2 * s->t.ndims; l++)
			for (int e = 0; e < 3; e++)
				sum += (double)clab_net_count(n, x, l, ev[e], ALLVC) * (1 + (x * 13 + (uint32_t)l * 7 + (uint32_t)e) % 101);
	clab_net_free(n);
	return sum;
}

/* Events of one instant may leave the engine's queue in any order, and
 * the nodes choose at its end in any order: the results are the same
 * (the shuffle hook reorders both), for each router, with deterministic
 * and adaptive routes, under load. */
static void test_tie_order(void **state)
{
	(void)state;
	static const char *const router[][20] = {
		{NULL},
		{"round_robin", "1", NULL},
		{"transit_ratio", "16", "dyn_chunks", "126", NULL},
		{"dateline", "1", "round_robin", "2", "inj_vcs", "2", "tie", "random", "flow_unit", "chunk", "ports",
		 "split", NULL},
		{"dateline", "1", "round_robin", "2", "inj_vcs", "2", "tie", "random", "flow_unit", "chunk", "ports",
		 "split", "speedup", "2", "interleave", "1", NULL},
	};
	static const char *const pattern[] = {"uniform:bytes=512,msgs=24", "perm:tornado,bytes=4k", "perm:random,bytes=8k"};
	for (size_t k = 0; k < sizeof router / sizeof *router; k++)
		for (int r = 0; r < 2; r++)
			for (size_t p = 0; p < sizeof pattern / sizeof *pattern; p++) {
				setup s;
				s.spec = *clab_netspec_find("torus");
				for (int i = 0; router[k][i]; i += 2)
					assert_int_equal(clab_netspec_set(&s.spec, router[k][i], router[k][i + 1]), CLAB_OK);
				if (clab_torus_init(&s.t, &s.spec, "4x4x4", 1, NULL) || clab_map_init(&s.m, &s.t, NULL))
					fail_msg("%s", clab_errmsg());
				enum clab_net_routing rt = r ? CLAB_ROUTE_ADAPTIVE : CLAB_ROUTE_DETERMINISTIC;
				double base = run_print(&s, rt, pattern[p]);
				for (int sh = 1; sh <= 3; sh++) {
					clab_packet_shuffle = sh;
					double got = run_print(&s, rt, pattern[p]);
					clab_packet_shuffle = 0;
					if (got != base)
						fail_msg("router %zu, %s routes, %s: shuffle %d gives %.17g, not %.17g", k,
							 r ? "adaptive" : "deterministic", pattern[p], sh, got, base);
				}
				clab_map_free(&s.m);
			}
}

/* BG/Q's sender arbiter (transit_ratio) on a ring of 8 (reads of 34 ns,
 * 272 ns a packet on a link, hops of 40 ns): node 1 sends A1, A2 to node
 * 2, node 0 B1, B2 to node 3 through node 1. A1 takes 1+ 34..306 (an
 * injected packet: the link's count of packets passed on starts at 0);
 * A2 waits for 1+ from 68. B1 crosses 0+ 34..306 and waits at node 1 from
 * 74; B2 crosses 0+ 306..578 and is its buffer's head when B1 has left.
 * Oldest first (0): A2 306..578, B1 578..850, B2 850..1122, on 2+
 * 890..1162: its tail at node 3 at 1202 ns. Passing packets first (16,
 * BG/Q's): B1 306..578, B2 578..850 (the link chooses at the end of its
 * instant, when B2 is a head too), A2 850..1122: its tail at node 2 at
 * 1162 ns. With 1 the link takes A2 after one passed on (B1, A2, B2:
 * 1202 ns), with 2 after two (1162 ns). */
static void test_sender_arbiter(void **state)
{
	(void)state;
	setup s;
	static const char *const ratio[] = {"0", "16", "1", "2"};
	static const double end_ns[] = {1202, 1162, 1202, 1162};
	for (int k = 0; k < 4; k++) {
		make(&s, "torus", "8", 1, BARE, "drain_links", "8", "transit_ratio", ratio[k], NULL);
		double ts = batch_ns(&s, 2, (const uint32_t[][3]){{1, 2, 1024}, {0, 3, 1024}});
		assert_true(fabs(ts - end_ns[k]) < 1e-3);
	}
	assert_int_equal(clab_netspec_find("bgq")->transit_ratio, 16);
}

/* stay_on_bubble on a ring of 8 with 2-packet buffers (reads of 34 ns):
 * node 1 sends 8 packets to node 2 on the priority VC, node 0 B1..B4 to
 * node 2 on the dynamic VC. B1 crosses 0+ 34..306 and waits at node 1
 * for 1+ (node 1's own packets, oldest first, take it 34..578), B2 follows
 * it 306..578 into node 1's dynamic buffer, which is then full: B3 falls
 * back to the escape VC (an empty buffer, the bubble) 578..850. Node 2
 * writes each packet in 34 ns, so its dynamic buffer has room whenever a
 * B packet leaves node 1: with stay_on_bubble 0 (BG/Q's MPI) B3 crosses
 * 1+ on the dynamic VC again, with 1 on the escape VC it took. */
static void test_stay_on_bubble(void **state)
{
	(void)state;
	setup s;
	for (int stay = 0; stay < 2; stay++) {
		make(&s, "torus", "8", 1, BARE, "drain_links", "8", "fifo_packets", "2", "stay_on_bubble",
		     stay ? "1" : "0", NULL);
		clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
		assert_int_equal(clab_net_send(n, 1, 2, 4096, 1, CLAB_VC_PRIORITY), CLAB_OK);
		assert_int_equal(clab_net_send(n, 0, 2, 2048, 1, CLAB_VC_DYNAMIC), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, NULL), CLAB_OK);
		uint64_t esc = CLAB_VC_BIT(CLAB_VC_ESCAPE), dyn = CLAB_VC_BIT(CLAB_VC_DYNAMIC);
		uint64_t first = clab_net_count(n, 0, 1, CLAB_NET_SENT_CHUNKS, esc);
		uint64_t second = clab_net_count(n, 1, 1, CLAB_NET_SENT_CHUNKS, esc);
		assert_true(first >= 17); /* B3 at least */
		assert_int_equal(second, stay ? first : 0);
		assert_int_equal(clab_net_count(n, 1, 1, CLAB_NET_SENT_CHUNKS, dyn) + second, 4 * 17);
		clab_net_free(n);
		clab_map_free(&s.m);
	}
	assert_int_equal(clab_netspec_find("bgq")->stay_on_bubble, 0);
}

/* dyn_chunks: the dynamic VC's buffer in chunks. Node 0 sends 4 packets
 * of 17 chunks to node 1 on the dynamic VC (ring of 8, node 1 writes
 * each in 34 ns, so a buffer never holds more than one): into a buffer
 * of 17 chunks each crosses on the dynamic VC, into one of 16 none fits
 * and all take the escape VC. BG/Q's holds 126. */
static void test_dyn_buffer(void **state)
{
	(void)state;
	setup s;
	for (int k = 0; k < 2; k++) {
		make(&s, "torus", "8", 1, BARE, "drain_links", "8", "dyn_chunks", k ? "17" : "16", NULL);
		clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
		assert_int_equal(clab_net_send(n, 0, 1, 2048, 1, CLAB_VC_DYNAMIC), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, NULL), CLAB_OK);
		assert_int_equal(clab_net_count(n, 0, 1, CLAB_NET_SENT_CHUNKS, CLAB_VC_BIT(CLAB_VC_DYNAMIC)), k ? 68 : 0);
		assert_int_equal(clab_net_count(n, 0, 1, CLAB_NET_SENT_CHUNKS, CLAB_VC_BIT(CLAB_VC_ESCAPE)), k ? 0 : 68);
		clab_net_free(n);
		clab_map_free(&s.m);
	}
	assert_int_equal(clab_netspec_find("bgq")->dyn_chunks, 126);
}

/* The ejection port with the crossbar (speedup 2, split ports of half
 * a link's worth each way: 544 ns to read or write a packet, 272 on a
 * link, a move by the crossbar 136). Node 0 sends P to node 1 (at node 1
 * at 584, written 584..1128); node 3 sends R to node 1 through node 2
 * (read 0..544, on 3- 544..816, on 2- 584..856, at node 1 at 624); node 2
 * sends T to node 3, then S to node 0 through node 1 (read 544..1088, on
 * 2- 1088..1360, in node 1's buffer behind R, at its head at 1128). With
 * the ejection port's queue R is moved into it 720..856, to be written
 * 1128..1672, and S goes on when it arrives: 1- 1128..1400, written at
 * node 0 1168..1712 ns. Without, R holds its buffer until it has been
 * written, 1128..1672: S goes on then and is in at 2256 ns. */
static void test_ejection_queue(void **state)
{
	(void)state;
	setup s;
	make(&s, "torus", "8", 1, BARE, "drain_links", "1", "ports", "split", "speedup", "2", NULL);
	assert_true(fabs(batch_ns(&s, 4, (const uint32_t[][3]){{0, 1, 512}, {3, 1, 512}, {2, 3, 512}, {2, 0, 512}}) -
			 1712) < 1e-3);
}

/* Open loop on a ring of 4 where only node 0 sends, to node 1 (generic
 * torus: a packet of 17 chunks alone takes 28 chunk times, 448 ns, as in
 * test_hand_times). */
static void test_open_loop(void **state)
{
	(void)state;
	setup s;
	make(&s, "torus", "4", 1, BARE, NULL);
	clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_MPI);
	/* a packet every chunk time (load 17): the link passes one per 17,
	 * so it is busy all the window (1 chunk per chunk time accepted) and
	 * the queue grows: the packet made at time k waits for the k + 1
	 * before it, about 16 k */
	clab_openloop o = {.load = 17, .warmup = 1000, .measure = 3400};
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o), CLAB_OK);
	assert_int_equal(o.packets, 3400);
	assert_true(fabs(o.accepted - 1) < 0.01);
	assert_true(fabs(o.latency_mean - 16 * (1000 + 1700)) < 17 * 3);
	/* a light load: each packet alone or nearly, none faster than alone */
	o = (clab_openloop){.load = 0.02, .warmup = 1000, .measure = 100000};
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o), CLAB_OK);
	assert_true(o.packets > 50 && o.packets < 250); /* 118 expected */
	assert_true(o.latency_mean >= 28 - 1e-9 && o.latency_mean < 29);
	assert_true(o.latency_p99 >= 28 - 1e-9 && o.latency_p99 < 28 + 17);
	assert_true(fabs(o.accepted - 0.02) < 0.01);
	/* the same seed, the same run; the net's own counters untouched */
	clab_openloop o2 = {.load = 0.02, .warmup = 1000, .measure = 100000};
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o2), CLAB_OK);
	assert_memory_equal(&o, &o2, sizeof o);
	assert_int_equal(clab_net_count(n, 0, -1, CLAB_NET_SENT_CHUNKS, ALLVC), 0);
	o.load = 0;
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o), CLAB_E_INVAL);

	/* steady state (BookSim2's), periods of 1000 chunk times. At load
	 * 17 packet k is made at k, read from memory while packet k - 1
	 * crosses the link (from 8.5 + 17 (k - 1)), delivered at 28 + 17 k:
	 * latency 28 + 16 k. At 1000, the end of the first period: 58
	 * delivered (k = 0..57, latencies summing to 28072) and two in
	 * flight, 58 and 59 (ages 942 and 941, 17 chunks each, 32011): mean
	 * (28072 + 32011) / (58 + 34) = 653 chunk times, over the limit of
	 * 500: unstable, no period done */
	o = (clab_openloop){.load = 17, .period = 1000};
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o), CLAB_OK);
	assert_true(o.unstable);
	assert_int_equal(o.periods, 0);
	/* a limit of 700: the second period (statistics are cleared at the
	 * start of the warm-up's even periods only) sees 117 delivered
	 * (111852) and 117, 118 in flight (ages 1883, 1882: 64005): 1165 */
	o = (clab_openloop){.load = 17, .period = 1000, .latency_limit = 700};
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o), CLAB_OK);
	assert_true(o.unstable);
	assert_int_equal(o.periods, 1);
	/* 1170: the second passes; the third, its statistics cleared at its
	 * start, sees its own 58 deliveries (k = 117..174: 136648) and 175,
	 * 176 in flight (2825, 2824: 96033): 2529 */
	o.latency_limit = 1170;
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o), CLAB_OK);
	assert_true(o.unstable);
	assert_int_equal(o.periods, 2);
	/* a light load: stable; the window's packets alone or nearly; its
	 * throughput, a few packets a period, settles no closer than the
	 * draws: all 10 periods run */
	o = (clab_openloop){.load = 0.02, .period = 10000};
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o), CLAB_OK);
	assert_false(o.unstable);
	assert_int_equal(o.periods, 10);
	assert_true(o.packets > 40 && o.packets < 120); /* 7 periods: 82 expected */
	assert_true(o.latency_mean >= 28 - 1e-9 && o.latency_mean < 29);
	assert_true(fabs(o.accepted - 0.02) < 0.01);
	/* no more warm-up periods than periods */
	o = (clab_openloop){.load = 1, .period = 100, .warmup_periods = 10};
	assert_int_equal(clab_net_openloop(n, "oneway:a=0,b=1,bytes=1", &o), CLAB_E_INVAL);
	clab_net_free(n);
	clab_map_free(&s.m);
}

/* Every packet and chunk arrives, by minimal routes, whatever the
 * routing and however small the buffers; per node, packets in by links
 * and injected = packets out by links and delivered. */
static void check_run(setup *s, const char *pattern, enum clab_net_routing r)
{
	clab_net *p = net(s, CLAB_NET_PACKET, r), *f = net(s, CLAB_NET_FLOW, CLAB_ROUTE_DETERMINISTIC);
	if (clab_net_pattern(p, pattern))
		fail_msg("%s (routing %d): %s", pattern, (int)r, clab_errmsg());
	assert_int_equal(clab_net_pattern(f, pattern), CLAB_OK);
	uint64_t chunks_p = 0, chunks_f = 0;
	for (uint32_t x = 0; x < s->t.nodes; x++) {
		uint64_t in = clab_net_count(p, x, -1, CLAB_NET_RECV_PACKETS, ALLVC);
		uint64_t out = clab_net_count(p, x, -1, CLAB_NET_SENT_PACKETS, ALLVC);
		uint64_t inj = clab_net_count(p, x, -1, CLAB_NET_MU_PKT_INJ, 0) -
			       clab_net_count(p, x, -1, CLAB_NET_LOCAL_PACKETS, 0);
		uint64_t rcv = clab_net_count(p, x, -1, CLAB_NET_MU_PKT_RCV, 0) -
			       clab_net_count(p, x, -1, CLAB_NET_LOCAL_PACKETS, 0);
		assert_int_equal(in + inj, out + rcv);
		chunks_p += clab_net_count(p, x, -1, CLAB_NET_SENT_CHUNKS, ALLVC);
		chunks_f += clab_net_count(f, x, -1, CLAB_NET_SENT_CHUNKS, ALLVC);
		/* what a link sent, its far end received */
		for (int l = 0; l < 2 * s->t.ndims; l++) {
			uint32_t y = clab_torus_neighbor(&s->t, x, l);
			if (y != x)
				assert_int_equal(clab_net_count(p, y, l ^ 1, CLAB_NET_RECV_CHUNKS, ALLVC),
						 clab_net_count(p, x, l, CLAB_NET_SENT_CHUNKS, ALLVC));
		}
	}
	/* chunk-hops equal to dimension-ordered (minimal) routes' */
	assert_int_equal(chunks_p, chunks_f);
	assert_true(chunks_p > 0);
	clab_net_free(p);
	clab_net_free(f);
}

/* test_no_deadlock runs its patterns 3 and 4 (bitcomp, which needs 2^k
 * ranks, and tornado) on 4x4x4 only. */
static int runs_on(int pattern, const char *shape)
{
	return (pattern != 3 && pattern != 4) || !strcmp(shape, "4x4x4");
}

static void test_no_deadlock(void **state)
{
	(void)state;
	static const char *patterns[] = {
		"alltoall:bytes=2k", "perm:random,seed=3,bytes=8k", "perm:random,seed=4,bytes=3000",
		"perm:bitcomp,bytes=4k", "perm:tornado,bytes=4k", "uniform:bytes=2k,msgs=40",
	};
	static const enum clab_net_routing routing[] = {
		CLAB_ROUTE_DETERMINISTIC, CLAB_ROUTE_ADAPTIVE, CLAB_ROUTE_MPI,
	};
	static const char *shapes[] = {"4x4x4", "5x3x4", "4x4mx4"};
	setup s;
	for (int sh = 0; sh < 3; sh++) {
		make(&s, "torus", shapes[sh], 1, "fifo_packets", "2", NULL);
		for (int p = 0; p < 6; p++)
			for (int r = 0; r < 3; r++)
				if (runs_on(p, shapes[sh]))
					check_run(&s, patterns[p], routing[r]);
		clab_map_free(&s.m);
	}
	/* BG/Q's routers: packets back from the escape VC to the dynamic
	 * one, links passing packets on first (with the bubble, and with
	 * the dateline and input VCs in turn) */
	for (int sh = 0; sh < 4; sh++) {
		make(&s, "torus", shapes[sh % 3], 1, "fifo_packets", "2", "stay_on_bubble", "0", "transit_ratio", "16",
		     "dateline", sh == 3 ? "1" : "0", "round_robin", sh == 3 ? "2" : "0", NULL);
		for (int p = 0; p < 6; p++)
			for (int r = 0; r < 3; r++)
				if (runs_on(p, shapes[sh % 3]))
					check_run(&s, patterns[p], routing[r]);
		clab_map_free(&s.m);
	}
	/* two dateline VCs instead of the bubble, 2-packet buffers, links
	 * serving their inputs in turn: the tornado that wraps round every
	 * ring, and the rest */
	for (int sh = 0; sh < 2; sh++) {
		make(&s, "torus", shapes[sh], 1, "fifo_packets", "2", "dateline", "1", "round_robin",
		     sh ? "1" : "0", NULL);
		for (int p = 0; p < 6; p++)
			for (int r = 0; r < 3; r++)
				if (runs_on(p, shapes[sh]))
					check_run(&s, patterns[p], routing[r]);
		clab_map_free(&s.m);
	}
	/* and with BookSim2's flow control besides (random half-way ties,
	 * room back chunk by chunk, split node ports), or the bubble with
	 * room back chunk by chunk */
	for (int sh = 0; sh < 3; sh++) {
		make(&s, "torus", shapes[sh % 2], 1, "fifo_packets", "2", "dateline", sh < 2 ? "1" : "0",
		     "round_robin", "1", "tie", "random", "flow_unit", "chunk", "ports", "split", NULL);
		for (int p = 0; p < 6; p++)
			for (int r = 0; r < 3; r++)
				if (runs_on(p, shapes[sh % 2]))
					check_run(&s, patterns[p], routing[r]);
		clab_map_free(&s.m);
	}
	/* and links interleaving their VCs (with the dateline or the
	 * bubble), the crossbar's speedup, or both */
	for (int sh = 0; sh < 4; sh++) {
		make(&s, "torus", shapes[sh % 2], 1, "fifo_packets", "2", "dateline", sh != 2 ? "1" : "0",
		     "round_robin", "1", "tie", "random", "flow_unit", sh ? "chunk" : "packet", "ports", "split",
		     "speedup", sh & 1 ? "2" : "0", "interleave", sh != 1 ? "1" : "0", NULL);
		for (int p = 0; p < 6; p++)
			for (int r = 0; r < 3; r++)
				if (runs_on(p, shapes[sh % 2]))
					check_run(&s, patterns[p], routing[r]);
		clab_map_free(&s.m);
	}
	make(&s, "torus", "8x8", 1, "fifo_packets", "2", "dateline", "1", "round_robin", "1", NULL);
	check_run(&s, "perm:tornado,bytes=16k", CLAB_ROUTE_DETERMINISTIC);
	check_run(&s, "perm:bitcomp,bytes=16k", CLAB_ROUTE_MPI);
	clab_map_free(&s.m);
	/* BG/Q and BG/L with their own buffers, ranks sharing nodes */
	make(&s, "bgq", "2x2x4x2x2", 4, NULL);
	check_run(&s, "alltoall:bytes=3k", CLAB_ROUTE_ADAPTIVE);
	check_run(&s, "halo3d:grid=8x8x4,n=16,stencil=27,periodic=1", CLAB_ROUTE_MPI);
	clab_map_free(&s.m);
	make(&s, "bgq", "2x2x4x2x2", 4, "fifo_packets", "2", "dyn_chunks", "34", NULL);
	check_run(&s, "alltoall:bytes=3k", CLAB_ROUTE_MPI);
	clab_map_free(&s.m);
	make(&s, "bgl", "4x4x4", 2, NULL);
	check_run(&s, "alltoall:bytes=1k", CLAB_ROUTE_ADAPTIVE);
	clab_map_free(&s.m);
	/* BG/L's packets of 1..8 chunks with 2-packet buffers: odd sizes must
	 * not fragment the escape VC's room into a deadlock */
	make(&s, "bgl", "6x4x4", 1, "fifo_packets", "2", NULL);
	check_run(&s, "alltoall:bytes=1000", CLAB_ROUTE_MPI);
	check_run(&s, "perm:random,seed=2,bytes=3333", CLAB_ROUTE_DETERMINISTIC);
	clab_map_free(&s.m);
}

/* Deterministic routing: the packet engine's per-link, per-VC counts are
 * the flow engine's exactly (and the message units' too). */
static void test_agrees_with_flow(void **state)
{
	(void)state;
	static const struct { const char *machine, *shape; int ppn; const char *pattern; } runs[] = {
		{"bgq", "4x2x4x2x2", 2, "perm:random,seed=5,bytes=5000"},
		{"bgq", "4x2x4x2x2", 2, "alltoall:bytes=600,group=16,stride=2"},
		{"bgl", "4x3x4", 1, "halo3d:grid=4x3x4,n=20,stencil=27,periodic=1"},
		{"torus", "6x6", 1, "perm:tornado,bytes=2k"},
		{"torus", "6x5x4", 1, "alltoall:bytes=1500"}, /* dateline, round robin */
		{"torus", "5x3x4", 1, "uniform:bytes=1500,msgs=30,seed=7"},
	};
	static const enum clab_netctr what[] = {
		CLAB_NET_SENT_CHUNKS, CLAB_NET_SENT_PACKETS, CLAB_NET_RECV_CHUNKS,
		CLAB_NET_RECV_PACKETS, CLAB_NET_MU_PKT_INJ, CLAB_NET_MU_PKT_RCV,
	};
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		setup s;
		const char *bk = !strcmp(runs[i].shape, "6x5x4") ? "1" : "0";
		make(&s, runs[i].machine, runs[i].shape, runs[i].ppn, "dateline", bk, "round_robin", bk, NULL);
		clab_net *p = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_DETERMINISTIC);
		clab_net *f = net(&s, CLAB_NET_FLOW, CLAB_ROUTE_DETERMINISTIC);
		assert_int_equal(clab_net_pattern(p, runs[i].pattern), CLAB_OK);
		assert_int_equal(clab_net_pattern(f, runs[i].pattern), CLAB_OK);
		for (uint32_t x = 0; x < s.t.nodes; x++)
			for (int l = 0; l < 2 * s.t.ndims; l++)
				for (size_t w = 0; w < sizeof what / sizeof *what; w++)
					for (int vc = 0; vc < CLAB_NVC; vc++)
						assert_int_equal(clab_net_count(p, x, l, what[w], CLAB_VC_BIT(vc)),
								 clab_net_count(f, x, l, what[w], CLAB_VC_BIT(vc)));
		clab_net_free(p);
		clab_net_free(f);
		clab_map_free(&s.m);
	}
}

/* Adaptive routing picks per packet among minimal links, reproducibly:
 * a big message to a node one hop away in A and in B leaves node 0 on
 * both (dimension order would take one), and the same seed gives the
 * same counts. */
static void test_adaptive(void **state)
{
	(void)state;
	setup s;
	make(&s, "torus", "4x4", 1, NULL);
	uint64_t first[2][4];
	for (int k = 0; k < 2; k++) {
		clab_net *n = net(&s, CLAB_NET_PACKET, CLAB_ROUTE_ADAPTIVE);
		assert_int_equal(clab_net_send(n, 0, 5, 64 * 1024, 1, CLAB_VC_MPI), CLAB_OK);
		assert_int_equal(clab_net_phase_end(n, 1, NULL), CLAB_OK);
		for (int l = 0; l < 4; l++)
			first[k][l] = clab_net_count(n, 0, l, CLAB_NET_SENT_PACKETS, ALLVC);
		/* 128 packets, all by the plus links (node 5 is at (1,1)) */
		assert_int_equal(first[k][1] + first[k][3], 128);
		assert_true(first[k][1] > 0 && first[k][3] > 0);
		assert_int_equal(first[k][0] + first[k][2], 0);
		clab_net_free(n);
	}
	assert_memory_equal(first[0], first[1], sizeof first[0]);
	clab_map_free(&s.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_times),
		cmocka_unit_test(test_booksim_options),
		cmocka_unit_test(test_allocators),
		cmocka_unit_test(test_same_instant),
		cmocka_unit_test(test_tie_order),
		cmocka_unit_test(test_sender_arbiter),
		cmocka_unit_test(test_stay_on_bubble),
		cmocka_unit_test(test_dyn_buffer),
		cmocka_unit_test(test_ejection_queue),
		cmocka_unit_test(test_open_loop),
		cmocka_unit_test(test_no_deadlock),
		cmocka_unit_test(test_agrees_with_flow),
		cmocka_unit_test(test_adaptive),
	};
	return cmocka_run_group_tests_name("packet", tests, NULL, NULL);
}
