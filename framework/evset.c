/* Event sets: a list of events (natives, qualified natives, presets)
 * expanded into distinct native requests that the backend plans onto its
 * counters; reads fold the requests back through each event's formula.
 *
 * A set holds the unit's counters only while it runs: programming checks
 * that its events fit the unit together, starting acquires the counters
 * beside the other running sets (or fails with CLAB_E_CONFLICT), stopping
 * releases them and keeps the counts readable. A thread may keep any
 * number of sets. Multiplexing drives a set through a clab_evset_driver;
 * the overflow engine hears of every set through clab_evset_hooks, and the
 * machine keeps the sets' threads through clab_evset_threads: evset.c
 * calls down only (units, the catalog, the call guard).
 *
 * A call from a signal handler that interrupted a call of the same thread
 * (the guard tells) must not wait for a lock: reads answer from the
 * values of the set's last completed read, start, stop or reset (clab_snap:
 * consistent, as they were at one instant, and never ahead of the next
 * read), and a reset there takes those values off every later read
 * instead of zeroing the unit; other calls are refused. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* ---- hooks ---------------------------------------------------------------- */

#define MAX_HOOKS 4
static const clab_evset_hooks *hooks[MAX_HOOKS];
static int nhooks;

void clab_evset_hook(const clab_evset_hooks *h)
{
	if (nhooks < MAX_HOOKS)
		hooks[nhooks++] = h;
}

static int hooks_programmed(clab_evset *s)
{
	for (int i = 0; i < nhooks; i++)
		if (hooks[i]->programmed) {
			int rc = hooks[i]->programmed(s);
			if (rc)
				return rc;
		}
	return CLAB_OK;
}

#define HOOKS(what, s) do { \
	for (int i_ = 0; i_ < nhooks; i_++) \
		if (hooks[i_]->what) \
			hooks[i_]->what(s); \
} while (0)

static const clab_evset_threads *threads;

void clab_evset_threads_use(const clab_evset_threads *th)
{
	threads = th;
}

/* ---- the last completed values ------------------------------------------ */

/* Two copies, so that a handler that interrupted the writer reads the
 * complete one; a reader in another thread tries again when a write went
 * on meanwhile. Written by the thread that uses the set (one at a time). */
static inline int64_t *snap_at(clab_snap *b, int copy, int kind)
{
	return b->v + (size_t)(copy * 2 + kind) * (size_t)b->cap;
}

static inline int64_t *off_at(clab_snap *b, int kind)
{
	return b->v + (size_t)(4 + kind) * (size_t)b->cap;
}

#define SNAP_CUR 1u  /* snap_state: the complete copy */
#define SNAP_SEQ 2u  /* one step of its sequence */

/* A write of the values: opened (the copy to fill, which readers do not
 * take meanwhile), filled, closed (readers take it). */
