/* Overflow: fast PUnit interrupts (a few cycles after the crossing, the
 * set's counters freeze) and slow node-wide ones (on the next accumulation
 * scan, counting on), found on the way of a thread's clock and raised. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "node.h"

#define NONE UINT64_MAX

/* First cycle in (from, to] at which thread h's part of a count reaches
 * goal (counts only grow with time): `from` when it already has, NONE when
 * it does not by `to`. */
typedef struct reach {
	const bgq_node *n;
	int h, in_work;
	const bgq_ctr *c; /* a PUnit counter of h's core, or */
	int nev;          /* a node event of h */
} reach;

static uint64_t reach_value(const reach *r, uint64_t at)
{
	const bgq_hwt *t = &r->n->hwt[r->h];
	if (r->c)
		return bgq_ctr_truth_at(r->n, r->h / BGQ_TPC, r->c, r->h, at, r->in_work);
	prof_pos pos = bgq_pos_at(t, at, r->in_work);
	return bgq_nev_truth_at(t, &pos, r->nev, at);
}

static uint64_t first_reach(const reach *r, uint64_t from, uint64_t to,
			    uint64_t goal)
{
	if (reach_value(r, from) >= goal)
		return from;
	if (reach_value(r, to) < goal)
		return NONE;
	uint64_t lo = from, hi = to; /* value(lo) < goal <= value(hi) */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (reach_value(r, mid) >= goal)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Slow units see a crossing on their next accumulation scan, the first
 * one a scan period in (so that 0, "not seen", is never a scan's time). */
static uint64_t scan_after(uint64_t tc)
{
	uint64_t k = (tc + BGQ_SCAN - 1) / BGQ_SCAN;
	return (k ? k : 1) * BGQ_SCAN;
}

/* A time noted on another thread's clock, as thread h (at `now`) takes it:
 * never before its own now (clocks do not go back). */
static uint64_t not_before(uint64_t at, uint64_t now)
{
	return at > now ? at : now;
}

static uint64_t slow_others(const bgq_slow *e, int h)
{
	uint64_t v = 0;
	for (int g = 0; g < BGQ_HWTHREADS; g++)
		if (g != h)
			v += e->part[g];
	return v;
}

/* The first overflow interrupt while thread h moves to `to` (NONE: none
 * by then). The crossings that happen by the move's end are noted, with
 * their interrupt time. Core lock of h held. */
uint64_t bgq_next_interrupt(bgq_node *n, int h, uint64_t to, int in_work)
{
	bgq_hwt *t = &n->hwt[h];
	bgq_core *k = &n->core[h / BGQ_TPC];
	unsigned smt = (unsigned)(h % BGQ_TPC);
	int nslow = __atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE);
	if (!k->armed && !nslow)
		return NONE; /* nothing armed: the common read */
	uint64_t when = NONE, tc[BGQ_CTRS], stc[BGQ_SLOW_MAX];
	for (uint32_t b = k->armed; b; b &= b - 1) {
		int i = __builtin_ctz(b);
		bgq_ctr *c = &k->ctr[i];
		tc[i] = NONE;
		if (c->ovf_hit || !c->running || !(c->contrib & (1u << smt)))
			continue;
		if (c->ovf_fire) { /* noted on a sibling's clock */
			uint64_t f = not_before(c->ovf_fire, t->now);
			when = f < when ? f : when;
			continue;
		}
		reach r = {n, h, in_work, c, 0};
		tc[i] = first_reach(&r, t->now, to, c->start + c->ovf_next);
		if (tc[i] != NONE && tc[i] + BGQ_OVF_LATENCY < when)
			when = tc[i] + BGQ_OVF_LATENCY;
	}
	if (nslow)
		pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; nslow && j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		stc[j] = NONE;
		if (!e->set || !e->running || e->hit)
			continue;
		if (e->detect) { /* noted on another thread's clock */
			uint64_t d = not_before(e->detect, t->now);
			when = d < when ? d : when;
			continue;
		}
		uint64_t others = slow_others(e, h);
		reach r = {n, h, in_work, NULL, e->nev};
		stc[j] = e->next <= others ? t->now
			 : first_reach(&r, t->now, to, e->next - others);
		if (stc[j] != NONE && scan_after(stc[j]) < when)
			when = scan_after(stc[j]);
	}
	uint64_t end = when < to ? when : to;
	for (uint32_t b = k->armed; b; b &= b - 1)
		if (tc[__builtin_ctz(b)] <= end)
			k->ctr[__builtin_ctz(b)].ovf_fire = tc[__builtin_ctz(b)] + BGQ_OVF_LATENCY;
	for (int j = 0; nslow && j < BGQ_SLOW_MAX; j++)
		if (n->slow[j].set && stc[j] <= end)
			n->slow[j].detect = scan_after(stc[j]);
	if (nslow)
		pthread_mutex_unlock(&n->slow_lock);
	return when;
}

