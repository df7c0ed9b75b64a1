/* include/counterlab/sim.h: a thread drives its simulated hardware thread. */
#include "counterlab/sim.h"
#include "internal.h"

static int has_sim(const clab_thread *t)
{
	if (!t) /* attaching failed and said why */
		return CLAB_E_NOTHREAD;
	if (!t->machine->sim_ops)
		return clab_seterr(CLAB_E_NOSUPP, "machine %s has no simulator to drive",
				   t->machine->name);
	return CLAB_OK;
}

/* The run stops at every switch deadline of the thread's multiplexed sets,
 * so their groups change exactly every period. */
int clab_thread_advance(clab_thread *t, uint64_t cycles)
{
	int rc = has_sim(t);
	if (rc)
		return rc;
	CLAB_ENTER();
	const clab_sim_ops *ops = t->machine->sim_ops;
	clab_mpx_poll_thread(t); /* switches already due */
	do {
		uint64_t step = cycles, now = ops->now(t->machine->sim, t->hwthread);
		uint64_t due = clab_mpx_deadline(t);
		if (due > now && due - now < step)
			step = due - now;
		rc = ops->advance(t->machine->sim, t->hwthread, step);
		cycles -= step;
		clab_mpx_poll_thread(t);
	} while (cycles && !rc);
	return clab_leave(rc);
}

/* A work segment is atomic: a switch that falls due inside it happens at
 * its end (the group counted longer, and its cycles say so). */
int clab_thread_work(clab_thread *t, uint64_t cycles, const char *const *events,
		     const uint64_t *counts, int n)
{
	int rc = has_sim(t);
	CLAB_ENTER();
	if (!rc)
		rc = t->machine->sim_ops->work(t->machine->sim, t->hwthread, cycles,
					       events, counts, n);
	if (!rc)
		clab_mpx_poll_thread(t);
	return clab_leave(rc);
}

uint64_t clab_thread_now(clab_thread *t)
{
	return has_sim(t) ? 0 : t->machine->sim_ops->now(t->machine->sim, t->hwthread);
}

int clab_thread_set_activity(clab_thread *t, const char *profile)
{
	int rc = has_sim(t);
	CLAB_ENTER();
	return clab_leave(rc ? rc : t->machine->sim_ops->set_activity(t->machine->sim,
								      t->hwthread, profile));
}

int clab_thread_message(clab_thread *t, enum clab_msg kind, uint64_t bytes)
{
	int rc = has_sim(t);
	if (!rc && (kind < CLAB_MSG_SEND || kind > CLAB_MSG_RECV_RGET))
		rc = clab_seterr(CLAB_E_INVAL, "message kind %d is not a clab_msg", (int)kind);
	if (!rc && !t->machine->sim_ops->message)
		rc = clab_seterr(CLAB_E_NOSUPP, "machine %s has no message unit",
				 t->machine->name);
	CLAB_ENTER();
	return clab_leave(rc ? rc : t->machine->sim_ops->message(t->machine->sim,
								 t->hwthread, (int)kind, bytes));
}

int clab_thread_traffic(clab_thread *t, const char *pattern, double *seconds)
{
	int rc = has_sim(t);
	if (!rc && !pattern)
		rc = clab_seterr(CLAB_E_PATTERN, "no traffic pattern given");
	if (!rc && !t->machine->sim_ops->traffic)
		rc = clab_seterr(CLAB_E_NOSUPP, "machine %s has no torus network",
				 t->machine->name);
	CLAB_ENTER();
	if (!rc)
		rc = t->machine->sim_ops->traffic(t->machine->sim, t->hwthread,
						  pattern, seconds);
	if (!rc) /* the wait is atomic, like work */
		clab_mpx_poll_thread(t);
	return clab_leave(rc);
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
	CLAB_ENTER();
	return clab_leave(clab_thread_advance(self(), cycles));
}

int clab_sim_work(uint64_t cycles, const char *const *events,
		  const uint64_t *counts, int n)
{
	CLAB_ENTER();
	return clab_leave(clab_thread_work(self(), cycles, events, counts, n));
}

uint64_t clab_sim_now(void) { return clab_thread_now(self()); }

int clab_sim_set_activity(const char *profile)
{
	CLAB_ENTER();
	return clab_leave(clab_thread_set_activity(self(), profile));
}

int clab_sim_message(enum clab_msg kind, uint64_t bytes)
{
	CLAB_ENTER();
	return clab_leave(clab_thread_message(self(), kind, bytes));
}

int clab_sim_traffic(const char *pattern, double *seconds)
{
	CLAB_ENTER();
	return clab_leave(clab_thread_traffic(self(), pattern, seconds));
}
