/* PAPI_profil and PAPI_sprofil credit the program's own code. A function
 * of this program (in a section of its own, so its address range is known)
 * calls PAPI_read in a loop with PAPI_TOT_CYC armed.
 *
 * Virtual clock (tick cycles per read): every overflow comes at a read, and
 * its PC is that read's call site in the function. An overflow handler run
 * counts the overflows (all of them with PCs in the function); a PAPI_profil
 * run and a PAPI_sprofil run of the same reads then find exactly that many
 * samples in the function's buckets, and none in regions over libpapi's
 * and libcounterlab's code.
 *
 * Host clock (the loop burns CPU between reads, until a count of cycles):
 * the overflows interrupt the loop or come at a read; at least one sample
 * lands in the program, every PC is the program's or libc's, none is in
 * libpapi or libcounterlab. Counts only: no timing decides the verdict. */
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

/* The linker bounds a section named like a C identifier with these. */
#if __has_attribute(noclone) /* (clang has none) */
#define NOCLONE __attribute__((noclone))
#else
#define NOCLONE
#endif
#define PROFILED __attribute__((noinline, section("clab_profiled"))) NOCLONE
extern const char __start_clab_profiled[], __stop_clab_profiled[];

enum { PROG, LIBC, LIBPAPI, LIBCLAB, NOBJ };
static const char *const obj_name[NOBJ] = {"the program", "libc", "libpapi",
					   "libcounterlab"};
static struct {
	uintptr_t lo, hi;
} text[NOBJ]; /* executable segments */

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	int *first = arg;
	const char *name = info->dlpi_name;
	int o = *first ? PROG : strstr(name, "/libc.so") ? LIBC
			      : strstr(name, "/libpapi.so") ? LIBPAPI
			      : strstr(name, "/libcounterlab.so") ? LIBCLAB : -1;
	*first = 0;
	for (int i = 0; o >= 0 && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			text[o].lo = info->dlpi_addr + ph->p_vaddr;
			text[o].hi = text[o].lo + ph->p_memsz;
		}
	}
	return 0;
}

static int object_of(uintptr_t pc)
{
	for (int o = 0; o < NOBJ; o++)
		if (pc >= text[o].lo && pc < text[o].hi)
			return o;
	return -1;
}

static int in_function(uintptr_t pc)
{
	return pc >= (uintptr_t)__start_clab_profiled && pc < (uintptr_t)__stop_clab_profiled;
}

/* ---- the profiled code ---------------------------------------------------- */

PROFILED static long long read_loop(int es, long long reads)
{
	long long v = 0, sum = 0;
	for (long long i = 0; i < reads; i++) {
		if (PAPI_read(es, &v) != PAPI_OK)
			return -1;
		sum += v;
	}
	return sum;
}

PROFILED static long long burn_loop(int es, long long cycles)
{
	volatile double x __attribute__((unused)) = 0;
	long long v = 0;
	while (v < cycles) {
		for (int k = 0; k < 20000; k++)
			x += 1e-9;
		if (PAPI_read(es, &v) != PAPI_OK)
			return -1;
	}
	return v;
}

typedef long long (*loop_fn)(int es, long long n);

/* ---- runs ----------------------------------------------------------------- */

static long calls, in_fn, at[NOBJ + 1];
static uintptr_t first_bad;

static void handler(int es, void *pc, long long vector, void *ctx)
{
	(void)es;
	(void)vector;
	(void)ctx;
	uintptr_t p = (uintptr_t)pc;
	int o = object_of(p);
	calls++;
	in_fn += in_function(p);
	at[o < 0 ? NOBJ : o]++;
	if (o != PROG && o != LIBC && !first_bad)
		first_bad = p;
}

