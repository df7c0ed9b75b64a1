/* Framework: machine profiles, the event catalog, presets and formulas,
 * event-set semantics, and the distinct errors for bad input. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "helpers.h"
#include "../../framework/internal.h"

static char tmpdir[] = "/tmp/clab-test-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void catalog_counts(void **state)
{
	(void)state;
	clab_machine *m = open_machine("bgq");
	clab_component *c = clab_machine_component(m, "core");
	assert_non_null(c);
	clab_component_info ci;
	clab_component_get_info(c, &ci);
	assert_int_equal(ci.nnative, 277);
	assert_int_equal(ci.npreset, 43);
	assert_int_equal(ci.ncounters, 24);
	assert_int_equal(ci.width, 14);
	int kinds[4] = {0};
	for (int p = 0; p < ci.npreset; p++) {
		clab_event_info ei;
		assert_int_equal(clab_event_get_info(c, (uint32_t)(ci.nnative + p), &ei), CLAB_OK);
		assert_true(ei.is_preset);
		kinds[ei.derived]++;
	}
	assert_int_equal(kinds[CLAB_DERIVED_ADD], 8);
	assert_int_equal(kinds[CLAB_DERIVED_SUB], 5);
	assert_int_equal(kinds[CLAB_DERIVED_POSTFIX], 2);
	/* ids and counter masks come from the fact table */
	clab_event_info ei;
	clab_event_get_info(c, code_of(c, "PEVT_CYCLES"), &ei);
	assert_int_equal(ei.hw_id, 211);
	clab_event_get_info(c, code_of(c, "PEVT_XU_PROC_BUSY"), &ei);
	assert_int_equal(ei.ctr_mask, (1u << 16) | (1u << 20));
	clab_machine_close(m);
}

static void bad_events(void **state)
{
	(void)state;
	clab_machine *m = open_machine("bgq");
	clab_component *c = clab_machine_component(m, "core");
	uint32_t code;
	assert_int_equal(clab_event_lookup(c, "PEVT_NO_SUCH", &code), CLAB_E_NOEVENT);
	assert_non_null(strstr(clab_errmsg(), "PEVT_NO_SUCH"));
	assert_int_equal(clab_event_lookup(c, "", &code), CLAB_E_NOEVENT);
	assert_int_equal(clab_event_lookup(c, "PEVT_CYCLES:mask=1", &code), CLAB_E_QUALIFIER);
	assert_non_null(strstr(clab_errmsg(), "accepts: none"));
	assert_int_equal(clab_event_lookup(c, "PEVT_INST_XU_GRP_MASK:slice=1", &code), CLAB_E_QUALIFIER);
	assert_int_equal(clab_event_lookup(c, "PEVT_INST_XU_GRP_MASK:mask=0x1ffffffff", &code), CLAB_E_QUALIFIER);
	assert_non_null(strstr(clab_errmsg(), "out of range"));
	assert_int_equal(clab_event_lookup(c, "PEVT_INST_XU_GRP_MASK:mask=12z", &code), CLAB_E_QUALIFIER);
	assert_int_equal(clab_event_lookup(c, "PEVT_INST_XU_GRP_MASK:mask", &code), CLAB_E_QUALIFIER);
	assert_int_equal(clab_event_lookup(c, "PEVT_INST_XU_GRP_MASK:mask=1:mask=2", &code), CLAB_E_QUALIFIER);
	assert_int_equal(clab_event_lookup(c, "PEVT_INST_XU_GRP_MASK:mask=-1", &code), CLAB_E_QUALIFIER);
	/* the same qualified event twice is one code; spellings agree */
	uint32_t a = code_of(c, "PEVT_INST_XU_GRP_MASK:mask=0x837800");
	uint32_t b = code_of(c, "pevt_inst_xu_grp_mask:mask=8615936");
	assert_int_equal(a, b);
	clab_event_info ei;
	clab_event_get_info(c, a, &ei);
	assert_string_equal(ei.name, "PEVT_INST_XU_GRP_MASK:mask=0x837800");
	assert_null(clab_machine_component(m, "l9"));
	clab_machine_close(m);
}

