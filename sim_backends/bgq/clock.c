/* The clocks that move a thread when its owner reads: the host clock (the
 * thread's CPU time), activity = host (what the OS thread did, as the host
 * counted it), or the virtual clock's tick. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "node.h"

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* activity = host or emulated: thread h does what its OS thread did since
 * the last sample, as the host or the emulator counted it (hostmap.c maps
 * the counts). */
static void follow_host(bgq_node *n, int h)
{
	bgq_hwt *t = &n->hwt[h];
	pthread_t self = pthread_self();
	if (t->in_handler)
		return;
	if (!t->hs || !__atomic_load_n(&t->bound, __ATOMIC_ACQUIRE) ||
	    !pthread_equal(t->owner, self)) {
		/* counting starts in the thread that owns h now */
		clab_host_sampler_close(t->hs);
		t->hs = NULL;
		__atomic_store_n(&t->bound, 1, __ATOMIC_RELAXED);
		t->owner = self;
		if (clab_host_sampler_open(n->emulated, n->fp_event, &t->hs) == CLAB_OK &&
		    clab_host_sampler_read(t->hs, &t->hlast) != CLAB_OK) {
			clab_host_sampler_close(t->hs);
			t->hs = NULL;
		}
		clab_host_sampler_resume(t->hs);
		return;
	}
	clab_host_sample now, d = {0};
	if (clab_host_sampler_read(t->hs, &now))
		return;
	d.cpu_ns = now.cpu_ns - t->hlast.cpu_ns;
	d.have = now.have & t->hlast.have;
	for (int q = 0; q < CLAB_HQ_N; q++)
		d.q[q] = now.q[q] - t->hlast.q[q];
	t->hlast = now;
	clab_hostmap_out m;
	clab_hostmap(&d, BGQ_MHZ, &m);
	uint64_t c[BGQ_N_NEV];
	if (m.cycles && bgq_work_counts(m.cycles, m.event, m.count, m.n, c, "activity = host") == CLAB_OK)
		bgq_work_locked(n, h, c);
	clab_host_sampler_resume(t->hs);
}

/* Host clock: the thread's CPU time. Reading it is a system call, as costly
 * as the counter read it serves, so it is sampled every BGQ_CPU_SAMPLE_NS of
 * wall time; in between, a thread that is calling us is running, and its
 * CPU time moves with the (vDSO) wall clock. The clock never goes back: when
 * a sample shows the thread was off the CPU, time waits for it.
 *
 * Overflow handlers do not move it: while a handler runs (a read inside it
 * syncs) the thread's simulated time holds still, as on the virtual clock,
 * and a catch-up that ran handlers restarts the clock from the CPU time at
 * its end. Else the CPU time of each delivery (a signal, the handler: here
 * some 10 us, 16,000 cycles) would become program cycles, cross further
 * thresholds, and at periods below that cost never catch up.
 *
 * This is the whole of it, with `wall` the wall time now; the common read
 * takes the short way (bgq_node_catch_up). */
static uint64_t host_cycles(const bgq_hwt *t, uint64_t wall)
{
	uint64_t cpu = t->cpu_ns + (wall - t->sample_wall);
	return t->origin_cycles + (cpu - t->origin_ns) * BGQ_MHZ / 1000;
}

static __attribute__((noinline)) void host_clock(bgq_node *n, int h, uint64_t wall)
{
	bgq_hwt *t = &n->hwt[h];
	if (t->in_handler)
		return;
	pthread_t self = pthread_self();
	if (!__atomic_load_n(&t->bound, __ATOMIC_ACQUIRE) ||
	    !pthread_equal(t->owner, self)) {
		__atomic_store_n(&t->bound, 1, __ATOMIC_RELAXED);
		t->owner = self;
		t->origin_ns = t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t->origin_cycles = t->now;
		t->sample_wall = wall;
	}
	if (wall - t->sample_wall >= BGQ_CPU_SAMPLE_NS) {
		t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t->sample_wall = wall;
		if (t->cpu_ns < t->origin_ns) { /* another CPU clock (a forked child) */
			t->origin_ns = t->cpu_ns;
			t->origin_cycles = t->now;
		}
	}
	uint64_t target = host_cycles(t, wall);
	if (target <= t->now)
		return;
	t->handled = 0;
	bgq_run_to(n, h, target, 0);
	if (t->handled && pthread_equal(t->owner, self)) {
		t->origin_ns = t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t->sample_wall = now_ns(CLOCK_MONOTONIC);
		t->origin_cycles = t->now;
	}
}

void bgq_node_catch_up(bgq_node *n, int h, int is_read)
{
	bgq_hwt *t = &n->hwt[h];
	switch (bgq_node_moves(n, is_read)) {
	case BGQ_MOVES_HOST: {
		/* the common read: the thread's own OS thread, bound and sampled
		 * within BGQ_CPU_SAMPLE_NS, no handler running, nothing armed */
		uint64_t wall = now_ns(CLOCK_MONOTONIC);
		if (t->in_handler || !__atomic_load_n(&t->bound, __ATOMIC_ACQUIRE) ||
		    !pthread_equal(t->owner, pthread_self()) ||
		    wall - t->sample_wall >= BGQ_CPU_SAMPLE_NS ||
		    n->core[(unsigned)h / BGQ_TPC].armed || __atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE)) {
			host_clock(n, h, wall);
			return;
		}
		uint64_t to = host_cycles(t, wall);
		if (to > t->now)
			bgq_move_to(n, h, to, 0);
		return;
	}
	case BGQ_MOVES_TICK:
		bgq_run_to(n, h, t->now + n->tick, 1);
		return;
	case BGQ_MOVES_FOLLOW:
		follow_host(n, h);
	}
}

void bgq_node_sync_thread(bgq_node *n, int h, int is_read)
{
	if (!bgq_node_moves(n, is_read))
		return;
	bgq_lock_take(&n->core[h / BGQ_TPC].lock);
	bgq_node_sync(n, h, is_read);
	bgq_lock_drop(&n->core[h / BGQ_TPC].lock);
}
