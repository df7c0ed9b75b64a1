/* libbgpm through its public API, on the virtual clock (tick=0: time passes
 * only through Delay and the sim API), so every count is exact. Counts are
 * cross-checked against PAPI's counterlab components over the same
 * activity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "papi.h"
#include "counterlab/sim.h"
#include "bgpm/include/bgpm.h"
#include "spi/include/kernel/location.h"
#include "spi/include/kernel/process.h"
#include "hwi/include/bqc/A2_inlines.h"

#define CYCLES 1000000
#define UPC_C_SCAN 800 /* cycles between the scans that gather Punit counts */

static int setup(void **state)
{
	(void)state;
	Bgpm_PrintOnError(getenv("BGPM_TEST_VERBOSE") != NULL);
	Bgpm_ExitOnError(0);
	assert_int_equal(Bgpm_Init(BGPM_MODE_SWDISTRIB), BGPM_EOK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(Bgpm_Disable(), BGPM_EOK);
	return 0;
}

static int papi_set(const char *const *names, int n)
{
	int es = PAPI_NULL;
	assert_int_equal(PAPI_create_eventset(&es), PAPI_OK);
	for (int i = 0; i < n; i++) {
		int rc = PAPI_add_named_event(es, names[i]);
		if (rc != PAPI_OK)
			fail_msg("PAPI add %s: %s", names[i], PAPI_strerror(rc));
	}
	return es;
}

static void papi_done(int es)
{
	assert_int_equal(PAPI_cleanup_eventset(es), PAPI_OK);
	assert_int_equal(PAPI_destroy_eventset(&es), PAPI_OK);
}

/* names through PAPI and the applied set h through BGPM over the same
 * CYCLES cycles of the same thread: a child forked here counts through
 * PAPI (one set at a time holds a thread's counter group, and the fork
 * gives both the same simulated past and future). bv gets BGPM's counts
 * read after the stop (exact), pv PAPI's (those of the running set). */
static void both_count(const char *const *names, int n, long long *pv, unsigned h, uint64_t *bv)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long long v[16];
		int es = PAPI_NULL, ok = PAPI_create_eventset(&es) == PAPI_OK;
		for (int i = 0; ok && i < n; i++)
			ok = PAPI_add_named_event(es, names[i]) == PAPI_OK;
		ok = ok && PAPI_start(es) == PAPI_OK;
		Delay(CYCLES);
		ok = ok && PAPI_stop(es, v) == PAPI_OK;
		if (!ok || write(fds[1], v, sizeof *v * (size_t)n) != (ssize_t)(sizeof *v * (size_t)n))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	unsigned nb = (unsigned)Bgpm_NumEvents(h), nr = nb;
	uint64_t running[16];
	assert_int_equal(Bgpm_Start(h), BGPM_EOK);
	Delay(CYCLES);
	assert_int_equal(Bgpm_ReadEventList(h, running, &nr), BGPM_EOK);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(Bgpm_ReadEventList(h, bv, &nb), BGPM_EOK);
	assert_int_equal(read(fds[0], pv, sizeof *pv * (size_t)n), (ssize_t)(sizeof *pv * (size_t)n));
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* PAPI_stop reads before it stops, so PAPI's counts are those of a
	 * running set (for the Punit, what the last UPC_C scan gathered):
	 * equal to BGPM's read of the running set; BGPM's stopped read can
	 * only be further on */
	for (int i = 0; i < n; i++) {
		assert_int_equal(running[i], (uint64_t)pv[i]);
		assert_true(bv[i] >= running[i]);
	}
}

/* The same through BGPM alone. */
static void bgpm_count(unsigned h, uint64_t *vals)
{
	unsigned n = (unsigned)Bgpm_NumEvents(h);
	assert_int_equal(Bgpm_Start(h), BGPM_EOK);
	Delay(CYCLES);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(Bgpm_ReadEventList(h, vals, &n), BGPM_EOK);
}

static void test_punit_vs_papi(void **state)
{
	(void)state;
	const char *papi[] = {"PEVT_CYCLES", "PEVT_INST_ALL", "PEVT_LSU_COMMIT_LD_MISSES"};
	long long pv[3];
	int h = Bgpm_CreateEventSet();
	assert_true(h >= 0);
	unsigned ids[] = {PEVT_CYCLES, PEVT_INST_ALL};
	assert_int_equal(Bgpm_AddEventList(h, ids, 2), BGPM_EOK);
	assert_int_equal(Bgpm_AddEventString(h, "PEVT_LSU_COMMIT_LD_MISSES"), BGPM_EOK);
	assert_int_equal(Bgpm_NumEvents(h), 3);
	assert_int_equal(Bgpm_GetUnitType(h), BGPMUnitType_PUNIT);
	assert_int_equal(Bgpm_Start(h), BGPM_ENOT_APPLIED); /* apply first */
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_INST_ALL), BGPM_EES_FROZEN);
	uint64_t bv[3];
	both_count(papi, 3, pv, h, bv);
	assert_int_equal(bv[0], CYCLES);
	for (int i = 0; i < 3; i++)
		assert_int_equal(bv[i], (uint64_t)pv[i]);
	assert_true(bv[1] > 0 && bv[2] > 0);
	/* warnings are positive */
	assert_int_equal(Bgpm_Stop(h), BGPM_WALREADY_STOPPED);
	assert_int_equal(Bgpm_Start(h), BGPM_EOK);
	assert_int_equal(Bgpm_Start(h), BGPM_WALREADY_STARTED);
	assert_int_equal(Bgpm_Reset(h), BGPM_EUPDATE_DISALLOWED);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	/* reset, write, read */
	assert_int_equal(Bgpm_Reset(h), BGPM_EOK);
	uint64_t v;
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, 0);
	assert_int_equal(Bgpm_WriteEvent(h, 1, 1000), BGPM_EOK);
	assert_int_equal(Bgpm_ResetStart(h), BGPM_EOK);
	Delay(500);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, 500);
	assert_int_equal(Bgpm_WriteEvent(h, 0, 1000), BGPM_EOK);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, 1000);
	assert_int_equal(Bgpm_Start(h), BGPM_EOK);
	Delay(1000);
	/* a running Punit set reads what the last UPC_C scan (every 800 cycles) gathered */
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_true(v >= 1000 && v < 2000);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, 2000);
	unsigned small = 2;
	assert_int_equal(Bgpm_ReadEventList(h, bv, &small), BGPM_EARRAY_TOO_SMALL);
	assert_int_equal(Bgpm_ReadEvent(h, 3, &v), BGPM_EINV_EVT_IDX);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EINV_SET_HANDLE);
}

