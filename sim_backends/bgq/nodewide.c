/* The node-wide units' common part (L2, I/O, CNK): their counters are fixed
 * to events and always count, so any number of event sets may read them at
 * once; a set notes where its counters stood at start. Counts are the sums
 * of every thread's truth at the thread's own clock (bgq_node_sum), read
 * current: the UPC_C scan lag of the real L2 and I/O counters is not
 * modelled for reads (see docs/bgq.md, "The node-wide units"). A set is
 * checked on its own when programmed; the node-wide rules (L2 mode, one
 * network set, overflow thresholds) bind the sets that run (acquire). */
#include <stdlib.h>
#include <string.h>
#include "bgq.h"

int bgq_fixed_open(clab_machine *m, const bgq_fixed_kind *kind,
		   bgq_fixed_unit **out)
{
	int err;
	bgq_node *node = bgq_node_get(m, &err);
	if (!node)
		return err;
	bgq_fixed_unit *u = calloc(1, sizeof *u);
	if (!u)
		return CLAB_E_NOMEM;
	u->node = node;
	u->kind = kind;
	pthread_mutex_init(&u->lock, NULL);
	*out = u;
	return CLAB_OK;
}

void bgq_fixed_forked(void *unit)
{
	bgq_fixed_unit *u = unit;
	pthread_mutex_init(&u->lock, NULL);
	if (u->net)
		clab_machine_net_forked(u->net);
}

void bgq_fixed_close(void *unit)
{
	bgq_fixed_unit *u = unit;
	pthread_mutex_destroy(&u->lock);
	free(u);
}

static void set_free(bgq_fixed_set *s)
{
	if (!s)
		return;
	bgq_sum_free(&s->sum[0]);
	bgq_sum_free(&s->sum[1]);
	free(s);
}

int bgq_fixed_program(void *unit, int hw, const clab_evreq *reqs, int n,
		      int flags, void *replace, void **out)
{
	bgq_fixed_unit *u = unit;
	bgq_fixed_set *r = replace;
	(void)flags;
	if (n > BGQ_SET_MAX)
		return clab_seterr(CLAB_E_CONFLICT, "a set holds at most %d events",
				   BGQ_SET_MAX);
	if (r && r->acquired)
		return clab_seterr(CLAB_E_STATE, "cannot replan a set that holds counters");
	bgq_fixed_set *s = calloc(1, sizeof *s);
	if (!s)
		return CLAB_E_NOMEM;
	s->hw = hw;
	s->n = n;
	for (int i = 0; i < n; i++) {
		s->ev[i] = (int)reqs[i].native;
		s->arg[i] = u->kind->arg ? u->kind->arg(&reqs[i]) : 0;
	}
	int rc = u->kind->check ? u->kind->check(s) : CLAB_OK;
	if (rc) {
		free(s);
		return rc;
	}
	set_free(r);
	*out = s;
	return CLAB_OK;
}

/* Arms the set's armed requests on the node (node-wide thresholds may
 * refuse); on failure nothing stays armed. */
static int arm_all(bgq_fixed_unit *u, bgq_fixed_set *s)
{
	for (int i = 0; i < s->n; i++) {
		if (!s->ovf_period[i])
			continue;
		int nev = u->kind->overflow_nev(s, i);
		int rc = nev < 0 ? CLAB_E_NOSUPP
			 : bgq_slow_arm(u->node, s, s->hw, i, nev, s->ovf_period[i],
					s->ovf_cookie, u->kind->natives[s->ev[i]].name);
		if (rc) {
			bgq_slow_drop(u->node, s);
			return rc;
		}
	}
	return CLAB_OK;
}

