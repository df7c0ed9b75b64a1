/* Driving a simulated machine from an instrumented program.
 *
 * Every call acts on the calling thread's simulated hardware thread (it is
 * attached to the process-wide machine on first use). In clock=virtual mode
 * these calls are the only way simulated time passes; in clock=host mode
 * time also follows the thread's CPU time. */
#ifndef COUNTERLAB_SIM_H
#define COUNTERLAB_SIM_H

#include "counterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The thread runs its activity profile for `cycles` simulated cycles. */
int clab_sim_advance(uint64_t cycles);

/* The thread does explicit work: events[i] happens counts[i] times, spread
 * evenly over `cycles` cycles (which also pass). Event names are native
 * events of the machine's units, e.g. "PEVT_INST_XU_IADD". */
int clab_sim_work(uint64_t cycles, const char *const *events,
		  const uint64_t *counts, int n);

/* Messages through the node's message unit (network interface). A send
 * injects `bytes` of payload; a receive takes one in, as a memory-FIFO
 * message, a direct put, or a remote get (a request to send data back).
 * The unit cuts messages into packets as the machine's network does. */
enum clab_msg {
	CLAB_MSG_SEND,
	CLAB_MSG_RECV_FIFO,
	CLAB_MSG_RECV_PUT,
	CLAB_MSG_RECV_RGET,
};
int clab_sim_message(enum clab_msg kind, uint64_t bytes);

/* Traffic over the machine's torus network: runs a pattern
 * ("fft3d:n=512,grid=16x512", see counterlab-netsim --help) for every rank
 * of the machine's map ([machine] torus, ppn, map). The node's network
 * counters see what crosses its links, and the calling thread waits the
 * modelled time (*seconds when not NULL). */
int clab_sim_traffic(const char *pattern, double *seconds);

/* Simulated cycles the calling thread has lived. */
uint64_t clab_sim_now(void);

/* Switches the calling thread to another activity profile (a name in
 * machines/activity/ or a path). */
int clab_sim_set_activity(const char *profile);

/* The same on an explicit thread of an explicit machine (tests, tools). */
int clab_thread_advance(clab_thread *t, uint64_t cycles);
int clab_thread_work(clab_thread *t, uint64_t cycles, const char *const *events,
		     const uint64_t *counts, int n);
uint64_t clab_thread_now(clab_thread *t);
int clab_thread_set_activity(clab_thread *t, const char *profile);
int clab_thread_message(clab_thread *t, enum clab_msg kind, uint64_t bytes);
int clab_thread_traffic(clab_thread *t, const char *pattern, double *seconds);

#ifdef __cplusplus
}
#endif
#endif