static void perfmon(bgq_node *n, int hw)
{
	__atomic_fetch_add(&n->hwt[hw].perfmon, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&n->hwt[hw].wver, 1, __ATOMIC_RELEASE);
	bgq_changed(n, hw);
}

void bgq_ctr_freeze(bgq_node *n, int core, bgq_ctr *c)
{
	if (!c->running)
		return;
	int w = bgq_core_writing(&n->core[core]);
	bgq_count_set(&c->acc, bgq_ctr_truth(n, core, c) - c->start); /* drained: exact */
	bgq_core_written(&n->core[core], w);
	c->running = 0;
	c->frozen = 1;
}

void bgq_ctr_thaw(bgq_node *n, int core, bgq_ctr *c)
{
	if (!c->frozen)
		return;
	c->start = bgq_ctr_truth(n, core, c) - c->acc;
	c->running = 1;
	c->frozen = 0;
	n->core[core].cfg++;
}

/* Interrupts due at thread h's cycle `at`: a PUnit set freezes and reports
 * every armed counter past its threshold; a slow counter reports alone.
 * Returns whether any fired. Core lock of h held. */
int bgq_fire(bgq_node *n, int h, uint64_t at)
{
	int core = h / BGQ_TPC, fired = 0;
	bgq_core *k = &n->core[core];
	for (uint32_t b = k->armed; b; b &= b - 1) {
		bgq_ctr *c = &k->ctr[__builtin_ctz(b)];
		if (!c->ovf_fire || c->ovf_fire > at || c->ovf_hit || !c->running)
			continue;
		void *set = c->set;
		for (int j = 0; j < BGQ_CTRS; j++)
			if (k->ctr[j].set == set)
				bgq_ctr_freeze(n, core, &k->ctr[j]);
		uint64_t reqs = 0;
		for (int j = 0; j < BGQ_CTRS; j++) {
			bgq_ctr *d = &k->ctr[j];
			if (d->set == set && d->ovf_period && !d->ovf_hit &&
			    d->acc >= d->ovf_next) {
				d->ovf_hit = 1;
				d->ovf_fire = 0;
				reqs |= 1ull << d->ovf_req;
			}
		}
		if (reqs) {
			clab_overflow_raise(c->ovf_cookie, reqs);
			perfmon(n, c->owner);
			fired = 1;
		}
	}
	if (!__atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		return fired;
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		if (e->set && e->running && !e->hit && e->detect && e->detect <= at) {
			e->hit = 1;
			e->detect = 0;
			e->fired = slow_others(e, -1);
			clab_overflow_raise(e->cookie, 1ull << e->req);
			perfmon(n, e->owner);
			fired = 1;
		}
	}
	pthread_mutex_unlock(&n->slow_lock);
	return fired;
}

/* Thread h's share of the armed node-wide counters after it moved or
 * received counts at once (a message: a crossing then is seen on the next
 * scan). Core lock of h held. */
void bgq_slow_note(bgq_node *n, int h)
{
	if (!__atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		return;
	const bgq_hwt *t = &n->hwt[h];
	prof_pos pos = bgq_profile_pos(t->prof, t->act);
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		if (!e->set)
			continue;
		e->part[h] = bgq_nev_truth_at(t, &pos, e->nev, t->now);
		if (e->running && !e->hit && !e->detect &&
		    slow_others(e, -1) >= e->next)
			e->detect = scan_after(t->now);
	}
	pthread_mutex_unlock(&n->slow_lock);
}

