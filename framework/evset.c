/* Event sets: a list of events (natives, qualified natives, presets)
 * expanded into distinct native requests that the backend programs onto
 * its counters; reads fold the requests back through each event's formula. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* ---- hooks for multiplexing (mpx.c) ------------------------------------ */

int clab_evset_repack(clab_evset *s)
{
	uint32_t codes[CLAB_EVSET_MAX];
	for (int i = 0; i < s->n; i++)
		codes[i] = s->ev[i].code;
	return clab_evset_program(s, codes, s->n);
}

/* Hands the expanded events to mpx.c as request masks (nreq <= 64). */
static int mpx_program(clab_evset *s, const evset_event *ev, int n,
		       const clab_evreq *reqs, int nreq)
{
	uint64_t need[CLAB_EVSET_MAX];
	for (int i = 0; i < n; i++) {
		need[i] = 0;
		for (int k = 0; k < ev[i].nterms; k++)
			need[i] |= 1ull << ev[i].req[k];
	}
	return clab_mpx_pack(s, &s->bset, reqs, nreq, need, n, s->req, s->nreq);
}

/* ------------------------------------------------------------------------ */

int clab_evset_create(clab_component *c, clab_thread *t, clab_evset **out)
{
	if (!c || !t || !out)
		return clab_seterr(CLAB_E_INVAL, "evset_create: NULL argument");
	clab_evset *s = calloc(1, sizeof *s);
	if (!s)
		return CLAB_E_NOMEM;
	s->c = c;
	s->t = t;
	*out = s;
	return CLAB_OK;
}

void clab_evset_destroy(clab_evset *s)
{
	if (!s)
		return;
	CLAB_ENTER();
	clab_ovf_forget(s);
	if (s->mpx)
		clab_mpx_free(s); /* leaves the current group's bset to the code below */
	if (s->running)
		s->c->ops->stop(s->c->unit, s->bset);
	if (s->bset)
		s->c->ops->release(s->c->unit, s->bset);
	free(s);
	clab_leave(CLAB_OK);
}

/* Finds or appends req in the request list. */
static int add_req(clab_evreq *reqs, int *nreq, const clab_evreq *r)
{
	for (int i = 0; i < *nreq; i++)
		if (memcmp(&reqs[i], r, sizeof *r) == 0)
			return i;
	if (*nreq == CLAB_EVSET_MAX)
		return -1;
	reqs[*nreq] = *r;
	return (*nreq)++;
}

static int expand(clab_component *c, uint32_t code, evset_event *e,
		  clab_evreq *reqs, int *nreq)
{
	memset(e, 0, sizeof *e);
	e->code = code;
	const clab_preset *p = clab_catalog_preset(c, code);
	uint32_t terms[CLAB_MAX_TERMS];
	if (p) {
		e->derived = p->derived;
		e->tok = p->tok;
		e->ntok = p->ntok;
		e->nterms = p->nterms;
		memcpy(terms, p->terms, sizeof terms);
	} else {
		e->nterms = 1;
		terms[0] = code;
	}
	for (int t = 0; t < e->nterms; t++) {
		clab_evreq r;
		int rc = clab_catalog_req(c, terms[t], &r);
		if (rc)
			return rc;
		e->req[t] = add_req(reqs, nreq, &r);
		if (e->req[t] < 0)
			return clab_seterr(CLAB_E_CONFLICT,
					   "event set of %s holds at most %d native events",
					   c->name, CLAB_EVSET_MAX);
	}
	return CLAB_OK;
}

static int program(clab_evset *s, const uint32_t *codes, int n)
{
	if (s->running)
		return clab_seterr(CLAB_E_STATE, "cannot change a running event set");
	if (n < 0 || n > CLAB_EVSET_MAX)
		return clab_seterr(CLAB_E_CONFLICT,
				   "event set of %s holds at most %d events",
				   s->c->name, CLAB_EVSET_MAX);
	evset_event ev[CLAB_EVSET_MAX];
	clab_evreq reqs[CLAB_EVSET_MAX];
	int nreq = 0;
	for (int i = 0; i < n; i++) {
		int rc = expand(s->c, codes[i], &ev[i], reqs, &nreq);
		if (rc)
			return rc;
	}
	void *bset = NULL;
	if (s->mpx) { /* multiplexing: mpx.c packs the events into groups */
		int rc = mpx_program(s, ev, n, reqs, nreq);
		if (rc)
			return rc;
		bset = s->bset;
	} else if (nreq) {
		int rc = s->c->ops->program(s->c->unit, s->t->hwthread, reqs, nreq,
					    s->bset, &bset);
		if (rc)
			return rc;
	} else if (s->bset) {
		s->c->ops->release(s->c->unit, s->bset);
	}
	s->bset = bset;
	s->n = n;
	memcpy(s->ev, ev, (size_t)n * sizeof *ev);
	s->nreq = nreq;
	memcpy(s->req, reqs, (size_t)nreq * sizeof *reqs);
	return clab_ovf_reprogram(s);
}

