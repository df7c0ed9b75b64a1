/* Two units over /proc:
 *
 * linux-io: the process's I/O (/proc/self/io, named as PAPI's io component
 * names them: rchar, wchar, ...) and every block device's statistics
 * (/proc/diskstats, one event per device and field, "sda:sectors_read",
 * in the DEVICE:FIELD style of PAPI's net and infiniband components).
 *
 * linux-proc-kernel: the counting thread's context switches
 * (/proc/thread-self/status) and scheduler statistics
 * (/proc/thread-self/schedstat), the node's context switches, forks and
 * interrupts (/proc/stat), and every interrupt line of /proc/interrupts,
 * summed over CPUs or of one CPU (:cpu=N).
 *
 * The root (/proc) is the profile key proc_dir, else $COUNTERLAB_PROCFS_ROOT,
 * so tests point the units at fixture directories. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lx.h"

/* ---- linux-io ------------------------------------------------------------- */

static const struct {
	const char *name, *descr;
} proc_io[] = {
	{"rchar", "Bytes the process asked to read (read(2) and the like), page cache or not"},
	{"wchar", "Bytes the process asked to write, page cache or not"},
	{"syscr", "Read system calls of the process"},
	{"syscw", "Write system calls of the process"},
	{"read_bytes", "Bytes the process caused to be fetched from storage"},
	{"write_bytes", "Bytes the process caused to be sent to storage (when dirtied pages are written)"},
	{"cancelled_write_bytes", "Bytes of page cache the process dirtied and then truncated away"},
};

/* /proc/diskstats fields after major, minor and the device name, in order
 * (kernel Documentation/admin-guide/iostats.rst). Field 9, I/Os in flight,
 * is a level, not a count, and is left out. */
static const struct {
	const char *name, *descr;
	int field; /* 1-based after the device name */
} disk_fields[] = {
	{"reads", "reads completed", 1},
	{"reads_merged", "adjacent reads merged", 2},
	{"sectors_read", "512-byte sectors read", 3},
	{"read_ms", "milliseconds spent reading", 4},
	{"writes", "writes completed", 5},
	{"writes_merged", "adjacent writes merged", 6},
	{"sectors_written", "512-byte sectors written", 7},
	{"write_ms", "milliseconds spent writing", 8},
	{"io_ms", "milliseconds with I/O in flight", 10},
	{"weighted_io_ms", "milliseconds of I/O in flight, weighted by the number in flight", 11},
	{"discards", "discards completed", 12},
	{"discards_merged", "adjacent discards merged", 13},
	{"sectors_discarded", "512-byte sectors discarded", 14},
	{"discard_ms", "milliseconds spent discarding", 15},
	{"flushes", "flush requests completed", 16},
	{"flush_ms", "milliseconds spent flushing", 17},
};

/* Numbers on the rest of a line (stops at the first non-number). */
static int count_numbers(const char *p)
{
	int n = 0;
	uint64_t v;
	const char *e;
	while (clab_lx_u64(p, &e, &v) && (*e == ' ' || *e == '\t' || *e == '\n' || !*e)) {
		n++;
		p = e;
	}
	return n;
}

static int add_disks(lx_unit *u, const char *buf)
{
	char path[600];
	lx_fmt(path, sizeof path, "%s/diskstats", u->root);
	for (const char *p = buf; *p; ) {
		const char *eol = strchr(p, '\n');
		unsigned maj, min;
		char dev[64];
		int used = 0;
		/* a row the kernel cut short or that is not numbers is skipped:
		 * it would give no count */
		if (sscanf(p, " %u %u %63s%n", &maj, &min, dev, &used) == 3) {
			int nf = count_numbers(p + used);
			if (nf < 11)
				goto next; /* every kernel since 2.6 has 11: cut short */
			char loc[128], name[160], descr[400];
			clab_lx_locality(dev, loc, sizeof loc);
			for (size_t f = 0; f < sizeof disk_fields / sizeof disk_fields[0]; f++) {
				if (disk_fields[f].field > nf)
					continue;
				lx_fmt(name, sizeof name, "%s:%s", dev, disk_fields[f].name);
				lx_fmt(descr, sizeof descr,
					 "Block device %s: %s (%s, node-wide; device in %s)",
					 dev, disk_fields[f].descr, path, loc);
				lx_src src = {.kind = LX_ROW, .path = "diskstats", .key = dev, .kcol = 2,
					      .idx = disk_fields[f].field, .n = 1, .width = 64};
				/* the kernel keeps some of these in unsigned long: 32 bits on 32-bit kernels */
				int rc = lx_add(u, name, descr, "DISKSTATS", CLAB_SCOPE_NODE, 0, &src);
				if (rc)
					return rc;
			}
		}
	next:
		if (!eol)
			break;
		p = eol + 1;
	}
	return CLAB_OK;
}

static const char *const io_keys[] = {"proc_dir", NULL};

