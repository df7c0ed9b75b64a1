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

/* The calling OS thread, as bgq_hwt.owner names it: initial-exec, so that
 * taking its address costs no call. */
static __thread __attribute__((tls_model("initial-exec"))) char self_tls;
#define SELF ((const void *)&self_tls)

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Counts that break the node's rules (hostmap.c keeps them from it) are
 * not taken: said once, as they are lost. */
static void sample_refused(void)
{
	static int said;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "counterlab: a thread's counts were dropped: %s\n", clab_errmsg());
}

/* activity = host or emulated: thread h does what its OS thread did since
 * the last sample, as the host or the emulator counted it (hostmap.c maps
 * the counts). */
static void follow_host(bgq_node *n, int h)
{
	bgq_hwt *t = &n->hwt[h];
	if (t->in_handler)
		return;
	if (!t->hs || __atomic_load_n(&t->owner, __ATOMIC_ACQUIRE) != SELF) {
		/* counting starts in the thread that owns h now */
		clab_host_sampler_close(t->hs);
		t->hs = NULL;
		__atomic_store_n(&t->owner, SELF, __ATOMIC_RELAXED);
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
	const char *what = n->emulated ? "activity = emulated" : "activity = host";
	if (m.cycles && bgq_work_counts(m.cycles, m.event, m.count, m.n, c, what) == CLAB_OK)
		bgq_work_locked(n, h, c);
	else if (m.cycles)
		sample_refused();
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
 * takes the short way (catch_up). */
_Static_assert(BGQ_MHZ * 5 == 1000 * 8, "host_cycles: BGQ_MHZ cycles per us are 8 per 5 ns");
static uint64_t host_cycles(const bgq_hwt *t, uint64_t wall)
{
	/* cpu_ns + (wall - sample_wall) - origin_ns, the CPU ns since origin */
	return t->origin_cycles + (wall + t->base_ns) * 8 / 5;
}

/* After a change of the sample or the origin. */
static void host_resampled(bgq_hwt *t)
{
	t->base_ns = t->cpu_ns - t->sample_wall - t->origin_ns;
	t->sample_due = t->sample_wall + BGQ_CPU_SAMPLE_NS;
}

static __attribute__((noinline)) void host_clock(bgq_node *n, int h, uint64_t wall)
{
	bgq_hwt *t = &n->hwt[h];
	if (t->in_handler)
		return;
	if (__atomic_load_n(&t->owner, __ATOMIC_ACQUIRE) != SELF) {
		__atomic_store_n(&t->owner, SELF, __ATOMIC_RELAXED);
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
	host_resampled(t);
	uint64_t target = host_cycles(t, wall);
	if (target <= t->now)
		return;
	t->handled = 0;
	bgq_run_to(n, h, target, 0);
	if (t->handled && t->owner == SELF) {
		t->origin_ns = t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t->sample_wall = now_ns(CLOCK_MONOTONIC);
		t->origin_cycles = t->now;
		host_resampled(t);
	}
}

/* Inline in the reads of held counters (bgq_plan_read), the unit's
 * hottest path. */
static inline __attribute__((always_inline)) void catch_up(bgq_node *n, int h, int is_read)
{
	bgq_hwt *t = &n->hwt[h];
	int moves = bgq_node_moves(n, is_read);
	if (__builtin_expect(moves == BGQ_MOVES_HOST, 1)) {
		/* the common read: the thread's own OS thread, no handler
		 * running, nothing armed, sampled within BGQ_CPU_SAMPLE_NS */
		if (t->in_handler || __atomic_load_n(&t->owner, __ATOMIC_ACQUIRE) != SELF ||
		    n->core[(unsigned)h / BGQ_TPC].armed || __atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE)) {
			host_clock(n, h, now_ns(CLOCK_MONOTONIC));
			return;
		}
		uint64_t wall = now_ns(CLOCK_MONOTONIC);
		if (wall >= t->sample_due) {
			host_clock(n, h, wall);
			return;
		}
		uint64_t to = host_cycles(t, wall);
		if (to > t->now)
			bgq_move_to(n, h, to, 0);
	} else if (moves == BGQ_MOVES_TICK) {
		bgq_run_to(n, h, t->now + n->tick, 1);
	} else if (moves == BGQ_MOVES_FOLLOW) {
		follow_host(n, h);
	}
}

void bgq_node_catch_up(bgq_node *n, int h, int is_read)
{
	catch_up(n, h, is_read);
}

/* A read where reads move no clock: the counts as the last writer left
 * them, without the lock (seqlock, bgq_core.seq); 0 when a writer was on
 * the way, and the read takes the lock. Never spins on a writer. */
static inline int read_unlocked(const bgq_core *k, const bgq_read_plan *rp, uint64_t *vals)
{
	unsigned q = __atomic_load_n(&k->seq, __ATOMIC_ACQUIRE);
	if (q & 1)
		return 0;
	for (int i = 0; i < rp->n; i++)
		vals[i] = __atomic_load_n(rp->at[i], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&k->seq, __ATOMIC_RELAXED) == q;
}

/* A read where reads move the clock, or one that met a writer: under the
 * lock, the clock caught up inline. */
static __attribute__((noinline)) int read_locked(void *unit, void *set, uint64_t *vals)
{
	(void)unit;
	const bgq_read_plan *rp = set;
	bgq_node *n = rp->node;
	int h = rp->hw;
	bgq_lock *l = &n->core[(unsigned)h / BGQ_TPC].lock;
	bgq_lock_take(l);
	if (rp->acquired)
		catch_up(n, h, 1);
	for (int i = 0; i < rp->n; i++)
		vals[i] = *rp->at[i];
	bgq_lock_drop(l);
	return CLAB_OK;
}

static int read_still(void *unit, void *set, uint64_t *vals)
{
	const bgq_read_plan *rp = set;
	if (read_unlocked(&rp->node->core[(unsigned)rp->hw / BGQ_TPC], rp, vals))
		return CLAB_OK;
	return read_locked(unit, set, vals);
}

CLAB_HOT int bgq_plan_read(void *unit, void *set, uint64_t *vals)
{
	return bgq_plan_reader(unit, set)(unit, set, vals);
}

/* Whether reads move a clock is the node's from its start. */
clab_read_fn bgq_plan_reader(void *unit, void *set)
{
	(void)unit;
	const bgq_read_plan *rp = set;
	return bgq_node_moves(rp->node, 1) ? read_locked : read_still;
}

void bgq_node_sync_thread(bgq_node *n, int h, int is_read)
{
	if (!bgq_node_moves(n, is_read))
		return;
	bgq_lock_take(&n->core[h / BGQ_TPC].lock);
	bgq_node_sync(n, h, is_read);
	bgq_lock_drop(&n->core[h / BGQ_TPC].lock);
}
