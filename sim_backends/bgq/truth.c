/* What a thread has counted: its profile's counts at its clock plus its
 * explicit work, the kernel's share of them (contexts), the node-wide sums
 * over threads and the weighted truth of a PUnit counter. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "node.h"

/* What el of len cycles of a work segment of counts c[] did of e. */
static uint64_t part(const uint64_t *c, int e, uint64_t el, uint64_t len)
{
	return (uint64_t)((unsigned __int128)c[e] * el / len);
}

uint64_t bgq_work_part(const uint64_t *c, int e, uint64_t el, uint64_t len)
{
	if (e != NEV_MISS)
		return part(c, e, el, len);
	uint64_t looked = 0;
	for (int i = 0; i < BGQ_L2_LOOKS; i++)
		looked += part(c, bgq_l2_looks[i], el, len);
	return bgq_misses_of(looked, c[e], bgq_l2_lookups(c));
}

/* Count of primary e of thread t at position pos of its profile, its
 * clock standing at `now` (not the L2 misses: miss_truth_at). */
uint64_t bgq_prim_truth_at(const bgq_hwt *t, const prof_pos *pos, int e,
			   uint64_t now)
{
	uint64_t v = bgq_profile_count_at(pos, e) + t->work[e];
	if (t->wcount)
		v += (uint64_t)((unsigned __int128)t->wcount[e] * (now - t->w0) / t->wlen);
	return v;
}

static uint64_t miss_truth_at(const bgq_hwt *t, const prof_pos *pos, uint64_t now)
{
	uint64_t v = bgq_miss_count_at(pos) + t->work[NEV_MISS];
	if (t->wcount)
		v += bgq_work_part(t->wcount, NEV_MISS, now - t->w0, t->wlen);
	return v;
}

/* Where thread t's profile would stand with its clock at `at` (in_work:
 * within its work segment, whose cycles do not run the profile). */
prof_pos bgq_pos_at(const bgq_hwt *t, uint64_t at, int in_work)
{
	return bgq_profile_pos(t->prof, in_work ? t->act : t->act + (at - t->now));
}

/* How a thread's truth of node event nev is taken (bgq_nev_truth_at): fixed
 * per event, so sums find it once. */
enum { NK_NONE, NK_WORK, NK_PERFMON, NK_MISS, NK_PRIM, NK_HITS, NK_MISS_ONLY,
       NK_MISS_PREFETCH };

int bgq_nev_kind(int nev)
{
	if (nev < 0) /* a place a sum keeps without counting */
		return NK_NONE;
	/* the I/O unit counts messages only: no profile rate or work segment
	 * gives it a count (bgq_feed_reason), they land in work[] at once */
	if (nev >= BGQ_NEV_IO && nev < BGQ_NEV_CNK)
		return NK_WORK;
	if (nev >= BGQ_NEV_CNK && bgq_nev_feed(nev) == BGQ_FEED_OVERFLOW)
		return NK_PERFMON;
	if (nev == NEV_MISS)
		return NK_MISS;
	if (nev < BGQ_NEV_L2 || nev >= BGQ_NEV_IO ||
	    bgq_nev_feed(nev) != BGQ_FEED_DERIVED)
		return NK_PRIM;
	switch (nev - BGQ_NEV_L2) {
	case L2C_HITS: /* every load the L1p could not serve, and every store */
		return NK_HITS;
	case L2C_REQ_MISS_AND_EVICT: /* a full cache evicts on every miss */
		return NK_MISS_ONLY;
	default: /* FETCH_LINE, MISS_AND_EVICT: demand misses and prefetches */
		return NK_MISS_PREFETCH;
	}
}

/* The same by kind; *miss: the thread's L2 misses at pos once taken
 * (UINT64_MAX before), shared by the events of one sum. */
static uint64_t kind_truth_at(const bgq_hwt *t, const prof_pos *pos, int kind,
			      int nev, uint64_t now, uint64_t *miss)
{
	switch (kind) {
	case NK_NONE:
		return 0;
	case NK_WORK:
		return t->work[nev];
	case NK_PERFMON:
		return __atomic_load_n(&t->perfmon, __ATOMIC_RELAXED);
	case NK_PRIM:
		return bgq_prim_truth_at(t, pos, nev, now);
	}
	if (*miss == UINT64_MAX)
		*miss = miss_truth_at(t, pos, now);
	switch (kind) {
	case NK_HITS: { /* the lookups that did not miss */
		uint64_t looked = 0;
		for (int i = 0; i < BGQ_L2_LOOKS; i++)
			looked += bgq_prim_truth_at(t, pos, bgq_l2_looks[i], now);
		return looked - *miss;
	}
	case NK_MISS_PREFETCH:
		return *miss + bgq_prim_truth_at(t, pos, BGQ_NEV_L2 + L2C_PREFETCH, now);
	default: /* NK_MISS, NK_MISS_ONLY */
		return *miss;
	}
}

