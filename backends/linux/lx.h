/* Private to backends/linux/: counting units over files of the running
 * Linux kernel (/proc, /sys) and MSR devices.
 *
 * Every unit here is a table of "where a number lives" (a file and how to
 * find the number in it) built when the unit opens; the counters always
 * count, so an event set notes the values at its start and reads the
 * change since. One engine (lxunit.c) serves all of them; the backend
 * files only discover what the machine has (procfs.c, sysfs_net.c, msr.c). */
#ifndef CLAB_BACKENDS_LINUX_LX_H
#define CLAB_BACKENDS_LINUX_LX_H

#include <stddef.h>
#include <stdint.h>
#include "counterlab/backend.h"

/* ---- readers of kernel text files (lxread.c) ------------------------------ */

/* Largest file read whole (/proc/interrupts of a 1024-CPU node fits). */
#define LX_FILE_MAX (1u << 20)

/* Reads path into a malloc'd NUL-terminated buffer. CLAB_E_SYS with a
 * message naming the file and why (missing, permission, too large). */
int clab_lx_slurp(const char *path, char **buf, size_t *len);

/* Reads path into buf[0..cap) NUL-terminated, allocating nothing (a read
 * may run in a signal handler that interrupted malloc). 1: the file did
 * not fit (nothing is read); CLAB_E_SYS as clab_lx_slurp. */
int clab_lx_read_into(const char *path, char *buf, size_t cap, size_t *len);

/* "NAME VALUE" or "NAME: VALUE" lines (/proc/self/io, /proc/PID/status,
 * /proc/stat): the first number after NAME. CLAB_E_NOEVENT-free: a missing
 * NAME or a value that is not a decimal number is CLAB_E_PARSE with the
 * file's name (what) and line in the message. */
int clab_lx_kv(const char *buf, const char *what, const char *name,
	       uint64_t *val);
/* Calls fn for every NAME of such lines whose first value is a number
 * (discovery); lines of another shape are skipped. */
int clab_lx_kv_names(const char *buf, void (*fn)(const char *name, size_t len,
						 void *arg),
		     void *arg);

/* Whitespace-separated field `idx` (0-based) of the first line (sysfs
 * one-number files, /proc/PID/schedstat). */
int clab_lx_field(const char *buf, const char *what, int idx, uint64_t *val);

/* Table rows keyed by the token in column kcol (/proc/diskstats: the device
 * in column 2; /proc/interrupts: "LOC:" in column 0). Sums `n` numbers
 * starting `first` fields after the key (n = 1 for one column). A row that
 * ends before them or holds a non-number is CLAB_E_PARSE. */
int clab_lx_row(const char *buf, const char *what, int kcol, const char *key,
		int first, int n, uint64_t *val);

/* A decimal u64 at s (leading blanks allowed); end gets the first byte
 * after it. 0 if s holds none or it overflows. */
int clab_lx_u64(const char *s, const char **end, uint64_t *val);

/* snprintf whose cut-off output is acceptable (descriptions, names that
 * cannot be that long); returns 0 when it was cut. */
