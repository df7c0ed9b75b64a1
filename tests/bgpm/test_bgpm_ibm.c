/* libbgpm where IBM's own programs rely on its behaviour: what the headers
 * give, where threads run, the time base, hardware-distributed sets,
 * one mode per process, multiplex groups, link control, overflow
 * indices and the attribute calls. Virtual clock (tick=0): time passes
 * only through Delay, so every count here is exact. Tests that need a
 * process of their own (its mode, its threads) run in a child. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "bgpm/include/bgpm.h"
#include "spi/include/kernel/process.h" /* GetTimeBase comes with it, as on CNK */

/* Runs body in a child process; the test fails unless it exits 0. */
#define IN_CHILD(...)                                                   \
	do {                                                            \
		pid_t pid_ = fork();                                    \
		assert_true(pid_ >= 0);                                 \
		if (pid_ == 0) {                                        \
			Bgpm_PrintOnError(getenv("BGPM_TEST_VERBOSE") != NULL); \
			Bgpm_ExitOnError(0);                            \
			__VA_ARGS__;                                         \
			_exit(0);                                       \
		}                                                       \
		int st_;                                                \
		assert_int_equal(waitpid(pid_, &st_, 0), pid_);         \
		if (!WIFEXITED(st_) || WEXITSTATUS(st_))                \
			fail_msg("child: status %d", st_);              \
	} while (0)
/* In a child: exits with the line that failed. */
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); _exit(1); } } while (0)

/* _AT_, Upci_Delay and the process's geometry from bgpm.h alone, as
 * IBM's examples use them (ppn 16: 4 hardware threads a process). */
static void test_headers_and_geometry(void **state)
{
	(void)state;
	IN_CHILD({
		const char *at = _AT_;
		CHECK(strstr(at, "test_bgpm_ibm.c:") != NULL);
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		uint64_t t0 = GetTimeBase();
		Upci_Delay(1000);
		CHECK(GetTimeBase() - t0 == 1000);
		CHECK(Kernel_ProcessCount() == 16);
		CHECK(Kernel_ProcessorCount() == 4);
		uint64_t mine = Kernel_ThreadMask(Kernel_MyTcoord());
		CHECK(__builtin_popcountll(mine) == 4);
		CHECK(mine & UPC_APP_HWTID_MASK(Kernel_ProcessorID()));
		CHECK(Kernel_ThreadMask(1) == mine >> 4 || Kernel_MyTcoord() != 0);
		CHECK(Kernel_ThreadMask(16) == 0);
		/* the last error stays until the next one */
		CHECK(Bgpm_LastErr() == 0);
		CHECK(Bgpm_AddEvent(99999, PEVT_CYCLES) == BGPM_EINV_SET_HANDLE);
		CHECK(Bgpm_CreateEventSet() >= 0);
		CHECK(Bgpm_LastErr() == BGPM_EINV_SET_HANDLE);
		CHECK(strstr(Bgpm_LastErrStrg(), "99999") != NULL);
	});
}

/* A thread's hardware thread is fixed at its first call, before
 * Bgpm_Init too, and threads alive at once have different ones, all of
 * them the process's. */
static pthread_barrier_t bar;
static void *placed_thread(void *arg)
{
	uint32_t *id = arg;
	id[0] = Kernel_ProcessorID();
	pthread_barrier_wait(&bar); /* all placed before any leaves */
	Bgpm_Init(BGPM_MODE_SWDISTRIB);
	id[1] = Kernel_ProcessorID();
	pthread_barrier_wait(&bar);
	Bgpm_Disable();
	return NULL;
}

static void test_processor_id(void **state)
{
	(void)state;
	IN_CHILD({
		uint32_t id[3][2];
		pthread_t t[3];
		pthread_barrier_init(&bar, NULL, 3);
		for (int i = 0; i < 3; i++)
			CHECK(pthread_create(&t[i], NULL, placed_thread, id[i]) == 0);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		uint64_t mine = Kernel_ThreadMask(Kernel_MyTcoord());
		for (int i = 0; i < 3; i++) {
			CHECK(id[i][0] == id[i][1]);
			CHECK(mine & UPC_APP_HWTID_MASK(id[i][0]));
			for (int j = 0; j < i; j++)
				CHECK(id[i][0] != id[j][0]);
		}
	});
}

