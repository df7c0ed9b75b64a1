/* Node events: everything a hardware thread can cause, indexed as PUnit
 * events, then the L2 counters (combined view), the I/O unit and the CNK
 * counters; their names, and what feeds each (a rate, a relation, messages,
 * timers, overflows). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "node.h"

uint64_t bgq_misses_of(uint64_t lookups, uint64_t miss, uint64_t look)
{
	return look ? (uint64_t)((unsigned __int128)lookups * miss / look) : 0;
}

static const clab_native *nev_native(int nev)
{
	if (nev < BGQ_NEV_L2)
		return &bgq_punit_natives[nev];
	if (nev < BGQ_NEV_IO) /* the combined events come first, in counter order */
		return &bgq_l2unit_natives[nev - BGQ_NEV_L2];
	if (nev < BGQ_NEV_CNK)
		return &bgq_iounit_natives[nev - BGQ_NEV_IO];
	return &bgq_cnkunit_natives[nev - BGQ_NEV_CNK];
}

static const bgq_attr *nev_attr(int nev)
{
	if (nev < BGQ_NEV_L2)
		return &bgq_punit_attr[nev];
	if (nev < BGQ_NEV_IO)
		return &bgq_l2unit_attr[nev - BGQ_NEV_L2];
	if (nev < BGQ_NEV_CNK)
		return &bgq_iounit_attr[nev - BGQ_NEV_IO];
	return &bgq_cnkunit_attr[nev - BGQ_NEV_CNK];
}

const char *bgq_nev_name(int nev) { return nev_native(nev)->name; }

int bgq_nev_of(enum bgq_unit unit, int ev)
{
	switch (unit) {
	case BGQ_UNIT_L2: /* combined and _SLICE events share counters */
		return BGQ_NEV_L2 + (int)bgq_l2unit_attr[ev].sel;
	case BGQ_UNIT_IO:
		return BGQ_NEV_IO + ev;
	case BGQ_UNIT_CNK:
		return BGQ_NEV_CNK + ev;
	default:
		return ev;
	}
}

enum bgq_feed bgq_nev_feed(int nev)
{
	const bgq_attr *a = nev_attr(nev);
	if (nev < BGQ_NEV_L2)
		return bgq_event_primary(nev) ? BGQ_FEED_RATE : BGQ_FEED_DERIVED;
	switch (a->src) {
	case BGQ_SRC_L2:
		switch (a->sel) {
		case L2C_HITS: case L2C_FETCH_LINE: case L2C_REQ_MISS_AND_EVICT:
		case L2C_MISS_AND_EVICT:
			return BGQ_FEED_DERIVED;
		default:
			return BGQ_FEED_RATE;
		}
	case BGQ_SRC_MU:
		return BGQ_FEED_MESSAGE;
	case BGQ_SRC_PCIE: case BGQ_SRC_DEVBUS:
		return BGQ_FEED_NONE;
	case BGQ_SRC_CNKHWT:
		if (a->sel == CNKHWT_FIT || a->sel == CNKHWT_DECREMENTER)
			return BGQ_FEED_CLOCK;
		if (a->sel == CNKHWT_PERFMON)
			return BGQ_FEED_OVERFLOW;
		return BGQ_FEED_RATE;
	default:
		return BGQ_FEED_RATE;
	}
}

/* Why a profile or work may not give node event nev a count (NULL: it may). */
const char *bgq_feed_reason(int nev)
{
	if (nev == BGQ_EV_CYCLES)
		return "cycles pass with time";
	switch (bgq_nev_feed(nev)) {
	case BGQ_FEED_RATE:
		return NULL;
	case BGQ_FEED_DERIVED: {
		int zero = 0;
		if (nev < BGQ_NEV_L2 && bgq_event_relation(nev, &zero))
			return zero ? "never counts on a compute node (counterlab-native-avail says why)"
				    : "follows from other events (data/bgq_relations.csv: give those)";
		return nev < BGQ_NEV_L2
		       ? "follows from other events (give the single opcode classes)"
		       : "follows from the L1p misses and L2 misses and prefetches";
	}
	case BGQ_FEED_MESSAGE:
		return "follows from message traffic (clab_sim_message)";
	case BGQ_FEED_CLOCK:
		return "follows from the kernel timer periods ([kernel] fit_period, dec_period)";
	case BGQ_FEED_OVERFLOW:
		return "follows from performance-monitor interrupts (counter overflows)";
	default:
		return "is idle on a compute node (PCIe and DevBus serve I/O nodes)";
	}
}

int bgq_find_event(const char *name)
{
	for (int e = 0; e < BGQ_N_NEV; e++)
		if (strcasecmp(nev_native(e)->name, name) == 0)
			return e;
	return -1;
}
