/* Seeded mutation fuzzing of every parser: event names with qualifiers,
 * machine specs, machine profiles, activity profiles, preset files,
 * postfix formulas, torus shapes, rank maps and traffic patterns, and the
 * kernel's counter files the Linux units read. Each input must give either success or one of the
 * documented errors with a message, never a crash (the suite also runs
 * under AddressSanitizer and UndefinedBehaviorSanitizer). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include "helpers.h"
#include "../../framework/internal.h"
#include "counterlab/torus.h"
#include "counterlab/gemini.h"
#include "../../backends/linux/lx.h"

#define ROUNDS 1500

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static const char alphabet[] = "PEVT_INSTXUGRPMASKCYLmask=:0x19fz-,. \n[]#;/";

/* Flips, deletes, inserts or duplicates a few bytes of seed into out. */
static void mutate(const char *seed, char *out, size_t cap)
{
	size_t n = strlen(seed);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, seed, n);
	out[n] = 0;
	int edits = 1 + (int)(next() % 4);
	for (int e = 0; e < edits; e++) {
		size_t len = strlen(out), at = len ? next() % len : 0;
		switch (next() % 4) {
		case 0: if (len) out[at] = alphabet[next() % (sizeof alphabet - 1)]; break;
		case 1: if (len) memmove(out + at, out + at + 1, len - at); break;
		case 2:
			if (len + 1 < cap) {
				memmove(out + at + 1, out + at, len - at + 1);
				out[at] = alphabet[next() % (sizeof alphabet - 1)];
			}
			break;
		default: { /* repeat a chunk: its bytes now stand twice */
			size_t k = 1 + next() % 8;
			if (at + k <= len && len + k < cap)
				memmove(out + at + k, out + at, len - at + 1);
		}
		}
	}
}

static int one_of(int rc, const int *ok, int n)
{
	for (int i = 0; i < n; i++)
		if (rc == ok[i])
			return 1;
	return 0;
}

static void fuzz_names_of(clab_machine *m, const char *comp,
			  const char *const *seeds, int nseeds)
{
	clab_component *c = clab_machine_component(m, comp);
	assert_non_null(c);
	const int ok[] = {CLAB_OK, CLAB_E_NOEVENT, CLAB_E_QUALIFIER};
	char buf[256];
	for (int r = 0; r < ROUNDS * 2; r++) {
		mutate(seeds[r % nseeds], buf, sizeof buf);
		uint32_t code;
		int rc = clab_event_lookup(c, buf, &code);
		if (!one_of(rc, ok, 3))
			fail_msg("%s: '%s' gave %d", comp, buf, rc);
		if (rc)
			assert_true(clab_errmsg()[0] != 0);
		else {
			clab_event_info ei;
			assert_int_equal(clab_event_get_info(c, code, &ei), CLAB_OK);
		}
	}
}

static void fuzz_event_names(void **state)
{
	(void)state;
	clab_machine *m = open_machine("bgq:clock=virtual");
	static const char *const core_seeds[] = {
		"PEVT_INST_XU_GRP_MASK:mask=0x837800", "PEVT_CYCLES", "PAPI_BR_NTK",
		"PEVT_INST_QFPU_GRP_MASK:mask=1022", "PEVT_L1P_BAS_HIT",
	};
	static const char *const l2_seeds[] = {
		"PEVT_L2_HITS_SLICE:slice=15", "PEVT_L2_MISSES", "L2_ACCESSES",
		"PEVT_L2_SPEC_RETRY_SLICE:slice=0x3",
	};
	static const char *const kernel_seeds[] = {"PEVT_CNKHWT_FIT", "CNK_TIMER_INTS"};
	fuzz_names_of(m, "core", core_seeds, 5);
	fuzz_names_of(m, "l2", l2_seeds, 4);
	fuzz_names_of(m, "kernel", kernel_seeds, 2);
	clab_machine_close(m);
}