/* The time base follows the thread's own cycles on the host clock: CPU
 * time spent between two reads shows in them. */
static void test_timebase_host(void **state)
{
	(void)state;
	IN_CHILD({
		setenv("COUNTERLAB_MACHINE", "bgq:clock=host,activity=compute", 1);
		uint64_t t0 = GetTimeBase();
		struct timespec a, b;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		volatile unsigned long x __attribute__((unused)) = 0;
		do { /* 5 ms of this thread's CPU time */
			for (int i = 0; i < 10000; i++)
				x += (unsigned long)i;
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 5000000L);
		CHECK(GetTimeBase() > t0);
	});
}

/* Hardware-distributed mode: a set attached to hardware threads counts
 * each from the moment a thread runs there; a target no thread runs on
 * is idle (its cycles pass, nothing else). */
static void *hw_worker(void *arg)
{
	(void)arg;
	Kernel_ProcessorID(); /* placed: from here its own counts */
	if (arg)
		pthread_barrier_wait(&bar); /* all placed at once */
	Delay(5000);
	return NULL;
}

/* Threads taking places while a hardware-distributed set starts and
 * stops: each stop succeeds (a thread placed while a stop was under way
 * once got a target set that never started, and the stop failed on it) */
static volatile int churn_on;

static void *placer(void *arg)
{
	(void)arg;
	while (churn_on) {
		pthread_t t;
		if (pthread_create(&t, NULL, hw_worker, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

static void test_hwdistrib_churn(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_HWDISTRIB) == 0);
		int h = Bgpm_CreateEventSet();
		unsigned ids[] = {PEVT_CYCLES};
		CHECK(Bgpm_AddEventList(h, ids, 1) == 0);
		CHECK(Bgpm_Attach(h, ~0ull, 0) == 0);
		churn_on = 1;
		pthread_t p;
		CHECK(pthread_create(&p, NULL, placer, NULL) == 0);
		for (int i = 0; i < 300; i++) {
			CHECK(Bgpm_Start(h) == 0);
			CHECK(Bgpm_Stop(h) == 0);
		}
		churn_on = 0;
		pthread_join(p, NULL);
	});
}