static void test_labels_and_ids(void **state)
{
	(void)state;
	assert_int_equal(PEVT_PUNIT_LAST_EVENT, 277);
	assert_int_equal(PEVT_L2UNIT_LAST_EVENT - PEVT_PUNIT_LAST_EVENT, 32);
	assert_int_equal(PEVT_IOUNIT_LAST_EVENT - PEVT_L2UNIT_LAST_EVENT, 44);
	assert_int_equal(PEVT_NWUNIT_LAST_EVENT - PEVT_IOUNIT_LAST_EVENT, 31);
	assert_string_equal(Bgpm_GetEventIdLabel(PEVT_L2_HITS), "PEVT_L2_HITS");
	assert_int_equal(Bgpm_GetEventIdFromLabel("PEVT_NW_CYCLES"), PEVT_NW_CYCLES);
	/* IBM's lookups: case-blind, unknown labels are PEVT_UNDEF, and the
	 * reserved CNK id has its label (PAPI's CNKunit lists it) */
	assert_int_equal(Bgpm_GetEventIdFromLabel("pevt_nw_cycles"), PEVT_NW_CYCLES);
	assert_int_equal(Bgpm_GetEventIdFromLabel("PEVT_NO_SUCH"), PEVT_UNDEF);
	assert_int_equal(Bgpm_GetEventIdFromLabel(NULL), BGPM_EINV_PARM);
	assert_string_equal(Bgpm_GetEventIdLabel(0), "PEVT_UNDEF");
	assert_string_equal(Bgpm_GetEventIdLabel(PEVT_CNKPROC_RSV), "PEVT_CNKPROC_RSV");
	assert_int_equal(Bgpm_GetEventIdFromLabel("PEVT_CNKPROC_RSV"), PEVT_CNKPROC_RSV);
	assert_null(Bgpm_GetEventIdLabel(PEVT_LAST_EVENT + 1));
	char buf[512];
	int len = sizeof buf;
	assert_int_equal(Bgpm_GetLongDesc(PEVT_CYCLES, buf, &len), BGPM_EOK);
	/* the simulator's catalog is where descriptions come from */
	PAPI_event_info_t info;
	int code;
	assert_int_equal(PAPI_event_name_to_code("PEVT_CYCLES", &code), PAPI_OK);
	assert_int_equal(PAPI_get_event_info(code, &info), PAPI_OK);
	assert_string_equal(buf, info.long_descr);
	len = 4;
	assert_int_equal(Bgpm_GetLongDesc(PEVT_CYCLES, buf, &len), BGPM_EARRAY_TOO_SMALL);
	assert_true(len > 4);
	assert_int_equal(Bgpm_GetLongDesc(9999, buf, &len), BGPM_EUNREC_EVTID);
	len = sizeof buf;
	assert_int_equal(Bgpm_GetLongDesc(PEVT_CNKPROC_RSV, buf, &len), BGPM_EOK);
	Bgpm_EventInfo_t ei;
	assert_int_equal(Bgpm_GetEventIdInfo(PEVT_AXU_FP_DS_ACTIVE, &ei), BGPM_EOK);
	assert_int_equal(ei.unitType, BGPMUnitType_PUNIT);
	assert_int_equal(ei.edge, 1);
	assert_int_equal(Bgpm_GetEventIdInfo(PEVT_MU_PKT_INJ, &ei), BGPM_EOK);
	assert_int_equal(ei.unitType, BGPMUnitType_IO);

	int h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_GetUnitType(h), BGPMUnitType_UNDEF);
	assert_int_equal(Bgpm_AddEvent(h, 0), BGPM_EINV_EVENT);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_LAST_EVENT + 1), BGPM_EINV_EVENT);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CNKPROC_RSV), BGPM_EINV_EVENT);
	assert_int_equal(Bgpm_AddEventString(h, "PEVT_NOPE"), BGPM_EINV_EVENT);
	assert_int_equal(Bgpm_Apply(h), BGPM_EEVT_SET_UNASSIGNED);
	assert_int_equal(Bgpm_AddEventString(h, "PEVT_CYCLES,PEVT_INST_ALL PEVT_CYCLES"), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_HITS), BGPM_ECONF_UNIT);
	assert_string_equal(Bgpm_GetEventLabel(h, 1), "PEVT_INST_ALL");
	assert_null(Bgpm_GetEventLabel(h, 7));
	assert_int_equal(Bgpm_GetEventId(h, 0), PEVT_CYCLES);
	assert_int_equal(Bgpm_GetEventIndex(h, PEVT_CYCLES, 1), 2);
	assert_int_equal(Bgpm_GetEventIndex(h, PEVT_L2_HITS, 0), BGPM_EINV_EVENT);
	assert_int_equal(Bgpm_NumTargets(h), 1);
	/* user data */
	uint64_t u;
	assert_int_equal(Bgpm_SetEventSetUser1(h, 11), BGPM_EOK);
	assert_int_equal(Bgpm_SetEventSetUser2(h, 12), BGPM_EOK);
	assert_int_equal(Bgpm_SetEventUser1(h, 2, 21), BGPM_EOK);
	assert_int_equal(Bgpm_SetEventUser2(h, 2, 22), BGPM_EOK);
	assert_int_equal(Bgpm_GetEventSetUser1(h, &u), BGPM_EOK);
	assert_int_equal(u, 11);
	assert_int_equal(Bgpm_GetEventSetUser2(h, &u), BGPM_EOK);
	assert_int_equal(u, 12);
	assert_int_equal(Bgpm_GetEventUser1(h, 2, &u), BGPM_EOK);
	assert_int_equal(u, 21);
	assert_int_equal(Bgpm_GetEventUser2(h, 2, &u), BGPM_EOK);
	assert_int_equal(u, 22);
	assert_int_equal(Bgpm_GetEventUser1(h, 0, &u), BGPM_EOK);
	assert_int_equal(u, 0);
	assert_int_equal(Bgpm_SetEventUser1(h, 3, 1), BGPM_EINV_EVT_IDX);
	assert_int_equal(Bgpm_GetEventUser1(h, 0, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EINV_SET_HANDLE);
	assert_string_equal(Bgpm_ErrorString(BGPM_ENOT_APPLIED), "event set is not applied or attached");
}

static void test_attributes(void **state)
{
	(void)state;
	/* XU group mask: the opcode groups of PAPI_INT_INS, as PAPI counts them */
	const uint64_t mask = 0x837800;
	char name[64];
	snprintf(name, sizeof name, "PEVT_INST_XU_GRP_MASK:mask=0x%llx", (unsigned long long)mask);
	const char *papi[] = {name};
	long long pv[1];
	int h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_INST_XU_GRP_MASK), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_INST_QFPU_GRP_MASK), BGPM_EOK);
	assert_int_equal(Bgpm_SetXuGrpMask(h, 0, mask), BGPM_ENOT_MASK_EVENT);
	assert_int_equal(Bgpm_SetXuGrpMask(h, 2, mask), BGPM_ENOT_MASK_EVENT);
	assert_int_equal(Bgpm_SetXuGrpMask(h, 1, mask), BGPM_EOK);
	assert_int_equal(Bgpm_SetQfpuGrpMask(h, 2, 0x3), BGPM_EOK);
	uint64_t m;
	assert_int_equal(Bgpm_GetXuGrpMask(h, 1, &m), BGPM_EOK);
	assert_int_equal(m, mask);
	assert_int_equal(Bgpm_GetQfpuGrpMask(h, 2, &m), BGPM_EOK);
	assert_int_equal(m, 0x3);
	assert_int_equal(Bgpm_GetQfpuGrpMask(h, 1, &m), BGPM_ENOT_MASK_EVENT);
	/* edge: the model's mode is reported; the other mode is refused */
	ushort edge;
	assert_int_equal(Bgpm_GetEventEdge(h, 0, &edge), BGPM_EOK);
	assert_int_equal(edge, 0);
	assert_int_equal(Bgpm_SetEventEdge(h, 0, 0), BGPM_EOK);
	assert_int_equal(Bgpm_SetEventEdge(h, 0, 1), BGPM_EUNSUP_ATTRIB);
	/* context */
	Bgpm_Context ctx;
	assert_int_equal(Bgpm_GetContext(h, &ctx), BGPM_EOK);
	assert_int_equal(ctx, BGPM_CTX_BOTH);
	assert_int_equal(Bgpm_SetContext(h, (Bgpm_Context)7), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_SetContext(h, BGPM_CTX_USER), BGPM_EOK);
	assert_int_equal(Bgpm_GetContext(h, &ctx), BGPM_EOK);
	assert_int_equal(ctx, BGPM_CTX_USER);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	assert_int_equal(Bgpm_SetXuGrpMask(h, 1, 1), BGPM_EES_FROZEN);
	assert_int_equal(Bgpm_SetContext(h, BGPM_CTX_BOTH), BGPM_EES_FROZEN);
	uint64_t bv[3];
	bgpm_count(h, bv);
	/* user context only: cycles the kernel took are not counted */
	assert_true(bv[0] <= CYCLES);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* the same mask, both contexts, beside PAPI's qualified name: equal
	 * for the running set (both_count), and with the clock 700 cycles past
	 * a UPC_C scan when counting ends, the exact stopped count is ahead
	 * of it by what the mask's classes did since that scan (at most one
	 * XU instruction a cycle) */
	Delay(UPC_C_SCAN - clab_sim_now() % UPC_C_SCAN + 700 - CYCLES % UPC_C_SCAN);
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_INST_XU_GRP_MASK), BGPM_EOK);
	assert_int_equal(Bgpm_SetXuGrpMask(h, 0, mask), BGPM_EOK);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	both_count(papi, 1, pv, h, bv);
	assert_true(pv[0] > 0);
	assert_true(bv[0] > (uint64_t)pv[0] && bv[0] - (uint64_t)pv[0] <= 700);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* kernel-only cycles and user-only cycles add up to all cycles */
	uint64_t part[2];
	Bgpm_Context c2[] = {BGPM_CTX_KERNEL, BGPM_CTX_USER};
	for (int k = 0; k < 2; k++) {
		h = Bgpm_CreateEventSet();
		assert_int_equal(Bgpm_SetContext(h, c2[k]), BGPM_EOK);
		assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EOK);
		assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
		bgpm_count(h, &part[k]);
		assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	}
	assert_int_equal(part[0] + part[1], CYCLES);
	assert_true(part[0] > 0);
}