/* Thread truth of node event nev at pos (PUnit opcode groups excepted:
 * the PUnit counts those through bgq_terms_for). */
uint64_t bgq_nev_truth_at(const bgq_hwt *t, const prof_pos *pos, int nev,
			  uint64_t now)
{
	uint64_t miss = UINT64_MAX;
	return kind_truth_at(t, pos, bgq_nev_kind(nev), nev, now, &miss);
}

#define PPB 1000000000u

uint64_t bgq_kernel_ppb(const bgq_node *n, const bgq_profile *p)
{
	unsigned __int128 k = 0;
	if (p)
		k += (unsigned __int128)p->sys_ppb * n->sys_cycles;
	if (n->fit_period)
		k += (unsigned __int128)PPB * n->irq_cycles / n->fit_period;
	if (n->dec_period)
		k += (unsigned __int128)PPB * n->irq_cycles / n->dec_period;
	return k > PPB ? PPB : (uint64_t)k;
}

/* The kernel's part of count v of primary e of thread t. */
uint64_t bgq_kernel_part(const bgq_hwt *t, int e, uint64_t v)
{
	uint64_t k = 0;
	if (t->kbank) {
		k = t->kbank[e];
		v -= t->kbank[BGQ_N_NEV + e];
	}
	return k + (uint64_t)((unsigned __int128)v * t->kppb / PPB);
}

/* v of primary e of thread t in the contexts a counter counts. */
static uint64_t in_context(const bgq_hwt *t, int e, uint64_t v, int exclude)
{
	if (!exclude)
		return v;
	if (exclude == (CLAB_PLAN_EXCLUDE_USER | CLAB_PLAN_EXCLUDE_KERNEL))
		return 0;
	uint64_t k = bgq_kernel_part(t, e, v);
	return exclude & CLAB_PLAN_EXCLUDE_USER ? k : v - k;
}

int bgq_sum_init(bgq_sum *s, const int *nev, int k, int only)
{
	memset(s, 0, sizeof *s);
	s->val = calloc((size_t)BGQ_HWTHREADS * (size_t)(k ? k : 1), sizeof *s->val);
	if (!s->val)
		return CLAB_E_NOMEM;
	s->k = k;
	s->only = only;
	memcpy(s->nev, nev, (size_t)k * sizeof *nev);
	s->timeless = 1;
	for (int i = 0; i < k; i++) {
		s->kind[i] = bgq_nev_kind(nev[i]);
		s->timeless &= s->kind[i] == NK_NONE || s->kind[i] == NK_WORK ||
			       s->kind[i] == NK_PERFMON;
	}
	memset(s->seen, 0xff, sizeof s->seen); /* no version yet */
	s->changes = UINT64_MAX;
	return CLAB_OK;
}

void bgq_sum_free(bgq_sum *s)
{
	free(s->val);
	s->val = NULL;
}

/* The threads that changed from the node's change count `from` to `to`
 * (bits of w[2]); 0 when the log no longer holds them all. */
static int changed_since(const bgq_node *n, uint64_t from, uint64_t to,
			 uint64_t *w)
{
	if (from == UINT64_MAX || to - from > BGQ_CHANGE_LOG)
		return 0;
	for (uint64_t q = from; q != to; q++) {
		uint64_t e = __atomic_load_n(&n->change_log[q % BGQ_CHANGE_LOG],
					     __ATOMIC_ACQUIRE);
		if (e >> 8 != (q & (UINT64_MAX >> 8)))
			return 0; /* overwritten, or its writer is not done */
		w[(e & 0xff) / 64] |= 1ull << (e & 0xff) % 64;
	}
	return 1;
}