static void test_hwdistrib(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_HWDISTRIB) == 0);
		int h = Bgpm_CreateEventSet();
		unsigned ids[] = {PEVT_CYCLES, PEVT_INST_ALL};
		CHECK(Bgpm_AddEventList(h, ids, 2) == 0);
		CHECK(Bgpm_SetOverflow(h, 0, 1000) == BGPM_EUNSUP_OVERFLOW);
		uint64_t mine = Kernel_ThreadMask(Kernel_MyTcoord()), other = Kernel_ThreadMask(Kernel_MyTcoord() ^ 1);
		CHECK(Bgpm_Attach(h, mine | other, 0) == 0);
		CHECK(Bgpm_Attach(h, mine | other, 0) == BGPM_WALREADY_ATTACHED);
		CHECK(Bgpm_Attach(h, mine, 0) == BGPM_EES_FROZEN);
		uint64_t v;
		CHECK(Bgpm_ReadThreadEvent(h, 0, mine, 0, NULL) == BGPM_EINV_PARM);
		CHECK(Bgpm_WriteEvent(h, 0, 1) == BGPM_EINV_OP);
		Bgpm_Punit_Handles_t hd;
		CHECK(Bgpm_Punit_GetHandles(h, &hd) == BGPM_EINV_OP);
		CHECK(Bgpm_Start(h) == 0);
		Delay(1000);
		pthread_t t[3];
		pthread_barrier_init(&bar, NULL, 3);
		for (int i = 0; i < 3; i++)
			CHECK(pthread_create(&t[i], NULL, hw_worker, &bar) == 0);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		Delay(1000);
		/* a thread in the place of one that left: their counts add up */
		uint64_t next = UPC_APP_HWTID_MASK(Kernel_ProcessorID() + 1); /* the first place a thread takes */
		CHECK(pthread_create(&t[0], NULL, hw_worker, NULL) == 0);
		pthread_join(t[0], NULL);
		CHECK(Bgpm_Stop(h) == 0);
		uint64_t me = UPC_APP_HWTID_MASK(Kernel_ProcessorID());
		CHECK(Bgpm_ReadThreadEvent(h, 0, me, 0, &v) == 0 && v == 2000);
		for (int hw = 0; hw < 64; hw++) {
			uint64_t m = UPC_APP_HWTID_MASK(hw);
			if (!(mine & m) || m == me)
				continue;
			/* idle 1000 cycles until placed, then its own 5000 */
			CHECK(Bgpm_ReadThreadEvent(h, 0, m, 0, &v) == 0 && v == (m == next ? 11000u : 6000u));
			CHECK(Bgpm_ReadThreadEvent(h, 1, m, 0, &v) == 0 && v > 0);
		}
		CHECK(Bgpm_ReadThreadEvent(h, 0, other, 0, &v) == 0 && v == 4 * 2000);
		CHECK(Bgpm_ReadThreadEvent(h, 1, other, 0, &v) == 0 && v == 0);
		CHECK(Bgpm_ReadEvent(h, 0, &v) == 0 && v == 2000 + 3 * 6000 + 5000 + 4 * 2000);
		CHECK(Bgpm_ReadThreadEvent(h, 0, ~(mine | other), 0, &v) == BGPM_WNOT_ATTACHED);
		/* the workers have left: a set attached now finds their places idle */
		int h2 = Bgpm_CreateEventSet();
		Bgpm_ExitOnError(1); /* no error on the way, as IBM's examples expect */
		CHECK(Bgpm_AddEventList(h2, ids, 2) == 0 && Bgpm_Attach(h2, mine, 0) == 0);
		Bgpm_ExitOnError(0);
		CHECK(Bgpm_Start(h2) == 0);
		Delay(500);
		CHECK(Bgpm_Stop(h2) == 0);
		CHECK(Bgpm_ReadThreadEvent(h2, 0, next, 0, &v) == 0 && v == 500);
		CHECK(Bgpm_ReadThreadEvent(h2, 1, next, 0, &v) == 0 && v == 0);
		/* applied instead of attached: the calling thread's own hardware thread */
		int h3 = Bgpm_CreateEventSet();
		CHECK(Bgpm_ReadThreadEvent(h3, 0, me, 0, &v) == BGPM_EINV_EVT_IDX);
		CHECK(Bgpm_AddEvent(h3, PEVT_CYCLES) == 0);
		CHECK(Bgpm_ReadThreadEvent(h3, 0, me, 0, &v) == BGPM_ENOT_APPLIED);
		CHECK(Bgpm_Apply(h3) == 0 && Bgpm_Start(h3) == 0);
		Delay(300);
		CHECK(Bgpm_Stop(h3) == 0);
		CHECK(Bgpm_ReadThreadEvent(h3, 0, me, 0, &v) == 0 && v == 300);
		CHECK(Bgpm_ReadThreadEvent(h3, 0, next, 0, &v) == BGPM_WNOT_ATTACHED);
		/* a software-distributed set has no per-thread reads */
		CHECK(Bgpm_Disable() == 0);
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		h = Bgpm_CreateEventSet();
		CHECK(Bgpm_AddEvent(h, PEVT_CYCLES) == 0 && Bgpm_Apply(h) == 0);
		CHECK(Bgpm_ReadThreadEvent(h, 0, me, 0, &v) == BGPM_EINV_OP);
	});
}

/* One mode per process: a second thread asking for another is refused. */
static void *ll_init(void *arg)
{
	Bgpm_PrintOnError(0);
	Bgpm_ExitOnError(0);
	*(int *)arg = Bgpm_Init(BGPM_MODE_LLDISTRIB);
	return NULL;
}