/* A region of PAPI_sprofil over [lo, hi) in 16-bit buckets of 2^k bytes. */
static void region(PAPI_sprofil_t *r, uintptr_t lo, uintptr_t hi, int bytes_log2)
{
	size_t n = ((hi - lo) >> bytes_log2) + 1;
	r->pr_base = calloc(n, sizeof(unsigned short));
	CHECK(r->pr_base, "calloc");
	r->pr_size = (unsigned)(n * sizeof(unsigned short));
	r->pr_off = (vptr_t)lo;
	/* a bucket of 2 bytes is scale 65536: 2^k bytes is 65536 >> (k - 1) */
	r->pr_scale = 65536u >> (bytes_log2 - 1);
}

static long hits(const PAPI_sprofil_t *r)
{
	long n = 0;
	const unsigned short *b = r->pr_base;
	for (unsigned i = 0; i < r->pr_size / sizeof *b; i++)
		n += b[i];
	return n;
}

static void count(int es, loop_fn loop, long long n)
{
	CHECK_PAPI(PAPI_start(es));
	CHECK(loop(es, n) >= 0, "PAPI_read failed");
	CHECK_PAPI(PAPI_stop(es, NULL));
}

/* The loop with PAPI_TOT_CYC calling handler: calls, in_fn and at[]. */
static void overflow_run(const char *what, int es, int period, loop_fn loop, long long n)
{
	CHECK_PAPI(PAPI_overflow(es, PAPI_TOT_CYC, period, 0, handler));
	count(es, loop, n);
	CHECK_PAPI(PAPI_overflow(es, PAPI_TOT_CYC, 0, 0, handler));
	printf("%s: %ld overflows, %ld in the profiled function;", what, calls, in_fn);
	for (int o = 0; o < NOBJ; o++)
		printf(" %s %ld,", obj_name[o], at[o]);
	printf(" elsewhere %ld\n", at[NOBJ]);
}

#define FLAGS (PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_16)
enum { R_FN, R_PAPI, R_CLAB, NREG };

/* The loop under PAPI_profil over the profiled function: its samples. */
static long profil_run(int es, int period, loop_fn loop, long long n)
{
	PAPI_sprofil_t r;
	region(&r, (uintptr_t)__start_clab_profiled, (uintptr_t)__stop_clab_profiled, 1);
	CHECK_PAPI(PAPI_profil(r.pr_base, r.pr_size, r.pr_off, r.pr_scale, es, PAPI_TOT_CYC,
			       period, FLAGS));
	count(es, loop, n);
	CHECK_PAPI(PAPI_profil(r.pr_base, r.pr_size, r.pr_off, r.pr_scale, es, PAPI_TOT_CYC,
			       0, FLAGS));
	long fn = hits(&r);
	free(r.pr_base);
	printf("PAPI_profil: %ld samples in the function\n", fn);
	return fn;
}

/* The loop under PAPI_sprofil over the profiled function (byte buckets),
 * libpapi's and libcounterlab's code (coarse): the function's samples;
 * the libraries' must be none. */
static long sprofil_run(int es, int period, loop_fn loop, long long n, int flags)
{
	PAPI_sprofil_t r[NREG];
	memset(r, 0, sizeof r);
	region(&r[R_FN], (uintptr_t)__start_clab_profiled, (uintptr_t)__stop_clab_profiled, 1);
	region(&r[R_PAPI], text[LIBPAPI].lo, text[LIBPAPI].hi, 9);
	region(&r[R_CLAB], text[LIBCLAB].lo, text[LIBCLAB].hi, 9);
	CHECK_PAPI(PAPI_sprofil(r, NREG, es, PAPI_TOT_CYC, period, FLAGS | flags));
	count(es, loop, n);
	CHECK_PAPI(PAPI_sprofil(r, NREG, es, PAPI_TOT_CYC, 0, FLAGS | flags));
	long fn = hits(&r[R_FN]), papi = hits(&r[R_PAPI]), clab = hits(&r[R_CLAB]);
	for (int i = 0; i < NREG; i++)
		free(r[i].pr_base);
	printf("PAPI_sprofil: function %ld, libpapi %ld, libcounterlab %ld\n", fn, papi, clab);
	CHECK(papi == 0 && clab == 0, "PAPI_sprofil: %ld samples in libpapi, %ld in libcounterlab",
	      papi, clab);
	return fn;
}

