/* Private to sim_backends/torus/: the packet engine (packet.c), which
 * net.c runs at a phase's end instead of its flow estimate. */
#ifndef CLAB_PACKET_H
#define CLAB_PACKET_H

#include "counterlab/torus.h"

typedef struct { int64_t c, p; } cp_t; /* chunks, packets */

/* nmsg messages of `bytes` from node src to node dst (src != dst) on VC
 * vc (CLAB_VC_DYNAMIC: adaptive; any other: dimension order). lane 0:
 * the engine deals the flow to one of the node's inj_fifos injection
 * FIFOs; lane k: the sender put it in its node's injection FIFO k - 1,
 * behind that FIFO's earlier flows in the order given (a collective that
 * posts its own descriptors, as BG/Q's many-to-many does). */
typedef struct pkt_flow {
	uint32_t src, dst;
	uint64_t nmsg, bytes;
	int vc;
	uint32_t lane;
	double at;         /* s: its node's MU starts it no sooner (open loop) */
} pkt_flow;

/* What a run adds to (arrays [node][2 * ndims][CLAB_NVC], or
 * [node][2 * ndims] for notoken, zeroed by the caller). */
typedef struct pkt_result {
	cp_t *sent;        /* chunks and packets sent, by the sender's link and VC */
	double *fifo;      /* receive-buffer packets x net cycles, by the
			    * receiver's link and VC */
	double *notoken;   /* net cycles a link was free, a packet wanted
			    * it, and the next node had no room */
	double time;       /* s from the phase's start to the last delivery */
	double *done;      /* NULL, or [flow]: s when its last packet was
			    * delivered */
	double *start;     /* NULL, or [flow]: s when the MU read its first
			    * packet (left alone for a flow never read) */
	/* NULL, or: called with t = tick_at before the first event later
	 * than t (every event up to t has been handled: done and start are
	 * final up to t), and again with the time it returns; a time not
	 * later than t stops the run there (packets left undelivered are
	 * then no error, and stopped is set) */
	double (*tick)(void *arg, double t);
	void *tick_arg;
	double tick_at;
	int stopped;
	uint64_t events;   /* events the run handled */
} pkt_result;

/* Runs the flows to completion; seed orders adaptive routing's ties.
 * progress (may be NULL) gets the fraction delivered. CLAB_E_STATE if
 * packets were left undelivered (a deadlock: a defect of the model). */
int clab_packet_run(const clab_torus *t, pkt_flow *flows, size_t nflows, uint64_t seed,
		    void (*progress)(void *, double), void *arg, pkt_result *r);

/* Test hook: nonzero (a seed) reorders the events of one instant in the
 * queue and the nodes choosing at its end; results must not change. */
extern int clab_packet_shuffle;

#endif
