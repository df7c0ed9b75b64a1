/* PAPI_remove_event in the middle of an event set, virtual clock: every
 * value still belongs to its event after the removal and after the removed
 * event comes back, and an overflow armed after a removal reports its own
 * event index. PAPI 7.0 compacts its native list on a removal without
 * remapping where each event's value is read from (and without carrying
 * the moved native's PAPI code), so this holds only if the component keeps
 * the surviving natives' positions. Each read comes after `tick` cycles of
 * constant rates, so every count is exact; plain and multiplexed sets. */
#include <string.h>
#include "check.h"

#define TICK 1000000LL
#define R_BRC 0.25 /* events per cycle, as written in the profile */
#define R_BRU 0.0625
#define R_LD 0.125

enum { CYC, BRC, LD, BRU };
static const char *const names[] = {"PAPI_TOT_CYC", "PAPI_BR_CN",
				    "PEVT_INST_XU_LD", "PAPI_BR_UCN"};
static const double rate[] = {1, R_BRC, R_LD, R_BRU};

/* Starts es, reads after one tick, checks that value k is event ev[k]'s;
 * stops a tick later, into stopped. */
static void check_counts(int es, const int *ev, int n, const char *when,
			 long long *stopped)
{
	long long v[4];
	CHECK_PAPI(PAPI_start(es));
	CHECK_PAPI(PAPI_read(es, v));
	CHECK_PAPI(PAPI_stop(es, stopped));
	for (int k = 0; k < n; k++) {
		long long want = (long long)(rate[ev[k]] * TICK);
		CHECK(v[k] == want, "%s: value %d (%s) is %lld, want %lld", when, k,
		      names[ev[k]], v[k], want);
	}
	int codes[4], m = 4;
	CHECK_PAPI(PAPI_list_events(es, codes, &m));
	CHECK(m == n, "%s: %d events listed, want %d", when, m, n);
	for (int k = 0; k < n; k++) {
		char name[PAPI_MAX_STR_LEN];
		CHECK_PAPI(PAPI_event_code_to_name(codes[k], name));
		CHECK(strstr(name, names[ev[k]]) != NULL, "%s: event %d is %s, want %s",
		      when, k, name, names[ev[k]]);
	}
}

static int code_of(int ev)
{
	int code;
	CHECK_PAPI(PAPI_event_name_to_code(names[ev], &code));
	return code;
}

static int calls, last_set, last_index, last_n;

static void handler(int es, void *pc, long long vector, void *ctx)
{
	(void)pc;
	(void)ctx;
	int idx[4];
	last_n = 4;
	calls++;
	last_set = es;
	CHECK_PAPI(PAPI_get_overflow_event_index(es, vector, idx, &last_n));
	last_index = idx[0];
}

static void remove_and_readd(int mpx)
{
	const char *what = mpx ? "multiplexed" : "plain";
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	if (mpx) {
		CHECK_PAPI(PAPI_assign_eventset_component(es, 0));
		CHECK_PAPI(PAPI_set_multiplex(es));
	}
	for (int e = CYC; e <= BRU; e++)
		CHECK_PAPI(PAPI_add_named_event(es, names[e]));
	check_counts(es, (const int[]){CYC, BRC, LD, BRU}, 4, what, NULL);

	/* PAPI moves the last native (BRU) into the removed one's place */
	CHECK_PAPI(PAPI_remove_event(es, code_of(BRC)));
	check_counts(es, (const int[]){CYC, LD, BRU}, 3, "after removing PAPI_BR_CN", NULL);

	/* the preset comes back as its own native, not the moved one */
	CHECK_PAPI(PAPI_add_event(es, code_of(BRC)));
	check_counts(es, (const int[]){CYC, LD, BRU, BRC}, 4, "after re-adding PAPI_BR_CN", NULL);

	if (!mpx) { /* overflow: not on multiplexed sets */
		CHECK_PAPI(PAPI_remove_event(es, code_of(LD)));
		check_counts(es, (const int[]){CYC, BRU, BRC}, 3, "after removing LD", NULL);
		const long long P = 10000;
		CHECK_PAPI(PAPI_overflow(es, code_of(BRC), (int)P, 0, handler));
		calls = 0;
		last_index = -1;
		long long v[3];
		check_counts(es, (const int[]){CYC, BRU, BRC}, 3, "overflowing", v);
		long long brc = v[2]; /* two ticks' worth */
		/* fast overflow: each period lasts a few more events than P */
		CHECK(calls >= brc / (P + 10) && calls <= brc / P,
		      "%d overflows of PAPI_BR_CN, want about %lld", calls, brc / P);
		CHECK(last_set == es && last_n == 1, "handler: set %d, %d events", last_set,
		      last_n);
		CHECK(last_index == 2, "overflow of PAPI_BR_CN reported as event %d, want 2",
		      last_index);
		CHECK_PAPI(PAPI_overflow(es, code_of(BRC), 0, 0, handler));
	}
	drop_set(es);
}

int main(void)
{
	use_activity("[phase only]\ncycles = 0\n"
		     "PEVT_INST_XU_BRC = 0.25\nPEVT_INST_XU_BRU = 0.0625\n"
		     "PEVT_INST_XU_LD = 0.125\n", ",tick=1000000");
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	remove_and_readd(0);
	remove_and_readd(1);
	PAPI_shutdown();
	printf("papi_remove: PASSED\n");
	return 0;
}