/* A spec that must be refused whatever else it says: empty, nothing after
 * ':', an empty item, or a key given twice. */
static int spec_must_fail(const char *spec)
{
	const char *colon = strchr(spec, ':');
	if (!*spec || (colon && !colon[1]))
		return 1;
	if (!colon)
		return 0;
	char list[128], *keys[32];
	int nk = 0;
	snprintf(list, sizeof list, "%s", colon + 1);
	for (char *kv = list, *next; kv; kv = next) {
		next = strchr(kv, ',');
		if (next)
			*next++ = 0;
		if (!*kv)
			return 1;
		kv[strcspn(kv, "=")] = 0;
		for (int i = 0; i < nk; i++)
			if (*kv && strcasecmp(keys[i], kv) == 0)
				return 1;
		if (nk < 32)
			keys[nk++] = kv;
	}
	return 0;
}

static void fuzz_specs(void **state)
{
	(void)state;
	static const char *seeds[] = {
		"bgq:clock=virtual,tick=1000", "bgq:clock=host,seed=7",
		"bgq:clock=virtual,activity=compute,tick=0x10",
		"bgq:kernel.fit_period=1000,io.port_latency=5,kernel.irq_packets=2",
		/* the network unit's keys (small torus: mutations stay small) */
		"bgq:torus=2x2x2x2x2,ppn=4,map=ABCDET",
		/* refused as they stand: repeated key, empty items, tick on the
		 * host clock, nothing after ':' */
		"bgq:clock=virtual,tick=5,tick=6", "bgq:,", "bgq:seed=1,,seed=2",
		"bgq:tick=5", "bgq:",
	};
	const int nseeds = (int)(sizeof seeds / sizeof seeds[0]);
	const int ok[] = {CLAB_OK, CLAB_E_PROFILE, CLAB_E_ACTIVITY, CLAB_E_MAP};
	char buf[128];
	int refused = 0;
	for (int r = 0; r < ROUNDS / 3; r++) {
		if (r < nseeds)
			snprintf(buf, sizeof buf, "%s", seeds[r]); /* each seed as it is */
		else
			mutate(seeds[r % nseeds], buf, sizeof buf);
		if (strchr(buf, '/'))
			continue; /* paths into the file system are not the point */
		clab_machine *m = NULL;
		int rc = clab_machine_open(buf, &m);
		if (!one_of(rc, ok, (int)(sizeof ok / sizeof *ok)))
			fail_msg("spec '%s' gave %d (%s)", buf, rc, clab_errmsg());
		if (rc)
			assert_true(clab_errmsg()[0] != 0);
		if (spec_must_fail(buf)) {
			if (rc == CLAB_OK)
				fail_msg("spec '%s' was accepted", buf);
			refused++;
		}
		clab_machine_close(m);
	}
	assert_true(refused >= 5); /* the property was exercised */
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char text[8192];
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = 0;
	fclose(f);
	return text;
}

/* Mutates a data file, points a machine at it, expects success or a
 * profile error (the files name each other: a mutated machine profile may
 * name a missing activity profile). */
static void fuzz_file(const char *seed_path, const char *spec_fmt)
{
	char seed[8192], buf[8192], path[] = "/tmp/clab-fuzz-XXXXXX.dat", spec[256];
	snprintf(seed, sizeof seed, "%s", slurp(seed_path));
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	close(fd);
	/* NODEV: a mutated host profile may ask for a device this host lacks */
	const int ok[] = {CLAB_OK, CLAB_E_PROFILE, CLAB_E_ACTIVITY, CLAB_E_RATE, CLAB_E_NODEV};
	for (int r = 0; r < ROUNDS / 5; r++) {
		mutate(seed, buf, sizeof buf);
		FILE *f = fopen(path, "w");
		fputs(buf, f);
		fclose(f);
		snprintf(spec, sizeof spec, spec_fmt, path);
		clab_machine *m = NULL;
		int rc = clab_machine_open(spec, &m);
		if (!one_of(rc, ok, 5))
			fail_msg("%s mutated gave %d (%s)", seed_path, rc, clab_errmsg());
		clab_machine_close(m);
	}
	unlink(path);
}

