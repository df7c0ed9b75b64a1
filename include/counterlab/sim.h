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

#ifdef __cplusplus
}
#endif
#endif
