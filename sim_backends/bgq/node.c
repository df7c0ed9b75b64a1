/* The simulated BG/Q node: 17 cores x 4 hardware threads, each with its own
 * clock and activity. This file holds the node itself and the sim
 * operations (advance, work, activity, messages, traffic); its rooms are
 * events.c (node events), profile.c (activity profiles), truth.c (counts
 * and contexts), scan.c (time and the UPC_C scan), overflow.c, run.c
 * (running a thread through interrupts) and clock.c (host and virtual
 * clocks). The units (punit.c, nodewide.c ...) stand on it.
 *
 * Activity: every primary event (a non-opcode event, or one opcode class)
 * has a rate from the thread's activity profile, or a count from explicit
 * work; the other events follow from those (relations.c). */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "node.h"

static int node_advance(void *sim, int h, uint64_t cycles)
{
	bgq_node *n = sim;
	if (h < 0 || h >= BGQ_HWTHREADS)
		return clab_seterr(CLAB_E_INVAL, "no hardware thread %d", h);
	bgq_core *k = &n->core[h / BGQ_TPC];
	bgq_lock_take(&k->lock);
	bgq_run_to(n, h, n->hwt[h].now + cycles, 1);
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

static int node_work(void *sim, int h, uint64_t cycles,
		     const char *const *events, const uint64_t *counts, int nev)
{
	bgq_node *n = sim;
	uint64_t c[BGQ_N_NEV];
	if (h < 0 || h >= BGQ_HWTHREADS)
		return clab_seterr(CLAB_E_INVAL, "no hardware thread %d", h);
	int rc = bgq_work_counts(cycles, events, counts, nev, c, "work");
	if (rc)
		return rc;
	bgq_core *k = &n->core[h / BGQ_TPC];
	bgq_lock_take(&k->lock);
	bgq_work_locked(n, h, c);
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

static uint64_t node_now(void *sim, int h)
{
	bgq_node *n = sim;
	return h >= 0 && h < BGQ_HWTHREADS ? n->hwt[h].now : 0;
}

static int node_set_activity(void *sim, int h, const char *name)
{
	bgq_node *n = sim;
	if (n->follow_host)
		return clab_seterr(CLAB_E_STATE,
				   "activity = host: threads do what the program does (its own counts); "
				   "a rate profile does not apply");
	const bgq_profile *p;
	int rc = bgq_profile_get(n, name, &p);
	if (rc)
		return rc;
	bgq_core *k = &n->core[h / BGQ_TPC];
	bgq_hwt *t = &n->hwt[h];
	uint64_t kppb = bgq_kernel_ppb(n, p);
	uint64_t *bank = NULL;
	if (kppb != t->kppb && !t->kbank &&
	    !(bank = calloc(2 * BGQ_N_NEV, sizeof *bank)))
		return CLAB_E_NOMEM;
	bgq_lock_take(&k->lock);
	if (kppb != t->kppb) {
		/* the kernel keeps what it had; the new share applies from now */
		if (!t->kbank) {
			t->kbank = bank;
			bank = NULL;
		}
		prof_pos pos = bgq_profile_pos(t->prof, t->act);
		for (int e = 0; e < BGQ_N_NEV; e++) {
			uint64_t v = bgq_prim_truth_at(t, &pos, e, t->now);
			t->kbank[e] = bgq_kernel_part(t, e, v);
			t->kbank[BGQ_N_NEV + e] = v;
		}
		t->kppb = kppb;
	}
	/* fold what the old profile produced into the work tally */
	prof_pos at = bgq_profile_pos(t->prof, t->act);
	for (int e = 0; e < BGQ_N_NEV; e++)
		t->work[e] += e == NEV_MISS ? bgq_miss_count_at(&at) : bgq_profile_count_at(&at, e);
	t->act = 0;
	t->prof = p;
	__atomic_fetch_add(&t->wver, 1, __ATOMIC_RELEASE);
	bgq_changed(n, h);
	bgq_lock_drop(&k->lock);
	free(bank); /* not under the lock, as no allocation is (punit_program) */
	return CLAB_OK;
}

/* A message through the node's message unit: counts arrive at once. */
static int node_message(void *sim, int h, int kind, uint64_t bytes)
{
	bgq_node *n = sim;
	uint64_t c[BGQ_N_IOUNIT] = {0};
	if (h < 0 || h >= BGQ_HWTHREADS)
		return clab_seterr(CLAB_E_INVAL, "no hardware thread %d", h);
	uint64_t seq = __atomic_fetch_add(&n->msg_seq, 1, __ATOMIC_RELAXED);
	int rc = bgq_mu_message(seq, kind, bytes, c);
	if (rc)
		return rc;
	bgq_core *k = &n->core[h / BGQ_TPC];
	bgq_lock_take(&k->lock);
	for (int i = 0; i < BGQ_N_IOUNIT; i++)
		n->hwt[h].work[BGQ_NEV_IO + i] += c[i];
	__atomic_fetch_add(&n->hwt[h].wver, 1, __ATOMIC_RELEASE);
	bgq_changed(n, h);
	bgq_slow_note(n, h);
	bgq_lock_drop(&k->lock);
	return CLAB_OK;
}

/* Traffic over the torus: the thread waits (runs on) the modelled time. */
static int node_traffic(void *sim, int h, const char *pattern, double *seconds)
{
	bgq_node *n = sim;
	int rc;
	double s = 0;
	bgq_net *b = bgq_net_get(n->m, &rc);
	if (b)
		rc = clab_machine_net_traffic(b, pattern, &s);
	if (!rc)
		rc = node_advance(sim, h, (uint64_t)(s * BGQ_MHZ * 1e6 + 0.5));
	if (seconds)
		*seconds = s;
	return rc;
}

static void node_sync(void *sim, int h);

/* The OS thread of h is gone: the next one binds its own CPU clock. */
static void node_detach(void *sim, int h)
{
	bgq_node *n = sim;
	if (h < 0 || h >= BGQ_HWTHREADS)
		return;
	/* no lock: a thread's exit may take a signal whose handler reads */
	__atomic_store_n(&n->hwt[h].owner, NULL, __ATOMIC_RELEASE);
}

void bgq_lock_wait(bgq_lock *l)
{
	/* marked waited for, then asleep until it is free */
	while (__atomic_exchange_n(&l->v, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &l->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void bgq_lock_wake(bgq_lock *l)
{
	syscall(SYS_futex, &l->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void node_forked(void *sim)
{
	bgq_node *n = sim;
	pthread_mutex_init(&n->prof_lock, NULL);
	pthread_mutex_init(&n->slow_lock, NULL);
	for (int c = 0; c < BGQ_CORES; c++)
		n->core[c].lock = (bgq_lock){0};
}

static const clab_sim_ops node_sim_ops = {
	.advance = node_advance,
	.work = node_work,
	.now = node_now,
	.set_activity = node_set_activity,
	.message = node_message,
	.traffic = node_traffic,
	.sync = node_sync,
	.detach = node_detach,
	.forked = node_forked,
};

static void node_sync(void *sim, int h)
{
	bgq_node_sync_thread(sim, h, 0);
}

static void node_destroy(void *p)
{
	bgq_node *n = p;
	for (int i = 0; i < n->nprof; i++)
		bgq_profile_free(n->profs[i]);
	for (int h = 0; h < BGQ_HWTHREADS; h++) {
		free(n->hwt[h].kbank);
		clab_host_sampler_close(n->hwt[h].hs);
	}
	free(n->profs);
	for (int c = 0; c < BGQ_CORES; c++)
		for (int s = 0; s < BGQ_TPC; s++)
			free(n->core[c].plan[s]);
	pthread_mutex_destroy(&n->prof_lock);
	pthread_mutex_destroy(&n->slow_lock);
	free(n);
}

static void *node_create(clab_machine *m, int *err)
{
	if (clab_machine_nhwthreads(m) != BGQ_HWTHREADS ||
	    clab_machine_threads_per_core(m) != BGQ_TPC) {
		*err = clab_seterr(CLAB_E_PROFILE,
				   "machine %s: a BG/Q node is topology = pack:1 core:%d pu:%d",
				   clab_machine_name(m), BGQ_CORES, BGQ_TPC);
		return NULL;
	}
	bgq_node *n = calloc(1, sizeof *n);
	if (!n) {
		*err = CLAB_E_NOMEM;
		return NULL;
	}
	n->m = m;
	pthread_mutex_init(&n->prof_lock, NULL);
	pthread_mutex_init(&n->slow_lock, NULL);
	for (int c = 0; c < BGQ_CORES; c++) {
		n->core[c].l1p_mode = -1;
		/* cores sit at different places on the scan ring */
		n->core[c].phase = (uint32_t)(c * BGQ_SCAN / BGQ_CORES);
	}
	const char *clock = clab_machine_setting(m, "clock");
	n->host_clock = clock && strcmp(clock, "host") == 0;
	int rc = clab_machine_setting_u64(m, "tick", 0, 0, UINT64_MAX / 4, &n->tick);
	const char *act = clab_machine_setting(m, "activity");
	const bgq_profile *p = NULL;
	/* activity = emulated: the program's counts come from the emulator,
	 * through the same path as the host's */
	n->emulated = act && strcmp(act, "emulated") == 0;
	n->follow_host = n->emulated || (act && strcmp(act, "host") == 0);
	n->fp_event = clab_machine_setting(m, "host_fp_event");
	n->moves[0] = n->follow_host ? BGQ_MOVES_FOLLOW : n->host_clock ? BGQ_MOVES_HOST : 0;
	n->moves[1] = n->moves[0] ? n->moves[0] : n->tick ? BGQ_MOVES_TICK : 0;
	if (!rc && n->follow_host) { /* can this thread be counted? say now if not */
		clab_host_sampler *hs = NULL;
		rc = clab_host_sampler_open(n->emulated, n->fp_event, &hs);
		clab_host_sampler_close(hs);
	} else if (!rc && act && *act && strcmp(act, "none") != 0) {
		rc = bgq_profile_get(n, act, &p); /* none: threads only do explicit work */
	}
	if (rc) {
		node_destroy(n);
		*err = rc;
		return NULL;
	}
	for (int h = 0; h < BGQ_HWTHREADS; h++) {
		n->hwt[h].prof = p;
		/* scan points are the core's phase + j x BGQ_SCAN (j >= 0) */
		uint32_t ph = n->core[h / BGQ_TPC].phase;
		n->hwt[h].next_scan = ph ? ph : BGQ_SCAN;
	}
	clab_machine_set_sim(m, &node_sim_ops, n);
	return n;
}

void bgq_node_set_kernel(bgq_node *n, uint64_t sys_cycles, uint64_t irq_cycles,
			 uint64_t fit_period, uint64_t dec_period)
{
	n->sys_cycles = sys_cycles;
	n->irq_cycles = irq_cycles;
	n->fit_period = fit_period;
	n->dec_period = dec_period;
	for (int h = 0; h < BGQ_HWTHREADS; h++)
		n->hwt[h].kppb = bgq_kernel_ppb(n, n->hwt[h].prof);
}

bgq_node *bgq_node_get(clab_machine *m, int *err)
{
	return clab_machine_shared(m, "bgq-node", node_create, node_destroy, err);
}