static void test_l2(void **state)
{
	(void)state;
	const char *papi[] = {"l2:::PEVT_L2_HITS", "l2:::PEVT_L2_MISSES"};
	long long pv[2];
	int h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_HITS), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_MISSES), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_HITS_SLICE), BGPM_ECONF_L2_COMBINE);
	UpciBool_t comb;
	assert_int_equal(Bgpm_GetL2Combine(h, &comb), BGPM_EOK);
	assert_int_equal(comb, 1);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	uint64_t bv[2], v;
	both_count(papi, 2, pv, h, bv);
	assert_int_equal(bv[0], (uint64_t)pv[0]);
	assert_int_equal(bv[1], (uint64_t)pv[1]);
	assert_true(bv[0] > 0);
	assert_int_equal(Bgpm_L2_ReadEvent(h, 0, 0, &v), BGPM_ECONF_L2_COMBINE);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* per slice: the slices add up to the combined count */
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_HITS_SLICE), BGPM_EOK);
	assert_int_equal(Bgpm_GetL2Combine(h, &comb), BGPM_EOK);
	assert_int_equal(comb, 0);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_MISSES), BGPM_ECONF_L2_COMBINE);
	both_count(papi, 1, pv, h, bv); /* node-wide sets apply on start */
	uint64_t sum = 0;
	for (unsigned s = 0; s < 16; s++) {
		assert_int_equal(Bgpm_L2_ReadEvent(h, s, 0, &v), BGPM_EOK);
		sum += v;
	}
	assert_int_equal(sum, (uint64_t)pv[0]);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, sum);
	assert_int_equal(Bgpm_L2_ReadEvent(h, 16, 0, &v), BGPM_EINV_L2_SLICE);
	assert_int_equal(Bgpm_L2_WriteEvent(h, 3, 0, 77), BGPM_EOK);
	assert_int_equal(Bgpm_L2_ReadEvent(h, 3, 0, &v), BGPM_EOK);
	assert_int_equal(v, 77);
	assert_int_equal(Bgpm_WriteEvent(h, 0, 5), BGPM_EINV_OP);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
}

static void test_io_cnk(void **state)
{
	(void)state;
	const char *papi[] = {"io:::PEVT_MU_PKT_INJ", "io:::PEVT_MU_MSG_INJ"};
	long long pv[2];
	/* explicit messages: the same before each count */
	int h = Bgpm_CreateEventSet();
	unsigned ids[] = {PEVT_MU_PKT_INJ, PEVT_MU_MSG_INJ};
	assert_int_equal(Bgpm_AddEventList(h, ids, 2), BGPM_EOK);
	int es = papi_set(papi, 2);
	assert_int_equal(PAPI_start(es), PAPI_OK);
	assert_int_equal(Bgpm_ResetStart(h), BGPM_EOK); /* as PAPI's IOunit starts */
	assert_int_equal(clab_sim_message(CLAB_MSG_SEND, 100000), CLAB_OK);
	Delay(CYCLES);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(PAPI_stop(es, pv), PAPI_OK);
	papi_done(es);
	uint64_t bv[2];
	unsigned n = 2;
	assert_int_equal(Bgpm_ReadEventList(h, bv, &n), BGPM_EOK);
	assert_int_equal(bv[0], (uint64_t)pv[0]);
	assert_int_equal(bv[1], (uint64_t)pv[1]);
	assert_true(bv[1] >= 1 && bv[0] > bv[1]);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* CNK: system calls of explicit work */
	const char *ev[] = {"PEVT_CNKHWT_SYSCALL"};
	uint64_t cnt[] = {42};
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CNKHWT_SYSCALL), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CNKHWT_FIT), BGPM_EOK);
	uint64_t v;
	assert_int_equal(Bgpm_CNK_SampleEvent(h, 0, &v), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	assert_int_equal(Bgpm_CNK_SampleEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, 0);
	assert_int_equal(clab_sim_work(1000, ev, cnt, 1), CLAB_OK);
	assert_int_equal(Bgpm_CNK_SampleEvent(h, 0, &v), BGPM_EOK);
	assert_true(v >= 42);
	assert_int_equal(Bgpm_SetOverflow(h, 0, 10), BGPM_EES_FROZEN);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CNKHWT_SYSCALL), BGPM_EOK);
	assert_int_equal(Bgpm_SetOverflow(h, 0, 10), BGPM_EUNSUP_OVERFLOW);
	assert_int_equal(Bgpm_Attach(h, UPC_NW_ALL_LINKS, 0), BGPM_EINV_OP);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
}