int clab_evset_program(clab_evset *s, const uint32_t *codes, int n)
{
	CLAB_ENTER();
	return clab_leave(program(s, codes, n));
}

int clab_evset_add(clab_evset *s, uint32_t code)
{
	uint32_t codes[CLAB_EVSET_MAX + 1];
	for (int i = 0; i < s->n; i++)
		codes[i] = s->ev[i].code;
	if (s->n == CLAB_EVSET_MAX)
		return clab_seterr(CLAB_E_CONFLICT,
				   "event set of %s holds at most %d events",
				   s->c->name, CLAB_EVSET_MAX);
	codes[s->n] = code;
	CLAB_ENTER();
	return clab_leave(program(s, codes, s->n + 1));
}

int clab_evset_size(const clab_evset *s) { return s->n; }

int clab_evset_start(clab_evset *s)
{
	if (s->running)
		return clab_seterr(CLAB_E_STATE, "event set is already running");
	if (!s->bset)
		return clab_seterr(CLAB_E_STATE, "event set is empty");
	CLAB_ENTER();
	int rc = s->mpx ? clab_mpx_start(s) : s->c->ops->start(s->c->unit, s->bset);
	if (!rc) {
		s->running = 1;
		clab_ovf_started(s);
	}
	return clab_leave(rc);
}

int64_t clab_evset_fold_one(const clab_evset *s, int i, const uint64_t *raw)
{
	const evset_event *e = &s->ev[i];
	int64_t t[CLAB_MAX_TERMS] = {0};
	for (int k = 0; k < e->nterms; k++)
		t[k] = (int64_t)raw[e->req[k]];
	int64_t v = t[0];
	switch (e->derived) {
	case CLAB_NOT_DERIVED: break;
	case CLAB_DERIVED_ADD:
		for (int k = 1; k < e->nterms; k++) v += t[k];
		break;
	case CLAB_DERIVED_SUB:
		for (int k = 1; k < e->nterms; k++) v -= t[k];
		break;
	case CLAB_DERIVED_POSTFIX:
		v = clab_postfix_eval(e->tok, e->ntok, t);
		break;
	}
	return v;
}

static void fold(const clab_evset *s, const uint64_t *raw, int64_t *vals)
{
	for (int i = 0; i < s->n; i++)
		vals[i] = clab_evset_fold_one(s, i, raw);
}

static int read_(clab_evset *s, int64_t *vals)
{
	if (!s->bset)
		return clab_seterr(CLAB_E_STATE, "event set is empty");
	if (s->mpx)
		return clab_mpx_read(s, vals, 1);
	uint64_t raw[CLAB_EVSET_MAX];
	int rc = s->c->ops->read(s->c->unit, s->bset, raw);
	if (!rc)
		fold(s, raw, vals);
	return rc;
}

int clab_evset_read(clab_evset *s, int64_t *vals)
{
	CLAB_ENTER();
	return clab_leave(read_(s, vals));
}

static int stop(clab_evset *s, int64_t *vals)
{
	if (!s->running)
		return clab_seterr(CLAB_E_STATE, "event set is not running");
	int rc = s->mpx ? clab_mpx_stop(s) : s->c->ops->stop(s->c->unit, s->bset);
	if (rc)
		return rc;
	s->running = 0;
	clab_ovf_stopped(s);
	return vals ? read_(s, vals) : CLAB_OK;
}

int clab_evset_stop(clab_evset *s, int64_t *vals)
{
	CLAB_ENTER();
	return clab_leave(stop(s, vals));
}

int clab_evset_reset(clab_evset *s)
{
	CLAB_ENTER();
	if (s->mpx)
		return clab_leave(clab_mpx_reset(s));
	return clab_leave(s->bset ? s->c->ops->reset(s->c->unit, s->bset) : CLAB_OK);
}

int clab_evset_accum(clab_evset *s, int64_t *vals)
{
	int64_t now[CLAB_EVSET_MAX];
	CLAB_ENTER();
	int rc = read_(s, now);
	if (rc)
		return clab_leave(rc);
	for (int i = 0; i < s->n; i++)
		vals[i] += now[i];
	return clab_leave(s->bset ? s->c->ops->reset(s->c->unit, s->bset) : CLAB_OK);
}

uint64_t clab_evset_counters(const clab_evset *s, int i)
{
	if (i < 0 || i >= s->n || !s->bset)
		return 0;
	if (s->mpx)
		return clab_mpx_counters(s, i);
	uint64_t mask = 0;
	for (int k = 0; k < s->ev[i].nterms; k++)
		mask |= s->c->ops->counters(s->c->unit, s->bset, s->ev[i].req[k]);
	return mask;
}