int lx_fmt(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- the engine (lxunit.c) ------------------------------------------------ */

enum lx_kind {
	LX_KV,      /* key in NAME VALUE lines */
	LX_FIELD,   /* field idx of the first line */
	LX_ROW,     /* row `key` of a table: fields first.. (see clab_lx_row) */
	LX_PERCPU,  /* /proc/interrupts: row `key`, one column per CPU */
	LX_MSR,     /* an MSR at address idx through the unit's msr_dir */
};

/* Where a native event's number lives. `path` is relative to the unit's
 * root; a path starting "thread-self/" is the counting thread's (reads from
 * another thread go through self/task/TID/). */
typedef struct lx_src {
	enum lx_kind kind;
	char *path;
	char *key;
	int idx;         /* LX_FIELD: field; LX_ROW: first field after key */
	int kcol;        /* LX_ROW, LX_PERCPU: column of the key */
	int n;           /* LX_ROW: numbers summed from idx on */
	uint32_t msr;    /* LX_MSR: the register */
	int msr_raw;     /* LX_MSR: the register comes as :addr= */
	int width;       /* bits: counts wrap at 2^width (64: no wrap) */
} lx_src;

typedef struct lx_unit lx_unit;

/* Qualifiers (bit q of clab_native.quals). */
enum { LX_Q_CPU = 0, LX_Q_ADDR = 1 };

/* What a backend adds to the engine: its discovery and its descriptions. */
typedef struct lx_kind_ops {
	const char *name;              /* backend name */
	const char *const *keys;       /* profile keys */
	/* Fills the unit's natives (lx_add) and desc text; may set u->quals. */
	int (*discover)(lx_unit *u, clab_machine *m, const char *section);
} lx_kind_ops;

struct lx_unit {
	const lx_kind_ops *ops;
	char root[512];           /* what paths are relative to */
	char alt_root[512];       /* second root (sysfs for io's block devices) */
	clab_native *natives;     /* grows with lx_add */
	lx_src *src;
	int n, cap;
	const char *description;
	const char *rules;
	enum clab_scope scope;
	clab_qual_info quals[2];  /* LX_Q_CPU, LX_Q_ADDR, as the unit takes them */
	int nquals;
	int ncpu;                 /* LX_PERCPU columns (CPUs /proc/interrupts lists) */
	int *cpu_col;             /* LX_PERCPU: column of CPU i (-1: none), i <= cpu_max */
	int cpu_max;
	int msr_cpu_max;          /* LX_MSR: largest CPU index */
	void *priv;               /* the backend's own (freed with free()) */
};

/* Appends a native; name and descr are copied. */
int lx_add(lx_unit *u, const char *name, const char *descr, const char *group,
	   enum clab_scope scope, uint8_t quals, const lx_src *src);

/* The directory a unit reads under: profile key `key` of its section if
 * set, else $env if set, else def. */
void lx_dir(clab_machine *m, const char *section, const char *key,
	    const char *env, const char *def, char *out, size_t cap);

/* MSR reads (msr.c): the value of MSR addr on cpu through dir (never a
 * write). CLAB_E_SYS naming the device and what would give access. */
int clab_lx_msr_read(const char *dir, int cpu, uint32_t addr, uint64_t *val);
/* Whether addr is on the allowlist of counter MSRs; its width in bits. */
int clab_lx_msr_allowed(uint32_t addr, int *width);
/* The allowlist as text, for messages. */
const char *clab_lx_msr_allowlist(void);

/* hwloc (hosttopo.c): the host's topology, loaded once with I/O devices. */
/* Where an OS device (network interface, block device) sits: "package 0",
 * "NUMA node 1", "machine" (no closer locality known), into out. */
void clab_lx_locality(const char *osdev, char *out, size_t cap);
/* Package of logical CPU (hwloc PU os_index); -1 if unknown. */
int clab_lx_cpu_package(int cpu);
/* Largest os_index of the host's PUs; -1 if unknown. */
int clab_lx_cpu_max(void);

#define LX_OPS(NAME_OPS) extern const clab_unit_ops NAME_OPS
int lx_open(const lx_kind_ops *k, clab_machine *m, const char *section,
	    void **unit, clab_unit_desc *d);
void lx_close(void *unit);
int lx_program(void *unit, int hw, const clab_evreq *reqs, int n, int flags,
	       void *replace, void **set);
void lx_discard(void *unit, void *set);
int lx_acquire(void *unit, void *set, void *replace);
void lx_release(void *unit, void *set);
int lx_start(void *unit, void *set);
int lx_stop(void *unit, void *set);
int lx_read(void *unit, void *set, uint64_t *vals);
int lx_reset(void *unit, void *set);
uint64_t lx_counters(void *unit, void *set, int i);

#define LX_UNIT_OPS(NAME, KEYS, OPEN) {                                   \
	.name = NAME, .keys = KEYS, .open = OPEN, .close = lx_close,       \
	.program = lx_program, .discard = lx_discard,                      \
	.acquire = lx_acquire, .release = lx_release, .start = lx_start,   \
	.stop = lx_stop, .read = lx_read, .reset = lx_reset,               \
	.counters = lx_counters,                                           \
}

#endif
