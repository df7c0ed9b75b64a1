/* Every PUnit event has a cause: over the shipped activity profiles (on
 * both clocks) each row of data/bgq_relations.csv holds on the counts,
 * at least 95% of the PUnit events count, and each one that never does is
 * a `zero` row whose reason counterlab-native-avail shows. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "../../sim_backends/bgq/bgq.h"

#define NREL ((int)(sizeof bgq_relations / sizeof bgq_relations[0]))
#define RUN 10000000ull

static int nprof;
static char prof[32][64];

static int setup(void **state)
{
	(void)state;
	char dir[4096];
	const char *env = getenv("COUNTERLAB_MACHINES");
	snprintf(dir, sizeof dir, "%s/activity", env ? env : CLAB_DATADIR "/machines");
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return -1;
	while ((de = readdir(d)) && nprof < 32) {
		size_t len = strlen(de->d_name);
		if (len > 4 && strcmp(de->d_name + len - 4, ".ini") == 0)
			snprintf(prof[nprof++], sizeof prof[0], "%.*s", (int)(len - 4), de->d_name);
	}
	closedir(d);
	return nprof ? 0 : -1;
}

/* Count of the terms of a counter on contributors `contrib` of core 0. */
static uint64_t truth(bgq_node *n, const uint16_t *term, const uint8_t *w, int k,
		      unsigned contrib)
{
	bgq_ctr c;
	memset(&c, 0, sizeof c);
	memcpy(c.term, term, (size_t)k * sizeof *term);
	memcpy(c.weight, w, (size_t)k * sizeof *w);
	c.nterm = k;
	c.contrib = (uint8_t)contrib;
	return bgq_ctr_truth(n, 0, &c);
}

/* PUnit event e as its counter counts it, on its own scope (thread s, or
 * the whole core). */
static uint64_t event(bgq_node *n, int e, int s)
{
	uint16_t t[BGQ_MAX_TERMS];
	uint8_t w[BGQ_MAX_TERMS];
	int k = bgq_terms_for(e, UINT32_MAX, t, w);
	assert_true(k >= 0);
	int thread = bgq_punit_natives[e].scope == CLAB_SCOPE_THREAD;
	return truth(n, t, w, k, thread ? 1u << s : 0xfu);
}

/* A side of a row on thread s: each named event counted on its own. */
static uint64_t side(bgq_node *n, const char *expr, int s)
{
	uint64_t v = 0;
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", expr);
	for (char *save, *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		uint64_t w = 1;
		char *star = strchr(tok, '*');
		if (star) {
			w = strtoull(tok, NULL, 10);
			tok = star + 1;
		}
		uint16_t t[BGQ_MAX_TERMS];
		uint8_t tw[BGQ_MAX_TERMS];
		int k = bgq_expr_terms(tok, t, tw, 0);
		if (k < 0)
			fail_msg("relation names no event: %s", tok);
		v += w * truth(n, t, tw, k, 1u << s);
	}
	return v;
}

static int is_core(const char *name)
{
	for (int e = 0; e < BGQ_N_PUNIT; e++)
		if (strcmp(bgq_punit_natives[e].name, name) == 0)
			return bgq_punit_natives[e].scope != CLAB_SCOPE_THREAD;
	return 0;
}

static void no_op(clab_evset *s, uint64_t vector, void *pc, void *ctx, void *arg)
{
	(void)s; (void)vector; (void)pc; (void)ctx; (void)arg;
}

/* Threads 0 and 1 of core 0 run the profile for different spans (thread 0
 * with a cycle counter overflowing every million cycles: performance-
 * monitor interrupts are the tool's doing, not the profile's). */
