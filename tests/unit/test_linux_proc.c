/* The Linux units (backends/linux) against fixture trees: a fake /proc, /sys
 * and MSR device directory built by each test, whose numbers the test then
 * moves, so every count read is known by construction. Malformed, cut-short
 * and missing files must give their own errors and lose nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "helpers.h"

static char root[64];

/* Allocations made while counting is on (the sanitizers keep malloc to
 * themselves: there the count stays 0 and the check proves nothing). */
static volatile int counting;
static volatile long allocs;
#ifndef __SANITIZE_ADDRESS__
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n)
{
	allocs += counting;
	return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
	allocs += counting;
	return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
	allocs += counting;
	return __libc_realloc(p, n);
}
#endif

static void mkdirs(const char *path)
{
	char tmp[1024];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0755);
			*p = '/';
		}
}

/* Writes text to ROOT/rel, creating directories on the way. */
static void put(const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	mkdirs(path);
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("fixture %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void drop(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	assert_int_equal(unlink(path), 0);
}

/* An 8-byte MSR value at offset addr of the fake device of cpu. */
static void put_msr(int cpu, uint32_t addr, uint64_t v)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/msr/%d/msr", root, cpu);
	mkdirs(path);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &v, sizeof v, (off_t)addr), (ssize_t)sizeof v);
	close(fd);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof root, "/tmp/clab-lx-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* The linux-proc profile with every directory in the fixture tree. */
static clab_machine *open_fixture(void)
{
	char spec[1024];
	snprintf(spec, sizeof spec,
		 "linux-proc:io.proc_dir=%s/proc,kernel.proc_dir=%s/proc,network.sys_dir=%s/sys,core.msr_dir=%s/msr",
		 root, root, root, root);
	return open_machine(spec);
}

static const char *io_text(uint64_t rchar, uint64_t wchar)
{
	static char buf[512];
	snprintf(buf, sizeof buf,
		 "rchar: %llu\nwchar: %llu\nsyscr: 10\nsyscw: 20\nread_bytes: 4096\n"
		 "write_bytes: 8192\ncancelled_write_bytes: 0\n",
		 (unsigned long long)rchar, (unsigned long long)wchar);
	return buf;
}

static const char *disk_text(uint64_t sectors_written)
{
	static char buf[1024];
	snprintf(buf, sizeof buf,
		 "   8       0 sda 100 2 3000 40 50 6 %llu 80 0 90 100 1 2 3 4 5 6\n"
		 "   8       1 sdb 1 2\n"                        /* cut short: no events */
		 "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0\n",    /* an older kernel: 11 fields */
		 (unsigned long long)sectors_written);
	return buf;
}

static void base_tree(void)
{
	put("proc/self/io", io_text(1000, 2000));
	put("proc/diskstats", disk_text(700));
	put("proc/thread-self/status", "Name:\ttest\nState:\tR (running)\n"
	    "voluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t7\n");
	put("proc/thread-self/schedstat", "1000000 2000 30\n");
	put("proc/stat", "cpu  1 2 3 4\nintr 500 1 2 3\nctxt 9000\nbtime 1700000000\nprocesses 321\n");
	put("proc/interrupts", "           CPU0       CPU1       \n"
	    "  0:         10         20   IO-APIC   2-edge      timer\n"
	    "LOC:        100        200   Local timer interrupts\n"
	    "ERR:          3\n");
	put("sys/class/net/lo/statistics/rx_bytes", "111\n");
	put("sys/class/net/lo/statistics/tx_bytes", "222\n");
	put("sys/class/net/lo/statistics/collisions", "0\n");
	put("sys/class/net/lo/statistics/garbage", "not a number\n"); /* not an event */
	put_msr(0, 0x10, 1000);
	put_msr(1, 0x10, 5000);
}

static void read_ok(clab_evset *s, int64_t *v)
{
	int rc = clab_evset_read(s, v);
	if (rc)
		fail_msg("read: %s: %s", clab_strerror(rc), clab_errmsg());
}

static void expect_noevent(clab_component *c, const char *name)
{
	uint32_t code;
	assert_int_equal(clab_event_lookup(c, name, &code), CLAB_E_NOEVENT);
	assert_non_null(strstr(clab_errmsg(), name));
}