/* PAPI on spec, with a set counting PAPI_TOT_CYC. */
static int init(const char *spec)
{
	setenv("COUNTERLAB_MACHINE", spec, 1);
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	CHECK(rc == PAPI_VER_CURRENT, "PAPI_library_init: %d", rc);
	int first = 1;
	dl_iterate_phdr(find_text, &first);
	for (int o = 0; o < NOBJ; o++)
		CHECK(text[o].lo < text[o].hi, "no executable segment of %s found", obj_name[o]);
	CHECK(object_of((uintptr_t)read_loop) == PROG, "read_loop is not in the program's text");
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_add_event(es, PAPI_TOT_CYC));
	long long v;
	CHECK_PAPI(PAPI_read(es, &v)); /* binds PAPI_read's PLT slot before counting */
	return es;
}

static void fini(int es)
{
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));
	PAPI_shutdown();
}

/* ---- the clocks ----------------------------------------------------------- */

#define TICK 100000
#define PERIOD 300000 /* 40 reads (and the stop's tick) cross it 13 times */
#define READS 40

static void virtual_clock(void)
{
	int es = init("bgq:clock=virtual,tick=100000,activity=compute");
	overflow_run("virtual, PAPI_overflow", es, PERIOD, read_loop, READS);
	CHECK(calls >= READS * TICK / PERIOD / 2, "only %ld overflows", calls);
	CHECK(in_fn == calls, "%ld of %ld overflow PCs in the function that read (first outside: %p)",
	      in_fn, calls, (void *)first_bad);
	/* the same reads: one sample per overflow, in the function */
	long fn = profil_run(es, PERIOD, read_loop, READS);
	CHECK(fn == calls, "PAPI_profil: %ld samples in the function, want %ld", fn, calls);
	fn = sprofil_run(es, PERIOD, read_loop, READS, 0);
	CHECK(fn == calls, "PAPI_sprofil: %ld samples in the function, want %ld", fn, calls);
	fini(es);
}

#define HOST_PERIOD 2000000
#define HOST_CYCLES (20LL * HOST_PERIOD)

static void host_clock(void)
{
	int es = init("bgq:clock=host,activity=compute");
	overflow_run("host, PAPI_overflow", es, HOST_PERIOD, burn_loop, HOST_CYCLES);
	CHECK(at[PROG] >= 1, "no overflow PC in the program");
	CHECK(at[PROG] + at[LIBC] == calls,
	      "%ld of %ld overflow PCs outside the program and libc (first %p)",
	      calls - at[PROG] - at[LIBC], calls, (void *)first_bad);
	long fn = sprofil_run(es, HOST_PERIOD, burn_loop, HOST_CYCLES, 0);
	CHECK(fn >= 1, "PAPI_sprofil: no sample in the function");
	/* PAPI's software overflow: its CPU-time itimer's signal reaches us
	 * too, inside our calls or not; a longer loop, for its 10 ms ticks */
	fn = sprofil_run(es, HOST_PERIOD, burn_loop, 10 * HOST_CYCLES, PAPI_PROFIL_FORCE_SW);
	CHECK(fn >= 1, "PAPI_sprofil, PAPI_PROFIL_FORCE_SW: no sample in the function");
	fini(es);
}

/* Each clock in a process of its own (PAPI reads the machine once). */
static int run(void (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		alarm(120); /* a hang fails, by SIGALRM */
		fn();
		fflush(stdout);
		_exit(0);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void)
{
	int ok = run(virtual_clock);
	ok &= run(host_clock);
	CHECK(ok, "a clock's checks failed (above)");
	printf("PASSED\n");
	return 0;
}
