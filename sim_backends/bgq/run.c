/* Running a thread: its activity up to a cycle or a work segment of
 * explicit counts, stopping for every overflow interrupt on the way and
 * delivering it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "node.h"

/* Moves thread h toward `to`, stopping at the first overflow interrupt on
 * the way; returns whether one fired. Core lock of h held. */
static int move_until(bgq_node *n, int h, uint64_t to, int in_work)
{
	uint64_t when = bgq_next_interrupt(n, h, to, in_work); /* >= its now */
	bgq_move_to(n, h, when < to ? when : to, in_work);
	bgq_slow_note(n, h);
	return when <= to && bgq_fire(n, h, n->hwt[h].now);
}

/* Delivers raised interrupts: the handler runs in this or the set's own
 * thread while the core lock is dropped. Returns the cycles the handler
 * moved thread h's clock itself. */
static uint64_t deliver(bgq_node *n, int h)
{
	bgq_core *k = &n->core[h / BGQ_TPC];
	bgq_hwt *t = &n->hwt[h];
	uint64_t before = t->now;
	t->in_handler++;
	bgq_lock_drop(&k->lock);
	clab_overflow_flush();
	bgq_lock_take(&k->lock);
	t->in_handler--;
	t->handled = 1;
	return t->now - before;
}

/* bgq_run_to with a counter armed somewhere: the move stops at each
 * interrupt on the way and delivers it. */
void bgq_run_armed(bgq_node *n, int h, uint64_t end, int extend)
{
	while (n->hwt[h].now < end)
		if (move_until(n, h, end, 0)) {
			uint64_t d = deliver(n, h);
			if (extend)
				end += d;
		}
}

/* Counts of named events into c[] (zeroed first), checked as a work
 * segment of `cycles`; what = the caller, for messages. */
int bgq_work_counts(uint64_t cycles, const char *const *events, const uint64_t *counts,
		    int nev, uint64_t *c, const char *what)
{
	memset(c, 0, BGQ_N_NEV * sizeof *c);
	if (cycles == 0)
		return clab_seterr(CLAB_E_INVAL, "%s needs at least one cycle", what);
	for (int i = 0; i < nev; i++) {
		int e = bgq_find_event(events[i]);
		if (e < 0)
			return clab_seterr(CLAB_E_NOEVENT, "%s: unknown BG/Q event '%s'", what,
					   events[i]);
		if (bgq_feed_reason(e))
			return clab_seterr(CLAB_E_INVAL, "%s: %s %s", what, events[i],
					   bgq_feed_reason(e));
		c[e] += counts[i];
	}
	int rc = bgq_check_rates(c, cycles, what);
	c[BGQ_EV_CYCLES] = cycles;
	return rc;
}

/* Thread h does the work c[] over c[BGQ_EV_CYCLES] cycles, interrupts
 * included; its core's lock is held. */
void bgq_work_locked(bgq_node *n, int h, uint64_t *c)
{
	bgq_hwt *t = &n->hwt[h];
	uint64_t cycles = c[BGQ_EV_CYCLES];
	uint64_t end = t->now + cycles;
	t->w0 = t->now;
	t->wlen = cycles;
	t->wcount = c;
	while (t->now < end) {
		if (!move_until(n, h, end, 1))
			continue;
		/* an interrupt: the segment's done part joins the tally and the
		 * rest resumes after the handler, which may work on its own */
		uint64_t el = t->now - t->w0, d[BGQ_N_NEV];
		for (int e = 0; e < BGQ_N_NEV; e++)
			d[e] = bgq_work_part(c, e, el, t->wlen);
		for (int e = 0; e < BGQ_N_NEV; e++) {
			t->work[e] += d[e];
			c[e] -= d[e];
		}
		__atomic_fetch_add(&t->wver, 1, __ATOMIC_RELEASE);
		uint64_t rest = t->wlen -= el;
		t->wcount = NULL;
		bgq_changed(n, h);
		end += deliver(n, h);
		t->wlen = rest; /* (work of the handler's own used the fields) */
		t->w0 = t->now;
		t->wcount = t->wlen ? c : NULL;
	}
	t->wcount = NULL;
	for (int e = 0; e < BGQ_N_NEV; e++)
		t->work[e] += c[e];
	__atomic_fetch_add(&t->wver, 1, __ATOMIC_RELEASE);
	bgq_changed(n, h); /* the tally moved from the segment to work[] */
}
