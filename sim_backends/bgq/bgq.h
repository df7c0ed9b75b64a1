/* Private to sim_backends/bgq/: the simulated Blue Gene/Q node. */
#ifndef CLAB_BGQ_H
#define CLAB_BGQ_H

#include <pthread.h>
#include "counterlab/backend.h"
#include "../activity/activity.h"

enum bgq_src {
	BGQ_SRC_A2_AXU, BGQ_SRC_A2_IU, BGQ_SRC_A2_XU, BGQ_SRC_A2_LSU,
	BGQ_SRC_A2_MMU, BGQ_SRC_L1P_BASE, BGQ_SRC_L1P_SWITCH, BGQ_SRC_L1P_STREAM,
	BGQ_SRC_L1P_LIST, BGQ_SRC_WAKEUP, BGQ_SRC_OP_XU, BGQ_SRC_OP_AXU,
	BGQ_SRC_OP_FP_OPS, BGQ_SRC_OP_FP_INSTR, BGQ_SRC_OP_ALL, BGQ_SRC_L2,
	BGQ_SRC_L2_SLICE, BGQ_SRC_MU, BGQ_SRC_PCIE, BGQ_SRC_DEVBUS, BGQ_SRC_NW,
	BGQ_SRC_CNKNODE, BGQ_SRC_CNKPROC, BGQ_SRC_CNKHWT,
};

enum { BGQ_Q_MASK }; /* PUnit qualifiers */

typedef struct bgq_attr {
	uint8_t src;      /* enum bgq_src */
	uint32_t sel;     /* selector: signal, opcode group mask, VC mask ... */
	uint8_t core_shared; /* needs all four counter groups of the core */
	uint8_t edge;     /* counts edges rather than cycles */
} bgq_attr;

#include "bgq_events.h" /* generated: bgq_<unit>_natives[], bgq_<unit>_attr[] */

#define BGQ_CORES 17
#define BGQ_TPC 4
#define BGQ_HWTHREADS (BGQ_CORES * BGQ_TPC)
#define BGQ_CTRS 24
#define BGQ_SCAN 800         /* cycles between UPC_C accumulation scans */
#define BGQ_HW_BITS 14       /* width of a UPC_P hardware counter */
#define BGQ_MHZ 1600
#define BGQ_CPU_SAMPLE_NS 20000 /* host clock: CPU time resampled this often */
#define BGQ_EV_CYCLES 210    /* index of PEVT_CYCLES */
#define BGQ_MAX_TERMS 64

/* An activity profile resolved against the PUnit table: rates (ppm) of the
 * primary events per phase and cumulative counts at phase starts. */
typedef struct bgq_profile {
	char *name;
	int nphase;
	uint64_t period;
	uint64_t *cycles;   /* [nphase] */
	uint64_t *ppm;      /* [nphase][BGQ_N_PUNIT] */
	uint64_t *prefix;   /* [nphase + 1][BGQ_N_PUNIT]: counts before phase */
} bgq_profile;

typedef struct bgq_hwt {
	uint64_t now;       /* simulated cycles lived */
	uint64_t act;       /* of which spent running the activity profile */
	const bgq_profile *prof;
	uint64_t work[BGQ_N_PUNIT]; /* counts of explicit work done so far */
	/* a work segment in progress: counts spread over [w0, w0+wlen) */
	uint64_t w0, wlen;
	const uint64_t *wcount;
	/* host clock: CPU time at binding, last sample and when it was taken */
	int bound;
	pthread_t owner;
	uint64_t origin_ns, origin_cycles;
	uint64_t cpu_ns, sample_wall;
} bgq_hwt;

/* A PUnit counter. It counts a weighted sum of primary events of its
 * contributor threads (the owner, or the whole core for core events). */
typedef struct bgq_ctr {
	void *set;          /* owning programmed set, NULL when free */
	int running;
	int nterm;
	uint16_t term[BGQ_MAX_TERMS];
	uint8_t weight[BGQ_MAX_TERMS];
	uint8_t contrib;    /* bit t: counts hw thread t of the core */
	uint64_t start;     /* contributors' weighted truth at start/reset */
	uint64_t last14;    /* hardware counter value at the last scan */
	uint64_t acc;       /* UPC_C 64-bit accumulation */
} bgq_ctr;

typedef struct bgq_core {
	pthread_mutex_t lock;
	void *group[BGQ_TPC];  /* set holding counter group g (counters c%4==g) */
	bgq_ctr ctr[BGQ_CTRS];
	int l1p_mode;          /* src of the L1p mode in use, -1 none */
	int l1p_users;
	uint32_t phase;        /* scan offset of this core's ring position */
} bgq_core;

typedef struct bgq_node {
	clab_machine *m;
	int host_clock;
	uint64_t tick;
	pthread_mutex_t prof_lock;
	bgq_profile **profs;
	int nprof;
	bgq_hwt hwt[BGQ_HWTHREADS];
	bgq_core core[BGQ_CORES];
} bgq_node;

/* node.c */
bgq_node *bgq_node_get(clab_machine *m, int *err);
/* Brings hw thread h's clock up to date for an operation of its owner:
 * host clock: CPU time; virtual clock with is_read: `tick` cycles. Core
 * lock held. */
void bgq_node_sync(bgq_node *n, int h, int is_read);
/* Weighted truth of counter c's terms over its contributors. */
uint64_t bgq_ctr_truth(const bgq_node *n, int core, const bgq_ctr *c);
/* Sum of weights x rate of a term list in the profile's fastest phase. */
int bgq_terms_for(int ev, uint64_t mask, uint16_t *term, uint8_t *weight);

#endif