static void expect_profile_error(const char *spec, const char *needle)
{
	clab_machine *m = NULL;
	int rc = clab_machine_open(spec, &m);
	if (rc != CLAB_E_PROFILE)
		fail_msg("%s: expected CLAB_E_PROFILE, got %d (%s)", spec, rc, clab_errmsg());
	assert_null(m);
	if (!strstr(clab_errmsg(), needle))
		fail_msg("%s: message '%s' lacks '%s'", spec, clab_errmsg(), needle);
}

static void bad_profiles(void **state)
{
	(void)state;
	static const struct { const char *file, *text, *needle; } cases[] = {
		{"nomachine.ini", "[core]\nbackend = bgq-punit\n", "no [machine]"},
		{"unknownkey.ini", "[machine]\ntopology = core:17 pu:4\ncolour = red\n[core]\nbackend=bgq-punit\n", "unknown key 'colour'"},
		{"badclock.ini", "[machine]\ntopology=core:17 pu:4\nclock = sundial\n[core]\nbackend=bgq-punit\n", "clock=sundial"},
		/* refused before hwloc spends minutes building it */
		{"hugetopo.ini", "[machine]\ntopology=pack:1 core:99999 pu:4\n[core]\nbackend=bgq-punit\n", "has more than 1024 PUs"},
		{"badtimer.ini", "[machine]\ntopology=core:17 pu:4\ntimer_us = 1\n[core]\nbackend=bgq-punit\n", "timer_us=1 is not an integer in 10..1000000"},
		{"badbackend.ini", "[machine]\ntopology=core:17 pu:4\n[core]\nbackend = bgq-warp\n", "unknown backend 'bgq-warp'"},
		{"nobackend.ini", "[machine]\ntopology=core:17 pu:4\n[core]\ndescription = x\n", "needs a backend"},
		{"badsection.ini", "[machine]\ntopology=core:17 pu:4\n[gpu]\nbackend=bgq-punit\n", "unknown section [gpu]"},
		{"outside.ini", "topology = core:1\n[machine]\n[core]\nbackend=bgq-punit\n", "outside any [section]"},
		{"syntax.ini", "[machine\ntopology = core:1\n", "machine profile"},
		{"twice.ini", "[machine]\ntopology=pack:1 core:17 pu:4\nclock = host\n; ...\nCLOCK = virtual\n[core]\nbackend=bgq-punit\n",
		 "twice.ini:5: key 'clock' of [machine] is given again (first on line 3)"},
		{"twicesec.ini", "[machine]\ntopology=pack:1 core:17 pu:4\n[core]\nbackend=bgq-punit\n[ Machine ]\ntopology=core:1\n",
		 "twicesec.ini:6: key 'topology' of [machine] is given again (first on line 2)"},
		{"badtopo.ini", "[machine]\ntopology = many cores\n[core]\nbackend=bgq-punit\n", "not an hwloc synthetic"},
		{"wrongnode.ini", "[machine]\ntopology = core:16 pu:4\n[core]\nbackend=bgq-punit\n", "a BG/Q node is topology = pack:1 core:17 pu:4"},
		{"nocomp.ini", "[machine]\ntopology = pack:1 core:17 pu:4\n", "no component"},
		/* [hardware]: what tools report about the machine */
#define HW "[machine]\ntopology=pack:1 core:17 pu:4\n[core]\nbackend=bgq-punit\n[hardware]\nvendor=IBM\nmodel=A2\nmhz=1600\n"
		{"hwkey.ini", HW "colour = red\n", "[hardware] unknown key 'colour'"},
		{"hwneeds.ini", "[machine]\ntopology=core:17 pu:4\n[core]\nbackend=bgq-punit\n[hardware]\nvendor=IBM\n", "[hardware] needs vendor, model and mhz"},
		{"hwmhz.ini", "[machine]\ntopology=pack:1 core:17 pu:4\n[core]\nbackend=bgq-punit\n[hardware]\nvendor=IBM\nmodel=A2\nmhz = fast\n",
		 "mhz = 'fast' is not a valid clock in MHz"},
		{"hwmem.ini", HW "memory = 16Q\n", "memory = '16Q' is not a valid byte count"},
		{"hwfew.ini", HW "l1d = 16K 64\n", "l1d = 16K 64: needs SIZE LINE WAYS"},
		{"hwsize.ini", HW "l2 = 4G 128 16\n", "SIZE is not a byte count"},
		{"hwline.ini", HW "l1d = 16K 48 8\n", "LINE is not a power of two"},
		{"hwways.ini", HW "l1d = 16K 64 7\n", "do not divide into WAYS-way sets"},
		{"hwways0.ini", HW "l1d = 16K 64 0\n", "WAYS is not 'full' or a number"},
		{"hwpolicy.ini", HW "l1d = 16K 64 8 wx\n", "write policy is not wt or wb"},
		{"hwtwokinds.ini", HW "l2 = 32M 128 16\nl2u = 32M 128 16\n", "two caches of one kind at level 2"},
		{"hwlevel.ini", HW "l5 = 32M 128 16\n", "[hardware] unknown key 'l5'"},
#undef HW
		{"badpresets.ini", "[machine]\ntopology=core:17 pu:4\n[core]\nbackend=bgq-punit\npresets=/nonexistent/p.csv\n", "presets /nonexistent/p.csv"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_profile_error(write_file(cases[i].file, cases[i].text), cases[i].needle);
	expect_profile_error("no-such-machine", "no-such-machine.ini");
	expect_profile_error("bgq:warp=9", "unknown machine override 'warp'");
	expect_profile_error("bgq:clock", "not key=value");
	expect_profile_error("bgq:tick=-5", "tick=-5");
	expect_profile_error("bg q", "bad character");
	/* a bad preset line names file and line */
	char spec[600];
	const char *pre = write_file("p.csv", "name,kind,terms,postfix,description\n"
				     "PAPI_X,add,PEVT_CYCLES,,one term is not a sum\n");
	snprintf(spec, sizeof spec, "[machine]\ntopology=core:17 pu:4\n[core]\nbackend=bgq-punit\npresets=%s\n", pre);
	expect_profile_error(write_file("p.ini", spec), "p.csv:2");
}

/* Bad machine specs: each refused with its own code and exact message. */
static void bad_specs(void **state)
{
	(void)state;
	char nulmap[600], nulspec[700], nulmsg[800];
	snprintf(nulmap, sizeof nulmap, "%s/nul.map", tmpdir);
	FILE *f = fopen(nulmap, "w");
	assert_non_null(f);
	fwrite("0 0 0 0 0 0\n0 0 0 0 0 1\0 7\n", 1, 26, f);
	fclose(f);
	snprintf(nulspec, sizeof nulspec, "bgq:map=%s", nulmap);
	snprintf(nulmsg, sizeof nulmsg,
		 "machine bgq, torus network: %s:2: a NUL byte; a map file is text, one line \"ABCDET\" (6 numbers) per rank",
		 nulmap);
	const struct { const char *spec; int rc; const char *msg; } cases[] = {
		{"bgq:torus=0x0", CLAB_E_MAP,
		 "machine bgq, torus network: torus \"0x0\": dimension A needs a size 1..1024, as in 4x4x4x4x2"},
		{"bgq:ppn=0", CLAB_E_PROFILE,
		 "torus network of machine bgq: ppn=0 is not an integer in 1..64"},
		{"bgq:map=/nonexistent", CLAB_E_MAP,
		 "machine bgq, torus network: map file /nonexistent: No such file or directory"},
		{nulspec, CLAB_E_MAP, nulmsg},
		{"", CLAB_E_PROFILE,
		 "machine spec is empty (give NAME-OR-PATH[:key=value,...], e.g. bgq:clock=virtual, or leave it unset for bgq)"},
		{"bgq:", CLAB_E_PROFILE,
		 "machine spec 'bgq:': nothing after ':' (drop the ':' or add key=value,...)"},
		{"bgq:,", CLAB_E_PROFILE,
		 "machine overrides: an empty item between commas (use key=value,key=value)"},
		{"bgq:clock=virtual,,tick=5", CLAB_E_PROFILE,
		 "machine overrides: an empty item between commas (use key=value,key=value)"},
		{"bgq:clock=virtual,", CLAB_E_PROFILE,
		 "machine overrides: an empty item between commas (use key=value,key=value)"},
		{"bgq:clock=virtual,tick=5,tick=6", CLAB_E_PROFILE,
		 "machine override 'tick' is given twice (give each key once)"},
		{"bgq:clock=virtual,TICK=5,tick=6", CLAB_E_PROFILE,
		 "machine override 'tick' is given twice (give each key once)"},
		{"bgq:tick=5", CLAB_E_PROFILE,
		 "machine bgq: tick=5 needs clock=virtual (the host clock follows CPU time and ignores tick)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		clab_machine *m = NULL;
		int rc = clab_machine_open(cases[i].spec, &m);
		if (rc != cases[i].rc || strcmp(clab_errmsg(), cases[i].msg))
			fail_msg("'%s': got %d '%s', want %d '%s'", cases[i].spec, rc,
				 clab_errmsg(), cases[i].rc, cases[i].msg);
		assert_null(m);
	}
	/* what stays accepted: tick=0 on either clock, tick on the virtual one */
	static const char *const good[] = {"bgq:tick=0", "bgq:clock=virtual,tick=0",
					   "bgq:clock=virtual,tick=5"};
	for (size_t i = 0; i < 3; i++)
		clab_machine_close(open_machine(good[i]));
}

/* Every kind of bad machine input: refused with a message that names it
 * and says what would work; good neighbours of each still open. */
static void bad_machine_inputs(void **state)
{
	(void)state;
	/* only regular files are read as profiles (a device would be read
	 * forever, a FIFO would block) */
	char fifo[600];
	snprintf(fifo, sizeof fifo, "%s/fifo.ini", tmpdir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	expect_profile_error("/dev/zero", "machine profile /dev/zero is a character device, not a file (give the path of a regular file)");
	expect_profile_error(tmpdir, "is a directory, not a file");
	expect_profile_error(fifo, "fifo.ini is a FIFO, not a file");
	const char *nul = write_file("nul.ini", "[machine]\n");
	FILE *f = fopen(nul, "a");
	fwrite("topology = core:1\0 pu:1\n", 1, 25, f);
	fclose(f);
	expect_profile_error(nul, "nul.ini:2: a NUL byte; a profile is text");
	/* the files a profile names: the same */
	expect_profile_error(write_file("devpre.ini", "[machine]\ntopology=core:17 pu:4\n[core]\nbackend=bgq-punit\npresets=/dev/zero\n"),
			     "presets /dev/zero is a character device, not a file");
	clab_machine *act = NULL;
	assert_int_equal(clab_machine_open("bgq:activity=/dev/zero", &act), CLAB_E_ACTIVITY);
	assert_non_null(strstr(clab_errmsg(), "activity profile /dev/zero is a character device"));
	assert_int_equal(clab_machine_open("gemini:network.tilemap=/dev/zero", &act), CLAB_E_MAP);
	assert_non_null(strstr(clab_errmsg(), "tile map /dev/zero is a character device"));
	/* iniparser's syntax error, on one line */
	expect_profile_error(write_file("cut.ini", "[machine]\ntopology = core:1 pu:1\n[core\nbackend = bgq"), "cut.ini");
	assert_null(strchr(clab_errmsg(), '\n'));
	/* a profile that is not there is not called malformed: the message
	 * lists those there are */
	expect_profile_error("bgqq", "no machine profile 'bgqq' (there is no ");
	assert_non_null(strstr(clab_errmsg(), "are bgl, bgq-live, bgq, gemini, host, linux-proc; or give the path of a profile file"));
	assert_null(strstr(clab_errmsg(), "malformed"));
	assert_null(strstr(clab_strerror(CLAB_E_PROFILE), "malformed"));
	expect_profile_error("/nonexistent/x.ini", "machine profile /nonexistent/x.ini not found (the profiles in ");
	static const struct { const char *spec, *msg; } refused[] = {
		/* numbers: digits (0x for hex), in range, with the key and the range */
		{"bgq:seed=x", "machine bgq: seed=x is not an integer in 0..18446744073709551615"},
		{"bgq:seed=-7", "machine bgq: seed=-7 is not an integer in 0..18446744073709551615"},
		{"bgq:seed= -7", "machine bgq: seed= -7 is not an integer in 0..18446744073709551615"},
		{"bgq:seed=99999999999999999999", "machine bgq: seed=99999999999999999999 is not an integer in 0..18446744073709551615"},
		{"bgq:seed=7x", "machine bgq: seed=7x is not an integer"},
		{"bgq:seed=0x", "machine bgq: seed=0x is not an integer"},
		{"bgq:clock=virtual,tick=+5", "machine bgq: tick=+5 is not an integer"},
		{"bgq:timer_us=1e3", "machine bgq: timer_us=1e3 is not an integer in 10..1000000"},
		{"bgq:ppn=1x", "ppn=1x is not an integer in 1..64"},
		{"bgq:io.port_latency=-80", "io.port_latency=-80 is not an integer in 1..1048576"},
		{"bgq:kernel.fit_period= 16", "kernel.fit_period= 16 is not an integer"},
		/* settings the machine does not read */
		{"linux-proc:clock=virtual", "machine linux-proc: clock=virtual: nothing on this machine is simulated (its counters are real and count as the program runs); drop clock and tick"},
		{"linux-proc:clock=virtual,tick=1000", "nothing on this machine is simulated"},
		{"linux-proc:torus=4x4", "machine linux-proc: torus=4x4: the machine simulates no torus network to read it"},
		{"linux-proc:seed=3", "seed=3: the machine simulates no torus network"},
		{"linux-proc:activity=compute", "machine linux-proc: activity=compute: no simulated BG/Q node here runs a rate profile"},
		{"bgl:activity=compute", "machine bgl: activity=compute: no simulated BG/Q node"},
		{"bgq:host_fp_event=perf::INSTRUCTIONS", "host_fp_event=perf::INSTRUCTIONS is read only with activity=host"},
	};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
		expect_profile_error(refused[i].spec, refused[i].msg);
	static const char *const good[] = {
		"linux-proc", "linux-proc:clock=host", "bgl:activity=none,seed=2", "gemini:clock=virtual,tick=5",
		"bgq:seed=0x10,clock=virtual,tick=010",
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		clab_machine_close(open_machine(good[i]));
	clab_machine *m = open_machine("bgq:clock=virtual,tick=010"); /* ten, not octal */
	uint64_t tick;
	assert_int_equal(clab_machine_setting_u64(m, "tick", 0, 0, 100, &tick), CLAB_OK);
	assert_int_equal(tick, 10);
	clab_machine_close(m);
	/* the MPI launcher's rank indexes the map: checked like network.rank */
	static const char *const ranks[] = {"8192", "abc", "-1", "99999999999999999999"};
	for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++) {
		setenv("OMPI_COMM_WORLD_RANK", ranks[i], 1);
		char want[128];
		snprintf(want, sizeof want, "$OMPI_COMM_WORLD_RANK=%s is not a rank of the map (0..8191)", ranks[i]);
		expect_profile_error("bgq", want);
	}
	setenv("OMPI_COMM_WORLD_RANK", "8191", 1);
	clab_machine_close(open_machine("bgq"));
	unsetenv("OMPI_COMM_WORLD_RANK");
	/* [hardware]: the whole value is read, numbers are numbers */
#define HW "[machine]\ntopology=pack:1 core:17 pu:4\n[core]\nbackend=bgq-punit\n[hardware]\nvendor=IBM\nmodel=A2\nmhz=1600\n"
	char longcache[400];
	snprintf(longcache, sizeof longcache, HW "l1d = 16K 64 8%150sjunk\n", ""); /* the tail past 128 */
	expect_profile_error(write_file("hwlong.ini", longcache), "l1d = 16K 64 8 ");
	assert_non_null(strstr(clab_errmsg(), "the write policy is not wt or wb"));
	expect_profile_error(write_file("hwrev.ini", HW "revision = inf\n"), "revision = 'inf' is not a valid revision number");
	expect_profile_error(write_file("hwmem.ini", HW "memory = \" -5\"\n"), "memory = ' -5' is not a valid byte count");
	m = open_machine(write_file("hwoct.ini", HW "cpuid_family = 010\ncpuid_model = 0x1f\n"));
	clab_hw_info hw;
	assert_int_equal(clab_machine_hw_info(m, &hw), CLAB_OK);
	assert_int_equal(hw.cpuid_family, 10);
	assert_int_equal(hw.cpuid_model, 31);
	assert_int_equal(hw.cores_per_socket, 17); /* no app_cores: all of them */
	clab_machine_close(m);
	expect_profile_error(write_file("hwapp0.ini", HW "app_cores = 0\n"),
			     "app_cores = '0' is not a valid count of the topology's cores");
	expect_profile_error(write_file("hwapp18.ini", HW "app_cores = 18\n"),
			     "app_cores = '18' is not a valid count of the topology's cores");
	m = open_machine(write_file("hwapp.ini", HW "app_cores = 16\n"));
	assert_int_equal(clab_machine_hw_info(m, &hw), CLAB_OK);
	assert_int_equal(hw.cores_per_socket, 16);
	clab_machine_close(m);
#undef HW
	unlink(fifo);
}

/* The [hardware] section and the topology, as tools read them. */
static void hardware_info(void **state)
{
	(void)state;
	clab_machine *m = open_machine("bgq");
	clab_hw_info hw;
	assert_int_equal(clab_machine_hw_info(m, &hw), CLAB_OK);
	assert_string_equal(hw.vendor, "IBM");
	assert_int_equal(hw.sockets, 1);
	/* of the node's 17 cores, the 16 an application runs on (app_cores) */
	assert_int_equal(hw.cores_per_socket, 16);
	assert_int_equal(hw.threads_per_core, 4);
	assert_int_equal(hw.numa_nodes, 1);
	assert_true(hw.ncache >= 1);
	clab_machine_close(m);
	const char *p = write_file("hw.ini", "[machine]\ntopology=pack:2 core:2 pu:2\n"
				   "[core]\nbackend=bgq-punit\n");
	/* no [hardware]: nothing to report, and the caller hears why */
	clab_machine *m2 = NULL;
	if (clab_machine_open(p, &m2) == CLAB_OK) { /* the PUnit may refuse the layout */
		assert_int_equal(clab_machine_hw_info(m2, &hw), CLAB_E_NOSUPP);
		assert_non_null(strstr(clab_errmsg(), "no [hardware] section"));
		clab_machine_close(m2);
	}
}

static void postfix(void **state)
{
	(void)state;
	clab_token tok[CLAB_MAX_TOKENS];
	int n;
	int64_t t[3] = {100, 30, 20};
	assert_int_equal(clab_postfix_compile("N0|N1|-|N2|-|", 3, tok, &n), CLAB_OK);
	assert_int_equal(clab_postfix_eval(tok, n, t), 50);
	assert_int_equal(clab_postfix_compile("N0|N1|+|2|*|N2|/|", 3, tok, &n), CLAB_OK);
	assert_int_equal(clab_postfix_eval(tok, n, t), 13);
	assert_int_equal(clab_postfix_compile("N0|+|", 3, tok, &n), CLAB_E_PROFILE);
	assert_int_equal(clab_postfix_compile("N0|N1|", 3, tok, &n), CLAB_E_PROFILE);
	assert_int_equal(clab_postfix_compile("N0|N3|+|", 3, tok, &n), CLAB_E_PROFILE);
	assert_int_equal(clab_postfix_compile("N0|x|+|", 3, tok, &n), CLAB_E_PROFILE);
}

/* Presets evaluate their formulas over the same counts as their terms. */
static void derived_presets(void **state)
{
	(void)state;
	clab_machine *m = open_machine("bgq:clock=virtual");
	clab_component *c = clab_machine_component(m, "core");
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	const char *names[] = {"PAPI_STL_CCY", "PEVT_CYCLES", "PEVT_INST_ALL",
			       "PAPI_BR_NTK", "PEVT_INST_XU_BRC",
			       "PEVT_XU_BR_TAKEN_COMMIT", "PEVT_INST_XU_BRU",
			       "PAPI_FAD_INS", "PEVT_INST_QFPU_FADD", "PEVT_INST_QFPU_QADD"};
	clab_evset *s = NULL;
	assert_int_equal(program(c, t, &s, names, 10), CLAB_OK);
	int64_t v[10];
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 5000000), CLAB_OK);
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	assert_int_equal(v[1], 5000000);
	assert_true(v[2] > 0);
	assert_int_equal(v[0], v[1] - v[2]);
	assert_int_equal(v[3], v[4] - v[5] - v[6]);
	assert_int_equal(v[7], v[8] + v[9]);
	/* terms shared by events are counted once */
	assert_int_equal(clab_evset_counters(s, 0) & clab_evset_counters(s, 1),
			 clab_evset_counters(s, 1));
	clab_evset_destroy(s);
	/* so are plain events of one request (a direct preset and its native,
	 * a native twice): each reads it */
	const char *same[] = {"PEVT_INST_ALL", "PAPI_TOT_CYC", "PEVT_CYCLES", "PEVT_INST_ALL"};
	s = NULL;
	assert_int_equal(program(c, t, &s, same, 4), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_thread_advance(t, 40000), CLAB_OK);
	int64_t w[4];
	assert_int_equal(clab_evset_read(s, w), CLAB_OK);
	assert_true(w[0] > 0 && w[3] == w[0]);
	assert_true(w[1] >= 40000 - 800 && w[2] == w[1]);
	clab_evset_destroy(s);
	clab_machine_close(m);
}

static void evset_states(void **state)
{
	(void)state;
	clab_machine *m = open_machine("bgq:clock=virtual");
	clab_component *c = clab_machine_component(m, "core");
	clab_thread *t;
	clab_thread_attach(m, &t);
	clab_evset *s = NULL;
	int64_t v[2] = {0, 0};
	assert_int_equal(clab_evset_create(c, t, &s), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_E_STATE);
	assert_int_equal(clab_evset_read(s, v), CLAB_E_STATE);
	const char *names[] = {"PEVT_CYCLES"};
	assert_int_equal(program(c, t, &s, names, 1), CLAB_OK);
	assert_int_equal(clab_evset_stop(s, v), CLAB_E_STATE);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_E_STATE);
	assert_int_equal(program(c, t, &s, names, 1), CLAB_E_STATE);
	clab_thread_advance(t, 8000);
	assert_int_equal(clab_evset_accum(s, v), CLAB_OK);
	assert_int_equal(v[0], 8000);
	clab_thread_advance(t, 1600);
	assert_int_equal(clab_evset_accum(s, v), CLAB_OK);
	assert_int_equal(v[0], 9600);
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	assert_int_equal(v[0], 0);
	/* start zeroes the counts, as PAPI_start does */
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	clab_thread_advance(t, 800);
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	assert_int_equal(v[0], 800);
	clab_evset_destroy(s);
	clab_machine_close(m);
}

static void threads_layout(void **state)
{
	(void)state;
	clab_machine *m = open_machine("bgq");
	clab_thread *a, *b, *c;
	/* asking where the thread runs attaches nothing */
	assert_int_equal(clab_thread_current(m, &c), CLAB_E_NOTHREAD);
	assert_null(c);
	assert_int_equal(clab_thread_attach(m, &a), CLAB_OK);
	assert_int_equal(clab_thread_attach(m, &b), CLAB_OK);
	assert_ptr_equal(a, b); /* one hardware thread per OS thread */
	assert_int_equal(clab_thread_hwthread(a), 0);
	assert_int_equal(clab_thread_current(m, &c), CLAB_OK);
	assert_ptr_equal(c, a);
	clab_thread_detach(a);
	clab_thread_detach(b);
	assert_int_equal(clab_thread_current(m, &c), CLAB_E_NOTHREAD); /* the last detach let go */
	clab_machine_close(m);
}

/* Threads that exit attached give their hardware thread back: their
 * running sets stop and release the counters, the next thread (which may
 * get the same pthread_t) starts on a clean hardware thread, and the dead
 * thread's sets stay safe to read and destroy from elsewhere. */
static clab_machine *churn_m;
static clab_evset *churn_set[3];
static clab_thread *churn_t[3];

static void *churn_one(void *arg)
{
	int i = (int)(intptr_t)arg;
	clab_component *core = clab_machine_component(churn_m, "core");
	clab_thread *t;
	if (clab_thread_attach(churn_m, &t) || clab_thread_hwthread(t) != 0)
		return (void *)1; /* always the first hardware thread again */
	churn_t[i] = t;
	clab_evset *s = NULL;
	const char *const ev[] = {"PEVT_CYCLES", "PEVT_INST_XU_IADD", "PEVT_INST_XU_ILOG",
				  "PEVT_INST_XU_ICMP", "PEVT_INST_XU_LD", "PEVT_INST_XU_ST"};
	uint32_t codes[6];
	for (int k = 0; k < 6; k++)
		clab_event_lookup(core, ev[k], &codes[k]);
	if (clab_evset_create(core, t, &s) || clab_evset_program(s, codes, 6) ||
	    clab_evset_start(s))
		return (void *)2;
	clab_thread_advance(t, 1000);
	if (i == 1 && clab_evset_stop(s, NULL))
		return (void *)3;
	churn_set[i] = s; /* exits with it running (0), stopped (1), ... */
	if (i == 2) {
		clab_evset_destroy(s);
		churn_set[i] = NULL;
	}
	return NULL;
}

static void thread_churn(void **state)
{
	(void)state;
	churn_m = open_machine("bgq:clock=virtual,tick=0,activity=compute");
	for (int round = 0; round < 30; round++) {
		int i = round % 3;
		pthread_t th;
		void *ret;
		assert_int_equal(pthread_create(&th, NULL, churn_one, (void *)(intptr_t)i), 0);
		assert_int_equal(pthread_join(th, &ret), 0);
		assert_null(ret);
		if (churn_set[i]) { /* what the dead thread left */
			int64_t v[6];
			assert_int_equal(clab_evset_read(churn_set[i], v), CLAB_OK);
			assert_int_equal(v[0], 1000);
			assert_int_equal(clab_evset_start(churn_set[i]), CLAB_E_STATE);
			assert_non_null(strstr(clab_errmsg(), "exited"));
			if (round % 2) /* its sets go before or after its handle */
				clab_evset_destroy(churn_set[i]);
		}
		clab_thread_detach(churn_t[i]); /* the holder lets go at last */
		if (churn_set[i] && !(round % 2))
			clab_evset_destroy(churn_set[i]);
		churn_set[i] = NULL;
	}
	clab_machine_close(churn_m);
}

static void bad_activity(void **state)
{
	(void)state;
	static const struct { const char *file, *text; int rc; const char *needle; } cases[] = {
		{"a1.ini", "[phase x]\ncycles = 0\nPEVT_NOPE = 0.1\n", CLAB_E_ACTIVITY, "unknown BG/Q event"},
		{"a2.ini", "[phase x]\ncycles = 0\nPEVT_INST_ALL = 0.5\n", CLAB_E_ACTIVITY, "follows from other events"},
		{"a3.ini", "[phase x]\ncycles = 0\nPEVT_INST_XU_IADD = fast\n", CLAB_E_ACTIVITY, "not a rate"},
		{"a4.ini", "[phase x]\nPEVT_INST_XU_IADD = 0.1\n", CLAB_E_ACTIVITY, "needs cycles"},
		{"a5.ini", "[phase x]\ncycles = 0\n[phase y]\ncycles = 10\n", CLAB_E_ACTIVITY, "only a single phase"},
		{"a6.ini", "[phase x]\ncycles = 0\nPEVT_INST_XU_IADD = 0.7\nPEVT_INST_XU_LD = 0.7\n", CLAB_E_RATE, "more than one XU instruction"},
		{"a7.ini", "[phase x]\ncycles = 0\nPEVT_AXU_IDLE = 1.5\n", CLAB_E_RATE, "more than once per cycle"},
		{"a8.ini", "[stage]\ncycles = 0\n", CLAB_E_ACTIVITY, "unknown section"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char spec[600];
		snprintf(spec, sizeof spec, "bgq:activity=%s", write_file(cases[i].file, cases[i].text));
		clab_machine *m = NULL;
		int rc = clab_machine_open(spec, &m);
		if (rc != cases[i].rc || !strstr(clab_errmsg(), cases[i].needle))
			fail_msg("%s: rc %d msg '%s', want %d '%s'", cases[i].file, rc,
				 clab_errmsg(), cases[i].rc, cases[i].needle);
	}
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(catalog_counts),
		cmocka_unit_test(bad_events),
		cmocka_unit_test(bad_profiles),
		cmocka_unit_test(hardware_info),
		cmocka_unit_test(bad_specs),
		cmocka_unit_test(bad_machine_inputs),
		cmocka_unit_test(postfix),
		cmocka_unit_test(derived_presets),
		cmocka_unit_test(evset_states),
		cmocka_unit_test(threads_layout),
		cmocka_unit_test(thread_churn),
		cmocka_unit_test(bad_activity),
	};
	int rc = cmocka_run_group_tests_name("framework", tests, NULL, NULL);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		return 1;
	return rc;
}
