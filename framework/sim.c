/* include/counterlab/sim.h: a thread drives its simulated hardware thread.
 * Work that falls due as a thread's time passes registers clock hooks
 * (multiplexing's switches). The entry points are guarded (guard.c) and
 * share unguarded bodies; clab_thread_run is the one for calls already
 * inside the guard. */
#include "counterlab/sim.h"
#include "internal.h"

#define MAX_CLOCK_HOOKS 4
static const clab_clock_hooks *clock_hooks[MAX_CLOCK_HOOKS];
static int nclock_hooks;

void clab_clock_hook(const clab_clock_hooks *h)
{
	if (nclock_hooks < MAX_CLOCK_HOOKS)
		clock_hooks[nclock_hooks++] = h;
}

static void due(clab_thread *t)
{
	for (int i = 0; i < nclock_hooks; i++)
		clock_hooks[i]->due(t);
}

static uint64_t deadline(const clab_thread *t)
{
	uint64_t d = UINT64_MAX;
	for (int i = 0; i < nclock_hooks; i++) {
		uint64_t x = clock_hooks[i]->deadline(t);
		d = x < d ? x : d;
	}
	return d;
}

static int has_sim(const clab_thread *t)
{
	if (!t) /* attaching failed and said why */
		return CLAB_E_NOTHREAD;
	if (!t->machine->sim_ops)
		return clab_seterr(CLAB_E_NOSUPP, "machine %s has no simulator to drive",
				   t->machine->name);
	return CLAB_OK;
}

/* The run stops at every deadline of the clock hooks (multiplexed sets'
 * switches), so their groups change exactly every period. */
int clab_thread_run(clab_thread *t, uint64_t cycles)
{
	int rc = has_sim(t);
	if (rc)
		return rc;
	const clab_sim_ops *ops = t->machine->sim_ops;
	due(t); /* already due */
	do {
		uint64_t step = cycles, now = ops->now(t->machine->sim, t->hwthread);
		uint64_t d = deadline(t);
		if (d > now && d - now < step)
			step = d - now;
		rc = ops->advance(t->machine->sim, t->hwthread, step);
		cycles -= step;
		due(t);
	} while (cycles && !rc);
	return rc;
}

/* A work segment is atomic: a switch that falls due inside it happens at
 * its end (the group counted longer, and its cycles say so). */
static int work(clab_thread *t, uint64_t cycles, const char *const *events,
		const uint64_t *counts, int n)
{
	int rc = has_sim(t);
	if (!rc)
		rc = t->machine->sim_ops->work(t->machine->sim, t->hwthread, cycles,
					       events, counts, n);
	if (!rc)
		due(t);
	return rc;
}

static int set_activity(clab_thread *t, const char *profile)
{
	int rc = has_sim(t);
	return rc ? rc : t->machine->sim_ops->set_activity(t->machine->sim, t->hwthread,
							   profile);
}

static int message(clab_thread *t, enum clab_msg kind, uint64_t bytes)
{
	int rc = has_sim(t);
	if (!rc && (kind < CLAB_MSG_SEND || kind > CLAB_MSG_RECV_RGET))
		rc = clab_seterr(CLAB_E_INVAL, "message kind %d is not a clab_msg", (int)kind);
	if (!rc && !t->machine->sim_ops->message)
		rc = clab_seterr(CLAB_E_NOSUPP, "machine %s has no message unit",
				 t->machine->name);
	return rc ? rc : t->machine->sim_ops->message(t->machine->sim, t->hwthread,
						      (int)kind, bytes);
}

static int traffic(clab_thread *t, const char *pattern, double *seconds)
{
	int rc = has_sim(t);
	if (!rc && !pattern)
		rc = clab_seterr(CLAB_E_PATTERN, "no traffic pattern given");
	if (!rc && !t->machine->sim_ops->traffic)
		rc = clab_seterr(CLAB_E_NOSUPP, "machine %s has no torus network",
				 t->machine->name);
	if (!rc)
		rc = t->machine->sim_ops->traffic(t->machine->sim, t->hwthread,
						  pattern, seconds);
	if (!rc) /* the wait is atomic, like work */
		due(t);
	return rc;
}

/* Each entry point enters the guard itself, so that the address it came
 * from is the program's. */
#define GUARDED(what, call) do { \
	if (CLAB_ENTER()) \
		return clab_leave(clab_guard_refuse(what)); \
	return clab_leave(call); \
} while (0)

int clab_thread_advance(clab_thread *t, uint64_t cycles)
{
	GUARDED("running the simulated thread", clab_thread_run(t, cycles));
}

int clab_thread_work(clab_thread *t, uint64_t cycles, const char *const *events,
		     const uint64_t *counts, int n)
{
	GUARDED("simulated work", work(t, cycles, events, counts, n));
}

/* Asked by the thread that owns t, the clock first catches up with what
 * the thread did (on the host clock, its CPU time): a time base read
 * twice around some work sees the work. Not from inside a counterlab call
 * of the thread (a handler), where the node's locks may be held. */
uint64_t clab_thread_now(clab_thread *t)
{
	if (has_sim(t))
		return 0;
	const clab_sim_ops *ops = t->machine->sim_ops;
	if (ops->sync && pthread_equal(t->owner, pthread_self())) {
		if (!CLAB_ENTER())
			ops->sync(t->machine->sim, t->hwthread);
		clab_leave(CLAB_OK);
	}
	return ops->now(t->machine->sim, t->hwthread);
}

int clab_thread_set_activity(clab_thread *t, const char *profile)
{
	GUARDED("changing the activity", set_activity(t, profile));
}

int clab_thread_message(clab_thread *t, enum clab_msg kind, uint64_t bytes)
{
	GUARDED("a simulated message", message(t, kind, bytes));
}

int clab_thread_traffic(clab_thread *t, const char *pattern, double *seconds)
{
	GUARDED("simulated traffic", traffic(t, pattern, seconds));
}

/* The calling thread on the process-wide machine. */
static clab_thread *self(void)
{
	clab_machine *m;
	clab_thread *t;
	if (clab_machine_default(&m) || clab_thread_attach(m, &t))
		return NULL;
	return t;
}

int clab_sim_advance(uint64_t cycles)
{
	GUARDED("running the simulated thread", clab_thread_run(self(), cycles));
}

int clab_sim_work(uint64_t cycles, const char *const *events,
		  const uint64_t *counts, int n)
{
	GUARDED("simulated work", work(self(), cycles, events, counts, n));
}

uint64_t clab_sim_now(void) { return clab_thread_now(self()); }

int clab_sim_set_activity(const char *profile)
{
	GUARDED("changing the activity", set_activity(self(), profile));
}

int clab_sim_message(enum clab_msg kind, uint64_t bytes)
{
	GUARDED("a simulated message", message(self(), kind, bytes));
}

int clab_sim_traffic(const char *pattern, double *seconds)
{
	GUARDED("simulated traffic", traffic(self(), pattern, seconds));
}
