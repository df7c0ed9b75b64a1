/* Activity profiles resolved against the node events: rates per phase,
 * checked against what the A2 can do and the relations' bounds, loaded once
 * per node, and the counts of a position in a profile. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "node.h"

/* The A2 core completes at most one XU and one AXU instruction per cycle per
 * thread, and a signal event fires at most once per cycle: with that, no
 * counter can move by 2^14 within one scan interval, so none ever wraps
 * unseen. */
int bgq_check_rates(const uint64_t *ppm_or_count, uint64_t per,
		    const char *what)
{
	uint64_t xu = 0, axu = 0;
	for (int e = 0; e < BGQ_N_NEV; e++) {
		if (e == BGQ_EV_CYCLES)
			continue;
		if (ppm_or_count[e] > per)
			return clab_seterr(CLAB_E_RATE,
					   "%s: %s happens more than once per cycle",
					   what, bgq_nev_name(e));
		if (e < BGQ_NEV_L2 && bgq_event_class(e) && bgq_punit_attr[e].src == BGQ_SRC_OP_XU)
			xu += ppm_or_count[e];
		if (e < BGQ_NEV_L2 && bgq_event_class(e) && bgq_punit_attr[e].src == BGQ_SRC_OP_AXU)
			axu += ppm_or_count[e];
	}
	if (xu > per || axu > per)
		return clab_seterr(CLAB_E_RATE,
				   "%s: more than one %s instruction per cycle (the A2 completes at most one)",
				   what, xu > per ? "XU" : "AXU");
	/* L2 sees only the loads the L1 prefetcher could not serve and the
	 * stores */
	if (ppm_or_count[NEV_MISS] > bgq_l2_lookups(ppm_or_count))
		return clab_seterr(CLAB_E_RATE,
				   "%s: more L2 misses (%s) than L2 lookups (%s, the loads the L1p could not serve, and the stores: %s, %s, %s)",
				   what, bgq_nev_name(NEV_MISS), bgq_nev_name(BGQ_EV_L1P_MISS),
				   bgq_nev_name(BGQ_EV_ST), bgq_nev_name(BGQ_EV_FST),
				   bgq_nev_name(BGQ_EV_QST));
	return CLAB_OK;
}

/* The L2 lookups in r cycles at rates ppm[] (each kind rounded as its
 * own count is). */
static uint64_t lookups_in(const uint64_t *ppm, uint64_t r)
{
	uint64_t n = 0;
	for (int i = 0; i < BGQ_L2_LOOKS; i++)
		n += clab_rate_count(ppm[bgq_l2_looks[i]], r);
	return n;
}

void bgq_profile_free(bgq_profile *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->cycles);
	free(p->ppm);
	free(p->prefix);
	free(p);
}

static int profile_resolve(const clab_activity *a, const char *name,
			   bgq_profile **out)
{
	bgq_profile *p = calloc(1, sizeof *p);
	int np = a->nphase, rc = CLAB_OK;
	if (!p || !(p->name = strdup(name)) ||
	    !(p->cycles = calloc((size_t)np, sizeof *p->cycles)) ||
	    !(p->ppm = calloc((size_t)np * BGQ_N_NEV, sizeof *p->ppm)) ||
	    !(p->prefix = calloc((size_t)(np + 1) * BGQ_N_NEV, sizeof *p->prefix))) {
		bgq_profile_free(p);
		return CLAB_E_NOMEM;
	}
	p->nphase = np;
	p->period = a->period;
	for (int ph = 0; ph < np && !rc; ph++) {
		uint64_t *ppm = p->ppm + (size_t)ph * BGQ_N_NEV;
		p->cycles[ph] = a->phase[ph].cycles;
		for (int r = 0; r < a->phase[ph].nrate && !rc; r++) {
			const clab_rate *rt = &a->phase[ph].rate[r];
			int e = bgq_find_event(rt->event);
			if (e < 0)
				rc = clab_seterr(CLAB_E_ACTIVITY,
						 "%s: phase %s: unknown BG/Q event '%s'",
						 name, a->phase[ph].name, rt->event);
			else if (bgq_feed_reason(e))
				rc = clab_seterr(CLAB_E_ACTIVITY,
						 "%s: phase %s: %s %s",
						 name, a->phase[ph].name, rt->event,
						 bgq_feed_reason(e));
			else
				ppm[e] = rt->ppm;
		}
		ppm[BGQ_EV_CYCLES] = CLAB_PPM;
		if (!rc) {
			char what[256];
			snprintf(what, sizeof what, "%s: phase %s", name, a->phase[ph].name);
			rc = bgq_check_rates(ppm, CLAB_PPM, what);
			if (!rc)
				rc = bgq_relations_check(ppm, what);
		}
		uint64_t *pre = p->prefix + (size_t)ph * BGQ_N_NEV;
		for (int e = 0; e < BGQ_N_NEV; e++)
			pre[BGQ_N_NEV + e] = pre[e] + clab_rate_count(ppm[e], p->cycles[ph]);
		pre[BGQ_N_NEV + NEV_MISS] =
			pre[NEV_MISS] + bgq_misses_of(lookups_in(ppm, p->cycles[ph]), ppm[NEV_MISS],
						  bgq_l2_lookups(ppm));
	}
	int sys = bgq_find_event("PEVT_CNKHWT_SYSCALL");
	if (!rc && sys >= 0)
		p->sys_ppb = p->period
			? (uint64_t)((unsigned __int128)p->prefix[(size_t)np * BGQ_N_NEV + (size_t)sys] *
				     1000000000u / p->period)
			: p->ppm[sys] * 1000;
	if (rc)
		bgq_profile_free(p);
	else
		*out = p;
	return rc;
}