static void run(const char *clock, const char *p, uint64_t *seen)
{
	char spec[256];
	snprintf(spec, sizeof spec, "bgq:clock=%s,activity=%s", clock, p);
	clab_machine *m = open_machine(spec);
	int err = 0;
	bgq_node *n = bgq_node_get(m, &err);
	assert_non_null(n);
	clab_component *core = clab_machine_component(m, "core");
	clab_thread *t0 = attach_hw(m, 0);
	static const char *const cyc[] = {"PEVT_CYCLES"};
	clab_evset *s = NULL;
	assert_int_equal(program(core, t0, &s, cyc, 1), CLAB_OK);
	assert_int_equal(clab_evset_overflow(s, 0, 1000000, no_op, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t0, RUN), CLAB_OK);
	int64_t end[1];
	assert_int_equal(clab_evset_stop(s, end), CLAB_OK);
	clab_thread *t1 = attach_hw(m, 1);
	assert_int_equal(clab_thread_advance(t1, RUN / 3), CLAB_OK);
	for (int r = 0; r < NREL; r++) {
		const bgq_relation *rel = &bgq_relations[r];
		uint64_t l[2], rh[2];
		for (int th = 0; th < 2; th++) {
			l[th] = side(n, rel->lhs, th);
			rh[th] = rel->kind == BGQ_REL_ZERO ? 0 : side(n, rel->rhs, th);
		}
		/* core-wide events: counted once for the core's threads */
		if (rel->kind == BGQ_REL_SUM && is_core(rel->lhs) && !is_core(rel->rhs)) {
			uint64_t lc = 0;
			for (int e = 0; e < BGQ_N_PUNIT; e++)
				if (strcmp(bgq_punit_natives[e].name, rel->lhs) == 0)
					lc = event(n, e, 0);
			if (lc != rh[0] + rh[1])
				fail_msg("%s %s: %s = %llu, the threads' %s %llu", clock, p,
					 rel->lhs, (unsigned long long)lc, rel->rhs,
					 (unsigned long long)(rh[0] + rh[1]));
		}
		for (int th = 0; th < 2; th++) {
			int ok = rel->kind == BGQ_REL_LE ? l[th] <= rh[th] : l[th] == rh[th];
			if (!ok)
				fail_msg("%s %s thread %d: %s (%llu) %s %s (%llu): %s", clock, p, th,
					 rel->lhs, (unsigned long long)l[th],
					 rel->kind == BGQ_REL_LE ? "<=" : "=", rel->rhs,
					 (unsigned long long)rh[th], rel->why);
		}
	}
	for (int e = 0; e < BGQ_N_PUNIT; e++)
		if (event(n, e, 0) || event(n, e, 1))
			seen[e] = 1;
	clab_machine_close(m);
}

static void every_event_has_a_cause(void **state)
{
	(void)state;
	static const char *const clocks[] = {"virtual", "host"};
	for (int c = 0; c < 2; c++) {
		uint64_t seen[BGQ_N_PUNIT] = {0};
		int counted = 0;
		for (int i = 0; i < nprof; i++)
			run(clocks[c], prof[i], seen);
		for (int e = 0; e < BGQ_N_PUNIT; e++) {
			int zero = 0;
			const char *rel = bgq_event_relation(e, &zero);
			counted += seen[e] != 0;
			if (!seen[e] && !zero)
				print_message("no shipped profile moves %s\n", bgq_punit_natives[e].name);
			if (!seen[e] && zero)
				/* the reason shows where users look */
				assert_non_null(strstr(bgq_punit_natives[e].descr, rel));
			assert_true(seen[e] || zero);
		}
		print_message("%s clock: %d of %d PUnit events count over %d profiles\n",
			      clocks[c], counted, BGQ_N_PUNIT, nprof);
		assert_true(counted * 100 >= 95 * BGQ_N_PUNIT);
	}
}

/* A profile that breaks a bound is refused with the row's reason. */
static void profile_breaking_a_bound_is_refused(void **state)
{
	(void)state;
	uint64_t v[BGQ_N_NEV] = {0};
	uint16_t t[BGQ_MAX_TERMS];
	uint8_t w[BGQ_MAX_TERMS];
	static const char *const room[] = {"PEVT_CYCLES", "PEVT_IU_FXU_ISSUE_COUNT",
		"PEVT_IU_TOT_ISSUE_COUNT", "PEVT_IU_INSTR_FETCHED", "PEVT_IU_INSTR_FETCHED_CYC"};
	for (int i = 0; i < 5; i++) { /* issue and fetch bound the instructions */
		assert_int_equal(bgq_expr_terms(room[i], t, w, 0), 1);
		v[t[0]] = 1000;
	}
	assert_int_equal(bgq_expr_terms("PEVT_XU_BR_TAKEN_COMMIT", t, w, 0), 1);
	v[t[0]] = 10;
	assert_int_equal(bgq_expr_terms("PEVT_INST_XU_BRC", t, w, 0), 1);
	v[t[0]] = 9;
	assert_int_equal(bgq_relations_check(v, "test"), CLAB_E_RATE);
	assert_non_null(strstr(clab_errmsg(), "taken branches are some of the branches"));
	v[t[0]] = 10;
	assert_int_equal(bgq_relations_check(v, "test"), CLAB_OK);
	v[t[0]] = 0; /* a profile silent on branches is not bound by them */
	assert_int_equal(bgq_relations_check(v, "test"), CLAB_OK);
}

/* Relations follow the commit events from the classes: PEVT_AXU_INSTR_COMMIT
 * is the AXU classes, the core's branch commits its threads'. */
