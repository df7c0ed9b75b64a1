/* How PUnit events follow from one another. A primary event (a single
 * opcode class, or a signal the profiles give a rate) counts on its own;
 * every other event is a weighted sum of primaries: the opcode groups,
 * PEVT_INST_ALL and the FP-operation events sum classes, and the rows of
 * data/bgq_relations.csv marked `sum` name theirs (commit counts from the
 * classes, core-wide events from the thread's own, ERAT misses from their
 * TLB lookups ...). Rows marked `zero` never count on a compute node; rows
 * marked `le` bound one side by the other (checked on every profile). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "bgq.h"

#define XU_CLASSES 0x0ffffff8u
#define AXU_CLASSES 0x003ffffeu
#define NREL ((int)(sizeof bgq_relations / sizeof bgq_relations[0]))

int bgq_event_class(int e)
{
	const bgq_attr *a = &bgq_punit_attr[e];
	uint32_t m = a->src == BGQ_SRC_OP_XU ? XU_CLASSES
		   : a->src == BGQ_SRC_OP_AXU ? AXU_CLASSES : 0;
	return m && (a->sel & m) && !(a->sel & (a->sel - 1));
}

/* The relation row that defines PUnit event e (sum or zero), -1: none.
 * Resolved once: rows are data and never change. */
static int rel_row[BGQ_N_PUNIT];
static pthread_once_t rel_once = PTHREAD_ONCE_INIT;

static void rel_index(void)
{
	for (int e = 0; e < BGQ_N_PUNIT; e++)
		rel_row[e] = -1;
	for (int r = 0; r < NREL; r++) {
		if (bgq_relations[r].kind == BGQ_REL_LE)
			continue;
		for (int e = 0; e < BGQ_N_PUNIT; e++)
			if (strcmp(bgq_punit_natives[e].name, bgq_relations[r].lhs) == 0)
				rel_row[e] = r;
	}
}

static int row_of(int e)
{
	pthread_once(&rel_once, rel_index);
	return e >= 0 && e < BGQ_N_PUNIT ? rel_row[e] : -1;
}

int bgq_event_primary(int e)
{
	const bgq_attr *a = &bgq_punit_attr[e];
	if (e == BGQ_EV_CYCLES)
		return 1;
	if (row_of(e) >= 0)
		return 0;
	switch (a->src) {
	case BGQ_SRC_OP_FP_OPS: case BGQ_SRC_OP_FP_INSTR: case BGQ_SRC_OP_ALL:
		return 0;
	case BGQ_SRC_OP_XU: case BGQ_SRC_OP_AXU:
		/* masks of several classes are not */
		return bgq_event_class(e) || (a->sel && !(a->sel & (a->sel - 1)));
	default:
		return 1;
	}
}

const char *bgq_event_relation(int e, int *is_zero)
{
	int r = row_of(e);
	if (r < 0)
		return NULL;
	*is_zero = bgq_relations[r].kind == BGQ_REL_ZERO;
	return *is_zero ? bgq_relations[r].why : bgq_relations[r].rhs;
}

/* Floating-point operations per instruction of an AXU class: fused
 * multiply-add does two, quad (4-wide) instructions four times as many. */
static uint8_t flops(int e)
{
	const char *n = bgq_punit_natives[e].name + strlen("PEVT_INST_QFPU_");
	int quad = n[0] == 'Q';
	int fma = strcmp(n + 1, "MA") == 0;
	return (uint8_t)((quad ? 4 : 1) * (fma ? 2 : 1));
}

/* Adds w x term t to the n terms so far (merging a repeated term). */
static int add_term(uint16_t *term, uint8_t *weight, int n, int t, unsigned w)
{
	for (int i = 0; i < n; i++)
		if (term[i] == t) {
			weight[i] = (uint8_t)(weight[i] + w);
			return n;
		}
	if (n == BGQ_MAX_TERMS)
		abort(); /* the tables are data: tests/unit/test_relations sums them all */
	term[n] = (uint16_t)t;
	weight[n] = (uint8_t)w;
	return n + 1;
}

static int add_classes(uint8_t src, uint32_t mask, int weighted, uint16_t *term,
		       uint8_t *weight, int n)
{
	for (int e = 0; e < BGQ_N_PUNIT; e++)
		if (bgq_event_class(e) && bgq_punit_attr[e].src == src &&
		    (bgq_punit_attr[e].sel & mask))
			n = add_term(term, weight, n, e, weighted ? flops(e) : 1);
	return n;
}