CLAB_HOT static inline int64_t *publish_open(clab_evset *s)
{
	unsigned st = s->snap_state;
	__atomic_store_n(&s->snap_state, st + SNAP_SEQ, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return s->snap_v[(st & SNAP_CUR) ^ 1];
}

CLAB_HOT static inline void publish_close(clab_evset *s)
{
	__atomic_store_n(&s->snap_state, (s->snap_state + SNAP_SEQ) ^ SNAP_CUR, __ATOMIC_RELEASE);
}

/* scaled NULL: the counts start again from zero (both kinds). */
static void publish(clab_evset *s, const int64_t *scaled, const int64_t *raw)
{
	clab_snap *b = s->snap;
	int next = (s->snap_state & SNAP_CUR) ^ 1;
	publish_open(s);
	size_t len = (size_t)s->n * sizeof *b->v;
	if (scaled) {
		memcpy(snap_at(b, next, CLAB_SNAP_SCALED), scaled, len);
		if (raw)
			memcpy(snap_at(b, next, CLAB_SNAP_RAW), raw, len);
	} else {
		memset(snap_at(b, next, CLAB_SNAP_SCALED), 0, len);
		memset(snap_at(b, next, CLAB_SNAP_RAW), 0, len);
	}
	publish_close(s);
}

/* The counts start again from zero (start, reset, new events). */
static void publish_zero(clab_evset *s)
{
	s->has_off = 0;
	if (s->snap) /* none before the set's first events */
		publish(s, NULL, NULL);
}

/* Room for n events' values; the old ones come along. The buffer is
 * swapped whole: a handler that interrupted this sees the old or the new,
 * and a reader in another thread that took the old one reads it to the
 * end, then tries again (the sequence moved). So the old buffer stays
 * until the set goes; capacities double, so all of them add up to less
 * than twice the last. */
static int snap_room(clab_evset *s, int n)
{
	clab_snap *old = s->snap;
	if (old && old->cap >= n)
		return CLAB_OK;
	int cap = old ? old->cap : 4;
	while (cap < n)
		cap *= 2;
	clab_snap *b = calloc(1, sizeof *b + (size_t)6 * (size_t)cap * sizeof *b->v);
	if (!b)
		return CLAB_E_NOMEM;
	b->cap = cap;
	b->retired = old;
	for (int k = 0; old && k < 6; k++)
		memcpy(b->v + (size_t)k * (size_t)cap, old->v + (size_t)k * (size_t)old->cap,
		       (size_t)old->cap * sizeof *b->v);
	unsigned st = s->snap_state;
	__atomic_store_n(&s->snap_state, st + SNAP_SEQ, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&s->snap, b, __ATOMIC_RELEASE);
	__atomic_store_n(&s->snap_state, st + 2 * SNAP_SEQ, __ATOMIC_RELEASE);
	for (int k = 0; k < 2; k++)
		s->snap_v[k] = snap_at(b, k, CLAB_SNAP_SCALED);
	return CLAB_OK;
}

static void snap_free(clab_snap *b)
{
	while (b) {
		clab_snap *next = b->retired;
		free(b);
		b = next;
	}
}

static void snap_read(const clab_evset *s, int64_t *scaled, int64_t *raw)
{
	for (;;) {
		unsigned q = __atomic_load_n(&s->snap_state, __ATOMIC_ACQUIRE);
		clab_snap *b = __atomic_load_n(&s->snap, __ATOMIC_ACQUIRE);
		int c = (int)(q & SNAP_CUR);
		size_t len = (size_t)s->n * sizeof *scaled;
		memcpy(scaled, snap_at(b, c, CLAB_SNAP_SCALED), len);
		if (raw)
			memcpy(raw, snap_at(b, c, CLAB_SNAP_RAW), len);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->snap_state, __ATOMIC_RELAXED) == q)
			return;
	}
}

/* The values' kind: a driven set's scaled and raw counts differ. */
static int kind_of(const clab_evset *s, int scaled)
{
	return s->drv && !scaled ? CLAB_SNAP_RAW : CLAB_SNAP_SCALED;
}

/* Where a read puts event i's value: vals[at[i]]. A layer that keeps the
 * values in an order of its own (PAPI's positions) gets them there at once;
 * the others read in the set's order. */
#define SEQ4(i) (i), (i) + 1, (i) + 2, (i) + 3
#define SEQ16(i) SEQ4(i), SEQ4((i) + 4), SEQ4((i) + 8), SEQ4((i) + 12)
static const int in_order[CLAB_EVSET_MAX] = {SEQ16(0), SEQ16(16), SEQ16(32), SEQ16(48)};
_Static_assert(CLAB_EVSET_MAX == 64, "in_order lists every event index");

CLAB_HOT static inline void take_off(const clab_evset *s, int64_t *vals, const int *at,
				     int kind)
{
	if (s->has_off) {
		const int64_t *off = off_at(s->snap, kind);
		for (int i = 0; i < s->n; i++)
			vals[at[i]] -= off[i];
	}
}

/* Values v[] of the set's events (its order) to vals[at[]]. */
static void deliver(const clab_evset *s, const int64_t *v, int64_t *vals, const int *at)
{
	for (int i = 0; i < s->n; i++)
		vals[at[i]] = v[i];
}

