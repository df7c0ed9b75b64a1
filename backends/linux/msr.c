/* linux-msr: read-only access to counter MSRs through the msr driver
 * (/dev/cpu/N/msr, root) or msr-safe (/dev/cpu/N/msr_safe, whose allowlist
 * lets users read): pread of 8 bytes at offset = the MSR's address. Only the
 * registers of the allowlist below are read, by name or as MSR:addr=0xNNN;
 * nothing is ever written, so programmable counters count whatever their
 * event selects hold (set by perf, LIKWID or nobody).
 *
 * The device directory is the profile key msr_dir, else $COUNTERLAB_MSR_DIR,
 * else /dev/cpu; tests point it at regular files. Register facts: Intel SDM
 * vol. 4 (architectural MSRs, RAPL), AMD PPR (RAPL MSRs of family 17h+). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lx.h"

static const struct msr_reg {
	const char *name;
	uint32_t addr;
	int width;               /* bits the register counts in; deltas wrap there */
	enum clab_scope scope;
	const char *descr;
} regs[] = {
	{"TSC", 0x10, 64, CLAB_SCOPE_CPU, "IA32_TIME_STAMP_COUNTER: reference cycles at the TSC rate"},
	{"MPERF", 0xe7, 64, CLAB_SCOPE_CPU, "IA32_MPERF: reference cycles while the CPU is in C0"},
	{"APERF", 0xe8, 64, CLAB_SCOPE_CPU, "IA32_APERF: actual cycles while the CPU is in C0 (APERF/MPERF = effective clock ratio)"},
	{"FIXED_CTR0", 0x309, 48, CLAB_SCOPE_CPU, "IA32_FIXED_CTR0: instructions retired (when enabled in IA32_FIXED_CTR_CTRL)"},
	{"FIXED_CTR1", 0x30a, 48, CLAB_SCOPE_CPU, "IA32_FIXED_CTR1: core cycles unhalted (when enabled)"},
	{"FIXED_CTR2", 0x30b, 48, CLAB_SCOPE_CPU, "IA32_FIXED_CTR2: reference cycles unhalted (when enabled)"},
	{"PMC0", 0xc1, 48, CLAB_SCOPE_CPU, "IA32_PMC0: general-purpose counter 0, counting what IA32_PERFEVTSEL0 selects"},
	{"PMC1", 0xc2, 48, CLAB_SCOPE_CPU, "IA32_PMC1: general-purpose counter 1"},
	{"PMC2", 0xc3, 48, CLAB_SCOPE_CPU, "IA32_PMC2: general-purpose counter 2"},
	{"PMC3", 0xc4, 48, CLAB_SCOPE_CPU, "IA32_PMC3: general-purpose counter 3"},
	{"PMC4", 0xc5, 48, CLAB_SCOPE_CPU, "IA32_PMC4: general-purpose counter 4"},
	{"PMC5", 0xc6, 48, CLAB_SCOPE_CPU, "IA32_PMC5: general-purpose counter 5"},
	{"PMC6", 0xc7, 48, CLAB_SCOPE_CPU, "IA32_PMC6: general-purpose counter 6"},
	{"PMC7", 0xc8, 48, CLAB_SCOPE_CPU, "IA32_PMC7: general-purpose counter 7"},
	{"PKG_ENERGY", 0x611, 32, CLAB_SCOPE_PACKAGE, "MSR_PKG_ENERGY_STATUS: package energy in RAPL energy units (MSR_RAPL_POWER_UNIT bits 12:8)"},
	{"DRAM_ENERGY", 0x619, 32, CLAB_SCOPE_PACKAGE, "MSR_DRAM_ENERGY_STATUS: DRAM energy of the package, in RAPL energy units"},
	{"PP0_ENERGY", 0x639, 32, CLAB_SCOPE_PACKAGE, "MSR_PP0_ENERGY_STATUS: energy of the package's cores, in RAPL energy units"},
	{"PP1_ENERGY", 0x641, 32, CLAB_SCOPE_PACKAGE, "MSR_PP1_ENERGY_STATUS: energy of the package's uncore (graphics), in RAPL energy units"},
	{"AMD_PERF_CTR0", 0xc0010004, 48, CLAB_SCOPE_CPU, "AMD PERF_CTR0: legacy core counter 0"},
	{"AMD_PERF_CTR1", 0xc0010005, 48, CLAB_SCOPE_CPU, "AMD PERF_CTR1: legacy core counter 1"},
	{"AMD_PERF_CTR2", 0xc0010006, 48, CLAB_SCOPE_CPU, "AMD PERF_CTR2: legacy core counter 2"},
	{"AMD_PERF_CTR3", 0xc0010007, 48, CLAB_SCOPE_CPU, "AMD PERF_CTR3: legacy core counter 3"},
	{"AMD_CORE_ENERGY", 0xc001029a, 32, CLAB_SCOPE_CORE, "AMD core energy status: the core's energy in RAPL energy units (0xc0010299)"},
	{"AMD_PKG_ENERGY", 0xc001029b, 32, CLAB_SCOPE_PACKAGE, "AMD package energy status: the package's energy in RAPL energy units"},
};
#define NREGS (int)(sizeof regs / sizeof regs[0])

int clab_lx_msr_allowed(uint32_t addr, int *width)
{
	for (int i = 0; i < NREGS; i++)
		if (regs[i].addr == addr) {
			*width = regs[i].width;
			return 1;
		}
	return 0;
}

static char allowlist_text[1024];