static void test_one_mode(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int rc = 0;
		pthread_t t;
		pthread_create(&t, NULL, ll_init, &rc);
		pthread_join(t, NULL);
		CHECK(rc == BGPM_ECONF_MODE);
		CHECK(Bgpm_Disable() == 0); /* no thread left in the mode */
		pthread_create(&t, NULL, ll_init, &rc);
		pthread_join(t, NULL);
		CHECK(rc == 0);
	});
}

/* IBM's multiplex groups: events in the order added, at most the
 * events-per-group argument to a group; every Bgpm_SwitchMux counts, a
 * one-group set's too. */
static void test_mux_groups(void **state)
{
	(void)state;
	IN_CHILD({
		unsigned ids[] = {PEVT_AXU_IDLE, PEVT_AXU_INSTR_COMMIT, PEVT_IU_IL1_MISS, PEVT_L1P_BAS_LD,
				  PEVT_INST_QFPU_FMUL, PEVT_XU_TIMEBASE_TICK, PEVT_XU_ANY_FLUSH,
				  PEVT_IU_IS1_STALL_CYC, PEVT_L1P_STRM_WRT_INVAL, PEVT_LSU_COMMIT_AXU_LDS};
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int h = Bgpm_CreateEventSet();
		CHECK(Bgpm_SetMultiplex2(h, 0, BGPM_NORMAL, BGPMMuxMinEvts) == 0);
		CHECK(Bgpm_AddEventList(h, ids, 10) == 0);
		CHECK(Bgpm_GetMuxGroups(h) == 2);
		CHECK(Bgpm_Apply(h) == 0 && Bgpm_GetMuxGroups(h) == 2);
		CHECK(Bgpm_Start(h) == 0);
		for (int i = 0; i < 100; i++) {
			Delay(1000);
			CHECK(Bgpm_SwitchMux(h) == 0);
		}
		CHECK(Bgpm_Stop(h) == 0);
		Bgpm_MuxStats_t st;
		CHECK(Bgpm_GetMultiplex(h, &st) == 0);
		CHECK(st.numGrps == 2 && st.numSwitches == 100 && st.maxEvtsPerGrp == 5);
		CHECK(st.elapsedCycles == 100000);
		CHECK(Bgpm_GetMuxElapsedCycles(h, 0) == 50000 && Bgpm_GetMuxElapsedCycles(h, 1) == 50000);
		/* normalized: scaled to the longest group's cycles (IBM's output:
		 * the timebase of group 1 reads that group's cycles), not to all */
		uint64_t tb;
		CHECK(Bgpm_ReadEvent(h, 5, &tb) == 0 && tb == 50000);
		/* and, as in IBM's output, every one of the ten counts */
		for (int i = 0; i < 10; i++) {
			uint64_t c = 0;
			CHECK(Bgpm_ReadEvent(h, i, &c) == 0 && c > 0);
		}
		CHECK(Bgpm_DeleteEventSet(h) == 0);
		h = Bgpm_CreateEventSet();
		CHECK(Bgpm_SetMultiplex(h, 0, BGPM_NORMAL) == 0);
		CHECK(Bgpm_AddEventList(h, ids, 3) == 0);
		CHECK(Bgpm_Apply(h) == 0 && Bgpm_GetMuxGroups(h) == 1);
		CHECK(Bgpm_Start(h) == 0);
		for (int i = 0; i < 3; i++)
			CHECK(Bgpm_SwitchMux(h) == 0);
		CHECK(Bgpm_GetMultiplex(h, &st) == 0 && st.numGrps == 1 && st.numSwitches == 3);
	});
}

/* The first set to attach a link controls it; a set counting the same
 * events shares it, one counting others is refused. */