/* A read where the thread may hold any lock. */
static int read_held(clab_evset *s, int64_t *vals, const int *at, int scaled)
{
	if (!s || !s->n)
		return clab_seterr(CLAB_E_STATE, "event set is empty");
	int64_t v[CLAB_EVSET_MAX], other[CLAB_EVSET_MAX];
	int kind = kind_of(s, scaled);
	if (kind == CLAB_SNAP_RAW)
		snap_read(s, other, v);
	else
		snap_read(s, v, NULL);
	deliver(s, v, vals, at);
	take_off(s, vals, at, kind);
	return CLAB_OK;
}

/* A reset where the thread may hold any lock: later reads count from the
 * last completed values. */
static int reset_held(clab_evset *s)
{
	if (!s || !s->n)
		return CLAB_OK;
	clab_snap *b = s->snap;
	snap_read(s, off_at(b, CLAB_SNAP_SCALED), s->drv ? off_at(b, CLAB_SNAP_RAW) : NULL);
	s->has_off = 1;
	return CLAB_OK;
}

/* ------------------------------------------------------------------------ */

int clab_evset_create(clab_component *c, clab_thread *t, clab_evset **out)
{
	if (!c || !t || !out)
		return clab_seterr(CLAB_E_INVAL, "evset_create: NULL argument");
	if (c->disabled)
		return clab_seterr(CLAB_E_NODEV, "component %s is disabled: %s", c->name,
				   c->disabled);
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("creating an event set"));
	clab_evset *s = calloc(1, sizeof *s);
	if (!s)
		return clab_leave(CLAB_E_NOMEM);
	s->c = c;
	s->t = t;
	int rc = threads ? threads->ref(t, s) : CLAB_OK;
	if (rc) {
		free(s);
		return clab_leave(rc);
	}
	*out = s;
	return clab_leave(CLAB_OK);
}

/* Stops a running set and lets go of the unit. */
static int stop_unit(clab_evset *s)
{
	int rc;
	if (s->drv) {
		rc = s->drv->stop(s);
	} else {
		rc = s->c->ops->stop(s->c->unit, s->bset);
		s->c->ops->release(s->c->unit, s->bset);
	}
	s->running = 0;
	HOOKS(stopped, s);
	return rc;
}

void clab_evset_destroy(clab_evset *s)
{
	if (!s)
		return;
	CLAB_ENTER();
	if (s->running)
		stop_unit(s);
	HOOKS(destroyed, s);
	if (s->drv)
		s->drv->free(s); /* the driver's backend sets */
	else if (s->bset)
		s->c->ops->discard(s->c->unit, s->bset);
	if (threads)
		threads->unref(s->t, s);
	free(s->ev);
	free(s->req);
	snap_free(s->snap);
	free(s);
	clab_leave(CLAB_OK);
}

void clab_evset_halt(clab_evset *s)
{
	CLAB_ENTER();
	if (s->running) {
		stop_unit(s);
		s->halted = 1;
	}
	clab_leave(CLAB_OK);
}

void clab_evset_orphan(clab_evset *s)
{
	clab_evset_halt(s);
	s->orphan = 1;
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

/* Room for n events and n requests, made before anything changes. */
static int room(clab_evset *s, int n)
{
	n = n ? n : 1; /* never NULL: memcpy wants a pointer even for none */
	if (n <= s->ncap)
		return CLAB_OK;
	evset_event *ev = realloc(s->ev, (size_t)n * sizeof *ev);
	if (ev)
		s->ev = ev;
	clab_evreq *req = ev ? realloc(s->req, (size_t)n * sizeof *req) : NULL;
	if (!req)
		return CLAB_E_NOMEM;
	s->req = req;
	s->ncap = n;
	return snap_room(s, n);
}

/* What read_at's short way needs (internal.h, clab_evset.direct). */
static void plan_read(clab_evset *s)
{
	const clab_unit_ops *ops = s->c->ops;
	s->direct = s->plain && !s->drv && s->n > 0;
	s->rd = s->direct && ops->reader ? ops->reader(s->c->unit, s->bset) : ops->read;
	s->rd_unit = s->c->unit;
}

/* Plans codes[0..n) under driver drv (NULL: one backend set). */
static int program_with(clab_evset *s, const clab_evset_driver *drv,
			const uint32_t *codes, int n)
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
	if (room(s, n > nreq ? n : nreq))
		return CLAB_E_NOMEM;
	if (drv) {
		uint64_t need[CLAB_EVSET_MAX];
		for (int i = 0; i < n; i++) {
			need[i] = 0;
			for (int k = 0; k < ev[i].nterms; k++)
				need[i] |= 1ull << ev[i].req[k];
		}
		int rc = drv->program(s, reqs, nreq, need, n);
		if (rc)
			return rc;
	} else {
		void *bset = NULL;
		if (nreq) {
			int rc = s->c->ops->program(s->c->unit, s->t->hwthread, reqs, nreq,
						    clab_evset_plan_flags(s), s->bset, &bset);
			if (rc)
				return rc;
		} else if (s->bset) {
			s->c->ops->discard(s->c->unit, s->bset);
		}
		s->bset = bset;
	}
	s->n = n;
	memcpy(s->ev, ev, (size_t)n * sizeof *ev);
	s->nreq = nreq;
	memcpy(s->req, reqs, (size_t)nreq * sizeof *reqs);
	s->plain = n == nreq;
	for (int i = 0; i < n; i++)
		s->plain &= ev[i].derived == CLAB_NOT_DERIVED && ev[i].req[0] == i;
	plan_read(s);
	publish_zero(s);
	return hooks_programmed(s);
}