void bgq_node_sum_thread(bgq_node *n, bgq_sum *s, int h)
{
	if (s->only >= 0 && s->only != h)
		return;
	const bgq_hwt *t = &n->hwt[h];
	/* a timeless sum's events move only with the work */
	uint64_t ver = s->timeless ? __atomic_load_n(&t->wver, __ATOMIC_ACQUIRE)
		     : __atomic_load_n(&n->version[h], __ATOMIC_ACQUIRE);
	if (ver == s->seen[h])
		return;
	prof_pos pos = bgq_profile_pos(t->prof, t->act);
	uint64_t *v = s->val + (size_t)h * (size_t)s->k, miss = UINT64_MAX;
	for (int i = 0; i < s->k; i++) {
		/* another thread may sum the same set: its threads take turns
		 * per h (the core lock), the totals add atomically */
		uint64_t x = kind_truth_at(t, &pos, s->kind[i], s->nev[i], t->now, &miss);
		if (x == v[i])
			continue;
		__atomic_fetch_add(&s->total[i], x - v[i], __ATOMIC_RELAXED);
		bgq_count_set(&v[i], x);
	}
	s->seen[h] = ver;
}

void bgq_node_sum_since(bgq_node *n, bgq_sum *s, uint64_t changes)
{
	/* only the threads that changed since the last sum are looked at (all
	 * live ones when the log lost track); a change during the walk below
	 * shows in the next sum */
	uint64_t last = __atomic_load_n(&s->changes, __ATOMIC_RELAXED);
	uint64_t look[2] = {0, 0};
	if (s->only >= 0) /* one thread: its version says whether it changed */
		look[s->only / 64] = 1ull << (s->only % 64);
	else if (!changed_since(n, last, changes, look))
		for (int w = 0; w < 2; w++)
			look[w] = __atomic_load_n(&n->live[w], __ATOMIC_RELAXED);
	for (int w = 0; w < 2; w++) {
		for (uint64_t bits = look[w]; bits; bits &= bits - 1) {
			int h = w * 64 + __builtin_ctzll(bits);
			uint64_t ver = s->timeless ? __atomic_load_n(&n->hwt[h].wver, __ATOMIC_ACQUIRE)
				     : __atomic_load_n(&n->version[h], __ATOMIC_ACQUIRE);
			if (ver == s->seen[h]) /* again under the lock */
				continue;
			bgq_core *k = &n->core[h / BGQ_TPC];
			bgq_lock_take(&k->lock);
			bgq_node_sum_thread(n, s, h);
			bgq_lock_drop(&k->lock);
		}
	}
	__atomic_store_n(&s->changes, changes, __ATOMIC_RELAXED);
}

