/* Multiplexing through PAPI: PAPI_set_multiplex on the core component
 * (before and after adding events) packs 30 events into two groups whose
 * estimates match the same events counted without multiplexing; PAPI's
 * period (ns) becomes cycles at 1.6 GHz; units that cannot multiplex
 * refuse with PAPI_ENOSUPP instead of falling back to PAPI's software
 * multiplexing. */
#include <string.h>
#include <counterlab/sim.h>
#include "check.h"

#define PERIOD 16000000LL         /* PAPI's default 10 ms at 1.6 GHz */
#define C (10 * PERIOD + PERIOD / 2)

static const char *const names[30] = {
	"PEVT_INST_XU_IADD", "PEVT_INST_XU_ILOG", "PEVT_INST_XU_ICMP",
	"PEVT_INST_XU_IMOV", "PEVT_INST_XU_BITS", "PEVT_INST_XU_LD",
	"PEVT_INST_XU_ST", "PEVT_INST_XU_BRC", "PEVT_INST_XU_BRU",
	"PEVT_INST_XU_FLD", "PEVT_INST_XU_FST", "PEVT_INST_XU_QLD",
	"PEVT_INST_XU_QST", "PEVT_INST_XU_CINV", "PEVT_INST_XU_CSTO",
	"PEVT_INST_XU_CTCH", "PEVT_INST_XU_ICSW", "PEVT_INST_XU_IDIV",
	"PEVT_INST_XU_IMUL", "PEVT_INST_XU_INT", "PEVT_INST_XU_LSCX",
	"PEVT_INST_XU_SYNC", "PEVT_INST_XU_TLB", "PEVT_INST_XU_TLBI",
	"PEVT_INST_XU_WCH", "PEVT_INST_QFPU_FMA", "PEVT_INST_QFPU_QMA",
	"PEVT_INST_QFPU_FADD", "PEVT_INST_QFPU_QADD", "PAPI_TOT_CYC",
};

/* Counts of names[from..to) without multiplexing, over C cycles. */
static void plain(int from, int to, long long *v)
{
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	for (int i = from; i < to; i++)
		CHECK(PAPI_add_named_event(es, names[i]) == PAPI_OK, "add %s", names[i]);
	CHECK_PAPI(PAPI_start(es));
	CHECK(clab_sim_advance(C) == 0, "advance");
	CHECK_PAPI(PAPI_stop(es, v + from));
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));
}

/* Within the 800-cycle lag of a read (PAPI_stop reads, then stops). */
static void close_to(const long long *got, const long long *want, int n)
{
	for (int i = 0; i < n; i++) {
		long long d = got[i] - want[i];
		CHECK((d < 0 ? -d : d) <= want[i] / 10000 + 1,
		      "%s: %lld multiplexed, %lld counted alone", names[i], got[i], want[i]);
	}
}

static void multiplexed(int set_first, const long long *want)
{
	int es = PAPI_NULL;
	long long v[30];
	CHECK_PAPI(PAPI_create_eventset(&es));
	if (set_first) {
		CHECK_PAPI(PAPI_assign_eventset_component(es, 0));
		CHECK_PAPI(PAPI_set_multiplex(es));
	}
	for (int i = 0; i < (set_first ? 30 : 24); i++)
		CHECK(PAPI_add_named_event(es, names[i]) == PAPI_OK, "add %s", names[i]);
	if (!set_first) { /* 24 fill the counters; multiplex, then add more */
		CHECK(PAPI_add_named_event(es, names[24]) == PAPI_ECNFLCT,
		      "25 events fit 24 counters without multiplexing?");
		CHECK_PAPI(PAPI_set_multiplex(es));
		for (int i = 24; i < 30; i++)
			CHECK(PAPI_add_named_event(es, names[i]) == PAPI_OK, "add %s", names[i]);
	}
	CHECK(PAPI_get_multiplex(es) == 1, "PAPI_get_multiplex");
	CHECK_PAPI(PAPI_start(es));
	CHECK(clab_sim_advance(C) == 0, "advance");
	CHECK_PAPI(PAPI_stop(es, v));
	close_to(v, want, 30);
	CHECK(v[29] <= C && v[29] > C - 800, "PAPI_TOT_CYC %lld, want about %lld", v[29], C);
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=0,activity=compute", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	CHECK_PAPI(PAPI_multiplex_init());
	CHECK(PAPI_get_cmp_opt(PAPI_MAX_MPX_CTRS, NULL, 0) == 64, "core's multiplexed events");

	long long want[30];
	plain(0, 23, want);
	plain(23, 30, want);
	CHECK(want[0] == C * 15 / 100, "IADD %lld", want[0]);
	multiplexed(1, want);
	multiplexed(0, want);

	/* the L2 unit counts all its events at once: no multiplexing */
	int l2 = PAPI_get_component_index("l2");
	CHECK(l2 > 0, "l2 component");
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_assign_eventset_component(es, l2));
	CHECK(PAPI_set_multiplex(es) == PAPI_ENOSUPP, "multiplexing on l2");
	CHECK(PAPI_get_multiplex(es) == 0, "l2 set is not multiplexed");
	CHECK_PAPI(PAPI_destroy_eventset(&es));
	PAPI_shutdown();
	puts("PASSED");
	return 0;
}