static void fuzz_profiles(void **state)
{
	(void)state;
	fuzz_file("machines/bgq.ini", "%s");
	fuzz_file("machines/activity/compute.ini", "bgq:clock=virtual,activity=%s");
	fuzz_file("machines/host.ini", "%s");
}

/* A profile whose one component's presets file is the mutated seed. */
static void fuzz_presets_of(const char *section, const char *backend,
			    const char *seed_path)
{
	char prof[] = "/tmp/clab-fuzzprof-XXXXXX.ini", text[512];
	int fd = mkstemps(prof, 4);
	assert_true(fd >= 0);
	close(fd);
	char seed[8192], buf[8192], path[] = "/tmp/clab-fuzzpre-XXXXXX.csv";
	snprintf(seed, sizeof seed, "%s", slurp(seed_path));
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	close(fd);
	snprintf(text, sizeof text, "[machine]\ntopology = core:17 pu:4\n[%s]\nbackend = %s\npresets = %s\n",
		 section, backend, path);
	FILE *f = fopen(prof, "w");
	fputs(text, f);
	fclose(f);
	for (int r = 0; r < ROUNDS / 10; r++) {
		mutate(seed, buf, sizeof buf);
		f = fopen(path, "w");
		fputs(buf, f);
		fclose(f);
		clab_machine *m = NULL;
		int rc = clab_machine_open(prof, &m);
		if (rc != CLAB_OK && rc != CLAB_E_PROFILE)
			fail_msg("%s mutated gave %d (%s)", seed_path, rc, clab_errmsg());
		clab_machine_close(m);
	}
	unlink(path);
	unlink(prof);
}

/* The Linux units' readers on mutated kernel files: every shape of file
 * (name/value lines, fields of a line, table rows), then the units
 * themselves discovering and reading a mutated fake /proc. */
static const char *const proc_seeds[][2] = {
	{"self/io", "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 0\n"
		    "write_bytes: 0\ncancelled_write_bytes: 0\n"},
	{"diskstats", "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		      " 254       0 vda 327516 49287 17254874 103187 735209 322378 47414704 "
		      "309702 0 186176 542599 436826 14 40058240 90802 144330 38906\n"},
	{"interrupts", "           CPU0       CPU1       \n"
		       " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
		       "LOC:    1234567     765432   Local timer interrupts\nERR:          0\n"},
	{"thread-self/schedstat", "1258321 355273 2\n"},
	{"thread-self/status", "Name:\tcat\nvoluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t1\n"},
	{"stat", "cpu  1 2 3 4\nintr 500 1 2 3\nctxt 9000\nprocesses 321\n"},
};
#define NPROC_SEEDS (int)(sizeof proc_seeds / sizeof proc_seeds[0])

static void parsers_once(const char *buf)
{
	uint64_t v;
	int rc[6] = {
		clab_lx_kv(buf, "f", "wchar", &v),
		clab_lx_kv(buf, "f", "voluntary_ctxt_switches", &v),
		clab_lx_field(buf, "f", (int)(next() % 4), &v),
		clab_lx_row(buf, "f", 2, "vda", 1 + (int)(next() % 17), 1, &v),
		clab_lx_row(buf, "f", 0, "LOC:", 1, 2, &v),
		clab_lx_row(buf, "f", 0, "24:", 1 + (int)(next() % 2), 1, &v),
	};
	for (int i = 0; i < 6; i++) {
		if (rc[i] != CLAB_OK && rc[i] != CLAB_E_PARSE)
			fail_msg("reader %d on '%s' gave %d", i, buf, rc[i]);
		if (rc[i])
			assert_true(clab_errmsg()[0] != 0);
	}
}