static void test_link_control(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int a = Bgpm_CreateEventSet(), b = Bgpm_CreateEventSet(), c = Bgpm_CreateEventSet();
		CHECK(Bgpm_AddEvent(a, PEVT_NW_USER_PP_SENT) == 0 && Bgpm_AddEvent(c, PEVT_NW_USER_PP_SENT) == 0);
		CHECK(Bgpm_AddEvent(b, PEVT_NW_USER_PP_RECV) == 0);
		CHECK(Bgpm_Attach(a, UPC_NW_LINK_A_MINUS | UPC_NW_LINK_A_PLUS, 0) == 0);
		CHECK(Bgpm_Attach(b, UPC_NW_LINK_A_PLUS, 0) == BGPM_ELINK_CTRS_INCOMPAT);
		CHECK(Bgpm_Attach(b, UPC_NW_LINK_B_MINUS, 0) == 0);
		CHECK(Bgpm_Attach(c, UPC_NW_LINK_A_MINUS, 0) == 0);
		CHECK(Bgpm_IsController(a) == 1 && Bgpm_IsController(b) == 1 && Bgpm_IsController(c) == 0);
		CHECK(Bgpm_DeleteEventSet(a) == 0 && Bgpm_DeleteEventSet(c) == 0);
		CHECK(Bgpm_Detach(b) == 0);
		CHECK(Bgpm_Attach(b, UPC_NW_LINK_A_PLUS, 0) == 0); /* free again */
	});
}

/* Too small an index array: the length needed comes back. */
static void test_overflow_indices(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int h = Bgpm_CreateEventSet();
		unsigned ids[] = {PEVT_CYCLES, PEVT_INST_ALL, PEVT_IU_IS1_STALL_CYC};
		CHECK(Bgpm_AddEventList(h, ids, 3) == 0);
		CHECK(Bgpm_SetOverflow(h, 0, 100000) == 0 && Bgpm_SetOverflow(h, 2, 100000) == 0);
		CHECK(Bgpm_Apply(h) == 0);
		unsigned idx[4], len = 1;
		CHECK(Bgpm_GetOverflowEventIndices(h, ~0ull, idx, &len) == BGPM_EARRAY_TOO_SMALL);
		CHECK(len == 2 && idx[0] == 0);
		CHECK(Bgpm_GetOverflowEventIndices(h, ~0ull, idx, &len) == 0);
		CHECK(len == 2 && idx[0] == 0 && idx[1] == 2);
	});
}