int bgq_slow_arm(bgq_node *n, void *set, int hw, int req, int nev,
		 uint64_t period, void *cookie, const char *what)
{
	int rc = CLAB_OK, free_ = -1, mine = -1;
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		if (!e->set) {
			free_ = free_ < 0 ? j : free_;
		} else if (e->set == set && e->req == req) {
			mine = j;
		} else if (period && e->nev == nev && e->period != period) {
			rc = clab_seterr(CLAB_E_CONFLICT,
					 "%s already overflows every %llu events for another event set; thresholds of node-wide counters are per counter, so %llu cannot be set too",
					 what, (unsigned long long)e->period,
					 (unsigned long long)period);
			break;
		}
	}
	if (!rc && period && mine < 0 && free_ < 0)
		rc = clab_seterr(CLAB_E_CONFLICT, "more than %d node-wide counters armed for overflow",
				 BGQ_SLOW_MAX);
	if (!rc && !period && mine >= 0) {
		memset(&n->slow[mine], 0, sizeof n->slow[mine]);
		n->nslow--;
	} else if (!rc && period) {
		if (mine < 0) {
			mine = free_;
			memset(&n->slow[mine], 0, sizeof n->slow[mine]);
			__atomic_store_n(&n->nslow, n->nslow + 1, __ATOMIC_RELEASE);
		}
		bgq_slow *e = &n->slow[mine];
		e->set = set;
		e->cookie = cookie;
		e->req = req;
		e->nev = nev;
		e->owner = hw;
		e->period = period;
		e->running = 0; /* counts from the set's next start */
	}
	pthread_mutex_unlock(&n->slow_lock);
	return rc;
}

void bgq_slow_start(bgq_node *n, void *set, int req, const uint64_t *part)
{
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		bgq_slow *e = &n->slow[j];
		if (e->set != set || e->req != req)
			continue;
		uint64_t total = 0;
		for (int g = 0; g < BGQ_HWTHREADS; g++)
			total += part[g];
		memcpy(e->part, part, sizeof e->part);
		e->next = total + e->period;
		e->running = 1;
		e->hit = e->detect = 0;
	}
	pthread_mutex_unlock(&n->slow_lock);
}

/* The set's entries stop, hold while the owner's handler runs, or resume
 * after it: the counter did not count what the owner itself did
 * meanwhile, and one that overflowed re-arms a period from where its
 * interrupt was detected.
 * Counts that other threads brought in at once, while the handler was
 * pending, may have passed that already: the next interrupt is due at
 * once, and the handler runs again (a counter that counted on would have
 * interrupted in their course). Takes each thread's core lock in turn,
 * then the slow lock. */
void bgq_slow_run(bgq_node *n, void *set, enum bgq_slow_mode mode)
{
	if (!__atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		return;
	for (int j = 0; j < BGQ_SLOW_MAX; j++) {
		pthread_mutex_lock(&n->slow_lock);
		int nev = n->slow[j].set == set ? n->slow[j].nev : -1;
		pthread_mutex_unlock(&n->slow_lock);
		if (nev < 0)
			continue;
		uint64_t part[BGQ_HWTHREADS], total = 0;
		for (int g = 0; g < BGQ_HWTHREADS; g++) {
			bgq_core *k = &n->core[g / BGQ_TPC];
			bgq_lock_take(&k->lock);
			const bgq_hwt *t = &n->hwt[g];
			prof_pos pos = bgq_profile_pos(t->prof, t->act);
			part[g] = bgq_nev_truth_at(t, &pos, nev, t->now);
			bgq_lock_drop(&k->lock);
		}
		int due = 0, owner = 0;
		pthread_mutex_lock(&n->slow_lock);
		bgq_slow *e = &n->slow[j];
		if (e->set == set) {
			/* a thread that moved since its share was taken here
			 * noted a newer one (counts only grow) */
			for (int g = 0; g < BGQ_HWTHREADS; g++) {
				part[g] = part[g] > e->part[g] ? part[g] : e->part[g];
				total += part[g];
			}
			memcpy(e->part, part, sizeof part);
			owner = e->owner;
			if (mode == BGQ_SLOW_STOP) {
				e->running = 0;
			} else if (mode == BGQ_SLOW_HOLD) {
				e->held_own = part[owner];
			} else {
				uint64_t own = part[owner] - e->held_own;
				e->next = (e->hit ? e->fired + e->period : e->next) + own;
				e->hit = e->detect = 0;
				if (e->running && total >= e->next) {
					e->hit = due = 1;
					e->fired = e->next;
					clab_overflow_raise(e->cookie, 1ull << e->req);
				}
			}
		}
		pthread_mutex_unlock(&n->slow_lock);
		if (due) {
			bgq_core *k = &n->core[owner / BGQ_TPC];
			bgq_lock_take(&k->lock);
			perfmon(n, owner);
			bgq_lock_drop(&k->lock);
		}
	}
}

void bgq_slow_drop(bgq_node *n, void *set)
{
	if (!__atomic_load_n(&n->nslow, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&n->slow_lock);
	for (int j = 0; j < BGQ_SLOW_MAX; j++)
		if (n->slow[j].set == set) {
			memset(&n->slow[j], 0, sizeof n->slow[j]);
			n->nslow--;
		}
	pthread_mutex_unlock(&n->slow_lock);
}