static void test_network(void **state)
{
	(void)state;
	const char *pattern = "alltoall:bytes=4096";
	const char *papi[] = {"network:::PEVT_NW_USER_PP_SENT", "network:::PEVT_NW_SENT:vc=0x40",
			      "network:::PEVT_NW_USER_PP_SENT:links=0x1"};
	long long pv[3];
	double secs;
	int es = PAPI_NULL;
	assert_int_equal(PAPI_create_eventset(&es), PAPI_OK);
	for (int i = 0; i < 2; i++)
		assert_int_equal(PAPI_add_named_event(es, papi[i]), PAPI_OK);
	assert_int_equal(PAPI_start(es), PAPI_OK);
	assert_int_equal(clab_sim_traffic(pattern, &secs), CLAB_OK);
	assert_int_equal(PAPI_stop(es, pv), PAPI_OK);
	assert_int_equal(PAPI_cleanup_eventset(es), PAPI_OK);
	assert_int_equal(PAPI_add_named_event(es, papi[2]), PAPI_OK);
	assert_int_equal(PAPI_start(es), PAPI_OK);
	assert_int_equal(clab_sim_traffic(pattern, &secs), CLAB_OK);
	assert_int_equal(PAPI_stop(es, &pv[2]), PAPI_OK);
	assert_int_equal(PAPI_cleanup_eventset(es), PAPI_OK);
	assert_int_equal(PAPI_destroy_eventset(&es), PAPI_OK);
	assert_true(pv[0] > 0 && pv[2] > 0 && pv[2] < pv[0]);

	int h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_NW_USER_PP_SENT), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_NW_SENT), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_NW_CYCLES), BGPM_EOK);
	assert_int_equal(Bgpm_SetEventVirtChannels(h, 0, UPC_NW_VC_SYSTEM), BGPM_EUNSUP_ATTRIB);
	assert_int_equal(Bgpm_SetEventVirtChannels(h, 1, (UPC_NW_Vchannels)0x80), BGPM_EINV_ATTRIB_VAL);
	assert_int_equal(Bgpm_SetEventVirtChannels(h, 1, UPC_NW_VC_USER_DYNAMIC), BGPM_EOK);
	UPC_NW_Vchannels vc;
	assert_int_equal(Bgpm_GetEventVirtChannels(h, 1, &vc), BGPM_EOK);
	assert_int_equal(vc, UPC_NW_VC_USER_DYNAMIC);
	assert_int_equal(Bgpm_GetEventVirtChannels(h, 0, &vc), BGPM_EOK);
	assert_int_equal(vc, 0x70);
	assert_int_equal(Bgpm_SetOverflow(h, 0, 100), BGPM_EUNSUP_OVERFLOW);
	assert_int_equal(Bgpm_Apply(h), BGPM_EINV_OP);
	assert_int_equal(Bgpm_Start(h), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_Attach(h, 0x1f, 0), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_Attach(h, UPC_NW_ALL_LINKS, 0), BGPM_EOK);
	assert_int_equal(Bgpm_Attach(h, UPC_NW_ALL_LINKS, 0), BGPM_WALREADY_ATTACHED);
	assert_int_equal(Bgpm_NumTargets(h), 11);
	assert_int_equal(Bgpm_IsController(h), BGPM_TRUE);
	assert_int_equal(Bgpm_ResetStart(h), BGPM_EOK);
	uint64_t t0 = GetTimeBase();
	assert_int_equal(clab_sim_traffic(pattern, &secs), CLAB_OK);
	uint64_t dt = GetTimeBase() - t0;
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	uint64_t v, a_minus, rest;
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, (uint64_t)pv[0]);
	assert_int_equal(Bgpm_ReadEvent(h, 1, &v), BGPM_EOK);
	assert_int_equal(v, (uint64_t)pv[1]);
	/* link A- (counterlab's link 0) alone, and the rest */
	assert_int_equal(Bgpm_NW_ReadLinkEvent(h, 0, UPC_NW_LINK_A_MINUS, &a_minus), BGPM_EOK);
	assert_int_equal(a_minus, (uint64_t)pv[2]);
	assert_int_equal(Bgpm_NW_ReadLinkEvent(h, 0, (UPC_NW_LinkMasks)(UPC_NW_ALL_LINKS & ~UPC_NW_LINK_A_MINUS), &rest), BGPM_EOK);
	assert_int_equal(a_minus + rest, (uint64_t)pv[0]);
	assert_int_equal(Bgpm_NW_ReadLinkEvent(h, 0, (UPC_NW_LinkMasks)0x1, &v), BGPM_EINV_PARM);
	/* network cycles: the reader's clock at 500 of 1600 MHz */
	assert_int_equal(Bgpm_ReadEvent(h, 2, &v), BGPM_EOK);
	assert_true(v >= dt * 5 / 16 - 1 && v <= dt * 5 / 16 + 1);
	assert_int_equal(Bgpm_Detach(h), BGPM_EOK);
	assert_int_equal(Bgpm_Detach(h), BGPM_WNOT_ATTACHED);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_ENOT_APPLIED);
	/* attached to link A- only */
	assert_int_equal(Bgpm_Attach(h, UPC_NW_LINK_A_MINUS, 0), BGPM_EOK);
	assert_int_equal(Bgpm_NW_ReadLinkEvent(h, 0, UPC_NW_LINK_B_PLUS, &v), BGPM_WNOT_LINK_CTL);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
}

static int ovf_calls, ovf_idx[64], ovf_set;
static void on_ovf(int hEvtSet, uint64_t address, uint64_t ovfVector, const ucontext_t *uc)
{
	(void)address;
	(void)uc;
	unsigned idx[BGPM_MAX_OVERFLOW_EVENTS], len = BGPM_MAX_OVERFLOW_EVENTS;
	ovf_set = hEvtSet;
	if (Bgpm_GetOverflowEventIndices((unsigned)hEvtSet, ovfVector, idx, &len) == BGPM_EOK)
		for (unsigned i = 0; i < len; i++)
			ovf_idx[idx[i]]++;
	ovf_calls++;
}

static void test_overflow(void **state)
{
	(void)state;
	int h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_INST_ALL), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EOK);
	assert_int_equal(Bgpm_SetOverflow(h, 1, 1ull << 63), BGPM_EINV_OVF);
	assert_int_equal(Bgpm_SetOverflow(h, 1, BGPM_PERIOD2THRES(100000)), BGPM_EOK);
	assert_int_equal(Bgpm_SetOverflowHandler(h, on_ovf), BGPM_EOK);
	uint64_t p;
	Bgpm_OverflowHandler_t hd;
	assert_int_equal(Bgpm_GetOverflow(h, 1, &p, &hd), BGPM_EOK);
	assert_int_equal(p, 100000);
	assert_ptr_equal(hd, on_ovf);
	assert_int_equal(Bgpm_GetOverflow(h, 0, &p, &hd), BGPM_EOK);
	assert_int_equal(p, 0);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	memset(ovf_idx, 0, sizeof ovf_idx);
	ovf_calls = 0;
	assert_int_equal(Bgpm_Start(h), BGPM_EOK);
	Delay(CYCLES);
	/* the 10th crossing, at the last cycle, interrupts a few cycles later */
	assert_int_equal(ovf_calls, 9);
	Delay(100);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(ovf_calls, 10);
	assert_int_equal(ovf_idx[1], 10);
	assert_int_equal(ovf_idx[0], 0);
	assert_int_equal(ovf_set, h);
	assert_int_equal(Bgpm_WriteEvent(h, 1, 5), BGPM_EINV_WRT2OVF);
	unsigned idx[1], len = 0;
	assert_int_equal(Bgpm_GetOverflowEventIndices(h, ~0ull, idx, &len), BGPM_EARRAY_TOO_SMALL);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* L2 overflows slowly, on the UPC_C scan */
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_HITS), BGPM_EOK);
	assert_int_equal(Bgpm_SetOverflow(h, 0, 100), BGPM_EOK);
	assert_int_equal(Bgpm_SetOverflowHandler(h, on_ovf), BGPM_EOK);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	memset(ovf_idx, 0, sizeof ovf_idx);
	ovf_calls = 0;
	assert_int_equal(Bgpm_Start(h), BGPM_EOK);
	Delay(CYCLES);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	uint64_t v;
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_true(ovf_calls > 0 && (uint64_t)ovf_calls <= v / 100);
	assert_int_equal(ovf_idx[0], ovf_calls);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_HITS_SLICE), BGPM_EOK);
	assert_int_equal(Bgpm_SetOverflow(h, 0, 100), BGPM_EUNSUP_OVERFLOW);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
}