/* Instruction matching, FP scales, invert, the L1p mode, string lists. */
static void test_more_attributes(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int a = Bgpm_CreateEventSet(), b = Bgpm_CreateEventSet();
		char *labels[] = {"PEVT_INST_XU_MATCH", "PEVT_INST_QFPU_MATCH", "PEVT_CYCLES", NULL};
		CHECK(Bgpm_AddEventStringList(a, labels) == 3);
		CHECK(Bgpm_SetXuMatch(a, 2, 1, 1) == BGPM_EUNSUP_ATTRIB);
		CHECK(Bgpm_SetXuMatch(a, 0, 0x1234, 0xff00) == 0);
		uint16_t m, k;
		ushort sc;
		CHECK(Bgpm_GetXuMatch(a, 0, &m, &k) == 0 && m == 0x1234 && k == 0xff00);
		CHECK(Bgpm_SetQfpuMatch(a, 1, 1, 2, 4) == BGPM_EINV_PARM);
		CHECK(Bgpm_SetQfpuMatch(a, 1, 1, 2, 3) == 0);
		CHECK(Bgpm_GetQfpuMatch(a, 1, &m, &k, &sc) == 0 && m == 1 && k == 2 && sc == 3);
		CHECK(Bgpm_SetFpSqrScale(a, 2) == 0 && Bgpm_SetFpDivScale(a, 1) == 0);
		CHECK(Bgpm_GetFpSqrScale(a, &sc) == 0 && sc == 2);
		CHECK(Bgpm_GetFpDivScale(a, &sc) == 0 && sc == 1);
		CHECK(Bgpm_AllowMixedContext(a) == 0);
		CHECK(Bgpm_Apply(a) == 0);
		CHECK(Bgpm_SetXuMatch(a, 0, 1, 1) == BGPM_EES_FROZEN);
		/* the core's sets agree on the match and the scales */
		CHECK(Bgpm_AddEventString(b, "PEVT_INST_XU_MATCH") == 0);
		CHECK(Bgpm_SetXuMatch(b, 0, 0x1234, 0x00ff) == BGPM_EXU_RSV_MISMATCH);
		CHECK(Bgpm_SetXuMatch(b, 0, 0x1234, 0xff00) == 0);
		CHECK(Bgpm_SetFpSqrScale(b, 1) == BGPM_ESQRT_SCALE_MISMATCH);
		CHECK(Bgpm_SetFpDivScale(b, 2) == BGPM_EDIV_SCALE_MISMATCH);
		CHECK(Bgpm_DeleteEventSet(a) == 0 && Bgpm_DeleteEventSet(b) == 0);
		/* an inverted cycle event counts the cycles its signal is low */
		a = Bgpm_CreateEventSet();
		unsigned ids[] = {PEVT_CYCLES, PEVT_IU_IS1_STALL_CYC, PEVT_IU_IS1_STALL_CYC};
		CHECK(Bgpm_AddEventList(a, ids, 3) == 0);
		CHECK(Bgpm_SetEventInvert(a, 0, 1) == BGPM_EUNSUP_ATTRIB); /* not an A2 unit event */
		CHECK(Bgpm_SetEventInvert(a, 2, 1) == 0);
		ushort inv;
		CHECK(Bgpm_GetEventInvert(a, 2, &inv) == 0 && inv == 1);
		CHECK(Bgpm_Apply(a) == 0 && Bgpm_Start(a) == 0);
		Delay(100000);
		CHECK(Bgpm_Stop(a) == 0);
		uint64_t v[3];
		unsigned n = 3;
		CHECK(Bgpm_ReadEventList(a, v, &n) == 0);
		CHECK(v[1] > 0 && v[1] < v[0] && v[2] == v[0] - v[1]);
		Bgpml1pModes mode;
		CHECK(Bgpm_GetL1pMode(a, &mode) == 0 && mode == BGPMl1pMode_UNDEF);
		CHECK(Bgpm_DeleteEventSet(a) == 0);
		a = Bgpm_CreateEventSet();
		CHECK(Bgpm_AddEvent(a, PEVT_L1P_STRM_WRT_INVAL) == 0);
		CHECK(Bgpm_GetL1pMode(a, &mode) == 0 && mode == BGPMl1pMode_STREAM);
		CHECK(Bgpm_SetQfpuFp(a, 0, 1) == BGPM_EUNSUP_ATTRIB);
		/* FP operations: the QFPU opcode events only, not the A2 AXU unit's */
		CHECK(Bgpm_AddEvent(a, PEVT_AXU_IDLE) == 0 && Bgpm_AddEvent(a, PEVT_INST_QFPU_FMUL) == 0);
		CHECK(Bgpm_SetQfpuFp(a, 1, 1) == BGPM_EUNSUP_ATTRIB);
		CHECK(Bgpm_SetQfpuFp(a, 2, 1) == 0);
		CHECK(Bgpm_GetQfpuFp(a, 2, &sc) == 0 && sc == 1);
		CHECK(Bgpm_GetQfpuFp(a, 1, &sc) == 0 && sc == 0);
		/* as IBM's: on a set with no events, or of another unit */
		b = Bgpm_CreateEventSet();
		CHECK(Bgpm_AllowMixedContext(b) == BGPM_EEVT_SET_UNASSIGNED);
		CHECK(Bgpm_SetFpSqrScale(b, 1) == BGPM_EEVT_SET_UNASSIGNED);
		CHECK(Bgpm_AddEvent(b, PEVT_L2_HITS) == 0);
		CHECK(Bgpm_AllowMixedContext(b) == BGPM_EINV_OP);
		CHECK(Bgpm_SetFpDivScale(b, 1) == BGPM_EINV_OP);
		CHECK(Bgpm_SetXuMatch(b, 0, 1, 1) == BGPM_EINV_OP);
		CHECK(Bgpm_SetEventInvert(b, 0, 1) == BGPM_EINV_OP);
	});
}