/* Counter c's count of contributor t at pos, term by term. */
static uint64_t summed_truth(const bgq_ctr *c, const bgq_hwt *t,
			     const prof_pos *pos, uint64_t now)
{
	uint64_t v = 0;
	for (int k = 0; k < c->nterm; k++) {
		int e = c->term[k]; /* a primary, or a CNK count */
		uint64_t x = e < BGQ_NEV_L2 ? bgq_prim_truth_at(t, pos, e, now)
			     : bgq_nev_truth_at(t, pos, e, now);
		v += c->weight[k] * in_context(t, e, x, c->exclude);
	}
	return v;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The period of counter c's distinct rates and what they count over one
 * (bgq_ctr.period); the memo starts empty. */
static void rates_period(bgq_ctr *c)
{
	uint64_t p = 1;
	for (int j = 0; j < c->nrate; j++) {
		uint64_t pj = CLAB_PPM / gcd(c->rate_ppm[j], CLAB_PPM);
		p = p / gcd(p, pj) * pj; /* both divide 10^6: so does p */
	}
	c->period = (uint32_t)p;
	c->per_period = 0;
	for (int j = 0; j < c->nrate; j++)
		c->per_period += c->rate_w[j] * ((uint64_t)c->rate_ppm[j] * p / CLAB_PPM);
	uint64_t step = gcd(p, BGQ_SCAN);
	c->memo_step = p / step <= BGQ_MEMO && c->per_period <= UINT32_MAX ? (uint32_t)step : 0;
	memset(c->memo_key, 0, sizeof c->memo_key);
}

/* The same from the counter's rates in pos's phase lap: the count at the
 * lap's phase start (refreshed when the lap, the profile or the work
 * change) plus each term's whole rate x whole millions of cycles and its
 * rounded part of the rest, as clab_rate_count splits them, so the sum
 * equals the term-by-term one exactly. Contexts and work segments in
 * progress take the term-by-term way. */
/* Refreshes contributor s's rates of counter c at pos (out of line: the
 * reads that find them current stay short). */
static __attribute__((noinline)) void rates_refresh(bgq_ctr *c, int s, const bgq_hwt *t,
						    const prof_pos *pos, uint64_t now,
						    uint64_t wver)
{
	struct bgq_ctr_rates *q = &c->rates[s];
	const uint64_t *row = pos->p->ppm + (size_t)pos->ph * BGQ_N_NEV;
	prof_pos start = *pos;
	start.r = 0;
	q->base = summed_truth(c, t, &start, now);
	q->sum_ppm = 0;
	/* the row covers every node event; a CNK term's rate is 0 */
	c->nrate = 0;
	for (int k = 0; k < c->nterm; k++) {
		uint64_t ppm = row[c->term[k]];
		q->sum_ppm += c->weight[k] * ppm;
		int j = 0;
		while (j < c->nrate && c->rate_ppm[j] != ppm)
			j++;
		if (ppm && j == c->nrate) {
			c->rate_ppm[c->nrate] = (uint32_t)ppm;
			c->rate_w[c->nrate++] = 0;
		}
		if (ppm)
			c->rate_w[j] = (uint16_t)(c->rate_w[j] + c->weight[k]);
	}
	rates_period(c);
	q->prof = pos->p;
	q->ph = pos->ph;
	q->laps = pos->laps;
	q->wver = wver;
}

/* The short way of a counter's truth from its rates (rated_truth): c's one
 * contributor is hardware thread s of the core, at pos of its profile with
 * work version wver, and neither contexts nor a work segment in progress
 * split its terms. 0 when c's rates are not those of pos's phase lap or the
 * memo does not hold pos's offset in the period: the long way then
 * refreshes them. */
static int rated_own(const bgq_ctr *c, int s, const prof_pos *pos, uint64_t wver,
		     uint64_t *v)
{
	const struct bgq_ctr_rates *q = &c->rates[s];
	uint32_t step = c->memo_step, period = c->period;
	if (q->prof != pos->p || q->ph != pos->ph || q->laps != pos->laps ||
	    q->wver != wver || !step)
		return 0;
	uint64_t r = pos->r, laps = r / period, x = r - laps * period;
	uint32_t i = (uint32_t)x / step;
	if (c->memo_key[i] != x + 1)
		return 0;
	*v = q->base + c->per_period * laps + c->memo_val[i];
	return 1;
}

static uint64_t rated_truth(bgq_ctr *c, int s, const bgq_hwt *t,
			    const prof_pos *pos, uint64_t now)
{
	const bgq_profile *p = pos->p;
	if (c->exclude || t->wcount || !p)
		return summed_truth(c, t, pos, now);
	struct bgq_ctr_rates *q = &c->rates[s];
	uint64_t wver = __atomic_load_n(&t->wver, __ATOMIC_ACQUIRE), v;
	int own = c->contrib == 1u << s;
	if (own && rated_own(c, s, pos, wver, &v))
		return v;
	if (q->prof != p || q->ph != pos->ph || q->laps != pos->laps || q->wver != wver)
		rates_refresh(c, s, t, pos, now, wver);
	uint64_t r = pos->r;
	if (own) { /* terms of one rate round alike */
		uint64_t x = r % c->period, i = c->memo_step ? x / c->memo_step : 0;
		v = q->base + c->per_period * (r / c->period);
		uint64_t in = 0;
		for (int j = 0; j < c->nrate; j++)
			in += c->rate_w[j] * ((uint64_t)c->rate_ppm[j] * x / CLAB_PPM);
		if (c->memo_step) {
			c->memo_key[i] = (uint32_t)(x + 1);
			c->memo_val[i] = (uint32_t)in;
		}
		return v + in;
	}
	uint64_t part = r % CLAB_PPM;
	v = q->base + q->sum_ppm * (r / CLAB_PPM);
	const uint64_t *row = p->ppm + (size_t)pos->ph * BGQ_N_NEV;
	for (int k = 0; k < c->nterm; k++)
		v += c->weight[k] * (row[c->term[k]] * part / CLAB_PPM);
	return v;
}

/* Counter c's truth when its one contributor is thread t, hardware thread s
 * of the core, as things are, its profile at pos: a scan takes pos once for
 * all the counters of its thread. */
uint64_t bgq_ctr_truth_own(bgq_ctr *c, int s, const bgq_hwt *t, const prof_pos *pos)
{
	return rated_truth(c, s, t, pos, t->now);
}

/* Builds k's plan for hardware thread s (thread t, at pos of its profile
 * with work version wver): its held counters that count it alone, by their
 * rates, run and count every context go in; the others stay to the scan.
 * The entries' period is their periods' common multiple, a divisor of
 * 10^6 like each. Core lock held. */
void bgq_plan_build(bgq_core *k, int s, const bgq_hwt *t, const prof_pos *pos,
		    uint64_t wver)
{
	bgq_scan_plan *pl = k->plan[s];
	uint64_t p = 1, v[BGQ_CTRS];
	pl->n = 0;
	pl->rest = 0;
	for (uint32_t b = k->held[s]; b; b &= b - 1) {
		bgq_ctr *c = &k->ctr[__builtin_ctz(b)];
		if (c->contrib != 1u << s || !c->running || c->exclude) {
			pl->rest |= b & -b;
			continue;
		}
		v[pl->n] = rated_truth(c, s, t, pos, t->now); /* refreshes the rates */
		pl->e[pl->n++].c = c;
		p = p / gcd(p, c->period) * c->period;
	}
	pl->period = (uint32_t)p;
	pl->step = (uint32_t)gcd(p, BGQ_SCAN);
	for (int j = 0; j < pl->n; j++) {
		const bgq_ctr *c = pl->e[j].c;
		pl->e[j].base = c->rates[s].base - c->start;
		pl->e[j].pp = c->per_period * (p / c->period);
		if (pl->e[j].pp > UINT32_MAX) /* in-period sums beyond the memo's */
			p = 0;
	}
	if (!p || p / pl->step > BGQ_MEMO) {
		pl->n = -1;
		pl->rest = k->held[s];
	}
	pl->whole = pl->n > 0 && !pl->rest;
	memset(pl->key, 0, sizeof pl->key);
	pl->act0 = t->act - pos->r;
	pl->span = bgq_phase_cycles(pos);
	pl->wver = wver;
	pl->cfg = k->cfg;
	if (pl->n > 0) { /* the offset at hand, from the values just taken */
		uint64_t laps = pos->r / p, x = pos->r - laps * p;
		uint32_t i = (uint32_t)x / pl->step;
		for (int j = 0; j < pl->n; j++)
			pl->val[i][j] = (uint32_t)(v[j] - pl->e[j].c->start - pl->e[j].base -
						   pl->e[j].pp * laps);
		pl->key[i] = (uint32_t)x + 1;
	}
}

/* Fills the plan's slot of pos's offset in the period from the entries'
 * counts there. Core lock held. */
void bgq_plan_fill(bgq_core *k, int s, const bgq_hwt *t, const prof_pos *pos)
{
	bgq_scan_plan *pl = k->plan[s];
	uint64_t laps = pos->r / pl->period, x = pos->r - laps * pl->period;
	uint32_t i = (uint32_t)x / pl->step;
	for (int j = 0; j < pl->n; j++) {
		uint64_t v = rated_truth(pl->e[j].c, s, t, pos, t->now) - pl->e[j].c->start;
		pl->val[i][j] = (uint32_t)(v - pl->e[j].base - pl->e[j].pp * laps);
	}
	pl->key[i] = (uint32_t)x + 1;
}

/* Counter c's truth with thread h's clock at `at` (h < 0: as things are). */
uint64_t bgq_ctr_truth_at(const bgq_node *n, int core, const bgq_ctr *c,
			  int h, uint64_t at, int in_work)
{
	uint64_t v = 0;
	for (int s = 0; s < BGQ_TPC; s++)
		if (c->contrib & (1u << s)) {
			int g = core * BGQ_TPC + s;
			const bgq_hwt *t = &n->hwt[g];
			int mine = h >= 0 && g == h;
			uint64_t now = mine ? at : t->now;
			prof_pos pos = mine ? bgq_pos_at(t, at, in_work)
					      : bgq_profile_pos(t->prof, t->act);
			/* the rates are a cache of the counter, not its value */
			v += rated_truth((bgq_ctr *)c, s, t, &pos, now);
		}
	return v;
}

uint64_t bgq_ctr_truth(const bgq_node *n, int core, const bgq_ctr *c)
{
	return bgq_ctr_truth_at(n, core, c, -1, 0, 0);
}