static void commit_counts_follow_the_classes(void **state)
{
	(void)state;
	uint16_t t[BGQ_MAX_TERMS];
	uint8_t w[BGQ_MAX_TERMS];
	int e = -1, g = -1;
	for (int i = 0; i < BGQ_N_PUNIT; i++) {
		if (strcmp(bgq_punit_natives[i].name, "PEVT_AXU_INSTR_COMMIT") == 0)
			e = i;
		if (strcmp(bgq_punit_natives[i].name, "PEVT_INST_QFPU_ALL") == 0)
			g = i;
	}
	uint16_t gt[BGQ_MAX_TERMS];
	uint8_t gw[BGQ_MAX_TERMS];
	int k = bgq_terms_for(e, 0, t, w);
	assert_true(k > 10);
	assert_int_equal(bgq_terms_for(g, 0, gt, gw), k);
	assert_memory_equal(t, gt, (size_t)k * sizeof *t);
	assert_false(bgq_event_primary(e));
}

/* A counter's cached rates give what summing its terms gives, across
 * phase changes, laps, explicit work and overflow interrupts. */
static void cached_rates_equal_the_sum(void **state)
{
	(void)state;
	clab_machine *m = open_machine("bgq:clock=virtual,activity=phases");
	int err = 0;
	bgq_node *n = bgq_node_get(m, &err);
	clab_thread *t = attach_hw(m, 0);
	bgq_ctr kept;
	memset(&kept, 0, sizeof kept);
	int all = -1;
	for (int e = 0; e < BGQ_N_PUNIT; e++)
		if (strcmp(bgq_punit_natives[e].name, "PEVT_INST_ALL") == 0)
			all = e;
	kept.nterm = bgq_terms_for(all, 0, kept.term, kept.weight);
	kept.contrib = 1;
	static const char *const ev[] = {"PEVT_INST_XU_IADD"};
	static const uint64_t cnt[] = {777};
	for (int step = 0; step < 60; step++) {
		/* 7M-cycle steps cross the 10M-cycle phases and 20M-cycle laps */
		assert_int_equal(clab_thread_advance(t, 7000000 + (uint64_t)step), CLAB_OK);
		if (step % 7 == 3)
			assert_int_equal(clab_thread_work(t, 1000, ev, cnt, 1), CLAB_OK);
		bgq_ctr fresh = kept;
		memset(fresh.rates, 0, sizeof fresh.rates);
		uint64_t v = bgq_ctr_truth(n, 0, &kept), terms = 0;
		assert_int_equal(v, bgq_ctr_truth(n, 0, &fresh));
		for (int k = 0; k < kept.nterm; k++) /* each term on its own */
			terms += truth(n, &kept.term[k], &kept.weight[k], 1, 1);
		assert_int_equal(v, terms);
	}
	clab_machine_close(m);
}

/* Scans ask for a counter's truth BGQ_SCAN cycles apart, where its rates'
 * in-period sums are memoized: what the memo gives is what summing the
 * terms gives, on a profile of one phase and across phases and laps. */
static void memoized_sums_equal_the_sum(void **state)
{
	(void)state;
	static const char *const spec[] = {"bgq:clock=virtual,activity=compute",
					   "bgq:clock=virtual,activity=phases"};
	int all = -1;
	for (int e = 0; e < BGQ_N_PUNIT; e++)
		if (strcmp(bgq_punit_natives[e].name, "PEVT_INST_ALL") == 0)
			all = e;
	for (size_t p = 0; p < sizeof spec / sizeof spec[0]; p++) {
		clab_machine *m = open_machine(spec[p]);
		int err = 0;
		bgq_node *n = bgq_node_get(m, &err);
		clab_thread *t = attach_hw(m, 0);
		bgq_ctr kept;
		memset(&kept, 0, sizeof kept);
		kept.nterm = bgq_terms_for(all, 0, kept.term, kept.weight);
		kept.contrib = 1;
		int hits = 0;
		for (int step = 0; step < 400; step++) {
			/* scan-grid steps; every 50th crosses phases and laps */
			uint64_t d = BGQ_SCAN * (step % 50 == 49 ? 12345u : 1u + (uint64_t)step % 37);
			assert_int_equal(clab_thread_advance(t, d), CLAB_OK);
			uint32_t before[BGQ_MEMO];
			memcpy(before, kept.memo_key, sizeof before);
			uint64_t v = bgq_ctr_truth(n, 0, &kept), terms = 0;
			hits += kept.memo_step && memcmp(before, kept.memo_key, sizeof before) == 0;
			for (int k = 0; k < kept.nterm; k++) /* each term on its own */
				terms += truth(n, &kept.term[k], &kept.weight[k], 1, 1);
			assert_int_equal(v, terms);
		}
		/* the memo was there to answer, and did */
		assert_true(hits > 200);
		clab_machine_close(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_event_has_a_cause),
		cmocka_unit_test(profile_breaking_a_bound_is_refused),
		cmocka_unit_test(commit_counts_follow_the_classes),
		cmocka_unit_test(cached_rates_equal_the_sum),
		cmocka_unit_test(memoized_sums_equal_the_sum),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