int bgq_fixed_acquire(void *unit, void *set, void *replace)
{
	bgq_fixed_unit *u = unit;
	bgq_fixed_set *s = set, *r = replace;
	if (s->acquired)
		return CLAB_OK;
	if (r && !r->acquired)
		r = NULL;
	pthread_mutex_lock(&u->lock);
	int rc = u->kind->admit ? u->kind->admit(u, s, r) : CLAB_OK;
	if (!rc && r)
		bgq_slow_drop(u->node, r); /* its thresholds make way for ours */
	if (!rc && (rc = arm_all(u, s)) != CLAB_OK) {
		if (u->kind->retire)
			u->kind->retire(u, s);
		if (r) /* put the replaced set's thresholds back */
			arm_all(u, r);
	}
	if (!rc) {
		if (r) {
			if (u->kind->retire)
				u->kind->retire(u, r);
			r->acquired = 0;
		}
		s->acquired = 1;
	}
	pthread_mutex_unlock(&u->lock);
	return rc;
}

void bgq_fixed_release(void *unit, void *set)
{
	bgq_fixed_unit *u = unit;
	bgq_fixed_set *s = set;
	pthread_mutex_lock(&u->lock);
	if (s->acquired) {
		bgq_slow_drop(u->node, s);
		if (u->kind->retire)
			u->kind->retire(u, s);
		s->acquired = 0;
	}
	pthread_mutex_unlock(&u->lock);
}

void bgq_fixed_discard(void *unit, void *set)
{
	if (!set)
		return;
	bgq_fixed_release(unit, set);
	set_free(set);
}

/* The caller's clock moves first, as for the PUnit (tick on reads), and
 * its thread's share of the set's sums follows in the same turn of its core
 * lock (values() then finds it current). A sum that values() never took
 * (changes unset) is left alone. */
static __attribute__((noinline)) void catch_up(bgq_node *n, bgq_fixed_set *s, int is_read)
{
	bgq_core *k = &n->core[s->hw / BGQ_TPC];
	bgq_lock_take(&k->lock);
	bgq_node_catch_up(n, s->hw, is_read);
	for (int j = 0; j < 2; j++)
		if (s->sum[j].val &&
		    __atomic_load_n(&s->sum[j].changes, __ATOMIC_RELAXED) != UINT64_MAX)
			bgq_node_sum_thread(n, &s->sum[j], s->hw);
	bgq_lock_drop(&k->lock);
}

/* The values of the set's events now, the node's (only < 0) or what thread
 * `only` added, its thread's clock caught up first where reads move it
 * (out of line: a read that only reads goes straight to them). */
static int values_of(bgq_fixed_unit *u, bgq_fixed_set *s, int is_read, int only,
		     uint64_t *v)
{
	if (bgq_node_moves(u->node, is_read))
		catch_up(u->node, s, is_read);
	return u->kind->values(u, s, only, v);
}

/* What the set's counters show now. While its overflow handler runs they
 * are stopped: the handler's own events (its thread's, since it began) do
 * not count. Other threads run on their own clocks, and their counts that
 * arrive meanwhile (at their sync points) belong to their own time. */
static int now_values(bgq_fixed_unit *u, bgq_fixed_set *s, int is_read,
		      uint64_t *v)
{
	int rc = values_of(u, s, is_read, -1, v);
	uint64_t own[BGQ_SET_MAX];
	if (rc || !s->held || (rc = u->kind->values(u, s, s->hw, own)))
		return rc;
	for (int i = 0; i < s->n; i++)
		v[i] -= own[i] - s->held_own[i];
	return CLAB_OK;
}

/* The set's counters armed for overflow count their thresholds from
 * where they start: from each thread's share in the set's own sums (so
 * that interrupts keep step with what the set reads, other threads' counts
 * included), the base being their total. */
static int slow_start(bgq_fixed_unit *u, bgq_fixed_set *s)
{
	for (int i = 0; i < s->n; i++) {
		if (!s->ovf_period[i])
			continue;
		uint64_t part[BGQ_HWTHREADS], v[BGQ_SET_MAX];
		s->base[i] = 0;
		for (int g = 0; g < BGQ_HWTHREADS; g++) {
			int rc = u->kind->values(u, s, g, v);
			if (rc)
				return rc;
			/* (in the handler its own thread's part stands where the
			 * handler began, as now_values has it) */
			part[g] = s->held && g == s->hw ? s->held_own[i] : v[i];
			s->base[i] += part[g];
		}
		bgq_slow_start(u->node, s, i, part);
	}
	return CLAB_OK;
}

