/* Private to sim_backends/: the torus network of a machine profile, shared
 * by the units of a machine with a torus (BG/Q's network, I/O and CNK
 * units; BG/L's network unit) and by clab_sim_traffic. */
#ifndef CLAB_MACHINE_NET_H
#define CLAB_MACHINE_NET_H

#include <pthread.h>
#include "counterlab/backend.h"
#include "counterlab/torus.h"

typedef struct clab_machine_net {
	clab_torus_net tn;   /* first: clab_machine_torus gives it; its spec is
			      * the machine's with the profile's [network] changes */
	pthread_mutex_t lock; /* one traffic run at a time (reads take none) */
	clab_net *net;       /* the traffic of clab_sim_traffic */
} clab_machine_net;

/* The machine's torus for network spec `spec` ("bgq", "bgl"), made on
 * first use from [machine] torus, ppn, map and [network] rank, order and
 * the model's parameters. */
clab_machine_net *clab_machine_net_get(clab_machine *m, const char *spec, int *err);
/* Runs a traffic pattern; *seconds: its modelled time. */
int clab_machine_net_traffic(clab_machine_net *b, const char *pattern, double *seconds);
/* What this node's link l counts for `what` over the VCs of vcmask: the
 * model's traffic plus the live program's (live may be NULL). Takes no
 * lock: traffic only adds to these counts (at a phase's end), so a read
 * during a run sees each count before or after an add. A read must not
 * wait for the lock: a run allocates under it, and a signal handler that
 * reads may have interrupted malloc in the thread the run waits for. */
uint64_t clab_machine_net_count(const clab_machine_net *b, const clab_live_node *live,
				int link, enum clab_netctr what, unsigned vcmask);
/* In a forked child: the lock is made anew (clab_unit_ops.forked). */
void clab_machine_net_forked(clab_machine_net *b);
/* The [network] keys a torus network unit reads, NULL-ended. */
extern const char *const clab_machine_net_keys[];

#endif
