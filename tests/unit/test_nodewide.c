/* The node-wide BG/Q units: L2 (combined or per slice, a node-wide mode),
 * the I/O unit's message-unit model and the CNK software counters, all on
 * the activity of one simulated node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "../../sim_backends/bgq/bgq.h"

static clab_machine *m;
static clab_component *core, *l2, *io, *kern;

static void open_node(const char *spec)
{
	m = open_machine(spec);
	core = clab_machine_component(m, "core");
	l2 = clab_machine_component(m, "l2");
	io = clab_machine_component(m, "io");
	kern = clab_machine_component(m, "kernel");
	assert_non_null(core);
	assert_non_null(l2);
	assert_non_null(io);
	assert_non_null(kern);
}

static int setup(void **state)
{
	(void)state;
	open_node("bgq:clock=virtual,activity=none,kernel.fit_period=1000,kernel.irq_packets=4");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	clab_machine_close(m);
	return 0;
}

static clab_thread *hw(int h) { return attach_hw(m, h); }

static void work1(clab_thread *t, uint64_t cycles, const char *ev, uint64_t n)
{
	const char *evs[1] = {ev};
	int rc = clab_thread_work(t, cycles, evs, &n, 1);
	if (rc)
		fail_msg("work %s: %s", ev, clab_errmsg());
}

/* L1p misses of which some miss L2 too. */
static void loads(clab_thread *t, uint64_t l1p_miss, uint64_t l2_miss)
{
	const char *evs[2] = {"PEVT_L1P_BAS_MISS", "PEVT_L2_MISSES"};
	uint64_t n[2] = {l1p_miss, l2_miss};
	assert_int_equal(clab_thread_work(t, 4 * l1p_miss + 1, evs, n, 2), CLAB_OK);
}

static void read_all(clab_evset *s, int64_t *v)
{
	int rc = clab_evset_read(s, v);
	if (rc)
		fail_msg("read: %s", clab_errmsg());
}

/* The constants the model names by table position still name those events. */
static void test_tables(void **state)
{
	(void)state;
	assert_string_equal(bgq_punit_natives[BGQ_EV_L1P_MISS].name, "PEVT_L1P_BAS_MISS");
	assert_string_equal(bgq_punit_natives[BGQ_EV_CYCLES].name, "PEVT_CYCLES");
	assert_string_equal(bgq_punit_natives[BGQ_EV_ST].name, "PEVT_INST_XU_ST");
	assert_string_equal(bgq_punit_natives[BGQ_EV_FST].name, "PEVT_INST_XU_FST");
	assert_string_equal(bgq_punit_natives[BGQ_EV_QST].name, "PEVT_INST_XU_QST");
	static const char *const l2c[] = {"PEVT_L2_HITS", "PEVT_L2_MISSES",
		"PEVT_L2_PREFETCH", "PEVT_L2_FETCH_LINE"};
	for (int i = 0; i < 4; i++)
		assert_string_equal(bgq_nev_name(BGQ_NEV_L2 + i), l2c[i]);
	assert_string_equal(bgq_nev_name(BGQ_NEV_L2 + 8), "PEVT_L2_REQ_MISS_AND_EVICT");
	assert_string_equal(bgq_nev_name(BGQ_NEV_L2 + 10), "PEVT_L2_MISS_AND_EVICT");
	for (int i = 0; i < BGQ_L2_CTRS; i++) /* a _SLICE event shares its counter */
		assert_int_equal(bgq_l2unit_natives[i].ctr_mask,
				 bgq_l2unit_natives[i + BGQ_L2_CTRS].ctr_mask);
	static const char *const io_pos[][2] = {
		{"0", "PEVT_MU_PKT_INJ"}, {"2", "PEVT_MU_FIFO_PKT_RCV"},
		{"5", "PEVT_MU_PORT0_16B_WRT"}, {"16", "PEVT_MU_PORT2_128B_RD"},
		{"17", "PEVT_MU_SLV_PORT_RD"}, {"19", "PEVT_MU_PORT0_PEND_WRT"},
		{"24", "PEVT_MU_PORT2_PEND_RD"}, {"25", "PEVT_PCIE_INB_RD_BYTES"},
	};
	for (size_t i = 0; i < sizeof io_pos / sizeof io_pos[0]; i++)
		assert_string_equal(bgq_iounit_natives[atoi(io_pos[i][0])].name, io_pos[i][1]);
	assert_string_equal(bgq_cnkunit_natives[0].name, "PEVT_CNKNODE_MUINT");
	assert_string_equal(bgq_cnkunit_natives[2].name, "PEVT_CNKHWT_SYSCALL");
	assert_string_equal(bgq_cnkunit_natives[2 + 3].name, "PEVT_CNKHWT_DECREMENTER");
	assert_string_equal(bgq_cnkunit_natives[2 + 4].name, "PEVT_CNKHWT_FIT");
	assert_string_equal(bgq_cnkunit_natives[2 + 7].name, "PEVT_CNKHWT_PERFMON");
}