static void fuzz_linux_files(void **state)
{
	(void)state;
	char buf[1024];
	for (int r = 0; r < ROUNDS * 2; r++) {
		mutate(proc_seeds[r % NPROC_SEEDS][1], buf, sizeof buf);
		parsers_once(buf);
	}
	/* the units over a fake /proc, one file mutated at a time */
	char dir[] = "/tmp/clab-fuzzproc-XXXXXX", prof[512], path[600];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/thread-self", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/self", dir);
	mkdir(path, 0755);
	snprintf(prof, sizeof prof, "%s/p.ini", dir);
	FILE *f = fopen(prof, "w");
	fprintf(f, "[machine]\n[io]\nbackend = linux-io\nproc_dir = %s\n"
		"[kernel]\nbackend = linux-proc-kernel\nproc_dir = %s\n", dir, dir);
	fclose(f);
	for (int r = 0; r < ROUNDS / 5; r++) {
		for (int i = 0; i < NPROC_SEEDS; i++) { /* all files whole, then one mutated */
			snprintf(path, sizeof path, "%s/%s", dir, proc_seeds[i][0]);
			f = fopen(path, "w");
			if (i == r % NPROC_SEEDS)
				mutate(proc_seeds[i][1], buf, sizeof buf);
			fputs(i == r % NPROC_SEEDS ? buf : proc_seeds[i][1], f);
			fclose(f);
		}
		clab_machine *m = NULL;
		int rc = clab_machine_open(prof, &m);
		if (rc)
			fail_msg("a mutated %s stopped the machine: %d (%s)",
				 proc_seeds[r % NPROC_SEEDS][0], rc, clab_errmsg());
		clab_thread *t;
		assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
		const char *comps[] = {"io", "kernel"};
		for (int c = 0; c < 2; c++) {
			clab_component *cp = clab_machine_component(m, comps[c]);
			clab_component_info ci;
			clab_component_get_info(cp, &ci);
			if (clab_component_disabled(cp) || !ci.nnative)
				continue;
			/* every event at once, and the set read over the mutated file */
			uint32_t codes[64];
			int n = ci.nnative < 64 ? ci.nnative : 64;
			for (int k = 0; k < n; k++)
				codes[k] = (uint32_t)k;
			clab_evset *s;
			assert_int_equal(clab_evset_create(cp, t, &s), CLAB_OK);
			assert_int_equal(clab_evset_program(s, codes, n), CLAB_OK);
			rc = clab_evset_start(s);
			int64_t v[64];
			if (!rc)
				rc = clab_evset_read(s, v);
			if (rc != CLAB_OK && rc != CLAB_E_PARSE && rc != CLAB_E_SYS)
				fail_msg("%s over a mutated %s: %d (%s)", comps[c],
					 proc_seeds[r % NPROC_SEEDS][0], rc, clab_errmsg());
			clab_evset_destroy(s);
		}
		clab_thread_detach(t);
		clab_machine_close(m);
	}
	for (int i = 0; i < NPROC_SEEDS; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, proc_seeds[i][0]);
		unlink(path);
	}
	unlink(prof);
	snprintf(path, sizeof path, "%s/thread-self", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/self", dir);
	rmdir(path);
	rmdir(dir);
}

static void fuzz_presets(void **state)
{
	(void)state;
	fuzz_presets_of("core", "bgq-punit", "machines/presets/bgq_core.csv");
	fuzz_presets_of("l2", "bgq-l2", "machines/presets/bgq_l2.csv");
	fuzz_presets_of("io", "bgq-io", "machines/presets/bgq_io.csv");
	fuzz_presets_of("kernel", "bgq-cnk", "machines/presets/bgq_kernel.csv");
}