/* Profiles are loaded once per node and shared by its threads. */
int bgq_profile_get(bgq_node *n, const char *name, const bgq_profile **out)
{
	int rc = CLAB_OK;
	pthread_mutex_lock(&n->prof_lock);
	for (int i = 0; i < n->nprof; i++)
		if (strcmp(n->profs[i]->name, name) == 0) {
			*out = n->profs[i];
			goto out;
		}
	char *path = clab_machine_file(n->m, "activity", name, ".ini");
	clab_activity *a = NULL;
	bgq_profile *p = NULL;
	bgq_profile **grown = realloc(n->profs, (size_t)(n->nprof + 1) * sizeof *grown);
	if (!path || !grown) {
		free(path);
		rc = CLAB_E_NOMEM;
		goto out;
	}
	n->profs = grown;
	rc = clab_activity_load(path, &a);
	if (!rc)
		rc = profile_resolve(a, name, &p);
	clab_activity_free(a);
	free(path);
	if (!rc)
		*out = n->profs[n->nprof++] = p;
out:
	pthread_mutex_unlock(&n->prof_lock);
	return rc;
}

/* bgq_profile_pos of a periodic profile: laps, phase, offset. */
prof_pos bgq_profile_pos_lap(const bgq_profile *p, uint64_t act)
{
	prof_pos pos = {p, act / p->period, act % p->period, 0};
	while (pos.ph < p->nphase - 1 && pos.r >= p->cycles[pos.ph])
		pos.r -= p->cycles[pos.ph++];
	return pos;
}

/* Count of primary e at position pos of its profile. */
uint64_t bgq_profile_count_at(const prof_pos *pos, int e)
{
	const bgq_profile *p = pos->p;
	if (!p) /* a thread without a profile idles: only cycles pass */
		return e == BGQ_EV_CYCLES ? pos->r : 0;
	size_t row = (size_t)pos->ph * BGQ_N_NEV + (size_t)e;
	uint64_t c = clab_rate_count(p->ppm[row], pos->r);
	if (p->period == 0)
		return c;
	return pos->laps * p->prefix[(size_t)p->nphase * BGQ_N_NEV + (size_t)e] +
	       p->prefix[row] + c;
}

/* The L2 misses of position pos of a profile (misses_of). */
uint64_t bgq_miss_count_at(const prof_pos *pos)
{
	const bgq_profile *p = pos->p;
	if (!p)
		return 0;
	size_t row = (size_t)pos->ph * BGQ_N_NEV;
	uint64_t c = bgq_misses_of(lookups_in(p->ppm + row, pos->r), p->ppm[row + NEV_MISS],
			       bgq_l2_lookups(p->ppm + row));
	if (p->period == 0)
		return c;
	return pos->laps * p->prefix[(size_t)p->nphase * BGQ_N_NEV + NEV_MISS] +
	       p->prefix[row + NEV_MISS] + c;
}