/* Feedback, dumps and dump-on-error print what the sets hold (our format). */
static void test_printing(void **state)
{
	(void)state;
	IN_CHILD({
		int fds[2];
		CHECK(pipe(fds) == 0);
		int err = dup(2);
		dup2(fds[1], 2);
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int h = Bgpm_CreateEventSet();
		char fb[BGPM_FEEDBACK_BUFSIZE];
		CHECK(Bgpm_SetThreadFeedbackBuffer(h, fb, sizeof fb) == 0 && fb[0] == '\0');
		CHECK(Bgpm_AddEventString(h, "PEVT_L1P_BAS_HIT PEVT_L1P_BAS_ST_32BYTE") == 0);
		CHECK(Bgpm_Apply(h) == BGPM_ECTRRESERVED); /* one counter for both */
		CHECK(strstr(fb, "event set") != NULL);
		CHECK(Bgpm_PrintFeedbackBuffer(fb, (int)strlen(fb)) == 0);
		CHECK(Bgpm_DumpEvtSet(h, 1) == 0);
		CHECK(Bgpm_DumpOnError(1) == 0);
		CHECK(Bgpm_AddEvent(h, 0) == BGPM_EINV_EVENT); /* dumps every set */
		int nw = Bgpm_CreateEventSet();
		CHECK(Bgpm_AddEvent(nw, PEVT_NW_USER_PP_SENT) == 0 && Bgpm_Attach(nw, UPC_NW_LINK_C_PLUS, 0) == 0);
		Bgpm_DebugDumpShrMem();
		CHECK(Bgpm_PrintCurrentPunitReservations(nw) == BGPM_EINV_OP);
		Bgpm_DumpUPCPState();
		Bgpm_EnableTracePrint();
		Bgpm_DisableTracePrint();
		CHECK(Bgpm_SetThreadFeedbackBuffer(h, fb, 0) == BGPM_EINV_PARM);
		CHECK(Bgpm_PrintFeedbackBuffer(NULL, 1) == BGPM_EINV_PARM);
		CHECK(Bgpm_AddEventStringList(h, NULL) == BGPM_EINV_PARM);
		Bgpml1pModes mode;
		CHECK(Bgpm_GetL1pMode(nw, &mode) == BGPM_EUNSUP_ATTRIB);
		fflush(stderr);
		dup2(err, 2);
		close(fds[1]);
		char out[8192];
		ssize_t n = read(fds[0], out, sizeof out - 1);
		CHECK(n > 0);
		out[n] = '\0';
		CHECK(strstr(out, fb) != NULL);
		const char *a = strstr(out, "PEVT_L1P_BAS_ST_32BYTE");
		CHECK(a && strstr(a + 1, "PEVT_L1P_BAS_ST_32BYTE")); /* the dump, then dump-on-error */
		CHECK(strstr(out, "libbgpm: mode 2") != NULL);
		CHECK(strstr(out, "libbgpm: link 5: 1 sets, controlled by set") != NULL);
		CHECK(strstr(out, "libbgpm: Punit set") != NULL); /* DumpUPCPState */
	});
}

/* What a core has once: the L1p mode (the set's events and the core's
 * applied sets agree), the whole core for a core-shared event. */
static void *core_shared(void *arg)
{
	Bgpm_PrintOnError(0);
	Bgpm_ExitOnError(0);
	int *rc = arg;
	Bgpm_Init(BGPM_MODE_SWDISTRIB);
	int h = Bgpm_CreateEventSet();
	Bgpm_AddEvent(h, PEVT_XU_PROC_BUSY);
	if (!(*rc = Bgpm_Apply(h)))
		*rc = Bgpm_Start(h);
	Bgpm_Disable();
	return NULL;
}