int bgq_fixed_start(void *unit, void *set)
{
	bgq_fixed_set *s = set;
	bgq_fixed_unit *u = unit;
	if (!s->acquired)
		return clab_seterr(CLAB_E_STATE, "start: the set is not acquired");
	s->held = 0;
	int rc = now_values(unit, s, 0, s->base);
	if (!rc)
		rc = slow_start(u, s);
	memset(s->stopped, 0, sizeof s->stopped);
	s->running = !rc;
	return rc;
}

int bgq_fixed_stop(void *unit, void *set)
{
	bgq_fixed_set *s = set;
	uint64_t v[BGQ_SET_MAX];
	if (!s->running)
		return CLAB_OK;
	int rc = now_values(unit, s, 0, v);
	if (rc)
		return rc;
	for (int i = 0; i < s->n; i++)
		s->stopped[i] = v[i] - s->base[i];
	s->running = 0;
	s->held = 0;
	bgq_slow_run(((bgq_fixed_unit *)unit)->node, s, BGQ_SLOW_STOP);
	return CLAB_OK;
}

int bgq_fixed_read(void *unit, void *set, uint64_t *vals)
{
	bgq_fixed_set *s = set;
	if (!s->running) {
		memcpy(vals, s->stopped, (size_t)s->n * sizeof *vals);
		return CLAB_OK;
	}
	int rc = now_values(unit, s, 1, vals);
	for (int i = 0; i < s->n && !rc; i++)
		vals[i] -= s->base[i];
	return rc;
}

int bgq_fixed_reset(void *unit, void *set)
{
	bgq_fixed_set *s = set;
	memset(s->stopped, 0, sizeof s->stopped);
	if (!s->running)
		return CLAB_OK;
	int rc = now_values(unit, s, 0, s->base);
	return rc ? rc : slow_start(unit, s); /* thresholds count from zero again, as the PUnit's */
}

/* Slow overflow (L2 combined, I/O): overflow.c detects the crossing on the
 * next accumulation scan; the set counts on until its handler stops it. */
int bgq_fixed_overflow(void *unit, void *set, int i, uint64_t period, void *cookie)
{
	bgq_fixed_unit *u = unit;
	bgq_fixed_set *s = set;
	int nev = u->kind->overflow_nev ? u->kind->overflow_nev(s, i) : -1;
	if (nev < 0)
		return u->kind->overflow_nev ? CLAB_E_NOSUPP
		       : clab_seterr(CLAB_E_NOSUPP, "this unit's counters cannot interrupt on overflow");
	if (s->acquired) {
		int rc = bgq_slow_arm(u->node, s, s->hw, i, nev, period, cookie,
				      u->kind->natives[s->ev[i]].name);
		if (rc)
			return rc;
	}
	s->ovf_period[i] = period;
	s->ovf_cookie = cookie;
	return CLAB_OK;
}

/* The handler stops the set (on) and restarts it when it returns: what its
 * thread counts meanwhile is left out (now_values). */
int bgq_fixed_handler(void *unit, void *set, int on)
{
	bgq_fixed_unit *u = unit;
	bgq_fixed_set *s = set;
	if (on && s->running && !s->held) {
		int rc = values_of(u, s, 0, s->hw, s->held_own);
		s->held = !rc;
		if (!rc)
			bgq_slow_run(u->node, s, BGQ_SLOW_HOLD);
		return rc;
	}
	if (!on && s->held) {
		uint64_t own[BGQ_SET_MAX];
		int rc = values_of(u, s, 0, s->hw, own);
		if (rc)
			return rc;
		for (int i = 0; i < s->n; i++)
			s->base[i] += own[i] - s->held_own[i];
		s->held = 0;
		bgq_slow_run(u->node, s, BGQ_SLOW_RESUME);
	}
	return CLAB_OK;
}

uint64_t bgq_fixed_counters(void *unit, void *set, int i)
{
	bgq_fixed_unit *u = unit;
	bgq_fixed_set *s = set;
	return i >= 0 && i < s->n ? u->kind->natives[s->ev[i]].ctr_mask : 0;
}