static void test_multiplex(void **state)
{
	(void)state;
	/* more events than a thread's counters: 8 A2 XU events need turns */
	const unsigned ids[] = {PEVT_CYCLES, PEVT_INST_ALL, PEVT_LSU_COMMIT_LD_MISSES,
				PEVT_LSU_COMMIT_CACHEABLE_LDS, PEVT_LSU_COMMIT_STS,
				PEVT_XU_BR_COMMIT, PEVT_XU_BR_TAKEN_COMMIT, PEVT_XU_BR_MISPRED_COMMIT,
				PEVT_IU_IL1_MISS, PEVT_IU_ICACHE_FETCH, PEVT_AXU_INSTR_COMMIT,
				PEVT_AXU_IDLE, PEVT_XU_PPC_COMMIT, PEVT_XU_THRD_RUNNING};
	const unsigned n = sizeof ids / sizeof ids[0];
	int h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EOK);
	assert_int_equal(Bgpm_SetMultiplex(h, 10000, BGPM_NORMAL), BGPM_ENOT_EMPTY);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	/* as IBM's: a set with no events has no unit to multiplex; a Punit set
	 * that does not multiplex is one group, not switching */
	h = Bgpm_CreateEventSet();
	Bgpm_MuxStats_t st;
	assert_int_equal(Bgpm_GetMultiplex(h, &st), BGPM_EEVT_SET_UNASSIGNED);
	assert_int_equal(Bgpm_SwitchMux(h), BGPM_EEVT_SET_UNASSIGNED);
	assert_int_equal(Bgpm_GetMuxGroups(h), 0);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EOK);
	memset(&st, 0xff, sizeof st);
	assert_int_equal(Bgpm_GetMultiplex(h, &st), BGPM_EOK);
	assert_int_equal(st.active, 0);
	assert_int_equal(st.numGrps, 1);
	assert_int_equal(st.numSwitches, 0);
	assert_int_equal(Bgpm_GetMuxGroups(h), 1);
	assert_int_equal(Bgpm_SwitchMux(h), BGPM_EINV_OP);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_L2_HITS), BGPM_EOK);
	assert_int_equal(Bgpm_GetMultiplex(h, &st), BGPM_EINV_OP);
	assert_int_equal(Bgpm_GetMuxGroups(h), 0);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_SetMultiplex2(h, 10000, 2, BGPMMuxMedEvts), BGPM_EINV_PARM);
	/* as IBM's: 7 to 12 events a group asked for is 11 */
	assert_int_equal(Bgpm_SetMultiplex2(h, 10000, BGPM_NORMAL, (RsvMuxCtrs)7), BGPM_EOK);
	assert_int_equal(Bgpm_SetMultiplex2(h, 10000, BGPM_NORMAL, BGPMMuxMedEvts), BGPM_ENOT_EMPTY);
	assert_int_equal(Bgpm_AddEventList(h, (unsigned *)ids, n), BGPM_EOK);
	assert_int_equal(Bgpm_SetOverflow(h, 0, 1000), BGPM_EUNSUP_OVERFLOW);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	int groups = Bgpm_GetMuxGroups(h);
	assert_true(groups >= 2);
	assert_int_equal(Bgpm_Start(h), BGPM_EOK);
	Delay(CYCLES);
	assert_int_equal(Bgpm_SwitchMux(h), BGPM_EOK);
	Delay(CYCLES);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(Bgpm_GetMultiplex(h, &st), BGPM_EOK);
	assert_int_equal(st.active, 1);
	assert_int_equal(st.period, 10000);
	assert_int_equal(st.normalize, 1);
	assert_int_equal(st.numGrps, (unsigned)groups);
	assert_int_equal(st.maxEvtsPerGrp, 11);
	assert_true(st.numSwitches >= 2 * CYCLES / 10000 - 2);
	assert_int_equal(st.elapsedCycles, 2 * CYCLES);
	uint64_t total = 0, longest = 0;
	for (int g = 0; g < groups; g++) {
		uint64_t c = Bgpm_GetMuxElapsedCycles(h, (unsigned)g);
		total += c;
		longest = c > longest ? c : longest;
	}
	assert_int_equal(total, 2 * CYCLES);
	assert_true(Bgpm_GetMuxEventElapsedCycles(h, 0) > 0);
	/* normalized counts are scaled to the longest group's cycles (as IBM
	 * documents it and its example prints), not to the whole time */
	uint64_t v;
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, longest);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* not normalized: the cycles its group counted */
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_SetMultiplex(h, 0, BGPM_NOTNORMAL), BGPM_EOK);
	assert_int_equal(Bgpm_AddEventList(h, (unsigned *)ids, n), BGPM_EOK);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	assert_int_equal(Bgpm_Start(h), BGPM_EOK);
	Delay(CYCLES);
	assert_int_equal(Bgpm_SwitchMux(h), BGPM_EOK); /* period 0: only these switch */
	Delay(CYCLES);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(Bgpm_GetMultiplex(h, &st), BGPM_EOK);
	assert_int_equal(st.numSwitches, 1);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, CYCLES);
	assert_int_equal(Bgpm_GetMuxElapsedCycles(h, 0), CYCLES);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
}

static void test_fast_handles(void **state)
{
	(void)state;
	int h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_INST_ALL), BGPM_EOK);
	Bgpm_Punit_Handles_t hd;
	assert_int_equal(Bgpm_Punit_GetHandles(h, &hd), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	Bgpm_Punit_LLHandles_t ll;
	assert_int_equal(Bgpm_Punit_GetLLHandles(h, &ll), BGPM_EINV_OP); /* not LL mode */
	assert_int_equal(Bgpm_Punit_GetHandles(h, &hd), BGPM_EOK);
	assert_int_equal(hd.numCtrs, 2);
	Bgpm_Punit_Start(hd.allCtrMask);
	Delay(12345);
	Bgpm_Punit_Stop(hd.allCtrMask);
	assert_int_equal(Bgpm_Punit_Read(hd.hCtr[0]), 12345);
	uint64_t v;
	assert_int_equal(Bgpm_ReadEvent(h, 1, &v), BGPM_EOK);
	assert_int_equal(Bgpm_Punit_Read(hd.hCtr[1]), v);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
}

/* Low-latency mode, in a child whose one thread uses it (a process has one mode). */
static void *ll_thread(void *arg)
{
	uint64_t *out = arg;
	Bgpm_PrintOnError(0);
	Bgpm_ExitOnError(0);
	if (Bgpm_Init(BGPM_MODE_LLDISTRIB))
		return NULL;
	int h = Bgpm_CreateEventSet();
	out[3] = (uint64_t)(int64_t)Bgpm_AddEvent(h, PEVT_L2_HITS);
	out[4] = (uint64_t)(int64_t)Bgpm_SetMultiplex(h, 10000, 1);
	Bgpm_AddEvent(h, PEVT_CYCLES);
	out[5] = (uint64_t)(int64_t)Bgpm_SetOverflow(h, 0, 1000);
	Bgpm_Apply(h);
	Bgpm_Punit_LLHandles_t ll;
	if (Bgpm_Punit_GetLLHandles(h, &ll) == BGPM_EOK) {
		Bgpm_Punit_LLResetStart(ll.allCtrMask);
		Delay(20000); /* past 2^14 */
		Bgpm_Punit_LLStop(ll.allCtrMask);
		out[0] = Bgpm_Punit_LLRead(ll.hCtr[0]);
		Bgpm_Punit_LLWrite(ll.hCtr[0], 5);
		out[1] = Bgpm_Punit_LLRead(ll.hCtr[0]);
		Bgpm_Punit_LLResetStart(ll.allCtrMask);
		Delay(100);
		Bgpm_Punit_LLStop(ll.allCtrMask);
		out[2] = Bgpm_Punit_LLRead(ll.hCtr[0]);
	}
	Bgpm_Disable();
	return NULL;
}