static void fuzz_postfix(void **state)
{
	(void)state;
	static const char *seeds[] = {"N0|N1|-|N2|-|", "N0|N1|+|2|*|N2|/|", "N0|"};
	char buf[128];
	clab_token tok[CLAB_MAX_TOKENS];
	int64_t terms[3] = {5, -7, 0};
	for (int r = 0; r < ROUNDS * 4; r++) {
		int n;
		mutate(seeds[r % 3], buf, sizeof buf);
		int rc = clab_postfix_compile(buf, 3, tok, &n);
		if (rc == CLAB_OK)
			(void)clab_postfix_eval(tok, n, terms); /* division by 0 is 0 */
		else
			assert_int_equal(rc, CLAB_E_PROFILE);
	}
}

/* Torus shapes, routing orders, rank maps (permutations and files) and
 * traffic patterns on a small torus: success or CLAB_E_MAP/PATTERN. */
static void fuzz_torus(void **state)
{
	(void)state;
	static const char *shapes[] = {"2x2x2", "4mx2x3", "1x1x1"};
	static const char *patterns[] = {
		"fft3d:n=16,grid=4x4,phase=1", "alltoall:bytes=1k,group=4,stride=2",
		"halo3d:grid=4x2x2,n=4,stencil=27,periodic=1", "pingpong:a=1,b=9,bytes=300,iters=2",
		"bcast:root=3,bytes=2000", "cg:class=A,iters=1", "mg:class=A,iters=1", "bt:class=A,iters=1",
		"perm:bitcomp,bytes=100", "perm:shift,k=3", "perm:random,seed=4", "perm:tornado",
		"uniform:bytes=700,msgs=3,seed=2",
	};
	/* a permutation file of the 16 ranks below, mutated */
	static const char perm_text[] = "# p\n15\n14\n13\n12\n11\n10\n9\n8\n7\n6\n5\n4\n3\n2\n1\n0\n";
	char ppath[] = "/tmp/clab-fuzz-perm-XXXXXX", pspec[64];
	int pfd = mkstemp(ppath);
	assert_true(pfd >= 0);
	close(pfd);
	snprintf(pspec, sizeof pspec, "perm:file=%s", ppath);
	static const char map_text[] = "0 0 0 0\n1 0 1 1 # r1\n\n1 1 1 0\n";
	const clab_netspec *bgl = clab_netspec_find("bgl");
	char buf[256], path[] = "/tmp/clab-fuzz-map-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	clab_torus t;
	clab_map m;
	for (int r = 0; r < ROUNDS; r++) {
		mutate(shapes[r % 3], buf, sizeof buf);
		int rc = clab_torus_init(&t, bgl, buf, 2, r % 2 ? "ZYX" : NULL);
		assert_true(rc == CLAB_OK || rc == CLAB_E_MAP);
		mutate("XZY", buf, sizeof buf);
		rc = clab_torus_init(&t, bgl, "2x2x2", 2, buf);
		assert_true(rc == CLAB_OK || rc == CLAB_E_MAP);
		assert_int_equal(clab_torus_init(&t, bgl, "2x2x2", 2, NULL), CLAB_OK);
		mutate(r % 2 ? "TXYZ" : map_text, buf, sizeof buf);
		/* every fourth map file gets a NUL byte somewhere: always refused */
		size_t len = strlen(buf);
		int nul = r % 4 == 0 && len > 0;
		if (r % 2 == 0) {
			if (nul)
				buf[next() % len] = 0;
			FILE *f = fopen(path, "w");
			fwrite(buf, 1, len, f);
			fclose(f);
		}
		rc = clab_map_init(&m, &t, r % 2 ? buf : path);
		if (nul) /* on the NUL's line, or an earlier bad one */
			assert_int_equal(rc, CLAB_E_MAP);
		if (rc != CLAB_OK) {
			assert_int_equal(rc, CLAB_E_MAP);
			assert_true(strlen(clab_errmsg()) > 0);
			continue;
		}
		int err;
		clab_net *n = clab_net_new(&t, &m, &err);
		assert_non_null(n);
		mutate(patterns[r % 12], buf, sizeof buf);
		rc = clab_net_pattern(n, buf);
		assert_true(rc == CLAB_OK || rc == CLAB_E_PATTERN);
		if (m.nranks == 16) {
			char text[512];
			mutate(perm_text, text, sizeof text);
			size_t tl = strlen(text);
			if (r % 3 == 0 && tl)
				text[next() % tl] = 0;
			FILE *f = fopen(ppath, "w");
			fwrite(text, 1, tl, f);
			fclose(f);
			rc = clab_net_pattern(n, pspec);
			assert_true(rc == CLAB_OK || rc == CLAB_E_PATTERN);
			if (rc)
				assert_true(strlen(clab_errmsg()) > 0);
		}
		clab_net_free(n);
		clab_map_free(&m);
	}
	unlink(path);
	unlink(ppath);
}