int clab_evset_plan_flags(const clab_evset *s)
{
	int ctx = clab_evset_get_context(s);
	return (ctx & CLAB_CTX_USER ? 0 : CLAB_PLAN_EXCLUDE_USER) |
	       (ctx & CLAB_CTX_KERNEL ? 0 : CLAB_PLAN_EXCLUDE_KERNEL);
}

/* Until told otherwise a set counts what its unit counts by default. */
int clab_evset_get_context(const clab_evset *s)
{
	if (!s)
		return CLAB_CTX_ALL;
	if (s->ctx)
		return s->ctx;
	return s->c->desc.contexts && s->c->desc.default_context ? s->c->desc.default_context
								 : CLAB_CTX_ALL;
}

/* The events are planned again: a unit counts a context apart on
 * counters configured for it. */
static int set_context(clab_evset *s, int ctx);

int clab_evset_set_context(clab_evset *s, int ctx)
{
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("changing a set's context"));
	return clab_leave(set_context(s, ctx));
}

static int set_context(clab_evset *s, int ctx)
{
	if (!s)
		return clab_seterr(CLAB_E_INVAL, "set_context: NULL event set");
	if (ctx < CLAB_CTX_USER || ctx > CLAB_CTX_ALL)
		return clab_seterr(CLAB_E_INVAL,
				   "set_context: context %d is none of user (1), kernel (2), both (3)",
				   ctx);
	if (ctx != CLAB_CTX_ALL && !s->c->desc.contexts)
		return clab_seterr(CLAB_E_NOSUPP,
				   "%s counts every processor context alike (it cannot count only %s)",
				   s->c->name, ctx == CLAB_CTX_USER ? "user" : "kernel");
	if (s->running)
		return clab_seterr(CLAB_E_STATE, "cannot change the context of a running event set");
	if (clab_evset_get_context(s) == ctx)
		return CLAB_OK;
	int old = s->ctx;
	uint32_t codes[CLAB_EVSET_MAX];
	for (int i = 0; i < s->n; i++)
		codes[i] = s->ev[i].code;
	s->ctx = ctx;
	int rc = s->n ? program_with(s, s->drv, codes, s->n) : CLAB_OK;
	if (rc)
		s->ctx = old;
	return rc;
}

static int program(clab_evset *s, const uint32_t *codes, int n)
{
	return program_with(s, s->drv, codes, n);
}

int clab_evset_drive(clab_evset *s, const clab_evset_driver *drv)
{
	if (s->running)
		return clab_seterr(CLAB_E_STATE, "cannot change a running event set");
	uint32_t codes[CLAB_EVSET_MAX];
	for (int i = 0; i < s->n; i++)
		codes[i] = s->ev[i].code;
	/* the old way's resources go only once the new one holds the events */
	const clab_evset_driver *old = s->drv;
	void *old_bset = s->bset;
	s->bset = NULL;
	int rc = program_with(s, drv, codes, s->n);
	if (rc) {
		s->bset = old_bset;
		return rc;
	}
	if (old)
		old->free(s); /* its own backend sets, not s->bset */
	else if (old_bset)
		s->c->ops->discard(s->c->unit, old_bset);
	s->drv = drv;
	plan_read(s);
	return CLAB_OK;
}