static void test_low_latency(void **state)
{
	(void)state;
	uint64_t out[6] = {0};
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) {
		Bgpm_Disable();
		ll_thread(out);
		_exit(write(fds[1], out, sizeof out) == sizeof out ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], out, sizeof out), sizeof out);
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(out[0], (20000 & 0x3fff) | 0x8000); /* IBM's big-overflow bit */
	assert_true(BGPM_LLCOUNT_OVERFLOW(out[0]));
	assert_int_equal(out[1], 5);
	assert_int_equal(out[2], 100);
	assert_int_equal((int64_t)out[3], BGPM_EINV_OP);
	assert_int_equal((int64_t)out[4], BGPM_EINV_OP);
	assert_int_equal((int64_t)out[5], BGPM_EUNSUP_OVERFLOW);
}

/* Threads: each counts its own hardware thread; only the creator controls a set. */
static int shared_set;
static void *other_thread(void *arg)
{
	int *rc = arg;
	Bgpm_PrintOnError(0);
	Bgpm_ExitOnError(0);
	rc[0] = Bgpm_Start((unsigned)shared_set);
	rc[1] = Bgpm_Init(BGPM_MODE_DEFAULT);
	rc[2] = Bgpm_Start((unsigned)shared_set);
	rc[3] = Bgpm_NumEvents((unsigned)shared_set); /* reading is anyone's */
	rc[4] = (int)Kernel_ProcessorID();
	int h = Bgpm_CreateEventSet();
	Bgpm_AddEvent(h, PEVT_CYCLES);
	Bgpm_Apply(h);
	Bgpm_Start(h);
	Delay(777);
	Bgpm_Stop(h);
	uint64_t v = 0;
	Bgpm_ReadEvent(h, 0, &v);
	rc[5] = (int)v;
	Bgpm_Disable();
	return NULL;
}

static void test_threads_and_state(void **state)
{
	(void)state;
	shared_set = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(shared_set, PEVT_CYCLES), BGPM_EOK);
	assert_int_equal(Bgpm_Apply(shared_set), BGPM_EOK);
	int rc[6] = {0};
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, other_thread, rc), 0);
	pthread_join(t, NULL);
	assert_int_equal(rc[0], BGPM_ENOT_INIT);
	assert_int_equal(rc[1], BGPM_EOK);
	assert_int_equal(rc[2], BGPM_ENOT_CONTROL_THREAD);
	assert_int_equal(rc[3], 1);
	assert_int_not_equal(rc[4], (int)Kernel_ProcessorID());
	assert_int_equal(rc[5], 777);
	assert_int_equal(Bgpm_DeleteEventSet(shared_set), BGPM_EOK);
	assert_int_equal(Bgpm_Init(BGPM_MODE_SWDISTRIB), BGPM_EINITED);
}