/* 32 L2, 44 I/O and 29 CNK events; the reserved CNK id is no event. */
static void test_catalogs(void **state)
{
	(void)state;
	clab_component_info ci;
	clab_component_get_info(l2, &ci);
	assert_int_equal(ci.nnative, 32);
	assert_int_equal(ci.scope, CLAB_SCOPE_NODE);
	clab_component_get_info(io, &ci);
	assert_int_equal(ci.nnative, 44);
	assert_int_equal(ci.ncounters, 44);
	clab_component_get_info(kern, &ci);
	assert_int_equal(ci.nnative, 29);
	uint32_t code;
	assert_int_equal(clab_event_lookup(kern, "PEVT_CNKPROC_RSV", &code), CLAB_E_NOEVENT);
	clab_event_info ei;
	assert_int_equal(clab_event_get_info(kern, code_of(kern, "PEVT_CNKHWT_FIT"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_THREAD);
	assert_int_equal(clab_event_get_info(kern, code_of(kern, "PEVT_CNKNODE_NDINT"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_NODE);
	assert_int_equal(clab_event_get_info(l2, code_of(l2, "L2_ACCESSES"), &ei), CLAB_OK);
	assert_true(ei.is_preset);
	assert_int_equal(ei.derived, CLAB_DERIVED_ADD);
	assert_int_equal(clab_event_lookup(l2, "PEVT_L2_HITS_SLICE:slice=16", &code),
			 CLAB_E_QUALIFIER);
	assert_int_equal(clab_event_lookup(l2, "PEVT_L2_HITS:slice=1", &code),
			 CLAB_E_QUALIFIER);
}

static void test_l2_mode(void **state)
{
	(void)state;
	clab_thread *a = hw(0), *b = hw(4);
	clab_evset *sa = NULL, *sb = NULL;
	/* one set cannot mix the two views */
	const char *mixed[] = {"PEVT_L2_HITS", "PEVT_L2_MISSES_SLICE:slice=1"};
	assert_int_equal(program(l2, a, &sa, mixed, 2), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "PEVT_L2_HITS"));
	assert_non_null(strstr(clab_errmsg(), "PEVT_L2_MISSES_SLICE"));
	/* the first running set fixes the node's mode, for every thread;
	 * the other mode is refused at start, naming the holder */
	const char *comb[] = {"PEVT_L2_HITS"};
	const char *sl[] = {"PEVT_L2_HITS_SLICE:slice=2"};
	assert_int_equal(program(l2, a, &sa, comb, 1), CLAB_OK);
	assert_int_equal(program(l2, b, &sb, sl, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(sa), CLAB_OK);
	assert_int_equal(clab_evset_start(sb), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "combined mode"));
	assert_non_null(strstr(clab_errmsg(), "PEVT_L2_HITS"));
	/* a stopped set holds no mode */
	assert_int_equal(clab_evset_stop(sa, NULL), CLAB_OK);
	assert_int_equal(clab_evset_start(sb), CLAB_OK);
	assert_int_equal(clab_evset_start(sa), CLAB_E_CONFLICT);
	assert_non_null(strstr(clab_errmsg(), "sliced mode"));
	/* sets of one mode run together */
	assert_int_equal(program(l2, a, &sa, sl, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(sa), CLAB_OK);
	clab_evset_destroy(sa); /* a running set goes: its hold goes with it */
	assert_int_equal(clab_evset_stop(sb, NULL), CLAB_OK);
	assert_int_equal(program(l2, b, &sb, comb, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(sb), CLAB_OK); /* the node is free */
	clab_evset_destroy(sb);
	clab_thread_detach(a);
	clab_thread_detach(b);
}

/* Node-wide: any thread reads the same counts, caused by all threads. */
static void test_l2_node_wide(void **state)
{
	(void)state;
	clab_thread *a = hw(8), *b = hw(21), *c = hw(22), *d = hw(50);
	clab_evset *sa = NULL, *sb = NULL;
	const char *ev[] = {"PEVT_L2_HITS", "PEVT_L2_MISSES", "PEVT_L2_FETCH_LINE",
			    "L2_ACCESSES", "PEVT_L2_REQ_MISS_AND_EVICT"};
	assert_int_equal(program(l2, a, &sa, ev, 5), CLAB_OK);
	assert_int_equal(program(l2, b, &sb, ev, 5), CLAB_OK);
	assert_int_equal(clab_evset_start(sa), CLAB_OK);
	assert_int_equal(clab_evset_start(sb), CLAB_OK);
	loads(c, 1000, 100);
	loads(d, 500, 50);
	loads(a, 7, 0);
	int64_t va[5], vb[5];
	read_all(sa, va);
	read_all(sb, vb);
	assert_memory_equal(va, vb, sizeof va);
	assert_int_equal(va[0], 1507 - 150);
	assert_int_equal(va[1], 150);
	assert_int_equal(va[2], 150);
	assert_int_equal(va[3], 1507);
	assert_int_equal(va[4], 150);
	clab_evset_destroy(sa);
	clab_evset_destroy(sb);
	clab_thread_detach(a);
	clab_thread_detach(b);
	clab_thread_detach(c);
	clab_thread_detach(d);
}

/* The A2's L1D writes through: every store is an L2 lookup, a hit (the
 * model gives the L2 no store misses), beside the loads the L1p passes on. */
static void test_l2_stores_hit(void **state)
{
	(void)state;
	clab_thread *a = hw(3), *c = hw(40);
	clab_evset *s = NULL;
	const char *ev[] = {"PEVT_L2_HITS", "PEVT_L2_MISSES", "L2_ACCESSES"};
	assert_int_equal(program(l2, a, &s, ev, 3), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	const char *w[] = {"PEVT_L1P_BAS_MISS", "PEVT_L2_MISSES", "PEVT_INST_XU_ST",
			   "PEVT_INST_XU_FST", "PEVT_INST_XU_QST"};
	uint64_t n[] = {100, 10, 300, 20, 10};
	assert_int_equal(clab_thread_work(c, 1000, w, n, 5), CLAB_OK);
	int64_t v[3];
	read_all(s, v);
	assert_int_equal(v[0], 100 - 10 + 330);
	assert_int_equal(v[1], 10);
	assert_int_equal(v[2], 430);
	clab_evset_destroy(s);
	clab_thread_detach(a);
	clab_thread_detach(c);
}

/* Summed over slices, a _SLICE event equals its combined event for the same
 * activity; consecutive lines of a thread go to consecutive slices. */
static void run_stream(uint64_t *hits, uint64_t *misses, int sliced)
{
	open_node("bgq:clock=virtual,activity=compute");
	clab_thread *t[3] = {hw(0), hw(17), hw(66)};
	clab_evset *s = NULL;
	char names[32][48];
	const char *ev[32];
	int n = sliced ? 32 : 2;
	for (int i = 0; i < n; i++) {
		if (sliced)
			snprintf(names[i], sizeof names[i], "PEVT_L2_%s_SLICE:slice=%d",
				 i < 16 ? "HITS" : "MISSES", i % 16);
		else
			snprintf(names[i], sizeof names[i], "PEVT_L2_%s", i ? "MISSES" : "HITS");
		ev[i] = names[i];
	}
	assert_int_equal(program(l2, t[0], &s, ev, n), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	for (int i = 0; i < 3; i++)
		assert_int_equal(clab_thread_advance(t[i], 3000000 + 77777 * (uint64_t)i), CLAB_OK);
	loads(t[1], 100, 3);
	int64_t v[32];
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	if (sliced) {
		for (int i = 0; i < 16; i++) {
			hits[i] = (uint64_t)v[i];
			misses[i] = (uint64_t)v[16 + i];
		}
	} else {
		hits[0] = (uint64_t)v[0];
		misses[0] = (uint64_t)v[1];
	}
	clab_evset_destroy(s);
	clab_machine_close(m);
	m = NULL;
}

static void test_l2_slices(void **state)
{
	(void)state;
	clab_machine *keep = m; /* setup's machine, back for the next tests */
	clab_component *kc[4] = {core, l2, io, kern};
	uint64_t ch, cm, sh[16], sm[16], th = 0, tm = 0;
	run_stream(&ch, &cm, 0);
	run_stream(sh, sm, 1);
	for (int i = 0; i < 16; i++) {
		th += sh[i];
		tm += sm[i];
		/* lines spread round-robin: slices differ by at most one line per
		 * thread (three threads here) */
		for (int j = 0; j < 16; j++)
			assert_true(sh[i] <= sh[j] + 3);
	}
	assert_true(ch > 1000);
	assert_int_equal(th, ch);
	assert_int_equal(tm, cm);
	m = keep;
	core = kc[0];
	l2 = kc[1];
	io = kc[2];
	kern = kc[3];
}

/* The j-th line of thread h goes to slice (h + j) mod 16. */
static void test_l2_slice_spread(void **state)
{
	(void)state;
	clab_thread *t = hw(19); /* starts at slice 3 */
	clab_evset *s = NULL;
	char names[16][48];
	const char *ev[16];
	for (int i = 0; i < 16; i++) {
		snprintf(names[i], sizeof names[i], "PEVT_L2_HITS_SLICE:slice=%d", i);
		ev[i] = names[i];
	}
	assert_int_equal(program(l2, t, &s, ev, 16), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	loads(t, 100, 0);
	int64_t v[16];
	read_all(s, v);
	for (int i = 0; i < 16; i++)
		assert_int_equal(v[i], i >= 3 && i < 7 ? 7 : 6);
	/* without :slice=N a _SLICE event reads slice 0 */
	const char *bare[] = {"PEVT_L2_HITS_SLICE", "PEVT_L2_HITS_SLICE:slice=0"};
	assert_int_equal(clab_evset_stop(s, NULL), CLAB_OK);
	assert_int_equal(program(l2, t, &s, bare, 2), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	loads(t, 33, 0);
	read_all(s, v);
	assert_int_equal(v[0], 2);
	assert_int_equal(v[1], 2);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* L2 lookups are the L1p misses of all threads: per-thread core counts of
 * PEVT_L1P_BAS_MISS add up to the L2 unit's hits + misses. */
static void test_l2_equals_l1p(void **state)
{
	(void)state;
	clab_thread *t[4] = {hw(1), hw(2), hw(30), hw(67)};
	clab_evset *cs[4] = {NULL}, *ls = NULL;
	const char *l1p[] = {"PEVT_L1P_BAS_MISS"}, *acc[] = {"L2_ACCESSES"};
	assert_int_equal(program(l2, t[0], &ls, acc, 1), CLAB_OK);
	for (int i = 0; i < 4; i++)
		assert_int_equal(program(core, t[i], &cs[i], l1p, 1), CLAB_OK);
	for (int i = 0; i < 4; i++)
		assert_int_equal(clab_evset_start(cs[i]), CLAB_OK);
	assert_int_equal(clab_evset_start(ls), CLAB_OK);
	for (int i = 0; i < 4; i++)
		loads(t[i], 1000 * (uint64_t)(i + 1) + 3, (uint64_t)i);
	int64_t sum = 0, v;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(clab_evset_stop(cs[i], &v), CLAB_OK);
		sum += v;
	}
	assert_int_equal(clab_evset_stop(ls, &v), CLAB_OK);
	assert_int_equal(sum, 10012);
	assert_int_equal(v, sum);
	for (int i = 0; i < 4; i++) {
		clab_evset_destroy(cs[i]);
		clab_thread_detach(t[i]);
	}
	clab_evset_destroy(ls);
}

/* L2 hits are lookups less misses, which come at another rate: read at
 * every cycle over two laps of a profile whose phases have other ratios of
 * the two (neither a whole number), no counter of an L2 set goes down, and
 * hits + misses stay the lookups, the L1p misses. */
static void test_l2_monotone(void **state)
{
	(void)state;
	char path[] = "/tmp/clab-l2mono-XXXXXX.ini";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("[profile]\ndescription = two miss ratios\n"
	      "[phase a]\ncycles = 7001\nPEVT_L1P_BAS_MISS = 0.0015\nPEVT_L2_MISSES = 0.0002\n"
	      "[phase b]\ncycles = 3001\nPEVT_L1P_BAS_MISS = 0.003\nPEVT_L2_MISSES = 0.0007\n", f);
	fclose(f);
	char spec[128];
	snprintf(spec, sizeof spec, "bgq:clock=virtual,activity=%s", path);
	clab_machine *x = open_machine(spec);
	clab_thread *t = attach_hw(x, 5);
	clab_evset *s = NULL, *c = NULL;
	const char *l2ev[] = {"PEVT_L2_HITS", "PEVT_L2_MISSES", "L2_ACCESSES"};
	const char *l1p[] = {"PEVT_L1P_BAS_MISS"};
	assert_int_equal(program(clab_machine_component(x, "l2"), t, &s, l2ev, 3), CLAB_OK);
	assert_int_equal(program(clab_machine_component(x, "core"), t, &c, l1p, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(c), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	int64_t v[3], last[3] = {0};
	for (int cyc = 1; cyc <= 2 * (7001 + 3001) + 10; cyc++) {
		assert_int_equal(clab_thread_advance(t, 1), CLAB_OK);
		read_all(s, v);
		for (int i = 0; i < 3; i++)
			if (v[i] < last[i])
				fail_msg("cycle %d: %s went from %lld to %lld", cyc, l2ev[i],
					 (long long)last[i], (long long)v[i]);
		assert_int_equal(v[0] + v[1], v[2]);
		memcpy(last, v, sizeof v);
	}
	int64_t p;
	assert_int_equal(clab_evset_stop(c, &p), CLAB_OK);
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	assert_int_equal(v[2], p);
	assert_true(v[1] > 0 && v[0] > v[1]);
	clab_evset_destroy(s);
	clab_evset_destroy(c);
	clab_thread_detach(t);
	clab_machine_close(x);
	unlink(path);
}

/* Message-unit counts of one send and one receive, PCIe idle. */
static void test_io_messages(void **state)
{
	(void)state;
	clab_thread *t = hw(12);
	clab_evset *s = NULL;
	const char *ev[] = {"PEVT_MU_MSG_INJ", "PEVT_MU_PKT_INJ", "PEVT_MU_PORT0_128B_RD",
			    "PEVT_MU_PORT0_64B_RD", "PEVT_MU_PORT0_PEND_RD",
			    "PEVT_MU_FIFO_PKT_RCV", "PEVT_MU_PORT1_16B_WRT",
			    "PEVT_PCIE_INB_RD_BYTES", "PEVT_PCIE_TX_TLP",
			    "PEVT_DB_MSG_SIG_INTS", "MU_PORT0_RD_BYTES"};
	assert_int_equal(program(io, t, &s, ev, 11), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	/* 1000 bytes: packets of 512 + 488; a 64-byte descriptor read, then
	 * 4 x 128 and 3 x 128 + a 104-byte tail read as 128 */
	assert_int_equal(clab_thread_message(t, CLAB_MSG_SEND, 1000), CLAB_OK);
	/* 100 bytes into a memory FIFO: header + payload = 132 bytes = 9 x 16 */
	assert_int_equal(clab_thread_message(t, CLAB_MSG_RECV_FIFO, 100), CLAB_OK);
	work1(t, 1000, "PEVT_CNKHWT_SYSCALL", 1); /* time passes */
	int64_t v[11];
	read_all(s, v);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2);
	assert_int_equal(v[2], 8);
	assert_int_equal(v[3], 1);
	assert_int_equal(v[4], 9 * 80); /* requests x [io] port_latency */
	assert_int_equal(v[5], 1);
	assert_int_equal(v[6], 9);
	assert_int_equal(v[7], 0);
	assert_int_equal(v[8], 0);
	assert_int_equal(v[9], 0);
	assert_int_equal(v[10], 8 * 128 + 64);
	assert_int_equal(clab_thread_message(t, (enum clab_msg)9, 1), CLAB_E_INVAL);
	clab_evset_destroy(s);
	clab_thread_detach(t);
}

/* An I/O sum moves only with the threads' messages (their work), so it
 * looks again only at threads whose work changed: every later message of a
 * thread it has summed still counts, and clocks moving alone change
 * nothing. */
static void test_io_sum_follows_messages(void **state)
{
	(void)state;
	clab_thread *t = hw(20), *u = hw(21);
	clab_evset *s = NULL;
	const char *ev[] = {"PEVT_MU_MSG_INJ"};
	assert_int_equal(program(io, t, &s, ev, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	int64_t v[1];
	for (int64_t k = 1; k <= 3; k++) {
		assert_int_equal(clab_thread_message(t, CLAB_MSG_SEND, 100), CLAB_OK);
		read_all(s, v);
		assert_int_equal(v[0], 2 * k - 1);
		assert_int_equal(clab_thread_advance(t, 5000), CLAB_OK);
		assert_int_equal(clab_thread_advance(u, 5000), CLAB_OK);
		read_all(s, v);
		assert_int_equal(v[0], 2 * k - 1);
		assert_int_equal(clab_thread_message(u, CLAB_MSG_SEND, 100), CLAB_OK);
		read_all(s, v);
		assert_int_equal(v[0], 2 * k);
	}
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_thread_detach(u);
}

/* Each CNK event set reports deltas since its own start; per-thread
 * counters are the set's thread's, node counters the node's. */
static void test_cnk_deltas(void **state)
{
	(void)state;
	clab_thread *a = hw(20), *b = hw(40);
	clab_evset *s1 = NULL, *s2 = NULL, *sb = NULL;
	const char *ev[] = {"PEVT_CNKHWT_SYSCALL", "PEVT_CNKHWT_FIT",
			    "PEVT_CNKNODE_NDINT", "PEVT_CNKNODE_MUINT",
			    "PEVT_CNKHWT_DECREMENTER", "CNK_TIMER_INTS"};
	assert_int_equal(program(kern, a, &s1, ev, 6), CLAB_OK);
	assert_int_equal(program(kern, a, &s2, ev, 6), CLAB_OK);
	assert_int_equal(program(kern, b, &sb, ev, 6), CLAB_OK);
	assert_int_equal(clab_evset_start(s1), CLAB_OK);
	assert_int_equal(clab_evset_start(sb), CLAB_OK);
	work1(a, 2500, "PEVT_CNKHWT_SYSCALL", 3);      /* FIT at 1000, 2000 */
	assert_int_equal(clab_evset_start(s2), CLAB_OK);
	work1(a, 1000, "PEVT_CNKHWT_SYSCALL", 2);      /* FIT at 3000 */
	work1(b, 500, "PEVT_CNKNODE_NDINT", 5);
	for (int i = 0; i < 3; i++) /* 3 x 3 packets: 2 interrupts every 4 */
		assert_int_equal(clab_thread_message(b, CLAB_MSG_RECV_FIFO, 1500), CLAB_OK);
	int64_t v1[6], v2[6], vb[6];
	read_all(s1, v1);
	read_all(s2, v2);
	read_all(sb, vb);
	int64_t w1[6] = {5, 3, 5, 2, 0, 3}, w2[6] = {2, 1, 5, 2, 0, 1};
	int64_t wb[6] = {0, 0, 5, 2, 0, 0};
	assert_memory_equal(v1, w1, sizeof w1);
	assert_memory_equal(v2, w2, sizeof w2);
	assert_memory_equal(vb, wb, sizeof wb);
	/* after a stop the set keeps its counts; a restart starts from zero */
	assert_int_equal(clab_evset_stop(s1, v1), CLAB_OK);
	work1(a, 100, "PEVT_CNKHWT_SYSCALL", 1);
	read_all(s1, v1);
	assert_int_equal(v1[0], 5);
	assert_int_equal(clab_evset_start(s1), CLAB_OK);
	work1(a, 100, "PEVT_CNKHWT_SYSCALL", 1);
	read_all(s1, v1);
	assert_int_equal(v1[0], 1);
	clab_evset_destroy(s1);
	clab_evset_destroy(s2);
	clab_evset_destroy(sb);
	clab_thread_detach(a);
	clab_thread_detach(b);
}

/* What a profile or work may not set, and unit keys in the spec. */
static void test_bad_input(void **state)
{
	(void)state;
	clab_thread *t = hw(33);
	const char *evs[2] = {"PEVT_MU_PKT_INJ", "PEVT_CNKHWT_FIT"};
	uint64_t n[2] = {1, 1};
	assert_int_equal(clab_thread_work(t, 10, evs, n, 1), CLAB_E_INVAL);
	assert_non_null(strstr(clab_errmsg(), "message traffic"));
	assert_int_equal(clab_thread_work(t, 10, evs + 1, n, 1), CLAB_E_INVAL);
	assert_non_null(strstr(clab_errmsg(), "timer"));
	const char *l2h[1] = {"PEVT_L2_HITS"};
	assert_int_equal(clab_thread_work(t, 10, l2h, n, 1), CLAB_E_INVAL);
	const char *two[2] = {"PEVT_L1P_BAS_MISS", "PEVT_L2_MISSES"};
	uint64_t more[2] = {3, 4};
	assert_int_equal(clab_thread_work(t, 10, two, more, 2), CLAB_E_RATE);
	assert_non_null(strstr(clab_errmsg(), "more L2 misses"));
	clab_thread_detach(t);

	static const struct { const char *spec, *want; } bad[] = {
		{"bgq:kernel.nope=1", "has no key 'nope' (known: fit_period, dec_period, irq_packets, "
				      "syscall_cycles, irq_cycles)"},
		{"bgq:network.x=1", "has no key 'x' (known: rank, order"},
		{"bgq:kernel.fit_period=-3", "not an integer"},
		{"bgq:io.port_latency=0", "not an integer"},
		{"bgq:.x=1", "unknown machine override"},
		{"bgq:network.drain_links=0", "drain_links=0: want a number in 0.01..1000"},
		{"bgq:network.o_send_s=fast", "o_send_s=fast: want a number"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		clab_machine *x = NULL;
		assert_int_equal(clab_machine_open(bad[i].spec, &x), CLAB_E_PROFILE);
		if (!strstr(clab_errmsg(), bad[i].want))
			fail_msg("%s: '%s' lacks '%s'", bad[i].spec, clab_errmsg(), bad[i].want);
	}
	/* the torus model's parameters are [network] keys of the profile */
	clab_machine *ok = NULL;
	assert_int_equal(clab_machine_open("bgq:network.drain_links=3,network.flop_eff=0.2", &ok), CLAB_OK);
	clab_machine_close(ok);
}

/* A node-wide sum looks only at the threads that changed since it was
 * last taken (the node's change log), or at every live thread when more
 * changed than the log holds: either way it equals a sum taken afresh. */
static void test_sum_catches_up(void **state)
{
	(void)state;
	clab_machine *mm = open_machine("bgq:clock=virtual,activity=compute");
	int err = 0;
	bgq_node *n = bgq_node_get(mm, &err);
	assert_non_null(n);
	int nev[2] = {BGQ_NEV_L2 + 0, BGQ_NEV_L2 + 1}; /* hits, misses */
	bgq_sum kept;
	assert_int_equal(bgq_sum_init(&kept, nev, 2, -1), CLAB_OK);
	bgq_node_sum(n, &kept);
	/* a few threads move (the log holds them); then all 68 once and
	 * thread 0 so often after that the log holds only thread 0; then
	 * one again */
	clab_thread *t[BGQ_HWTHREADS];
	for (int h = 0; h < BGQ_HWTHREADS; h++)
		t[h] = attach_hw(mm, h);
	for (int round = 0; round < 3; round++) {
		for (int h = 0; h < (round == 1 ? BGQ_HWTHREADS : 3 - 2 * (round == 2)); h++)
			assert_int_equal(clab_thread_advance(t[h], 5000 + (uint64_t)h), CLAB_OK);
		for (int r = 0; round == 1 && r < 2 * BGQ_CHANGE_LOG; r++)
			assert_int_equal(clab_thread_advance(t[0], 100), CLAB_OK);
		bgq_node_sum(n, &kept);
		bgq_sum fresh;
		assert_int_equal(bgq_sum_init(&fresh, nev, 2, -1), CLAB_OK);
		bgq_node_sum(n, &fresh);
		assert_true(kept.total[0] > 0);
		assert_int_equal(kept.total[0], fresh.total[0]);
		assert_int_equal(kept.total[1], fresh.total[1]);
		bgq_sum_free(&fresh);
	}
	bgq_sum_free(&kept);
	clab_machine_close(mm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_io_sum_follows_messages),
		cmocka_unit_test(test_catalogs),
		cmocka_unit_test(test_l2_mode),
		cmocka_unit_test(test_l2_node_wide),
		cmocka_unit_test(test_l2_stores_hit),
		cmocka_unit_test(test_l2_slices),
		cmocka_unit_test(test_l2_slice_spread),
		cmocka_unit_test(test_l2_equals_l1p),
		cmocka_unit_test(test_l2_monotone),
		cmocka_unit_test(test_io_messages),
		cmocka_unit_test(test_cnk_deltas),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_sum_catches_up),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