void clab_evset_poll(clab_evset *s)
{
	if (s && s->drv && s->drv->poll)
		s->drv->poll(s);
}

int clab_evset_program(clab_evset *s, const uint32_t *codes, int n)
{
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("programming an event set"));
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
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("adding an event"));
	return clab_leave(program(s, codes, s->n + 1));
}

int clab_evset_size(const clab_evset *s) { return s->n; }

static int start(clab_evset *s)
{
	if (s->running)
		return clab_seterr(CLAB_E_STATE, "event set is already running");
	if (s->orphan)
		return clab_seterr(CLAB_E_STATE,
				   "the OS thread of this event set exited; its hardware thread went to another");
	if (!s->n)
		return clab_seterr(CLAB_E_STATE, "event set is empty");
	if (s->drv) {
		int rc = s->drv->start(s);
		if (rc)
			return rc;
	} else {
		const clab_unit_ops *ops = s->c->ops;
		int rc = ops->acquire(s->c->unit, s->bset, NULL);
		if (rc)
			return rc;
		rc = ops->start(s->c->unit, s->bset);
		if (rc) {
			ops->release(s->c->unit, s->bset);
			return rc;
		}
	}
	s->running = 1;
	s->halted = 0;
	publish_zero(s);
	HOOKS(started, s);
	return CLAB_OK;
}

int clab_evset_start(clab_evset *s)
{
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("starting an event set"));
	return clab_leave(start(s));
}

/* A derived event's value from its requests' counts raw[]: out of line, so
 * that the plain events' loop stays a few instructions (no term array). */