static void test_modes_and_errors(void **state)
{
	(void)state;
	assert_int_equal(Bgpm_LibLinked(), 1);
	/* an unknown mode is refused */
	pid_t pid = fork();
	if (pid == 0) {
		Bgpm_Disable();
		Bgpm_PrintOnError(0);
		Bgpm_ExitOnError(0);
		_exit(Bgpm_Init((Bgpm_Modes)9) == BGPM_EINV_PARM && Bgpm_Init(BGPM_MODE_HWDISTRIB) == BGPM_EOK ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* BGPM prints and exits on errors by default */
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		Bgpm_PrintOnError(1);
		Bgpm_ExitOnError(1);
		Bgpm_Start(999);
		_exit(0); /* not reached */
	}
	close(fds[1]);
	char buf[512] = "";
	ssize_t got = read(fds[0], buf, sizeof buf - 1);
	close(fds[0]);
	assert_true(got > 0);
	assert_non_null(strstr(buf, "BGPM error -2004"));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 0);
	/* switches return the previous setting; the environment sets the default */
	assert_int_equal(Bgpm_PrintOnError(1), 0);
	assert_int_equal(Bgpm_PrintOnError(0), 1);
	pid = fork();
	if (pid == 0) {
		setenv("BGPM_NO_EXIT_ON_ERR", "1", 1);
		setenv("BGPM_NO_PRINT_ON_ERR", "1", 1);
		/* a new thread reads the environment */
		pthread_t t;
		int r[6];
		pthread_create(&t, NULL, other_thread, r);
		pthread_join(t, NULL);
		_exit(r[0] == BGPM_ENOT_INIT ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_spi(void **state)
{
	(void)state;
	Personality_t p;
	assert_int_equal(Kernel_GetPersonality(&p, sizeof p), 0);
	assert_int_equal(p.Kernel_Config.FreqMHz, 1600);
	assert_int_equal(p.Network_Config.Anodes, 4);
	assert_int_equal(p.Network_Config.Enodes, 2);
	assert_int_equal(p.Network_Config.Acoord, 0);
	assert_int_equal(Kernel_GetPersonality(&p, 4), -1);
	assert_int_equal(Kernel_ProcessCount(), 16);
	assert_int_equal(Kernel_ProcessorCount(), 4);
	uint32_t id = Kernel_ProcessorID();
	assert_int_equal(Kernel_ProcessorCoreID(), id / 4);
	assert_int_equal(Kernel_ProcessorThreadID(), id % 4);
	uint64_t t0 = GetTimeBase();
	Delay(4242);
	assert_int_equal(GetTimeBase() - t0, 4242);
}

/* A child's check: exit status 0 when cond holds. */
#define IN_CHILD(setup, cond)                                  \
	do {                                                   \
		pid_t pid_ = fork();                           \
		if (pid_ == 0) {                               \
			setup;                                 \
			_exit((cond) ? 0 : 1);                 \
		}                                              \
		int st_;                                       \
		assert_int_equal(waitpid(pid_, &st_, 0), pid_); \
		assert_true(WIFEXITED(st_) && WEXITSTATUS(st_) == 0); \
	} while (0)

static void *no_init_thread(void *arg)
{
	int *rc = arg;
	Bgpm_PrintOnError(0);
	Bgpm_ExitOnError(0);
	rc[0] = Bgpm_CreateEventSet();
	rc[1] = Bgpm_Disable();
	return NULL;
}

/* The error paths the other tests do not reach, one call each. */
static void test_error_paths(void **state)
{
	(void)state;
	/* every code libbgpm returns has its own words */
	const int codes[] = {BGPM_EOK, BGPM_EINTERNAL, BGPM_ENOTIMPL, BGPM_EINV_EVENT, BGPM_EINV_PARM,
			     BGPM_ENOT_INIT, BGPM_ECTRRESERVED, BGPM_EINV_EVT_IDX, BGPM_EINV_OVF, BGPM_EINITED,
			     BGPM_ENOMEM, BGPM_EINV_SET_HANDLE, BGPM_EEVT_SET_UNASSIGNED, BGPM_ECONF_UNIT,
			     BGPM_EXHAUSTED, BGPM_EINV_ATTRIB_VAL, BGPM_EUNSUP_ATTRIB, BGPM_EUNSUP_OVERFLOW,
			     BGPM_ENO_OVERFLOW, BGPM_EARRAY_TOO_SMALL, BGPM_ENOT_MUXED, BGPM_ECONF_L2_COMBINE,
			     BGPM_ENO_CONFIG, BGPM_ENOT_MASK_EVENT, BGPM_ENOT_EMPTY, BGPM_EUNREC_EVTID,
			     BGPM_EINV_OP, BGPM_ENOT_APPLIED, BGPM_EINV_L2_SLICE, BGPM_EES_FROZEN,
			     BGPM_ENOT_CONTROL_THREAD, BGPM_EUPDATE_DISALLOWED, BGPM_EMAX_EVTSETS,
			     BGPM_ECTRS_IN_USE, BGPM_EINV_WRT2OVF, BGPM_WALREADY_ATTACHED, BGPM_WNOT_ATTACHED,
			     BGPM_WALREADY_STARTED, BGPM_WALREADY_STOPPED, BGPM_WNOT_LINK_CTL};
	const int ncodes = (int)(sizeof codes / sizeof codes[0]);
	const char *unknown = Bgpm_ErrorString(12345);
	for (int i = 0; i < ncodes; i++) {
		assert_string_not_equal(Bgpm_ErrorString(codes[i]), unknown);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(Bgpm_ErrorString(codes[i]), Bgpm_ErrorString(codes[j]));
	}
	/* every id up to the last has a label (AddEvent's range check is the only one) */
	for (unsigned id = 1; id <= PEVT_LAST_EVENT; id++)
		assert_non_null(Bgpm_GetEventIdLabel(id));

	/* modes from $BGPM_MODE, in children (Bgpm_Init is once per thread) */
	IN_CHILD((Bgpm_Disable(), setenv("BGPM_MODE", "BGPM_MODE_LLDISTRIB", 1)),
		 Bgpm_Init(BGPM_MODE_DEFAULT) == BGPM_EOK && Bgpm_AddEvent((unsigned)Bgpm_CreateEventSet(), PEVT_L2_HITS) == BGPM_EINV_OP);
	IN_CHILD((Bgpm_Disable(), setenv("BGPM_MODE", "SWDISTRIB", 1)),
		 Bgpm_Init(BGPM_MODE_DEFAULT) == BGPM_EOK && Bgpm_AddEvent((unsigned)Bgpm_CreateEventSet(), PEVT_L2_HITS) == BGPM_EOK);
	IN_CHILD((Bgpm_Disable(), setenv("BGPM_MODE", "3", 1)), Bgpm_Init(BGPM_MODE_DEFAULT) == BGPM_EOK);
	IN_CHILD((Bgpm_Disable(), setenv("BGPM_MODE", "fast", 1)), Bgpm_Init(BGPM_MODE_DEFAULT) == BGPM_EINV_PARM);
	/* the default context from $BGPM_CONTEXT, read when a set is created */
	const char *ctx_env[] = {"BGPM_CTX_KERNEL", "2", "anything"};
	const Bgpm_Context ctx_want[] = {BGPM_CTX_KERNEL, BGPM_CTX_USER, BGPM_CTX_BOTH};
	for (int i = 0; i < 3; i++) {
		setenv("BGPM_CONTEXT", ctx_env[i], 1);
		int h = Bgpm_CreateEventSet();
		unsetenv("BGPM_CONTEXT");
		Bgpm_Context c;
		assert_int_equal(Bgpm_GetContext(h, &c), BGPM_EOK);
		assert_int_equal(c, ctx_want[i]);
		assert_int_equal(Bgpm_GetContext(h, NULL), BGPM_EINV_PARM);
		assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	}
	/* a thread without Bgpm_Init */
	int r[2];
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, no_init_thread, r), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(r[0], BGPM_ENOT_INIT);
	assert_int_equal(r[1], BGPM_ENOT_INIT);

	/* event information */
	char buf[64];
	int len = sizeof buf;
	Bgpm_EventInfo_t ei;
	assert_int_equal(Bgpm_GetLongDesc(PEVT_CYCLES, NULL, &len), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_GetLongDesc(PEVT_CYCLES, buf, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_GetEventIdInfo(9999, &ei), BGPM_EINV_EVENT);
	assert_int_equal(Bgpm_GetEventIdInfo(PEVT_CYCLES, NULL), BGPM_EINV_PARM);

	/* all handles in use */
	static int many[1025];
	int n = 0;
	while (n < 1025 && (many[n] = Bgpm_CreateEventSet()) >= 0)
		n++;
	assert_true(n <= 1024 && many[n] == BGPM_EMAX_EVTSETS);
	while (n-- > 0)
		assert_int_equal(Bgpm_DeleteEventSet((unsigned)many[n]), BGPM_EOK);

	/* adding */
	int h = Bgpm_CreateEventSet();
	unsigned bad[] = {PEVT_CYCLES, 0};
	assert_int_equal(Bgpm_AddEventList(h, NULL, 1), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_AddEventList(h, bad, 2), BGPM_EINV_EVENT);
	assert_int_equal(Bgpm_AddEventString(h, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_AddEventString(h, " ,"), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_AddEventString(h, "PEVT_INST_ALL,PEVT_L2_HITS"), BGPM_ECONF_UNIT);
	for (int i = 2; i < 64; i++)
		assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EOK);
	assert_int_equal(Bgpm_NumEvents(h), 64);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EXHAUSTED);
	/* handles: more events than a handle array holds (a multiplexed set
	 * takes them) */
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_SetMultiplex(h, 10, BGPM_NORMAL), BGPM_EINV_PARM); /* period below the minimum */
	assert_int_equal(Bgpm_SetMultiplex(h, 0, BGPM_NORMAL), BGPM_EOK);
	assert_int_equal(Bgpm_Apply(h), BGPM_ENO_CONFIG);
	assert_int_equal(Bgpm_SwitchMux(h), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_GetMuxGroups(h), 1); /* IBM's: groups form as events are added */
	assert_int_equal(Bgpm_GetMultiplex(h, NULL), BGPM_EINV_PARM);
	for (int i = 0; i < 50; i++)
		assert_int_equal(Bgpm_AddEvent(h, PEVT_CYCLES), BGPM_EOK);
	assert_int_equal(Bgpm_GetMuxEventElapsedCycles(h, 0), 0); /* not applied */
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	Bgpm_Punit_Handles_t hd;
	assert_int_equal(Bgpm_Punit_GetHandles(h, &hd), BGPM_EARRAY_TOO_SMALL);
	assert_int_equal(Bgpm_Punit_GetHandles(h, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_Punit_GetLLHandles(h, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_WriteEvent(h, 0, 1), BGPM_EINV_OP); /* multiplexed */
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);
	assert_int_equal(Bgpm_Punit_GetHandles(h, &hd), BGPM_EINV_SET_HANDLE);
	assert_int_equal(Bgpm_Punit_Read(0), 0); /* not a handle: 0, the error printed */
	Bgpm_Punit_LLResetStart(0);              /* the same, and nothing happens */
	Bgpm_Punit_LLWrite(0, 1);

	/* a Punit set's own refusals */
	h = Bgpm_CreateEventSet();
	uint64_t v;
	UpciBool_t comb;
	UPC_NW_Vchannels vc;
	Bgpm_OverflowHandler_t hnd;
	unsigned idx[4], nidx = 4;
	assert_int_equal(Bgpm_GetL2Combine(h, &comb), BGPM_EEVT_SET_UNASSIGNED);
	assert_int_equal(Bgpm_AddEvent(h, PEVT_INST_XU_GRP_MASK), BGPM_EOK);
	assert_int_equal(Bgpm_GetXuGrpMask(h, 0, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_GetL2Combine(h, &comb), BGPM_EINV_OP);
	assert_int_equal(Bgpm_GetEventEdge(h, 0, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_GetEventVirtChannels(h, 0, &vc), BGPM_EUNSUP_ATTRIB);
	assert_int_equal(Bgpm_GetOverflow(h, 0, NULL, &hnd), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_GetOverflowEventIndices(h, 1, NULL, &nidx), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_GetOverflowEventIndices(h, 1, idx, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_ReadEventList(h, &v, &nidx), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_WriteEvent(h, 0, 1), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_Reset(h), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_L2_ReadEvent(h, 0, 0, &v), BGPM_EINV_OP);
	assert_int_equal(Bgpm_NW_ReadLinkEvent(h, 0, UPC_NW_LINK_A_MINUS, &v), BGPM_EINV_OP);
	assert_int_equal(Bgpm_CNK_SampleEvent(h, 0, &v), BGPM_EINV_OP);
	assert_int_equal(Bgpm_SetXuGrpMask(h, 0, 1ull << 40), BGPM_EOK);
	assert_int_equal(Bgpm_Apply(h), BGPM_EINV_EVENT); /* the simulator takes 32-bit masks */
	assert_int_equal(Bgpm_SetXuGrpMask(h, 0, 0x837800), BGPM_EOK);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK); /* applied, never started: 0 */
	assert_int_equal(v, 0);
	assert_int_equal(Bgpm_ReadEvent(h, 0, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_ReadEventList(h, NULL, &nidx), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_ResetStart(h), BGPM_EOK);
	assert_int_equal(Bgpm_ResetStart(h), BGPM_EUPDATE_DISALLOWED);
	assert_int_equal(Bgpm_Apply(h), BGPM_EUPDATE_DISALLOWED);
	assert_int_equal(Bgpm_WriteEvent(h, 0, 1), BGPM_EUPDATE_DISALLOWED);
	Delay(CYCLES);
	assert_int_equal(Bgpm_Stop(h), BGPM_EOK);
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_true(v > 0);
	assert_int_equal(Bgpm_Apply(h), BGPM_EOK); /* applied again: from zero */
	assert_int_equal(Bgpm_ReadEvent(h, 0, &v), BGPM_EOK);
	assert_int_equal(v, 0);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* two events on one counter: the Punit refuses the set */
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEventString(h, "PEVT_L1P_BAS_HIT PEVT_L1P_BAS_ST_32BYTE"), BGPM_EOK);
	assert_int_equal(Bgpm_Apply(h), BGPM_ECTRRESERVED);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* L2: the node counts combined or per slice as its first L2 set
	 * does, until no L2 set is left (IBM's rule); slices and attributes */
	int a = Bgpm_CreateEventSet(), b = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(a, PEVT_L2_HITS), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(b, PEVT_L2_HITS_SLICE), BGPM_ECONF_L2_COMBINE);
	assert_int_equal(Bgpm_SetContext(a, BGPM_CTX_USER), BGPM_EINV_OP);
	assert_int_equal(Bgpm_SetEventEdge(a, 0, 1), BGPM_EUNSUP_ATTRIB);
	assert_int_equal(Bgpm_GetL2Combine(a, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_Punit_GetHandles(a, &hd), BGPM_EINV_OP);
	assert_int_equal(Bgpm_Start(a), BGPM_EOK);
	assert_int_equal(Bgpm_Stop(a), BGPM_EOK);
	assert_int_equal(Bgpm_DeleteEventSet((unsigned)a), BGPM_EOK);
	for (int i = 0; i < 4; i++) /* no L2 set left: b fixes the mode now */
		assert_int_equal(Bgpm_AddEvent(b, PEVT_L2_HITS_SLICE), BGPM_EOK);
	assert_int_equal(Bgpm_AddEvent(b, PEVT_L2_HITS_SLICE), BGPM_EXHAUSTED);
	a = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_AddEvent(a, PEVT_L2_HITS), BGPM_ECONF_L2_COMBINE);
	assert_int_equal(Bgpm_Apply(b), BGPM_EOK);
	assert_int_equal(Bgpm_L2_ReadEvent(b, 0, 0, &v), BGPM_EOK); /* applied, never started */
	assert_int_equal(v, 0);
	assert_int_equal(Bgpm_DeleteEventSet((unsigned)a), BGPM_EOK);
	assert_int_equal(Bgpm_DeleteEventSet((unsigned)b), BGPM_EOK);

	/* network: too many events for every link; reads of an unattached set */
	h = Bgpm_CreateEventSet();
	assert_int_equal(Bgpm_Attach(h, UPC_NW_ALL_LINKS, 0), BGPM_EEVT_SET_UNASSIGNED);
	unsigned nw[] = {PEVT_NW_USER_PP_SENT, PEVT_NW_USER_DYN_PP_SENT, PEVT_NW_USER_ESC_PP_SENT,
			 PEVT_NW_USER_PRI_PP_SENT, PEVT_NW_USER_PP_RECV, PEVT_NW_USER_PP_RECV_FIFO};
	assert_int_equal(Bgpm_AddEventList(h, nw, 6), BGPM_EOK); /* a link's six counters */
	assert_int_equal(Bgpm_GetEventVirtChannels(h, 0, NULL), BGPM_EINV_PARM);
	assert_int_equal(Bgpm_NW_ReadLinkEvent(h, 0, UPC_NW_LINK_A_MINUS, &v), BGPM_ENOT_APPLIED);
	assert_int_equal(Bgpm_Attach(h, UPC_NW_ALL_LINKS, 0), BGPM_EXHAUSTED); /* 6 x 11 > 64 */
	assert_int_equal(Bgpm_NumTargets(h), 0); /* nothing attached */
	assert_int_equal(Bgpm_Attach(h, UPC_NW_LINK_A_MINUS, 0), BGPM_EOK);
	assert_int_equal(Bgpm_DeleteEventSet(h), BGPM_EOK);

	/* low-latency starts and writes go through the set */
	IN_CHILD((Bgpm_Disable(), Bgpm_Init(BGPM_MODE_LLDISTRIB)), ({
			 Bgpm_Punit_LLHandles_t ll;
			 int s = Bgpm_CreateEventSet();
			 Bgpm_AddEvent((unsigned)s, PEVT_CYCLES);
			 Bgpm_Apply((unsigned)s);
			 Bgpm_Punit_GetLLHandles((unsigned)s, &ll);
			 Bgpm_Punit_LLStart(ll.allCtrMask);
			 Delay(100);
			 Bgpm_Punit_LLWrite(ll.hCtr[0], 5); /* stops, writes, starts again */
			 Delay(100);
			 Bgpm_Punit_LLStop(ll.allCtrMask);
			 uint64_t at200 = Bgpm_Punit_LLRead(ll.hCtr[0]);
			 Bgpm_Punit_LLStart(ll.allCtrMask);
			 Bgpm_Punit_LLResetStart(ll.allCtrMask); /* running: stops first */
			 Delay(100);
			 Bgpm_Punit_LLStop(ll.allCtrMask);
			 at200 == 105 && Bgpm_Punit_LLRead(ll.hCtr[0]) == 100;
		 }));
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=0,activity=compute,torus=4x4x4x4x2", 1);
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		fprintf(stderr, "PAPI_library_init failed\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_punit_vs_papi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_labels_and_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attributes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_l2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_io_cnk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_network, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multiplex, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_handles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_low_latency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_and_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modes_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_paths, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