static void test_l1p_mode(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int a = Bgpm_CreateEventSet(), b = Bgpm_CreateEventSet();
		CHECK(Bgpm_AddEvent(a, PEVT_L1P_STRM_WRT_INVAL) == 0);
		CHECK(Bgpm_AddEvent(a, PEVT_L1P_LIST_SKIP) == BGPM_EL1PMODERESERVED);
		CHECK(Bgpm_AddEvent(a, PEVT_L1P_BAS_LD) == 0); /* no mode */
		CHECK(Bgpm_AddEvent(b, PEVT_L1P_LIST_SKIP) == 0); /* a is not applied */
		CHECK(Bgpm_Apply(a) == 0 && Bgpm_Start(a) == 0);
		CHECK(Bgpm_AddEvent(b, PEVT_L1P_SW_TLB_FILL) == BGPM_EL1PMODERESERVED);
	});
}

static void test_core_shared(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int a = Bgpm_CreateEventSet();
		CHECK(Bgpm_AddEvent(a, PEVT_CYCLES) == 0 && Bgpm_Apply(a) == 0 && Bgpm_Start(a) == 0);
		/* another thread of the core cannot have all its counters while a counts */
		int rc = 0;
		pthread_t t;
		pthread_create(&t, NULL, core_shared, &rc);
		pthread_join(t, NULL);
		CHECK(rc == BGPM_ECSEVT_REQALLTHDS);
		CHECK(Bgpm_DeleteEventSet(a) == 0);
		pthread_create(&t, NULL, core_shared, &rc);
		pthread_join(t, NULL);
		CHECK(rc == 0);
	});
}

/* One threshold per node-wide counter. */
static void test_threshold(void **state)
{
	(void)state;
	IN_CHILD({
		CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0);
		int a = Bgpm_CreateEventSet(), b = Bgpm_CreateEventSet();
		CHECK(Bgpm_AddEvent(a, PEVT_L2_HITS) == 0 && Bgpm_SetOverflow(a, 0, 5000) == 0);
		CHECK(Bgpm_AddEvent(b, PEVT_L2_HITS) == 0);
		CHECK(Bgpm_SetOverflow(b, 0, 1000) == BGPM_ETHRES_MISMATCH);
		CHECK(Bgpm_SetOverflow(b, 0, 5000) == 0);
	});
}

/* Every code has its own text. */
static void test_error_strings(void **state)
{
	(void)state;
	const char *unknown = Bgpm_ErrorString(-1);
	int codes[100], n = 0;
	for (int c = BGPM_EINTERNAL; c >= BGPM_ECSEVT_REQALLTHDS; c--)
		codes[n++] = c;
	for (int c = BGPM_MIN_ERRNO; c >= BGPM_MAX_ERRNO; c--)
		codes[n++] = c;
	for (int c = BGPM_MIN_WARNING_NO; c <= BGPM_MAX_WARNING_NO; c++)
		codes[n++] = c;
	for (int i = 0; i < n; i++) {
		assert_string_equal(Bgpm_ErrStrg(codes[i]), Bgpm_ErrorString(codes[i]));
		assert_string_not_equal(Bgpm_ErrorString(codes[i]), unknown);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(Bgpm_ErrorString(codes[i]), Bgpm_ErrorString(codes[j]));
	}
}

int main(void)
{
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=0,activity=compute,ppn=16", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers_and_geometry),
		cmocka_unit_test(test_processor_id),
		cmocka_unit_test(test_timebase_host),
		cmocka_unit_test(test_hwdistrib),
		cmocka_unit_test(test_hwdistrib_churn),
		cmocka_unit_test(test_one_mode),
		cmocka_unit_test(test_mux_groups),
		cmocka_unit_test(test_link_control),
		cmocka_unit_test(test_overflow_indices),
		cmocka_unit_test(test_more_attributes),
		cmocka_unit_test(test_printing),
		cmocka_unit_test(test_l1p_mode),
		cmocka_unit_test(test_core_shared),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_error_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