static int io_discover(lx_unit *u, clab_machine *m, const char *section)
{
	lx_dir(m, section, "proc_dir", "COUNTERLAB_PROCFS_ROOT", "/proc", u->root,
	       sizeof u->root);
	char path[600], *buf;
	int have_io = 0, have_disk = 0;
	lx_fmt(path, sizeof path, "%s/self/io", u->root);
	if (clab_lx_slurp(path, &buf, NULL) == CLAB_OK) {
		for (size_t i = 0; i < sizeof proc_io / sizeof proc_io[0]; i++) {
			uint64_t v;
			if (clab_lx_kv(buf, path, proc_io[i].name, &v))
				continue; /* an older kernel without it */
			char d[300];
			lx_fmt(d, sizeof d, "%s (%s, process-wide)", proc_io[i].descr, path);
			lx_src src = {.kind = LX_KV, .path = "self/io", .key = (char *)proc_io[i].name,
				      .width = 64};
			int rc = lx_add(u, proc_io[i].name, d, "PROC_IO", CLAB_SCOPE_PROCESS, 0, &src);
			if (rc) {
				free(buf);
				return rc;
			}
			have_io++;
		}
		free(buf);
	}
	lx_fmt(path, sizeof path, "%s/diskstats", u->root);
	if (clab_lx_slurp(path, &buf, NULL) == CLAB_OK) {
		int before = u->n;
		int rc = add_disks(u, buf);
		free(buf);
		if (rc)
			return rc;
		have_disk = u->n > before;
	}
	if (!have_io && !have_disk)
		return clab_seterr(CLAB_E_NODEV,
				   "linux-io: neither %s/self/io (kernel without task I/O accounting?) nor block devices in %s/diskstats",
				   u->root, u->root);
	u->description = "Linux I/O counters: the process's /proc/self/io and every block device's /proc/diskstats";
	u->rules = "Kernel counters, always counting: any number of sets, each reads the change since its start. "
		   "rchar ... cancelled_write_bytes count this process; DEVICE:FIELD events count the whole node's block device.";
	return CLAB_OK;
}

static int io_open(clab_machine *m, const char *section, void **unit, clab_unit_desc *d)
{
	static const lx_kind_ops k = {"linux-io", io_keys, io_discover};
	return lx_open(&k, m, section, unit, d);
}

const clab_unit_ops clab_linux_io_ops = LX_UNIT_OPS("linux-io", io_keys, io_open);

/* ---- linux-proc-kernel ---------------------------------------------------- */

static const struct {
	const char *name, *path, *key;
	int field;
	enum clab_scope scope;
	const char *descr;
} kernel_events[] = {
	{"voluntary_ctxt_switches", "thread-self/status", "voluntary_ctxt_switches", 0,
	 CLAB_SCOPE_THREAD, "Times the thread gave up the CPU (it blocked or yielded)"},
	{"nonvoluntary_ctxt_switches", "thread-self/status", "nonvoluntary_ctxt_switches", 0,
	 CLAB_SCOPE_THREAD, "Times the scheduler took the CPU from the thread (preempted)"},
	{"schedstat:cpu_ns", "thread-self/schedstat", NULL, 0,
	 CLAB_SCOPE_THREAD, "Nanoseconds the thread ran on a CPU"},
	{"schedstat:wait_ns", "thread-self/schedstat", NULL, 1,
	 CLAB_SCOPE_THREAD, "Nanoseconds the thread waited on a run queue, runnable"},
	{"schedstat:timeslices", "thread-self/schedstat", NULL, 2,
	 CLAB_SCOPE_THREAD, "Times the thread was given a CPU (timeslices run)"},
	{"ctxt", "stat", "ctxt", 0, CLAB_SCOPE_NODE, "Context switches of all CPUs"},
	{"processes", "stat", "processes", 0, CLAB_SCOPE_NODE, "Processes and threads created (forks and clones)"},
	{"intr", "stat", "intr", 0, CLAB_SCOPE_NODE, "Interrupts serviced by all CPUs, all lines (numbered and not)"},
};

/* The CPUs /proc/interrupts has columns for ("CPU0 CPU1 ..." header). */
static int interrupt_columns(lx_unit *u, const char *buf)
{
	int cols = 0, max = -1;
	int ids[1024];
	const char *p = buf;
	const char *eol = strchr(buf, '\n');
	while (p && (!eol || p < eol)) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "CPU", 3) != 0)
			break;
		uint64_t id;
		const char *e;
		if (!clab_lx_u64(p + 3, &e, &id) || id >= 1024 || cols == 1024)
			break;
		ids[cols++] = (int)id;
		if ((int)id > max)
			max = (int)id;
		p = e;
	}
	if (!cols)
		return 0;
	u->cpu_col = malloc((size_t)(max + 1) * sizeof *u->cpu_col);
	if (!u->cpu_col)
		return -1;
	for (int i = 0; i <= max; i++)
		u->cpu_col[i] = -1;
	for (int c = 0; c < cols; c++)
		u->cpu_col[ids[c]] = c;
	u->cpu_max = max;
	u->ncpu = cols;
	return cols;
}