static __attribute__((noinline)) int64_t fold_derived(const evset_event *e,
						      const uint64_t *raw)
{
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

/* Event e's value from its requests' counts raw[]: a plain event costs one
 * load. */
CLAB_HOT static inline __attribute__((always_inline)) int64_t fold_event(const evset_event *e,
									const uint64_t *raw)
{
	if (__builtin_expect(e->derived == CLAB_NOT_DERIVED, 1))
		return (int64_t)raw[e->req[0]];
	return fold_derived(e, raw);
}

CLAB_HOT int64_t clab_evset_fold_one(const clab_evset *s, int i, const uint64_t *raw)
{
	return fold_event(&s->ev[i], raw);
}

/* The values into vals[at[]] and the snapshot copy pub[] at once. */
CLAB_HOT static inline __attribute__((always_inline)) void fold(const clab_evset *s,
								 const uint64_t *raw, int64_t *vals,
								 const int *at, int64_t *pub)
{
	int n = s->n;
	if (s->plain) {
		for (int i = 0; i < n; i++)
			vals[at[i]] = pub[i] = (int64_t)raw[i];
		return;
	}
	const evset_event *ev = s->ev;
	for (int i = 0; i < n; i++) {
		int64_t v = fold_event(&ev[i], raw);
		pub[i] = v;
		vals[at[i]] = v;
	}
}

/* A stopped set reads the counts it had when it stopped. Every read
 * leaves its values for a read that may not wait (publish). */
CLAB_HOT static inline __attribute__((always_inline)) int read_(clab_evset *s, int64_t *vals,
								const int *at, int scaled)
{
	if (!s->n)
		return clab_seterr(CLAB_E_STATE, "event set is empty");
	if (s->drv) {
		int64_t sv[CLAB_EVSET_MAX], rv[CLAB_EVSET_MAX];
		int rc = s->drv->read(s, sv, rv);
		if (rc)
			return rc;
		publish(s, sv, rv);
		deliver(s, scaled ? sv : rv, vals, at);
	} else {
		uint64_t raw[CLAB_EVSET_MAX];
		int rc = s->c->ops->read(s->c->unit, s->bset, raw);
		if (rc)
			return rc;
		fold(s, raw, vals, at, publish_open(s));
		publish_close(s);
	}
	take_off(s, vals, at, kind_of(s, scaled));
	return CLAB_OK;
}

/* Reads that take the long way: from a signal handler that interrupted a
 * call (nested), or of a set that is driven, derived or empty. */
static __attribute__((noinline)) int read_at_other(clab_evset *s, int64_t *vals,
						   const int *at, int nested)
{
	return clab_leave(nested ? read_held(s, vals, at, 1) : read_(s, vals, at, 1));
}

/* Out of line, so that the short way keeps nothing but the values over
 * the unit's call. */
static __attribute__((noinline)) int read_at_failed(int rc)
{
	return clab_leave(rc);
}

/* The unit's counts are the values (plain, one backend set): they go to
 * the caller's positions and the snapshot in one pass. The snapshot is
 * opened only once the unit has answered: the unit's read may run an
 * overflow handler that reads or resets the set (and publishes) itself. */
CLAB_HOT int clab_evset_read_at(clab_evset *s, int64_t *vals, const int *at)
{
	int nested = CLAB_ENTER();
	if (__builtin_expect(nested || !s->direct, 0))
		return read_at_other(s, vals, at, nested);
	uint64_t raw[CLAB_EVSET_MAX];
	int rc = s->rd(s->rd_unit, s->bset, raw);
	if (__builtin_expect(rc < 0, 0)) /* errors are negative */
		return read_at_failed(rc);
	int64_t *pub = publish_open(s);
	for (int i = 0, n = s->n; i < n; i++)
		vals[at[i]] = pub[i] = (int64_t)raw[i];
	publish_close(s);
	take_off(s, vals, at, CLAB_SNAP_SCALED);
	return clab_leave(CLAB_OK);
}

CLAB_HOT int clab_evset_read(clab_evset *s, int64_t *vals)
{
	return clab_evset_read_at(s, vals, in_order);
}

int clab_evset_read_raw(clab_evset *s, int64_t *vals)
{
	if (!s || !vals)
		return clab_seterr(CLAB_E_INVAL, "read_raw: NULL argument");
	if (CLAB_ENTER())
		return clab_leave(read_held(s, vals, in_order, 0));
	return clab_leave(read_(s, vals, in_order, 0));
}

static int stop(clab_evset *s, int64_t *vals)
{
	if (!s->running && s->halted) { /* the user still thinks it runs */
		s->halted = 0;
		return vals ? read_(s, vals, in_order, 1) : CLAB_OK;
	}
	if (!s->running)
		return clab_seterr(CLAB_E_STATE, "event set is not running");
	int rc = stop_unit(s);
	if (rc)
		return rc;
	return vals ? read_(s, vals, in_order, 1) : CLAB_OK;
}

int clab_evset_stop(clab_evset *s, int64_t *vals)
{
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("stopping an event set"));
	return clab_leave(stop(s, vals));
}

static int reset(clab_evset *s)
{
	int rc = s->drv ? s->drv->reset(s)
		 : s->bset ? s->c->ops->reset(s->c->unit, s->bset) : CLAB_OK;
	if (!rc)
		publish_zero(s);
	return rc;
}

int clab_evset_reset(clab_evset *s)
{
	if (CLAB_ENTER())
		return clab_leave(reset_held(s));
	return clab_leave(reset(s));
}

int clab_evset_accum(clab_evset *s, int64_t *vals)
{
	int64_t now[CLAB_EVSET_MAX];
	int held = CLAB_ENTER();
	int rc = held ? read_held(s, now, in_order, 1) : read_(s, now, in_order, 1);
	if (rc)
		return clab_leave(rc);
	for (int i = 0; i < s->n; i++)
		vals[i] += now[i];
	return clab_leave(held ? reset_held(s) : reset(s));
}

uint64_t clab_evset_counters(const clab_evset *s, int i)
{
	if (i < 0 || i >= s->n)
		return 0;
	if (s->drv)
		return s->drv->counters(s, i);
	uint64_t mask = 0;
	for (int k = 0; k < s->ev[i].nterms; k++)
		mask |= s->c->ops->counters(s->c->unit, s->bset, s->ev[i].req[k]);
	return mask;
}