static void test_io(void **state)
{
	(void)state;
	base_tree();
	clab_machine *m = open_fixture();
	clab_component *io = clab_machine_component(m, "io");
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	clab_event_info ei;
	assert_int_equal(clab_event_get_info(io, code_of(io, "wchar"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_PROCESS);
	assert_int_equal(clab_event_get_info(io, code_of(io, "sda:sectors_written"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_NODE);
	code_of(io, "loop0:weighted_io_ms");
	expect_noevent(io, "loop0:discards");   /* its kernel had no discard fields */
	expect_noevent(io, "sdb:reads");        /* a row cut short is no device */
	expect_noevent(io, "sda:in_flight");    /* a level, not a count */

	clab_evset *s = NULL;
	const char *names[] = {"wchar", "rchar", "sda:sectors_written", "syscw"};
	assert_int_equal(program(io, t, &s, names, 4), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	put("proc/self/io", io_text(1000 + 17, 2000 + 4096));
	put("proc/diskstats", disk_text(700 + 8));
	int64_t v[4];
	read_ok(s, v);
	assert_int_equal(v[0], 4096);
	assert_int_equal(v[1], 17);
	assert_int_equal(v[2], 8);
	assert_int_equal(v[3], 0);

	/* malformed content: its own error naming the file and field ... */
	put("proc/self/io", "rchar: 1017\nwchar: lots\n");
	assert_int_equal(clab_evset_read(s, v), CLAB_E_PARSE);
	assert_non_null(strstr(clab_errmsg(), "wchar"));
	assert_non_null(strstr(clab_errmsg(), "self/io"));
	/* ... cut short ... */
	put("proc/self/io", "rchar: 1017\n");
	assert_int_equal(clab_evset_read(s, v), CLAB_E_PARSE);
	assert_non_null(strstr(clab_errmsg(), "has no line 'wchar'"));
	/* ... a number glued to junk is no number ... */
	put("proc/self/io", "rchar: 1017x\nwchar: 6096\nsyscw: 20\n");
	assert_int_equal(clab_evset_read(s, v), CLAB_E_PARSE);
	assert_non_null(strstr(clab_errmsg(), "rchar"));
	/* ... a diskstats row cut short ... */
	put("proc/self/io", io_text(1017, 6096));
	put("proc/diskstats", "   8       0 sda 100 2 3000\n");
	assert_int_equal(clab_evset_read(s, v), CLAB_E_PARSE);
	assert_non_null(strstr(clab_errmsg(), "sda"));
	/* ... a missing file is a system error naming it */
	drop("proc/diskstats");
	assert_int_equal(clab_evset_read(s, v), CLAB_E_SYS);
	assert_non_null(strstr(clab_errmsg(), "diskstats"));
	/* and nothing was lost: the set reads on from its start */
	put("proc/diskstats", disk_text(700 + 24));
	read_ok(s, v);
	assert_int_equal(v[0], 4096);
	assert_int_equal(v[2], 24);
	assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
	put("proc/self/io", io_text(5000, 9000));
	read_ok(s, v); /* a stopped set keeps its counts */
	assert_int_equal(v[0], 4096);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
}

static void test_net(void **state)
{
	(void)state;
	base_tree();
	clab_machine *m = open_fixture();
	clab_component *net = clab_machine_component(m, "network");
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	/* no InfiniBand in the tree: no such events, the rest is there */
	clab_component_info ci;
	clab_component_get_info(net, &ci);
	assert_int_equal(ci.nnative, 3);
	expect_noevent(net, "lo:garbage");
	clab_event_info ei;
	assert_int_equal(clab_event_get_info(net, code_of(net, "lo:collisions"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_NODE);
	clab_evset *s = NULL;
	const char *names[] = {"lo:rx:bytes", "lo:tx:bytes"};
	assert_int_equal(program(net, t, &s, names, 2), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	put("sys/class/net/lo/statistics/rx_bytes", "1111\n");
	put("sys/class/net/lo/statistics/tx_bytes", "2222\n");
	int64_t v[2];
	read_ok(s, v);
	assert_int_equal(v[0], 1000);
	assert_int_equal(v[1], 2000);
	put("sys/class/net/lo/statistics/tx_bytes", "");
	assert_int_equal(clab_evset_read(s, v), CLAB_E_PARSE);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);

	/* with an HCA: its port counters, named DEV_PORT:COUNTER as PAPI does */
	put("sys/class/net/lo/statistics/tx_bytes", "2222\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "4000\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets", "12\n");
	put("sys/class/infiniband/mlx5_0/ports/2/counters/port_xmit_data", "0\n");
	m = open_fixture();
	net = clab_machine_component(m, "network");
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	clab_component_get_info(net, &ci);
	assert_int_equal(ci.nnative, 6);
	assert_int_equal(clab_event_get_info(net, code_of(net, "mlx5_0_1:port_xmit_data"), &ei), CLAB_OK);
	assert_non_null(strstr(ei.descr, "4-byte words"));
	s = NULL;
	const char *ib[] = {"mlx5_0_1:port_xmit_data", "mlx5_0_1:port_rcv_packets",
			    "mlx5_0_2:port_xmit_data"};
	assert_int_equal(program(net, t, &s, ib, 3), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "4256\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets", "15\n");
	int64_t w[3];
	read_ok(s, w);
	assert_int_equal(w[0], 256);
	assert_int_equal(w[1], 3);
	assert_int_equal(w[2], 0);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
}

static void test_kernel(void **state)
{
	(void)state;
	base_tree();
	clab_machine *m = open_fixture();
	clab_component *k = clab_machine_component(m, "kernel");
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	clab_event_info ei;
	assert_int_equal(clab_event_get_info(k, code_of(k, "voluntary_ctxt_switches"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_THREAD);
	assert_int_equal(clab_event_get_info(k, code_of(k, "ctxt"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_NODE);
	uint32_t code;
	/* ERR has one number for the node: no per-CPU qualifier */
	assert_int_equal(clab_event_lookup(k, "interrupts:ERR:cpu=0", &code), CLAB_E_QUALIFIER);
	assert_int_equal(clab_event_lookup(k, "interrupts:LOC:cpu=2", &code), CLAB_E_QUALIFIER);
	assert_non_null(strstr(clab_errmsg(), "out of range"));
	expect_noevent(k, "interrupts:NMI");

	clab_evset *s = NULL;
	const char *names[] = {"voluntary_ctxt_switches", "nonvoluntary_ctxt_switches",
			       "schedstat:cpu_ns", "schedstat:wait_ns", "schedstat:timeslices",
			       "ctxt", "processes", "intr", "interrupts:LOC",
			       "interrupts:LOC:cpu=1", "interrupts:0:cpu=0", "interrupts:ERR"};
	assert_int_equal(program(k, t, &s, names, 12), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	put("proc/thread-self/status", "Name:\ttest\nvoluntary_ctxt_switches:\t8\n"
	    "nonvoluntary_ctxt_switches:\t7\n");
	put("proc/thread-self/schedstat", "1500000 2500 34\n");
	put("proc/stat", "cpu  1 2 3 4\nintr 560 1 2 3\nctxt 9100\nprocesses 323\n");
	put("proc/interrupts", "           CPU0       CPU1       \n"
	    "  0:         11         20   IO-APIC   2-edge      timer\n"
	    "LOC:        140        250   Local timer interrupts\n"
	    "ERR:          4\n");
	int64_t v[12];
	read_ok(s, v);
	const int64_t want[12] = {3, 0, 500000, 500, 4, 100, 2, 60, 90, 50, 1, 1};
	for (int i = 0; i < 12; i++)
		if (v[i] != want[i])
			fail_msg("%s: %lld, want %lld", names[i], (long long)v[i], (long long)want[i]);
	/* reads allocate nothing (a sampling profiler reads from a signal
	 * handler that may have interrupted malloc): the heap is the same
	 * after 50 reads */
	allocs = 0;
	counting = 1;
	for (int r = 0; r < 50; r++)
		read_ok(s, v);
	counting = 0;
	assert_int_equal(allocs, 0);
	/* a file grown past the room the set made at start still reads */
	char big[40000];
	size_t o = (size_t)snprintf(big, sizeof big, "           CPU0       CPU1       \n"
				    "  0:         11         20   IO-APIC   2-edge      timer\n"
				    "LOC:        140        250   Local timer interrupts\n");
	for (int r = 0; o + 64 < sizeof big; r++)
		o += (size_t)snprintf(big + o, sizeof big - o, "%4d:          1          1   pad\n", 100 + r);
	snprintf(big + o, sizeof big - o, "ERR:          4\n");
	put("proc/interrupts", big);
	read_ok(s, v);
	assert_int_equal(v[8], 90);
	/* a schedstat cut to one field */
	put("proc/thread-self/schedstat", "1500000\n");
	assert_int_equal(clab_evset_read(s, v), CLAB_E_PARSE);
	assert_non_null(strstr(clab_errmsg(), "schedstat"));
	/* an interrupts row without the CPU columns */
	put("proc/thread-self/schedstat", "1500000 2500 34\n");
	put("proc/interrupts", "           CPU0       CPU1       \nLOC: 5\n  0: 11 20\nERR: 4\n");
	assert_int_equal(clab_evset_read(s, v), CLAB_E_PARSE);
	assert_non_null(strstr(clab_errmsg(), "LOC"));
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
}

static void test_msr(void **state)
{
	(void)state;
	base_tree();
	put_msr(0, 0x611, 0xfffffff0ull);      /* RAPL energy, 32 bits: about to wrap */
	put_msr(1, 0xc1, 0xffffffffff00ull);   /* PMC0, 48 bits */
	put_msr(1, 0xe8, 77);                  /* (a fake device's registers are byte
					        * offsets: 8 apart at least) */
	clab_machine *m = open_fixture();
	clab_component *core = clab_machine_component(m, "core");
	assert_null(clab_component_disabled(core));
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	clab_event_info ei;
	assert_int_equal(clab_event_get_info(core, code_of(core, "PKG_ENERGY"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_PACKAGE);
	assert_int_equal(clab_event_get_info(core, code_of(core, "APERF"), &ei), CLAB_OK);
	assert_int_equal(ei.scope, CLAB_SCOPE_CPU);

	/* refused: a register off the allowlist, by name and by address */
	expect_noevent(core, "IA32_PERFEVTSEL0");
	clab_evset *s = NULL;
	const char *bad[] = {"MSR:addr=0x186:cpu=0"};
	assert_int_equal(program(core, t, &s, bad, 1), CLAB_E_QUALIFIER);
	assert_non_null(strstr(clab_errmsg(), "0x186"));
	assert_non_null(strstr(clab_errmsg(), "allowed"));
	const char *noaddr[] = {"MSR:cpu=0"};
	assert_int_equal(program(core, t, &s, noaddr, 1), CLAB_E_QUALIFIER);
	assert_non_null(strstr(clab_errmsg(), "addr="));

	const char *names[] = {"TSC:cpu=0", "TSC:cpu=1", "PKG_ENERGY:cpu=0",
			       "PMC0:cpu=1", "MSR:addr=0xe8:cpu=1", "MSR:addr=0x10:cpu=0"};
	assert_int_equal(program(core, t, &s, names, 6), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	put_msr(0, 0x10, 1000 + 123456);
	put_msr(1, 0x10, 5000 + 7);
	put_msr(0, 0x611, 0x10);               /* wrapped: 0x20 units later */
	put_msr(1, 0xc1, 0x100);               /* wrapped at 48 bits: 0x200 later */
	put_msr(1, 0xe8, 80);
	int64_t v[6];
	read_ok(s, v);
	assert_int_equal(v[0], 123456);
	assert_int_equal(v[1], 7);
	assert_int_equal(v[2], 0x20);
	assert_int_equal(v[3], 0x200);
	assert_int_equal(v[4], 3);
	assert_int_equal(v[5], 123456);
	clab_evset_destroy(s);

	/* a register beyond the end of the fake device: a short read, said so */
	s = NULL;
	const char *far[] = {"AMD_PKG_ENERGY:cpu=0"};
	assert_int_equal(program(core, t, &s, far, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_E_SYS);
	assert_non_null(strstr(clab_errmsg(), "0 of 8 bytes"));
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);

	/* no device directory: core is disabled and says what would give
	 * access; the machine's other components count on */
	char spec[1024];
	snprintf(spec, sizeof spec,
		 "linux-proc:io.proc_dir=%s/proc,kernel.proc_dir=%s/proc,network.sys_dir=%s/sys,core.msr_dir=%s/nothing",
		 root, root, root, root);
	m = open_machine(spec);
	core = clab_machine_component(m, "core");
	assert_non_null(clab_component_disabled(core));
	assert_non_null(strstr(clab_component_disabled(core), "modprobe msr"));
	assert_non_null(strstr(clab_component_disabled(core), "msr-safe"));
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	s = NULL;
	assert_int_equal(clab_evset_create(core, t, &s), CLAB_E_NODEV);
	clab_component *io = clab_machine_component(m, "io");
	const char *w[] = {"wchar"};
	assert_int_equal(program(io, t, &s, w, 1), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
}

/* A tree with nothing a unit could count: its component is disabled (a
 * missing device), not the machine. */
static void test_empty_tree(void **state)
{
	(void)state;
	char spec[1024];
	snprintf(spec, sizeof spec,
		 "linux-proc:io.proc_dir=%s/none,kernel.proc_dir=%s/none,network.sys_dir=%s/none,core.msr_dir=%s/none",
		 root, root, root, root);
	clab_machine *m = open_machine(spec);
	const char *comps[] = {"core", "io", "network", "kernel"};
	for (int i = 0; i < 4; i++) {
		clab_component *c = clab_machine_component(m, comps[i]);
		assert_non_null(c);
		const char *why = clab_component_disabled(c);
		if (!why)
			fail_msg("%s is not disabled", comps[i]);
		assert_non_null(strstr(why, "/none"));
	}
	clab_machine_close(m);
	/* a key the backend does not have is still a profile error */
	clab_machine *bad;
	assert_int_equal(clab_machine_open("linux-proc:io.msr_dir=/x", &bad), CLAB_E_PROFILE);
}

/* The real /proc of this process: write N bytes, wchar grows by N or more;
 * this thread blocks on a pipe, its voluntary switches grow. */
static void test_real_proc(void **state)
{
	(void)state;
	clab_machine *m = open_machine("linux-proc");
	clab_component *io = clab_machine_component(m, "io");
	clab_component *k = clab_machine_component(m, "kernel");
	if (clab_component_disabled(io) || clab_component_disabled(k))
		fail_msg("this host's /proc: %s", clab_component_disabled(io) ? clab_component_disabled(io)
			 : clab_component_disabled(k));
	clab_thread *t;
	assert_int_equal(clab_thread_attach(m, &t), CLAB_OK);
	clab_evset *s = NULL, *ks = NULL;
	const char *names[] = {"wchar", "syscw"};
	assert_int_equal(program(io, t, &s, names, 2), CLAB_OK);
	const char *kn[] = {"voluntary_ctxt_switches", "schedstat:timeslices"};
	assert_int_equal(program(k, t, &ks, kn, 2), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_start(ks), CLAB_OK);
	char path[128], buf[4096] = {0};
	snprintf(path, sizeof path, "%s/real-io", root);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	for (int i = 0; i < 25; i++)
		assert_int_equal(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
	close(fd);
	/* sleeping gives the CPU up: a voluntary switch */
	usleep(2000);
	int64_t v[2], kv[2];
	read_ok(s, v);
	read_ok(ks, kv);
	if (v[0] < 25 * 4096 || v[1] < 25)
		fail_msg("wchar %lld (want >= %d), syscw %lld (want >= 25)", (long long)v[0],
			 25 * 4096, (long long)v[1]);
	if (kv[0] < 1 || kv[1] < 1)
		fail_msg("voluntary switches %lld, timeslices %lld after a sleep", (long long)kv[0],
			 (long long)kv[1]);
	clab_evset_destroy(s);
	clab_evset_destroy(ks);
	clab_thread_detach(t);
	clab_machine_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_msr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_proc, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