static int add_interrupts(lx_unit *u, const char *buf)
{
	int cols = interrupt_columns(u, buf);
	if (cols < 0)
		return CLAB_E_NOMEM;
	if (cols == 0)
		return CLAB_OK; /* no header: nothing we could read per CPU */
	const char *p = strchr(buf, '\n');
	while (p && *++p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[1024];
		lx_fmt(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
		char *s = line + strspn(line, " \t");
		char *colon = strchr(s, ':');
		if (colon && colon > s && !memchr(s, ' ', (size_t)(colon - s))) {
			*colon = 0;
			int nums = count_numbers(colon + 1);
			/* skip the numbers to reach the line's own description */
			const char *d = colon + 1;
			for (int k = 0; k < nums; k++) {
				uint64_t v;
				clab_lx_u64(d, &d, &v);
			}
			d += strspn(d, " \t");
			char name[128], descr[600], key[128];
			lx_fmt(name, sizeof name, "interrupts:%s", s);
			lx_fmt(key, sizeof key, "%s:", s);
			int percpu = nums >= cols;
			lx_fmt(descr, sizeof descr, "Interrupt line %s%s%s: %s (/proc/interrupts, node-wide)",
				 s, *d ? ", " : "", d,
				 percpu ? "summed over CPUs, or of one CPU with :cpu=N" : "one count for the node");
			lx_src src = {.kind = percpu ? LX_PERCPU : LX_ROW, .path = "interrupts",
				      .key = key, .idx = 1, .n = 1, .width = 64};
			if (nums >= 1) {
				int rc = lx_add(u, name, descr, "INTERRUPTS", CLAB_SCOPE_NODE,
						percpu ? 1u << LX_Q_CPU : 0, &src);
				if (rc)
					return rc;
			}
		}
		p = eol;
	}
	u->quals[LX_Q_CPU] = (clab_qual_info){"cpu",
		"Logical CPU (Linux's number) whose count to read; default: all CPUs summed",
		0, (uint64_t)u->cpu_max};
	u->nquals = 1;
	return CLAB_OK;
}

static const char *const kernel_keys[] = {"proc_dir", NULL};

static int kernel_discover(lx_unit *u, clab_machine *m, const char *section)
{
	lx_dir(m, section, "proc_dir", "COUNTERLAB_PROCFS_ROOT", "/proc", u->root,
	       sizeof u->root);
	char path[600], *buf = NULL, *last = NULL;
	const char *lastpath = "";
	for (size_t i = 0; i < sizeof kernel_events / sizeof kernel_events[0]; i++) {
		const char *rel = kernel_events[i].path;
		lx_fmt(path, sizeof path, "%s/%s", u->root, rel);
		if (strcmp(rel, lastpath) != 0) {
			free(last);
			last = NULL;
			lastpath = rel;
			if (clab_lx_slurp(path, &last, NULL))
				last = NULL;
		}
		buf = last;
		uint64_t v;
		if (!buf || (kernel_events[i].key ? clab_lx_kv(buf, path, kernel_events[i].key, &v)
			     : clab_lx_field(buf, path, kernel_events[i].field, &v)))
			continue; /* not in this kernel (schedstat needs CONFIG_SCHED_INFO) */
		char d[400];
		lx_fmt(d, sizeof d, "%s (/proc/%s, %s)", kernel_events[i].descr, rel,
			 kernel_events[i].scope == CLAB_SCOPE_THREAD ? "the counting thread" : "node-wide");
		lx_src src = {.kind = kernel_events[i].key ? LX_KV : LX_FIELD, .path = (char *)rel,
			      .key = (char *)kernel_events[i].key, .idx = kernel_events[i].field,
			      .width = 64};
		int rc = lx_add(u, kernel_events[i].name, d,
				strncmp(rel, "thread-self/", 12) == 0 ? "THREAD" : "PROC_STAT",
				kernel_events[i].scope, 0, &src);
		if (rc) {
			free(last);
			return rc;
		}
	}
	free(last);
	lx_fmt(path, sizeof path, "%s/interrupts", u->root);
	if (clab_lx_slurp(path, &buf, NULL) == CLAB_OK) {
		int rc = add_interrupts(u, buf);
		free(buf);
		if (rc)
			return rc;
	}
	if (!u->n)
		return clab_seterr(CLAB_E_NODEV,
				   "linux-proc-kernel: nothing to count under %s (no thread-self/status, stat or interrupts)",
				   u->root);
	u->description = "Linux kernel counters from /proc: the thread's context switches and scheduling, the node's interrupts";
	u->rules = "Kernel counters, always counting: any number of sets, each reads the change since its start. "
		   "Thread events count the thread that started the set; interrupts:LINE sums all CPUs, :cpu=N reads one.";
	return CLAB_OK;
}

static int kernel_open(clab_machine *m, const char *section, void **unit, clab_unit_desc *d)
{
	static const lx_kind_ops k = {"linux-proc-kernel", kernel_keys, kernel_discover};
	return lx_open(&k, m, section, unit, d);
}

const clab_unit_ops clab_linux_proc_kernel_ops =
	LX_UNIT_OPS("linux-proc-kernel", kernel_keys, kernel_open);
