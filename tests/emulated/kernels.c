/* Kernels whose counts are worked by hand, measured through PAPI inside a
 * program that counterlab-run runs under the emulator (activity =
 * emulated); tests/cli/test_emulated.sh runs it. Each kernel is inline
 * assembly, so the instructions are exactly those written here whatever
 * the compiler does; each measurement is a region between PAPI_start and
 * PAPI_stop, and a count that includes PAPI's own code is taken as the
 * difference of two regions that differ only in N. The BG/Q's reads lag
 * the counters by up to 800 cycles (the UPC_C scan), and the node spreads
 * what a thread did between two reads over the cycles it took, so each
 * kernel is followed by a read and 4096 no-ops, which count as
 * instructions only: by the stop, a scan has seen the whole kernel. */
#include <errno.h>
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "../../sim_backends/activity/emulated.h"
#include "../papi/check.h"
#include "bgpm/include/bgpm.h"

/* n scalar fused multiply-adds, in a loop of n iterations (dec, jnz) */
static void fmas(long n)
{
	double a = 1.0, b = 1.0, c = 0.0;
	__asm__ volatile("1: vfmadd231sd %[b], %[c], %[a]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [a] "+x"(a), [n] "+r"(n) : [b] "x"(b), [c] "x"(c) : "cc");
}

/* n 4-wide (256-bit) fused multiply-adds */
static void qfmas(long n)
{
	__asm__ volatile("vxorpd %%ymm0, %%ymm0, %%ymm0\n\t"
			 "1: vfmadd231pd %%ymm1, %%ymm2, %%ymm0\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b\n\t"
			 "vzeroupper"
			 : [n] "+r"(n) : : "cc", "xmm0", "xmm1", "xmm2");
}

/* n iterations, one conditional branch each (taken n - 1 times) */
static void loop(long n)
{
	__asm__ volatile("1: dec %[n]\n\t"
			 "jnz 1b" : [n] "+r"(n) : : "cc");
}

/* n 8-byte loads over buf, in 64-byte steps (one per line) */
static void stream(const char *buf, long n)
{
	__asm__ volatile("1: mov (%[p]), %%rax\n\t"
			 "add $64, %[p]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [p] "+r"(buf), [n] "+r"(n) : : "cc", "rax", "memory");
}

/* one 8-byte store to each of n consecutive 128-byte lines */
static void store_lines(const char *buf, long n)
{
	__asm__ volatile("1: mov %%rax, (%[p])\n\t"
			 "add $128, %[p]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [p] "+r"(buf), [n] "+r"(n) : : "cc", "rax", "memory");
}

/* n 4-wide FMAs that read their operand from memory (cachegrind counts
 * each as 4 loads, one per element) and n 256-bit vmovddup (2 loads) */
static void qfmas_mem(long n)
{
	static double m[4] __attribute__((aligned(32)));
	__asm__ volatile("vxorpd %%ymm0, %%ymm0, %%ymm0\n\t"
			 "1: vfmadd231pd %[m], %%ymm1, %%ymm0\n\t"
			 "vmovddup %[m], %%ymm2\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b\n\t"
			 "vzeroupper"
			 : [n] "+r"(n) : [m] "m"(m) : "cc", "xmm0", "xmm1", "xmm2");
}

/* n 8-byte loads that each straddle two lines never seen before */
static void cross(long n)
{
	char *buf = aligned_alloc(128, (size_t)n * 128 + 128);
	CHECK(buf, "no memory");
	const char *p = buf + 60;
	__asm__ volatile("1: mov (%[p]), %%rax\n\t"
			 "add $128, %[p]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [p] "+r"(p), [n] "+r"(n) : : "cc", "rax", "memory");
	free(buf);
}

/* n iterations of a 32-byte load and a 16-byte store that each straddle
 * two lines never seen before (QEMU makes them in 8-byte pieces): a load
 * across lines 0 and 1 of a 256-byte step, a store across lines 2 and 3 */
static void crossvec(long n)
{
	char *buf = aligned_alloc(128, (size_t)n * 256 + 256);
	CHECK(buf, "no memory");
	char *p = buf;
	__asm__ volatile("1: vmovdqu 48(%[p]), %%ymm0\n\t"
			 "vmovdqu %%xmm0, 184(%[p])\n\t"
			 "add $256, %[p]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b\n\t"
			 "vzeroupper"
			 : [p] "+r"(p), [n] "+r"(n) : : "cc", "xmm0", "memory");
	free(buf);
}

/* n iterations of scalar SSE and AVX instructions with a memory operand,
 * each access made whole by QEMU: 4 loads (movsd, addsd, vmulss,
 * cvtsi2sdq) and 2 stores (movss, movq) of 4 or 8 bytes; and a scalar FMA,
 * whose 8-byte operand QEMU 7.2 reads as 16 bytes in two pieces (joined:
 * a quad load) */
static void scalars(long n)
{
	static double m[8] __attribute__((aligned(64)));
	double a = 1.0, b = 2.0;
	__asm__ volatile("1: movsd (%[p]), %[a]\n\t"
			 "addsd 8(%[p]), %[a]\n\t"
			 "vmulss 16(%[p]), %[b], %[b]\n\t"
			 "cvtsi2sdq 24(%[p]), %[b]\n\t"
			 "movss %[b], 32(%[p])\n\t"
			 "movq %[a], 40(%[p])\n\t"
			 "vfmadd231sd 48(%[p]), %[b], %[a]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [a] "+x"(a), [b] "+x"(b), [n] "+r"(n) : [p] "r"(m) : "cc", "memory");
}

/* n iterations of a loop whose second instruction (a 10-byte movabs)
 * straddles a page boundary: QEMU ends the block before it and starts the
 * next one with it. 4 instructions an iteration. */
static void pagecross(long n)
{
	__asm__ volatile("jmp 2f\n\t"
			 ".p2align 12\n\t"
			 ".skip 4090\n"
			 "2: add $1, %%rax\n\t"     /* 4 bytes: 4090..4093 */
			 "movabs $0x123456789, %%rdx\n\t" /* 10 bytes: 4094..4103 */
			 "dec %[n]\n\t"
			 "jnz 2b"
			 : [n] "+r"(n) : : "cc", "rax", "rdx");
}

/* A pointer chase through `bytes` of memory, one 128-byte node per L2
 * line (so one L1 line each too) in one random cycle: a walk round it to
 * warm the caches, then n loads, each waiting for the one before. */
static void chase(long bytes, long n)
{
	long nodes = bytes / 128;
	void **ring = aligned_alloc(128, (size_t)nodes * 128);
	long *order = malloc((size_t)nodes * sizeof *order);
	CHECK(ring && order, "no memory");
	unsigned long s = 12345;
	for (long i = 0; i < nodes; i++)
		order[i] = i;
	for (long i = nodes - 1; i > 0; i--) { /* Sattolo: a single cycle */
		s = s * 6364136223846793005ul + 1442695040888963407ul;
		long j = (long)((s >> 33) % (unsigned long)i), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (long i = 0; i < nodes; i++)
		ring[order[i] * 16] = &ring[order[(i + 1) % nodes] * 16];
	free(order);
	void **p = ring;
	long warm = nodes;
	__asm__ volatile("1: mov (%[p]), %[p]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [p] "+r"(p), [n] "+r"(warm) : : "cc", "memory");
	__asm__ volatile("1: mov (%[p]), %[p]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [p] "+r"(p), [n] "+r"(n) : : "cc", "memory");
	free(ring);
}

/* n scalar multiplies, each by a double in memory: on the A2 a load and
 * a multiply (lfd, fmul) */
static void muls(const char *buf, long n)
{
	double a = 1.0;
	__asm__ volatile("1: mulsd (%[p]), %[a]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [a] "+x"(a), [n] "+r"(n) : [p] "r"(buf) : "cc", "memory");
}

/* x[i] *= y[i] over n doubles, as IBM's punit_mux loop does to its
 * arrays: an iteration is movsd (an FP load, lfd), mulsd from memory (a
 * second lfd and fmul), movsd to memory (stfd), inc, cmp, jne: 7 A2
 * instructions, 2 FP loads and 1 FP store, no integer ones */
static void xmuly(double *x, const double *y, long n)
{
	long i = 0;
	__asm__ volatile("1: movsd (%[x],%[i],8), %%xmm0\n\t"
			 "mulsd (%[y],%[i],8), %%xmm0\n\t"
			 "movsd %%xmm0, (%[x],%[i],8)\n\t"
			 "inc %[i]\n\t"
			 "cmp %[n], %[i]\n\t"
			 "jne 1b"
			 : [i] "+r"(i) : [x] "r"(x), [y] "r"(y), [n] "r"(n)
			 : "cc", "xmm0", "memory");
}
/* x and y of n doubles each (zeros: calloc stores none itself) */
static double *xy(long n)
{
	double *p = calloc(2 * (size_t)n, sizeof *p);
	CHECK(p, "no memory");
	return p;
}
static void k_xmuly(long n, const char *b)
{
	xmuly((double *)b, (const double *)b + n, n); /* b: xy(2n), for n and 2n */
}

/* n iterations of a block with a chain of 8 dependent FP multiplies after
 * an FP register move (fmr): each waits for the result before it */
static void depchain(long n)
{
	__asm__ volatile("1: movapd %%xmm1, %%xmm0\n\t"
			 ".rept 8\n\t"
			 "mulsd %%xmm1, %%xmm0\n\t"
			 ".endr\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n) : : "cc", "xmm0", "xmm1");
}

/* n iterations of a value converted into an FP register and back, the
 * one waiting for the other: each conversion goes through memory */
static void viachain(long n)
{
	__asm__ volatile("1: cvtsi2sd %%rax, %%xmm0\n\t"
			 "cvttsd2si %%xmm0, %%rax\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n) : : "cc", "rax", "xmm0");
}

/* n iterations of moves between integer and vector registers: an
 * insert and an extract (each a store, a load and the operation) and a
 * movq each way (a store and a load); dec, jnz: 12 instructions */
static void vecmoves(long n)
{
	__asm__ volatile("1: pinsrq $1, %%rax, %%xmm0\n\t"
			 "pextrq $1, %%xmm0, %%rcx\n\t"
			 "movq %%rax, %%xmm1\n\t"
			 "movq %%xmm1, %%rdx\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n) : : "cc", "rcx", "rdx", "xmm0", "xmm1");
}

/* ... and of 8 independent ones */
static void indep(long n)
{
	__asm__ volatile("1: mulsd %%xmm8, %%xmm0\n\t"
			 "mulsd %%xmm8, %%xmm1\n\t"
			 "mulsd %%xmm8, %%xmm2\n\t"
			 "mulsd %%xmm8, %%xmm3\n\t"
			 "mulsd %%xmm8, %%xmm4\n\t"
			 "mulsd %%xmm8, %%xmm5\n\t"
			 "mulsd %%xmm8, %%xmm6\n\t"
			 "mulsd %%xmm8, %%xmm7\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n) : : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7", "xmm8");
}

/* n iterations of a loop of 32 KB of one-byte nops from a line's start,
 * then dec and jnz in the line after: 513 lines of code, twice the L1I */
static void bigloop(long n)
{
	__asm__ volatile("jmp 1f\n\t"
			 ".p2align 6\n"
			 "1: .fill 32768, 1, 0x90\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n) : : "cc");
}

/* Over n 128-byte lines of memory never seen before: an 8-byte load per
 * line, then again with a store to the same place after each load */
static void rmw(long n)
{
	char *buf = aligned_alloc(128, (size_t)n * 128);
	CHECK(buf, "no memory");
	char *p = buf;
	long k = n;
	__asm__ volatile("1: mov (%[p]), %%rax\n\t"
			 "add $128, %[p]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [p] "+r"(p), [n] "+r"(k) : : "cc", "rax", "memory");
	p = buf, k = n;
	__asm__ volatile("1: mov (%[p]), %%rax\n\t"
			 "mov %%rax, (%[p])\n\t"
			 "add $128, %[p]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [p] "+r"(p), [n] "+r"(k) : : "cc", "rax", "memory");
	free(buf);
}

/* PAPI's papi_tot_ins loop (instructions_fldcw), n iterations: x87 loads
 * and stores of memory, which read or write it, never both */
static void x87(long n)
{
	int saved_cw, result, cw;
	double three = 3.0;
	__asm__ volatile("1: fldl %[three]\n\t"
			 "fnstcw %[saved]\n\t"
			 "movzwl %[saved], %%eax\n\t"
			 "movb $12, %%ah\n\t"
			 "movw %%ax, %[cw]\n\t"
			 "fldcw %[cw]\n\t"
			 "fistpl %[result]\n\t"
			 "fldcw %[saved]\n\t"
			 "loop 1b"
			 : "+c"(n), [saved] "=m"(saved_cw), [result] "=m"(result), [cw] "=m"(cw)
			 : [three] "m"(three) : "cc", "eax");
}

/* x87 operations, n iterations: fildl (lfiwax, fcfid), fiaddl and fimull
 * (lfiwax, fcfid and the operation), fchs and fabs (fneg, fabs), frndint
 * (frin), fld of a stack register twice (fmr), fucomip (fcmpu), fistpl
 * (fctiwz, stfiwx), fstp of %st(0) (a pop: no PowerPC instruction's
 * work), loop */
static void x87ops(long n)
{
	int three = 3, result;
	__asm__ volatile("1: fildl %[three]\n\t"
			 "fiaddl %[three]\n\t"
			 "fimull %[three]\n\t"
			 "fchs\n\t"
			 "fabs\n\t"
			 "frndint\n\t"
			 "fld %%st(0)\n\t"
			 "fucomip %%st(1), %%st\n\t"
			 "fld %%st(0)\n\t"
			 "fistpl %[result]\n\t"
			 "fstp %%st(0)\n\t"
			 "loop 1b"
			 : "+c"(n), [result] "=m"(result) : [three] "m"(three) : "cc");
}

/* rep stosb of n bytes (at most 1 MB), then rep movsb of them */
static void strings(long n)
{
	static char a[1 << 20], b[1 << 20];
	CHECK(n <= (long)sizeof a, "strings: at most %zu bytes", sizeof a);
	void *d = a, *s;
	long c = n;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
	d = b, s = a, c = n;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
}

/* n iterations of integer work, one instruction of each of the A2's XU
 * groups a PowerPC compiler would use for it: imul (IMUL), div (IDIV),
 * a register copy, and, xor and a test against a mask (ILOG: mr is or,
 * test is and.), shr and movzbl (BITS), cmp and a register tested
 * against itself (ICMP: cmpi 0), cmovb (IMOV: isel); lea, a register
 * zeroed (li), add and dec are integer adds, jnz a branch: 16 instructions. */
static void intops(long n)
{
	__asm__ volatile("mov $1, %%eax\n\t"
			 "mov $3, %%r8d\n\t"
			 "mov $5, %%ecx\n\t"
			 "1: imul %%rcx, %%rax\n\t"
			 "mov %%rax, %%rdx\n\t"
			 "and $0xff, %%rdx\n\t"
			 "xor %%rdx, %%rax\n\t"
			 "shr $3, %%rdx\n\t"
			 "movzbl %%dl, %%edx\n\t"
			 "cmp %%rdx, %%rax\n\t"
			 "cmovb %%rdx, %%rax\n\t"
			 "test %%rax, %%rax\n\t"
			 "test $1, %%al\n\t"
			 "lea 1(%%rax), %%rax\n\t"
			 "xor %%edx, %%edx\n\t"
			 "divl %%r8d\n\t"
			 "add $2, %%rax\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n) : : "cc", "rax", "rcx", "rdx", "r8");
}

/* n iterations of scalar FP work that is not arithmetic, and a square
 * root: ucomisd (FCMP: fcmpu), cvtsi2sd and cvttsd2si (FCVT: fcfid,
 * fctiwz, each through memory: std and lfd before fcfid, stfd and ld
 * after fctiwz), cvtsd2ss and roundsd (FRND: frsp, frin), movapd (FMOV:
 * fmr), andpd and maxsd (FOTH: fabs, fsel), sqrtsd (FSQ); dec, jnz: 15
 * instructions. */
static void fpops(long n)
{
	__asm__ volatile("1: ucomisd %%xmm1, %%xmm0\n\t"
			 "cvtsi2sd %%rax, %%xmm2\n\t"
			 "cvttsd2si %%xmm0, %%rcx\n\t"
			 "cvtsd2ss %%xmm0, %%xmm3\n\t"
			 "movapd %%xmm0, %%xmm4\n\t"
			 "andpd %%xmm5, %%xmm4\n\t"
			 "sqrtsd %%xmm1, %%xmm6\n\t"
			 "maxsd %%xmm1, %%xmm6\n\t"
			 "roundsd $0, %%xmm0, %%xmm7\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n) : : "cc", "rax", "rcx", "xmm2", "xmm3", "xmm4", "xmm6", "xmm7");
}

/* n atomic increments of one word (lock add), with a second thread
 * alive meanwhile when `threaded` (QEMU then makes them atomic). The
 * thread stops its counting (as libcounterlab does around a sync), says
 * it has started and waits for ever (the process's exit ends it): what it
 * counts is the same in every run, however the threads interleave. The
 * main thread's count is not, unless functions are bound at start
 * (LD_BIND_NOW=1): both threads call read, and the dynamic linker binds
 * it lazily in whichever thread calls it first. */
static int ready[2], gate[2];
static void *waiter(void *arg)
{
	char c;
	(void)arg;
	syscall(CLAB_EMU_SYSCALL, 0);
	CHECK(write(ready[1], "x", 1) == 1, "waiter: write");
	CHECK(read(gate[0], &c, 1) == 1, "waiter: read");
	return NULL;
}
static void atomics(long n, int threaded)
{
	static long word;
	pthread_t t;
	char c;
	if (threaded) {
		CHECK(pipe(ready) == 0 && pipe(gate) == 0, "pipe");
		CHECK(pthread_create(&t, NULL, waiter, NULL) == 0, "pthread_create");
		CHECK(read(ready[0], &c, 1) == 1, "read");
	}
	__asm__ volatile("1: lock addq $1, %[w]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [w] "+m"(word), [n] "+r"(n) : : "cc");
}

/* n lines of 128 bytes, fresh memory, one 8-byte store each */
static void wstream(long n)
{
	char *buf = aligned_alloc(128, (size_t)n * 128);
	CHECK(buf, "no memory");
	for (long i = 0; i < n; i++)
		((volatile long *)buf)[i * 16] = i;
	free(buf);
}

static void fences(long n)
{
	__asm__ volatile("1: mfence\n\t"
			 "lfence\n\t"
			 "sfence\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [n] "+r"(n) : : "cc", "memory");
}

/* n iterations of a loop that calls nothing, its code between ticked_begin
 * and ticked_end: an interrupt that lands there came while it ran */
extern const char ticked_begin[], ticked_end[];
#if __has_attribute(noclone) /* (clang has none) */
#define NOCLONE __attribute__((noclone)) /* one copy: its asm defines labels */
#else
#define NOCLONE
#endif
static __attribute__((noinline)) NOCLONE void ticked_loop(long n)
{
	__asm__ volatile(".globl ticked_begin\nticked_begin:\n\t"
			 "dec %[n]\n\t"
			 "jnz ticked_begin\n\t"
			 ".globl ticked_end\nticked_end:"
			 : [n] "+r"(n) : : "cc");
}

/* "kernels overflow N T": PAPI_BR_CN armed every T branches around N
 * iterations of ticked_loop; how many handler calls, how many of them
 * inside the loop */
static long ovf_calls, ovf_inside;
static void on_overflow(int es, void *pc, long long vector, void *ctx)
{
	(void)es, (void)vector, (void)ctx;
	ovf_calls++;
	ovf_inside += (const char *)pc >= ticked_begin && (const char *)pc < ticked_end;
}
static void overflow_ticks(long n, long t)
{
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	const char *br[] = {"PAPI_BR_CN"};
	int es = make_set(br, 1);
	CHECK_PAPI(PAPI_overflow(es, PAPI_BR_CN, (int)t, 0, on_overflow));
	long long v;
	CHECK_PAPI(PAPI_start(es));
	ticked_loop(n);
	CHECK_PAPI(PAPI_stop(es, &v));
	printf("overflow: %ld calls, %ld inside the loop, %lld branches\n", ovf_calls, ovf_inside,
	       v);
}

/* "kernels profil N T": PAPI_profil of ticked_loop's code (a bucket per 2
 * bytes), PAPI_BR_CN every T branches around N iterations: the samples
 * that land in the loop */
static void profil_ticks(long n, long t)
{
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	const char *br[] = {"PAPI_BR_CN"};
	int es = make_set(br, 1);
	static unsigned short buf[32];
	CHECK_PAPI(PAPI_profil(buf, sizeof buf, (vptr_t)ticked_begin, 65536, es, PAPI_BR_CN,
			       (int)t, PAPI_PROFIL_POSIX));
	long long v;
	CHECK_PAPI(PAPI_start(es));
	ticked_loop(n);
	CHECK_PAPI(PAPI_stop(es, &v));
	long in = 0;
	for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
		in += buf[i];
	printf("profil: %ld samples in the loop, %lld branches\n", in, v);
}

/* "kernels bgpm-handler N P": N reads of a BGPM set whose instruction
 * counter interrupts every P instructions, its handler asking, as IBM's
 * examples do, which events overflowed: interrupts come wherever the
 * program is, inside libbgpm's own calls too */
static unsigned bgpm_overflows;
static void bgpm_handler(int h, uint64_t addr, uint64_t vector, const ucontext_t *uc)
{
	(void)addr, (void)uc;
	unsigned idx[BGPM_MAX_OVERFLOW_EVENTS], len = BGPM_MAX_OVERFLOW_EVENTS;
	if (Bgpm_GetOverflowEventIndices((unsigned)h, vector, idx, &len) == 0)
		bgpm_overflows += len;
}

/* "kernels delay N": BGPM's Upci_Delay of N cycles spins on the
 * timebase, as on a BG/Q: N cycles pass and the loop's instructions count */
static void bgpm_delay(long n)
{
	CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0, "Bgpm_Init");
	int h = Bgpm_CreateEventSet();
	unsigned ev[] = {PEVT_CYCLES, PEVT_INST_ALL};
	CHECK(Bgpm_AddEventList(h, ev, 2) == 0 && Bgpm_Apply(h) == 0, "BGPM set");
	CHECK(Bgpm_Start(h) == 0, "Bgpm_Start");
	Upci_Delay((uint64_t)n);
	CHECK(Bgpm_Stop(h) == 0, "Bgpm_Stop");
	uint64_t c, i;
	CHECK(Bgpm_ReadEvent(h, 0, &c) == 0 && Bgpm_ReadEvent(h, 1, &i) == 0, "read");
	printf("delay: %llu cycles, %llu instructions\n", (unsigned long long)c, (unsigned long long)i);
}

static void bgpm_handler_reads(long n, long p)
{
	unsigned ev[] = {PEVT_INST_ALL};
	CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0, "Bgpm_Init");
	int h = Bgpm_CreateEventSet();
	CHECK(h >= 0 && Bgpm_AddEventList(h, ev, 1) == 0, "add");
	CHECK(Bgpm_SetOverflow(h, 0, (uint64_t)p) == 0 && Bgpm_SetOverflowHandler(h, bgpm_handler) == 0,
	      "overflow");
	CHECK(Bgpm_Apply(h) == 0 && Bgpm_Start(h) == 0, "start");
	uint64_t v = 0;
	for (long i = 0; i < n; i++)
		CHECK(Bgpm_ReadEvent(h, 0, &v) == 0, "read");
	CHECK(Bgpm_Stop(h) == 0, "stop");
	printf("bgpm-handler: %ld reads, %u overflows handled\n", n, bgpm_overflows);
	Bgpm_Disable();
}

/* "kernels mux N P": BGPM's automatic multiplexing, a switch every P
 * cycles, of ten events in two groups around N iterations of ticked_loop */
static void mux_ticks(long n, long p)
{
	static const unsigned ev[] = {
		PEVT_CYCLES, PEVT_INST_ALL, PEVT_XU_BR_COMMIT, PEVT_XU_BR_TAKEN_COMMIT,
		PEVT_XU_BR_MISPRED_COMMIT, PEVT_INST_XU_ALL, PEVT_XU_PPC_COMMIT,
		PEVT_XU_TIMEBASE_TICK, PEVT_INST_XU_BRC, PEVT_LSU_COMMIT_LD_MISSES,
	};
	CHECK(Bgpm_Init(BGPM_MODE_SWDISTRIB) == 0, "Bgpm_Init");
	int h = Bgpm_CreateEventSet();
	CHECK(h >= 0, "Bgpm_CreateEventSet");
	CHECK(Bgpm_SetMultiplex2(h, (uint64_t)p, BGPM_NORMAL, BGPMMuxMinEvts) == 0, "multiplex");
	CHECK(Bgpm_AddEventList(h, (unsigned *)ev, sizeof ev / sizeof ev[0]) == 0, "add");
	CHECK(Bgpm_Apply(h) == 0 && Bgpm_Start(h) == 0, "start");
	ticked_loop(n);
	CHECK(Bgpm_Stop(h) == 0, "stop");
	Bgpm_MuxStats_t st;
	CHECK(Bgpm_GetMultiplex(h, &st) == 0, "Bgpm_GetMultiplex");
	printf("mux: %u groups, %u switches, %llu cycles\n", st.numGrps, st.numSwitches,
	       (unsigned long long)st.elapsedCycles);
	Bgpm_Disable();
}

/* more than a scan period of instructions that count as nothing else */
static void pad(void)
{
	__asm__ volatile(".rept 4096\n\tnop\n\t.endr");
}

#define NEV 8
static const char *names[NEV] = {
	"PAPI_FP_OPS", "PAPI_FMA_INS", "PAPI_BR_CN", "PAPI_BR_TKN",
	"PAPI_TOT_INS", "PAPI_LD_INS", "PAPI_BR_MSP", "PAPI_L1_DCM",
};
enum { FP_OPS, FMA_INS, BR_CN, BR_TKN, TOT_INS, LD_INS, BR_MSP, L1_DCM };

static void measure(int es, void (*kernel)(long, const char *), long n, const char *buf,
		    long long *v)
{
	CHECK_PAPI(PAPI_start(es));
	kernel(n, buf);
	CHECK_PAPI(PAPI_read(es, v)); /* the node takes the kernel's counts */
	pad();
	CHECK_PAPI(PAPI_stop(es, v));
}

static void k_fma(long n, const char *b) { (void)b; fmas(n); }
static void k_qfma(long n, const char *b) { (void)b; qfmas(n); }
static void k_loop(long n, const char *b) { (void)b; loop(n); }
static void k_stream(long n, const char *b) { stream(b, n); }
static void k_muls(long n, const char *b) { muls(b, n); }
static void k_store_lines(long n, const char *b) { store_lines(b, n); }
static void k_syscalls(long n, const char *b)
{
	(void)b;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/* n multiplies by 1e10: inexact from the third, overflowing from about
 * the thirtieth (the flags that the FPSCR's summary bit sums up) */
static void k_overflow(long n, const char *b)
{
	(void)b;
	volatile double a = 1.5;
	for (long i = 0; i < n; i++)
		a = a * 1e10;
}

/* counts of kernel(2n) - kernel(n): PAPI's own share cancels */
static void diff(int es, void (*kernel)(long, const char *), long n, const char *buf,
		 long long *d)
{
	long long a[NEV], b[NEV];
	measure(es, kernel, n, buf, a); /* a first call resolves lazy bindings */
	measure(es, kernel, n, buf, a);
	measure(es, kernel, 2 * n, buf, b);
	for (int i = 0; i < NEV; i++)
		d[i] = b[i] - a[i];
}

static pthread_barrier_t slots_alive, slots_done;

static void *slot_waiter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&slots_alive);
	pthread_barrier_wait(&slots_done);
	return NULL;
}

/* a thread started when every slot is taken: PAPI_start's answer in *arg */
static void *slot_counter(void *arg)
{
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_register_thread());
	CHECK_PAPI(PAPI_create_eventset(&es));
	CHECK_PAPI(PAPI_add_named_event(es, "PAPI_TOT_INS"));
	*(int *)arg = PAPI_start(es);
	long long v;
	if (*(int *)arg == PAPI_OK)
		PAPI_stop(es, &v);
	return NULL;
}

/* The program's own signal handlers, as a sampling tool's: they store
 * vector registers on their stack (printf of a double) and read counters */
static int handler_set = PAPI_NULL;
static char handler_text[64];
static long long handler_read = -1;
static void on_usr1(int sig)
{
	snprintf(handler_text, sizeof handler_text, "%.1f", sig * 1.5);
	if (PAPI_read(handler_set, &handler_read) != PAPI_OK)
		handler_read = -2;
}
static void on_siginfo(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	snprintf(handler_text, sizeof handler_text, "%.1f %d", sig * 2.5, si->si_signo);
}

int main(int argc, char **argv)
{
	/* "kernels stack ...": where main's frame is (counterlab-run pads the
	 * environment so that it is the same whatever the environment) */
	if (argc >= 2 && !strcmp(argv[1], "stack")) {
		int here;
		printf("%p\n", (void *)&here);
		return 0;
	}
	/* "kernels fork": a forked child's loop counts in the child, not in the parent */
	if (argc == 2 && !strcmp(argv[1], "fork")) {
		CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
		int es = make_set(names, 4);
		long long v[4];
		const long n = 100000;
		CHECK_PAPI(PAPI_start(es));
		pid_t pid = fork();
		CHECK(pid >= 0, "fork");
		if (pid == 0) { /* its copy of the parent's set stopped, a set
					 * of its own counts the child's loop */
			long long c[4];
			int mine = make_set(names, 4);
			if (PAPI_stop(es, c) != PAPI_OK || PAPI_start(mine) != PAPI_OK)
				_exit(2);
			loop(100 * n);
			if (PAPI_read(mine, c) != PAPI_OK) /* as the parent: the scan's lag */
				_exit(2);
			pad();
			if (PAPI_stop(mine, c) != PAPI_OK)
				_exit(2);
			if (c[BR_CN] >= 100 * n && c[BR_CN] < 101 * n)
				_exit(0);
			fprintf(stderr, "fork: the child's BR_CN %lld, want %ld and a few\n", c[BR_CN], 100 * n);
			_exit(3);
		}
		int st;
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child");
		loop(n);
		CHECK_PAPI(PAPI_read(es, v));
		pad();
		CHECK_PAPI(PAPI_stop(es, v));
		/* the parent's loop and PAPI's own code, not the child's 100n */
		CHECK(v[BR_CN] >= n && v[BR_CN] < 2 * n, "fork: parent's BR_CN %lld, want %ld and a few",
		      v[BR_CN], n);
		printf("ok - a forked child counts its %ld branches, and they stay out of the parent's %lld\n",
		       100 * n, v[BR_CN]);
		return 0;
	}
	/* "kernels slots": more threads alive at once than the emulator has
	 * slots for; the last one to start a set is refused, not counted as 0 */
	if (argc == 2 && !strcmp(argv[1], "slots")) {
		CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
		CHECK_PAPI(PAPI_thread_init(pthread_self));
		enum { NT = CLAB_EMU_SLOTS + 8 };
		static pthread_t t[NT];
		CHECK(pthread_barrier_init(&slots_alive, NULL, NT + 1) == 0 &&
		      pthread_barrier_init(&slots_done, NULL, NT + 1) == 0, "barriers");
		for (int i = 0; i < NT; i++)
			CHECK(pthread_create(&t[i], NULL, slot_waiter, NULL) == 0, "pthread_create %d", i);
		pthread_barrier_wait(&slots_alive); /* all alive: no slot is left */
		pthread_t last;
		int rc = 0;
		CHECK(pthread_create(&last, NULL, slot_counter, &rc) == 0, "pthread_create");
		CHECK(pthread_join(last, NULL) == 0, "join");
		pthread_barrier_wait(&slots_done);
		for (int i = 0; i < NT; i++)
			pthread_join(t[i], NULL);
		CHECK(rc == PAPI_ECMP, "a thread without a slot: PAPI_start %d, want PAPI_ECMP", rc);
		printf("ok - a thread beyond the emulator's %d slots is refused at PAPI_start\n",
		       CLAB_EMU_SLOTS);
		return 0;
	}
	/* "kernels handlers": the program's handlers run, and sigaction tells
	 * the program its own handler back */
	if (argc == 2 && !strcmp(argv[1], "handlers")) {
		CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
		handler_set = make_set(names, 1);
		CHECK_PAPI(PAPI_start(handler_set));
		CHECK(signal(SIGUSR1, on_usr1) != SIG_ERR, "signal");
		loop(1000);
		raise(SIGUSR1);
		CHECK(!strcmp(handler_text, "15.0") && handler_read >= 0, "signal(): '%s', read %lld",
		      handler_text, handler_read);
		struct sigaction sa = {.sa_sigaction = on_siginfo, .sa_flags = SA_SIGINFO}, old;
		sigemptyset(&sa.sa_mask);
		CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, "sigaction");
		raise(SIGUSR2);
		CHECK(!strcmp(handler_text, "30.0 12"), "sigaction(): '%s'", handler_text);
		CHECK(sigaction(SIGUSR2, NULL, &old) == 0 && old.sa_sigaction == on_siginfo &&
			      signal(SIGUSR1, SIG_DFL) == on_usr1,
		      "the handlers asked back are not the program's");
		printf("ok - the program's signal handlers run (printf of a double, PAPI_read) and are "
		       "its own when asked back\n");
		return 0;
	}
	/* "kernels NAME N": that kernel alone, without PAPI */
	if (argc == 3) {
		long n = atol(argv[2]);
		if (!strcmp(argv[1], "fma"))
			fmas(n);
		else if (!strcmp(argv[1], "loop"))
			loop(n);
		else if (!strcmp(argv[1], "qfmamem"))
			qfmas_mem(n);
		else if (!strcmp(argv[1], "cross"))
			cross(n);
		else if (!strcmp(argv[1], "crossvec"))
			crossvec(n);
		else if (!strcmp(argv[1], "pagecross"))
			pagecross(n);
		else if (!strcmp(argv[1], "scalar"))
			scalars(n);
		else if (!strcmp(argv[1], "x87"))
			x87(n);
		else if (!strcmp(argv[1], "x87ops"))
			x87ops(n);
		else if (!strcmp(argv[1], "depchain"))
			depchain(n);
		else if (!strcmp(argv[1], "viachain"))
			viachain(n);
		else if (!strcmp(argv[1], "vecmoves"))
			vecmoves(n);
		else if (!strcmp(argv[1], "indep"))
			indep(n);
		else if (!strcmp(argv[1], "bigloop"))
			bigloop(n);
		else if (!strcmp(argv[1], "rmw"))
			rmw(n);
		else if (!strcmp(argv[1], "xmuly")) {
			double *p = xy(n);
			xmuly(p, p + n, n);
			free(p);
		}
		else if (!strcmp(argv[1], "strings"))
			strings(n);
		else if (!strcmp(argv[1], "atomic"))
			atomics(n, 0);
		else if (!strcmp(argv[1], "fences"))
			fences(n);
		else if (!strcmp(argv[1], "delay"))
			bgpm_delay(n);
		else if (!strcmp(argv[1], "wstream"))
			wstream(n);
		else if (!strcmp(argv[1], "fpops"))
			fpops(n);
		else if (!strcmp(argv[1], "intops"))
			intops(n);
		else if (!strcmp(argv[1], "atomic-threaded"))
			atomics(n, 1);
		else
			return 2;
		return 0;
	}
	/* "kernels NAME A B": chase BYTES N, overflow N T, profil N T, mux N P */
	static const struct {
		const char *name;
		void (*fn)(long, long);
	} two[] = {{"chase", chase}, {"overflow", overflow_ticks}, {"profil", profil_ticks},
		   {"mux", mux_ticks}, {"bgpm-handler", bgpm_handler_reads}};
	for (size_t k = 0; argc == 4 && k < sizeof two / sizeof two[0]; k++)
		if (!strcmp(argv[1], two[k].name)) {
			two[k].fn(atol(argv[2]), atol(argv[3]));
			return 0;
		}
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	int es = make_set(names, 4), es2 = make_set(names + 4, 4);
	long long v[NEV], d[NEV];
	const long n = 100000;

	/* the program's text, as PAPI finds it in the maps (the range a
	 * profiler hands PAPI_profil), holds its code */
	const PAPI_exe_info_t *exe = PAPI_get_executable_info();
	CHECK(exe && exe->address_info.text_start <= (vptr_t)ticked_loop &&
	      (vptr_t)ticked_loop < exe->address_info.text_end,
	      "the program's text is %p..%p", exe ? (void *)exe->address_info.text_start : NULL,
	      exe ? (void *)exe->address_info.text_end : NULL);
	printf("ok - the program's text range holds its code\n");

	/* nothing between start and read: the instructions counted are
	 * PAPI's own on the way out of the one and into the other, some
	 * hundreds; the library's simulation of the hardware (thousands of
	 * instructions a call) is not the program's work and is not counted */
	long long most = 0;
	for (int i = 0; i < 4; i++) { /* (the first binds PAPI's calls lazily) */
		CHECK_PAPI(PAPI_start(es2));
		CHECK_PAPI(PAPI_read(es2, v + 4));
		CHECK_PAPI(PAPI_stop(es2, d + 4));
		if (i && v[TOT_INS] > most)
			most = v[TOT_INS];
	}
	CHECK(most < 1000, "an empty start-read window counts %lld instructions", most);
	printf("ok - an empty start-read window: at most %lld instructions (PAPI's own)\n", most);
	/* and a read leaves the program's errno as it was */
	CHECK_PAPI(PAPI_start(es2));
	errno = ERANGE;
	CHECK_PAPI(PAPI_read(es2, v + 4));
	int after = errno;
	CHECK_PAPI(PAPI_stop(es2, d + 4));
	CHECK(after == ERANGE, "PAPI_read changed errno from ERANGE to %d", after);
	printf("ok - PAPI_read leaves errno as it was\n");

	/* FP exceptions: the summary bit goes from clear to set once when the
	 * multiplies raise flags that were all clear, not again while they
	 * stay set, never for integer work; PAPI's calls raise no flags of
	 * their own (the count takes the flags the library sees for the
	 * program's) */
	static const char *fxnames[] = {"core:::PEVT_AXU_FP_EXCEPT"};
	int esx = make_set(fxnames, 1);
	long long fx[3];
	feclearexcept(FE_ALL_EXCEPT);
	measure(esx, k_overflow, 100, NULL, v);
	fx[0] = v[0];
	int raised = fetestexcept(FE_ALL_EXCEPT);
	measure(esx, k_overflow, 100, NULL, v);
	fx[1] = v[0];
	feclearexcept(FE_ALL_EXCEPT);
	measure(esx, k_loop, 1000, NULL, v);
	fx[2] = v[0];
	int left = fetestexcept(FE_ALL_EXCEPT);
	CHECK(fx[0] == 1 && fx[1] == 0 && fx[2] == 0,
	      "PEVT_AXU_FP_EXCEPT: %lld overflowing from clear flags (want 1), %lld with them set "
	      "(want 0), %lld for a loop (want 0)", fx[0], fx[1], fx[2]);
	CHECK(raised == (FE_OVERFLOW | FE_INEXACT) && left == 0,
	      "the program's FP flags after its multiplies %#x (want overflow and inexact), after "
	      "a loop between PAPI calls %#x (want none)", raised, left);
	printf("ok - PEVT_AXU_FP_EXCEPT: 1 for multiplies that raise flags from clear, 0 while "
	       "they stay set, 0 for a loop; PAPI's calls raise no FP flags\n");
	drop_set(esx);

	/* N FMAs: 2N operations, N FMA instructions, exactly (PAPI's own
	 * code between start and stop does no floating point) */
	measure(es, k_fma, n, NULL, v);
	CHECK(v[FP_OPS] == 2 * n, "FP_OPS %lld after %ld FMAs, want %ld", v[FP_OPS], n, 2 * n);
	CHECK(v[FMA_INS] == n, "FMA_INS %lld after %ld FMAs", v[FMA_INS], n);
	printf("ok - %ld FMAs: PAPI_FP_OPS %lld, PAPI_FMA_INS %lld\n", n, v[FP_OPS], v[FMA_INS]);
	/* 4-wide: 8 operations each */
	measure(es, k_qfma, n, NULL, v);
	CHECK(v[FP_OPS] == 8 * n && v[FMA_INS] == n, "%ld 4-wide FMAs: FP_OPS %lld FMA_INS %lld",
	      n, v[FP_OPS], v[FMA_INS]);
	printf("ok - %ld 4-wide FMAs: PAPI_FP_OPS %lld\n", n, v[FP_OPS]);

	/* N more iterations of a loop: N more conditional branches, all taken
	 * (the exit is in both regions), 2N more instructions (give or take
	 * the scan's lag, which falls in the no-ops), and no more
	 * mispredictions (the 2-bit counter saturates at taken), give or take
	 * PAPI's own that the lag hides */
	long long a[NEV];
	diff(es, k_loop, n, NULL, d);
	measure(es2, k_loop, n, NULL, a + 4); /* es2 counts names[4..8) */
	measure(es2, k_loop, 2 * n, NULL, v + 4);
	/* the stop's own branches, spread over the cycles after the read, are
	 * what the lag may hide: a few (the exact count is test_emulated.sh's,
	 * from the plugin's totals) */
	CHECK(llabs(d[BR_CN] - n) <= 64 && llabs(d[BR_TKN] - n) <= 64,
	      "loop +%ld: BR_CN +%lld BR_TKN +%lld", n, d[BR_CN], d[BR_TKN]);
	CHECK(llabs(v[TOT_INS] - a[TOT_INS] - 2 * n) <= 800, "loop +%ld: TOT_INS +%lld", n, v[TOT_INS] - a[TOT_INS]);
	CHECK(llabs(v[BR_MSP] - a[BR_MSP]) <= 64, "loop +%ld: BR_MSP %lld -> %lld", n, a[BR_MSP], v[BR_MSP]);
	printf("ok - loop of %ld more iterations: +%lld conditional branches, +%lld taken, "
	       "+%lld instructions, mispredictions %lld both\n", n, d[BR_CN], d[BR_TKN],
	       v[TOT_INS] - a[TOT_INS], v[BR_MSP]);

	/* streaming M bytes once, one load per 64-byte line: M/64 loads, each
	 * an L1D miss (the buffer is far larger than the 16 KB L1D): a stream
	 * of 2M bytes against one of M (fresh lines each), within 1% */
	const long lines = 1 << 16; /* 4 MB */
	char *buf = aligned_alloc(128, (size_t)lines * 3 * 64);
	CHECK(buf, "no memory");
	memset(buf, 1, (size_t)lines * 3 * 64);
	measure(es2, k_stream, lines, buf, a + 4);
	measure(es2, k_stream, 2 * lines, buf + (size_t)lines * 64, v + 4);
	long long dl = v[LD_INS] - a[LD_INS], dm = v[L1_DCM] - a[L1_DCM];
	CHECK(llabs(dl - lines) <= lines / 100 && llabs(dm - lines) <= lines / 100,
	      "stream of %ld more lines: LD_INS +%lld, L1_DCM +%lld", lines, dl, dm);
	printf("ok - streaming %ld more bytes: PAPI_LD_INS +%lld, PAPI_L1_DCM +%lld (lines %ld)\n",
	       lines * 64, dl, dm, lines);
	free(buf);

	/* N multiplies by memory: N FP operations and N FMUL instructions
	 * exactly, and N more loads (the A2 loads before it multiplies) */
	static const char *mulnames[] = {"PAPI_FP_OPS", "core:::PEVT_INST_QFPU_FMUL", "PAPI_LD_INS"};
	int es3 = make_set(mulnames, 3);
	const double one = 1.0;
	measure(es3, k_muls, n, (const char *)&one, v);
	CHECK(v[0] == n && v[1] == n, "%ld multiplies by memory: FP_OPS %lld, FMUL %lld", n, v[0], v[1]);
	diff(es3, k_muls, n, (const char *)&one, d);
	CHECK(llabs(d[2] - n) <= n / 100, "%ld more multiplies by memory: LD_INS +%lld", n, d[2]);
	printf("ok - %ld multiplies by memory: PAPI_FP_OPS %lld, PEVT_INST_QFPU_FMUL %lld, "
	       "PAPI_LD_INS +%lld for %ld more\n", n, v[0], v[1], d[2], n);
	drop_set(es3);

	/* N more system calls: N more of the kernel's system-call interrupts;
	 * N more loop iterations: 2N more instructions, each issued once and
	 * committed in the run state */
	static const char *sysnames[] = {"kernel:::PEVT_CNKHWT_SYSCALL"};
	es3 = make_set(sysnames, 1);
	diff(es3, k_syscalls, 1000, NULL, d);
	CHECK(d[0] == 1000, "1000 more system calls: PEVT_CNKHWT_SYSCALL +%lld", d[0]);
	drop_set(es3);
	static const char *issuenames[] = {"core:::PEVT_IU_TOT_ISSUE_COUNT", "core:::PEVT_XU_RUN_INSTR",
					   "PAPI_TOT_INS"};
	es3 = make_set(issuenames, 3);
	diff(es3, k_loop, n, NULL, d);
	for (int i = 0; i < 3; i++)
		CHECK(llabs(d[i] - 2 * n) <= 800, "loop +%ld: %s +%lld", n, issuenames[i], d[i]);
	printf("ok - 1000 more system calls: PEVT_CNKHWT_SYSCALL +1000; loop of %ld more "
	       "iterations: PEVT_IU_TOT_ISSUE_COUNT +%lld, PEVT_XU_RUN_INSTR +%lld, PAPI_TOT_INS +%lld\n",
	       n, d[0], d[1], d[2]);
	drop_set(es3);

	/* N more iterations of x[i] *= y[i]: 2N more loads and N more stores
	 * that feed or come from the AXU (FP loads and stores, lfd and stfd),
	 * 2N more FP load instructions (the load/store unit's AXU commits
	 * count FLD + QLD, FST + QST) */
	static const char *axunames[] = {"core:::PEVT_LSU_COMMIT_AXU_LDS",
					 "core:::PEVT_LSU_COMMIT_AXU_STS", "core:::PEVT_INST_XU_FLD"};
	int es4 = make_set(axunames, 3);
	double *xyb = xy(2 * n);
	diff(es4, k_xmuly, n, (const char *)xyb, d);
	free(xyb);
	CHECK(llabs(d[0] - 2 * n) <= n / 100 && llabs(d[1] - n) <= n / 100 &&
	      llabs(d[2] - 2 * n) <= n / 100,
	      "%ld more x[i] *= y[i]: AXU_LDS +%lld, AXU_STS +%lld, INST_XU_FLD +%lld", n, d[0],
	      d[1], d[2]);
	printf("ok - %ld more x[i] *= y[i]: PEVT_LSU_COMMIT_AXU_LDS +%lld, _AXU_STS +%lld, "
	       "PEVT_INST_XU_FLD +%lld\n", n, d[0], d[1], d[2]);
	drop_set(es4);

	/* stores to N lines the program never touched, against N more: N
	 * more L2 misses and N more lines fetched (a store to a line the L2
	 * does not hold misses there and brings the line in, as a load
	 * does), and no more hits */
	static const char *l2names[] = {"l2:::PEVT_L2_MISSES", "l2:::PEVT_L2_FETCH_LINE",
					"l2:::PEVT_L2_HITS"};
	int es5 = make_set(l2names, 3);
	const long fresh = 1 << 14; /* 2 MB of lines */
	/* (mapped: malloc could hand back memory an earlier test touched; a
	 * first call on lines of their own resolves lazy bindings) */
	size_t span = (size_t)(3 * fresh + 16) * 128;
	char *lines3 = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(lines3 != MAP_FAILED, "no memory");
	measure(es5, k_store_lines, 16, lines3 + (size_t)fresh * 3 * 128, a);
	measure(es5, k_store_lines, fresh, lines3, a);
	measure(es5, k_store_lines, 2 * fresh, lines3 + (size_t)fresh * 128, v);
	for (int i = 0; i < 3; i++)
		d[i] = v[i] - a[i];
	CHECK(llabs(d[0] - fresh) <= fresh / 100 && llabs(d[1] - fresh) <= fresh / 100 &&
	      llabs(d[2]) <= fresh / 100,
	      "stores to %ld more fresh lines: PEVT_L2_MISSES +%lld, _FETCH_LINE +%lld, _HITS +%lld",
	      fresh, d[0], d[1], d[2]);
	printf("ok - stores to %ld more fresh lines: PEVT_L2_MISSES +%lld, PEVT_L2_FETCH_LINE +%lld, "
	       "PEVT_L2_HITS %+lld\n", fresh, d[0], d[1], d[2]);
	munmap(lines3, span);
	drop_set(es5);
	drop_set(es);
	drop_set(es2);
	PAPI_shutdown();
	return 0;
}