/* Node event named `name` among the PUnit and CNK events, -1: none. */
static int named(const char *name, size_t len)
{
	for (int e = 0; e < BGQ_N_PUNIT; e++)
		if (strlen(bgq_punit_natives[e].name) == len &&
		    strncasecmp(bgq_punit_natives[e].name, name, len) == 0)
			return e;
	for (int e = 0; e < BGQ_N_CNKUNIT; e++)
		if (strlen(bgq_cnkunit_natives[e].name) == len &&
		    strncasecmp(bgq_cnkunit_natives[e].name, name, len) == 0)
			return BGQ_NEV_CNK + e;
	return -1;
}

int bgq_expr_terms(const char *expr, uint16_t *term, uint8_t *weight, int n)
{
	while (*expr) {
		unsigned w = 1;
		char *end;
		if (*expr >= '0' && *expr <= '9') {
			w = (unsigned)strtoul(expr, &end, 10);
			expr = end + (*end == '*');
		}
		size_t len = strcspn(expr, "+");
		int e = named(expr, len);
		if (e < 0)
			return -1;
		uint16_t t[BGQ_MAX_TERMS];
		uint8_t tw[BGQ_MAX_TERMS];
		int k = e < BGQ_N_PUNIT ? bgq_terms_for(e, 0, t, tw) : 1;
		if (e >= BGQ_N_PUNIT) {
			t[0] = (uint16_t)e;
			tw[0] = 1;
		}
		for (int i = 0; i < k; i++)
			n = add_term(term, weight, n, t[i], w * tw[i]);
		expr += len + (expr[len] == '+');
	}
	return n;
}

int bgq_terms_for(int ev, uint64_t mask, uint16_t *term, uint8_t *weight)
{
	const bgq_attr *a = &bgq_punit_attr[ev];
	uint32_t sel = a->sel;
	int r = row_of(ev);
	if (r >= 0) /* zero: no terms; sum: its own */
		return bgq_relations[r].kind == BGQ_REL_ZERO ? 0
		       : bgq_expr_terms(bgq_relations[r].rhs, term, weight, 0);
	if (bgq_event_primary(ev)) {
		term[0] = (uint16_t)ev;
		weight[0] = 1;
		return 1;
	}
	if (bgq_punit_natives[ev].quals & (1u << BGQ_Q_MASK))
		sel = (uint32_t)mask; /* the *_GRP_MASK events */
	switch (a->src) {
	case BGQ_SRC_OP_XU: return add_classes(BGQ_SRC_OP_XU, sel, 0, term, weight, 0);
	case BGQ_SRC_OP_AXU: return add_classes(BGQ_SRC_OP_AXU, sel, 0, term, weight, 0);
	case BGQ_SRC_OP_FP_OPS: return add_classes(BGQ_SRC_OP_AXU, sel, 1, term, weight, 0);
	case BGQ_SRC_OP_FP_INSTR: return add_classes(BGQ_SRC_OP_AXU, sel, 0, term, weight, 0);
	default: { /* OP_ALL: every completed instruction */
		int n = add_classes(BGQ_SRC_OP_XU, XU_CLASSES, 0, term, weight, 0);
		return add_classes(BGQ_SRC_OP_AXU, AXU_CLASSES, 0, term, weight, n);
	}
	}
}

/* The `le` rows on rates (or counts) v[] of the primaries. A row binds once
 * its right side counts: a profile that gives only the opcode classes says
 * nothing about issue or fetch, and is not refused for it. */
int bgq_relations_check(const uint64_t *v, const char *what)
{
	for (int r = 0; r < NREL; r++) {
		const bgq_relation *rel = &bgq_relations[r];
		if (rel->kind != BGQ_REL_LE)
			continue;
		uint16_t t[BGQ_MAX_TERMS];
		uint8_t w[BGQ_MAX_TERMS];
		unsigned __int128 side[2] = {0, 0};
		for (int s = 0; s < 2; s++) {
			int n = bgq_expr_terms(s ? rel->rhs : rel->lhs, t, w, 0);
			for (int i = 0; i < n; i++)
				side[s] += (unsigned __int128)w[i] * v[t[i]];
		}
		if (side[1] && side[0] > side[1])
			return clab_seterr(CLAB_E_RATE,
					   "%s: %s exceeds %s, but %s",
					   what, rel->lhs, rel->rhs, rel->why);
	}
	return CLAB_OK;
}