static void allowlist_build(void)
{
	size_t o = 0;
	for (int i = 0; i < NREGS && o < sizeof allowlist_text; i++)
		o += (size_t)snprintf(allowlist_text + o, sizeof allowlist_text - o, "%s%#x",
				      i ? " " : "", regs[i].addr);
}

const char *clab_lx_msr_allowlist(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, allowlist_build);
	return allowlist_text;
}

/* msr-safe first: it is the one that lets a user in. */
static int open_dev(const char *dir, int cpu, char *path, size_t cap)
{
	snprintf(path, cap, "%s/%d/msr_safe", dir, cpu);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	snprintf(path, cap, "%s/%d/msr", dir, cpu);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static int access_error(const char *dir, int cpu, const char *path, int err)
{
	if (err == ENOENT)
		return clab_seterr(CLAB_E_NODEV,
				   "no MSR device for CPU %d: neither %s/%d/msr_safe nor %s/%d/msr exists "
				   "(as root: modprobe msr; for users: install msr-safe with these registers in its allowlist)",
				   cpu, dir, cpu, dir, cpu);
	if (err == EACCES || err == EPERM)
		return clab_seterr(CLAB_E_NODEV,
				   "permission denied opening %s: reading MSRs needs root with CAP_SYS_RAWIO, "
				   "or msr-safe with read access to its device and these registers in its allowlist",
				   path);
	return clab_seterr(CLAB_E_NODEV, "cannot open %s: %s", path, strerror(err));
}

int clab_lx_msr_read(const char *dir, int cpu, uint32_t addr, uint64_t *val)
{
	char path[600];
	int fd = open_dev(dir, cpu, path, sizeof path);
	if (fd < 0)
		return access_error(dir, cpu, path, errno);
	uint64_t v;
	ssize_t r = pread(fd, &v, sizeof v, (off_t)addr);
	int e = errno;
	close(fd);
	if (r < 0)
		return clab_seterr(CLAB_E_SYS,
				   "reading MSR %#x of CPU %d through %s: %s%s", addr, cpu, path,
				   strerror(e), e == EIO ? " (this processor has no such register, or msr-safe's allowlist lacks it)" : "");
	if (r != (ssize_t)sizeof v)
		return clab_seterr(CLAB_E_SYS, "reading MSR %#x of CPU %d through %s: %zd of 8 bytes",
				   addr, cpu, path, r);
	*val = v;
	return CLAB_OK;
}

static const char *const msr_keys[] = {"msr_dir", NULL};

static int msr_discover(lx_unit *u, clab_machine *m, const char *section)
{
	lx_dir(m, section, "msr_dir", "COUNTERLAB_MSR_DIR", "/dev/cpu", u->root, sizeof u->root);
	int max = clab_lx_cpu_max();
	if (max < 0)
		max = 1023;
	/* a unit that cannot read its first CPU's device says why and is disabled */
	char path[600];
	int fd = -1;
	for (int c = 0; c <= max && fd < 0; c++) {
		fd = open_dev(u->root, c, path, sizeof path);
		if (fd < 0 && errno != ENOENT)
			return access_error(u->root, c, path, errno);
	}
	if (fd < 0)
		return access_error(u->root, 0, path, ENOENT);
	close(fd);
	for (int i = 0; i < NREGS; i++) {
		char d[400];
		snprintf(d, sizeof d, "%s (MSR %#x, %d bits; %s; CPU of :cpu=N, default the CPU the set starts on)",
			 regs[i].descr, regs[i].addr, regs[i].width,
			 regs[i].scope == CLAB_SCOPE_PACKAGE ? "one per package"
			 : regs[i].scope == CLAB_SCOPE_CORE ? "one per core" : "one per logical CPU");
		lx_src src = {.kind = LX_MSR, .msr = regs[i].addr, .width = regs[i].width};
		int rc = lx_add(u, regs[i].name, d, "MSR", regs[i].scope, 1u << LX_Q_CPU, &src);
		if (rc)
			return rc;
	}
	lx_src raw = {.kind = LX_MSR, .msr_raw = 1, .width = 64};
	int rc = lx_add(u, "MSR", "Any register of the allowlist by address, MSR:addr=0xNNN (others are refused)",
			"MSR", CLAB_SCOPE_CPU, 1u << LX_Q_CPU | 1u << LX_Q_ADDR, &raw);
	if (rc)
		return rc;
	u->quals[LX_Q_CPU] = (clab_qual_info){"cpu",
		"Logical CPU (Linux's number) whose register to read; default: the CPU the set starts on", 0,
		(uint64_t)max};
	u->quals[LX_Q_ADDR] = (clab_qual_info){"addr", "MSR address (on the allowlist)", 0, UINT32_MAX};
	u->nquals = 2;
	u->scope = CLAB_SCOPE_CPU;
	u->description = "Counter MSRs read through the msr or msr-safe driver (read-only allowlist)";
	u->rules = "Registers always count (or hold still); any number of sets, each reads the change since its start, "
		   "modulo the register's width. Reads never write an MSR; the CPU is :cpu=N or the one the set started on.";
	return CLAB_OK;
}

static int msr_open(clab_machine *m, const char *section, void **unit, clab_unit_desc *d)
{
	static const lx_kind_ops k = {"linux-msr", msr_keys, msr_discover};
	return lx_open(&k, m, section, unit, d);
}

const clab_unit_ops clab_linux_msr_ops = LX_UNIT_OPS("linux-msr", msr_keys, msr_open);