/* A value of random length (0..max) drawn from alpha; digits-only ones
 * half of the time, so that both verdicts are met. */
static void random_value(char *out, size_t max, const char *alpha)
{
	size_t n = next() % (max + 1), na = strlen(alpha);
	int digits = next() % 2;
	for (size_t i = 0; i < n; i++)
		out[i] = digits ? (char)('0' + next() % 10) : alpha[next() % na];
	out[n] = 0;
}

/* A whole number as the parsers take one: decimal digits, or 0x and hex
 * digits when hex, and no more than 20 digits' worth (larger ones
 * overflow: refused, which the caller allows). */
static int is_number(const char *v, int hex)
{
	const char *p = v;
	int x = hex && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	p += 2 * x;
	if (!*p)
		return 0;
	for (; *p; p++)
		if (!(x ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
			return 0;
	return 1;
}

/* Numeric keys of machine specs and traffic patterns given garbage of any
 * length: what is not a number is refused, naming the key; a long value
 * is a value, never "not key=value". */
static void fuzz_values(void **state)
{
	(void)state;
	static const char alpha[] = "0123456789 -+xXabcdefkKMG.eE=:;\t\xff\x01/";
	static const char *const keys[] = {
		"tick", "seed", "timer_us", "ppn", "kernel.fit_period", "io.port_latency",
		"network.rank", "kernel.syscall_cycles",
	};
	char val[400], spec[600];
	int refused = 0, taken = 0;
	for (int r = 0; r < ROUNDS / 5; r++) {
		const char *key = keys[r % 8];
		random_value(val, r % 3 ? 24 : 300, alpha);
		snprintf(spec, sizeof spec, "bgq:clock=virtual,%s=%s", key, val);
		clab_machine *m = NULL;
		int rc = clab_machine_open(spec, &m);
		clab_machine_close(m);
		if (rc != CLAB_OK && rc != CLAB_E_PROFILE)
			fail_msg("'%s' gave %d (%s)", spec, rc, clab_errmsg());
		if (rc == CLAB_OK) {
			taken++;
			if (!is_number(val, 1))
				fail_msg("'%s' was accepted", spec);
		} else {
			refused++;
			if (!strstr(clab_errmsg(), key) && *val && !strchr(val, '='))
				fail_msg("'%s': the message '%s' does not name %s", spec, clab_errmsg(), key);
		}
	}
	assert_true(refused > 10 && taken > 10);
	/* patterns, on 16 ranks */
	clab_torus t;
	clab_map m;
	int err;
	assert_int_equal(clab_torus_init(&t, clab_netspec_find("torus"), "2x2x2", 2, NULL), CLAB_OK);
	assert_int_equal(clab_map_init(&m, &t, NULL), CLAB_OK);
	clab_net *n = clab_net_new(&t, &m, &err);
	assert_non_null(n);
	static const char *const fmts[] = {
		"pingpong:bytes=%s", "uniform:seed=%s,msgs=1", "perm:shift,k=%s", "alltoall:iters=%s",
		"fft3d:n=%s,grid=4x4,compute=0", "bcast:root=%s", "halo3d:n=2,grid=%s",
		"perm:file=%s", "fft3d:phase=%s", "incast:senders=%s",
	};
	refused = taken = 0;
	for (int r = 0; r < ROUNDS / 3; r++) {
		const char *fmt = fmts[r % 10];
		random_value(val, r % 3 ? 16 : 300, alpha);
		for (char *c = val; *c; c++) /* one item: no comma ends the value */
			*c = *c == ',' ? ';' : *c;
		snprintf(spec, sizeof spec, fmt, val);
		int rc = clab_net_pattern(n, spec);
		if (rc != CLAB_OK && rc != CLAB_E_PATTERN)
			fail_msg("'%s' gave %d (%s)", spec, rc, clab_errmsg());
		if (rc == CLAB_OK) {
			taken++;
			/* numeric keys: numbers only (a k, M or G after the digits) */
			if (r % 10 < 5 && !is_number(val, 0) &&
			    !(strlen(val) > 1 && strchr("kMG", val[strlen(val) - 1])))
				fail_msg("'%s' was accepted", spec);
		} else {
			refused++;
			if (*val && strstr(clab_errmsg(), "is not key=value"))
				fail_msg("'%s': a value taken for a malformed item: %s", spec, clab_errmsg());
		}
	}
	assert_true(refused > 10 && taken > 10);
	clab_net_free(n);
	clab_map_free(&m);
}

/* Gemini tile maps (`rtr --interconnect` dumps): the Cielo map as a dump,
 * mutated (a line at a time, and whole), with NUL bytes and cut short:
 * success or CLAB_E_MAP with a message. */
static void fuzz_tilemap(void **state)
{
	(void)state;
	clab_gemini_tilemap cielo, m;
	clab_gemini_tilemap_cielo(&cielo);
	char seed[8192], buf[8192];
	size_t n = 0;
	for (int t = 0; t < CLAB_GEMINI_TILES; t++)
		if (cielo.dir[t] != CLAB_GEM_HOST)
			n += (size_t)snprintf(seed + n, sizeof seed - n,
					      "c0-0c0s3g1l%d%d[(0,3,1)] %s -> c0-0c1s3g1l%d%d LinkType: %s\n",
					      t / 8, t % 8, clab_gemini_dir_name(cielo.dir[t]), t / 8, t % 8,
					      clab_gemini_link_name(cielo.type[t]));
	assert_int_equal(clab_gemini_tilemap_parse(&m, seed, n, "seed", NULL), CLAB_OK);
	int ok = 0;
	for (int r = 0; r < ROUNDS; r++) {
		mutate(seed, buf, sizeof buf);
		size_t len = strlen(buf);
		if (r % 5 == 0 && len)
			buf[next() % len] = 0;
		if (r % 7 == 0)
			len = next() % (len + 1);
		int rc = clab_gemini_tilemap_parse(&m, buf, len, "fuzz", r % 3 ? NULL : "c0-0c0s3g1");
		if (rc == CLAB_OK) {
			ok++;
			for (int t = 0; t < CLAB_GEMINI_TILES; t++)
				assert_true(m.dir[t] < CLAB_GEM_NDIRS && m.type[t] < CLAB_GEM_NLINKTYPES);
		} else {
			assert_int_equal(rc, CLAB_E_MAP);
			assert_true(strlen(clab_errmsg()) > 0);
		}
	}
	assert_true(ok > 0 && ok < ROUNDS); /* both kinds were met */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fuzz_event_names),
		cmocka_unit_test(fuzz_specs),
		cmocka_unit_test(fuzz_profiles),
		cmocka_unit_test(fuzz_presets),
		cmocka_unit_test(fuzz_postfix),
		cmocka_unit_test(fuzz_torus),
		cmocka_unit_test(fuzz_tilemap),
		cmocka_unit_test(fuzz_values),
		cmocka_unit_test(fuzz_linux_files),
	};
	return cmocka_run_group_tests_name("fuzz", tests, NULL, NULL);
}
