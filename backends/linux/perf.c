/* The linux-perf backend: the calling thread's counters through the
 * kernel's perf_event interface, event names and encodings from libpfm4.
 *
 * The native table is what libpfm4 finds on this machine at open(): the
 * events of every core PMU it detects (one native per event and unit mask,
 * named as libpfm4 spells them, "skl::INST_RETIRED:ANY_P"), and the
 * kernel's own events of libpfm4's `perf` PMU ("perf::TASK-CLOCK"). The
 * generic hardware events of that PMU are listed only when the kernel can
 * count one, so that a machine without a PMU (a VM, CI) lists what it can
 * count and its note says why the rest is absent. libpfm4's modifiers of
 * the events (u, k, h, period, precise, ...) are the unit's qualifiers,
 * "perf::TASK-CLOCK:u" or ":u=1", encoded by libpfm4 with the event.
 *
 * A set is one perf group: a disabled leader and its siblings, opened by
 * program() in the calling thread (pid 0, cpu -1) so the kernel checks the
 * events at once, and opened again at acquire() if another thread starts
 * it. Reads are one read() of the leader (PERF_FORMAT_GROUP with the
 * enabled and running times); the kernel multiplexes groups that do not
 * fit the PMU and read() scales as PAPI does: count * enabled / running,
 * over the times since start or reset. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "counterlab/backend.h"
#include "perf.h"

#define PERF_MAX_EVENTS 64
#define NOTE_LEN 512

typedef struct perf_unit {
	clab_native *natives;
	int n, cap;
	char domain[8];
	char note[NOTE_LEN];   /* what is absent here and why: the parts below */
	char pmu_note[256];    /* hardware events absent */
	char tp_note[256];     /* tracepoints absent */
	char descr[NOTE_LEN + 128];
	const char *pmus[8];   /* PMU names the listed events carry */
	int npmus;
	/* libpfm4's modifiers of the listed events, as qualifiers; q_user and
	 * q_kernel index u and k (-1: none) */
	clab_qual_info quals[CLAB_MAX_QUALS];
	int nquals, q_user, q_kernel;
	int node;              /* scope = node: every CPU of the node, pid -1 */
	int uncore;            /* pmus = uncore: the uncore PMUs, not the core's */
} perf_unit;

/* The fields a read touches come first, on few cache lines. */
typedef struct perf_set {
	int n;
	int running, acquired;
	int fd[PERF_MAX_EVENTS];   /* fd[0] leads the group; -1: closed */
	uint64_t en0, run0;        /* group times at start or reset */
	/* one read() of the group: nr, time_enabled, time_running, values */
	uint64_t buf[3 + PERF_MAX_EVENTS];
	uint64_t saved[PERF_MAX_EVENTS]; /* counts as of the last stop */
	/* overflow: period and next threshold of each armed request (0: none) */
	uint64_t period[PERF_MAX_EVENTS], next[PERF_MAX_EVENTS];
	uint64_t armed;            /* bit i: request i is armed */
	void *cookie;
	/* an armed event samples every period: its ring (control page and
	 * one data page) moves on each overflow, and its signal wakes the
	 * thread's overflow dispatch */
	struct perf_event_mmap_page *ring[PERF_MAX_EVENTS];
	uint64_t seen[PERF_MAX_EVENTS]; /* ring head as of the last look */
	pid_t tid;                 /* the thread the group counts */
	pid_t pid;                 /* its process: a forked child's copies are not its own */
	const char *name[PERF_MAX_EVENTS];
	struct perf_event_attr attr[PERF_MAX_EVENTS];
	struct node_groups *node;  /* scope = node: the groups, one per CPU */
	const char *domain;        /* the contexts counted: "user", "kernel" or "all" */
	uint64_t own_name;         /* bit i: name[i] is the set's (an event with modifiers) */
} perf_set;

/* A node-wide set: the same group opened on each CPU that counts for the
 * node (pid -1), read one after the other and summed, each scaled by its
 * own times (the kernel multiplexes each CPU apart). */
typedef struct node_groups {
	int ncpu;
	int *cpu;
	int *fd;        /* ncpu x n, row g is the group on cpu[g] */
	uint64_t *base; /* ncpu x 2: enabled and running times at start or reset */
} node_groups;

/* ---- libpfm4 ------------------------------------------------------------ */

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_rc;
/* libpfm4 does not promise that encoding is thread-safe; only program()
 * and open() encode, never the read path. */
static pthread_mutex_t pfm_lock = PTHREAD_MUTEX_INITIALIZER;

static void pfm_init_once(void) { pfm_rc = pfm_initialize(); }

static int pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_rc != PFM_SUCCESS)
		return clab_seterr(CLAB_E_SYS, "libpfm4 failed to initialize: %s",
				   pfm_strerror(pfm_rc));
	return CLAB_OK;
}

static int plm_of(const char *domain)
{
	if (strcmp(domain, "user") == 0)
		return PFM_PLM3;
	if (strcmp(domain, "kernel") == 0)
		return PFM_PLM0;
	if (strcmp(domain, "all") == 0)
		return PFM_PLM0 | PFM_PLM3;
	return 0;
}

static int encode_locked(const char *name, int plm, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	memset(attr, 0, sizeof *attr);
	memset(&arg, 0, sizeof arg);
	arg.size = sizeof arg;
	arg.attr = attr;
	int rc = pfm_get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	attr->size = sizeof *attr;
	return rc;
}

int clab_perf_encode(const char *name, const char *domain,
		     struct perf_event_attr *attr)
{
	int rc = pfm_ready();
	if (rc)
		return rc;
	int plm = plm_of(domain);
	if (!plm)
		return clab_seterr(CLAB_E_INVAL,
				   "domain '%s' is not user, kernel or all", domain);
	pthread_mutex_lock(&pfm_lock);
	int prc = encode_locked(name, plm, attr);
	pthread_mutex_unlock(&pfm_lock);
	if (prc != PFM_SUCCESS)
		return clab_seterr(CLAB_E_NOEVENT, "libpfm4 cannot encode '%s': %s",
				   name, pfm_strerror(prc));
	return CLAB_OK;
}

int clab_perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 99;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

static long perf_open(struct perf_event_attr *a, int group_fd)
{
	return syscall(SYS_perf_event_open, a, 0 /* this thread */, -1 /* any cpu */,
		       group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Does the kernel open this event for this thread, or with `node` for
 * every process on CPU 0 (errno in *err if not)? */
static int kernel_opens(uint32_t type, uint64_t config, int exclude_kernel, int node,
			int *err)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = exclude_kernel;
	a.exclude_hv = 1;
	long fd = node ? syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC)
		       : perf_open(&a, -1);
	if (fd < 0) {
		*err = errno;
		return 0;
	}
	close((int)fd);
	return 1;
}

/* ---- the native table ----------------------------------------------------- */

/* Qualifier bits of libpfm4 event e's modifiers, added to the unit's
 * table as first met. Not `cpu`: the set's scope says where it counts. */
static uint32_t modifiers(perf_unit *u, int e)
{
	pfm_event_info_t ei;
	uint32_t bits = 0;
	memset(&ei, 0, sizeof ei);
	ei.size = sizeof ei;
	if (pfm_get_event_info(e, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
		return 0;
	for (int a = 0; a < ei.nattrs; a++) {
		pfm_event_attr_info_t ai;
		memset(&ai, 0, sizeof ai);
		ai.size = sizeof ai;
		if (pfm_get_event_attr_info(e, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
		    (ai.type != PFM_ATTR_MOD_BOOL && ai.type != PFM_ATTR_MOD_INTEGER) ||
		    strcmp(ai.name, "cpu") == 0)
			continue;
		int q = 0;
		while (q < u->nquals && strcmp(u->quals[q].name, ai.name) != 0)
			q++;
		if (q == CLAB_MAX_QUALS)
			continue; /* more than a unit takes: not offered */
		if (q == u->nquals) {
			/* libpfm4's names and descriptions live in its static tables */
			u->quals[q] = (clab_qual_info){
				ai.name, ai.desc ? ai.desc : "", 0,
				ai.type == PFM_ATTR_MOD_BOOL ? 1 : UINT64_MAX};
			if (strcmp(ai.name, "u") == 0)
				u->q_user = q;
			if (strcmp(ai.name, "k") == 0)
				u->q_kernel = q;
			u->nquals++;
		}
		bits |= 1u << q;
	}
	return bits;
}

static int add_native(perf_unit *u, char *name, const char *descr,
		      const char *pmu, uint64_t config, int e)
{
	if (!name)
		return CLAB_E_NOMEM;
	if (u->n == u->cap) {
		int cap = u->cap ? 2 * u->cap : 128;
		clab_native *t = realloc(u->natives, (size_t)cap * sizeof *t);
		if (!t) {
			free(name);
			return CLAB_E_NOMEM;
		}
		u->natives = t;
		u->cap = cap;
	}
	/* libpfm4's descriptions live in its static tables */
	u->natives[u->n++] = (clab_native){
		.name = name,
		.descr = descr ? descr : "",
		.group = pmu,
		.hw_id = (uint32_t)config,
		.ctr_mask = ~0ull, /* the kernel places events on counters */
		.scope = u->node ? CLAB_SCOPE_NODE : CLAB_SCOPE_THREAD,
		.quals = modifiers(u, e),
	};
	return CLAB_OK;
}

static void note_pmu(perf_unit *u, const char *pmu)
{
	for (int i = 0; i < u->npmus; i++)
		if (strcmp(u->pmus[i], pmu) == 0)
			return;
	if (u->npmus < (int)(sizeof u->pmus / sizeof u->pmus[0]) - 1)
		u->pmus[u->npmus++] = pmu;
}

static int event_info(int e, pfm_event_info_t *ei)
{
	memset(ei, 0, sizeof *ei);
	ei->size = sizeof *ei;
	return pfm_get_event_info(e, PFM_OS_PERF_EVENT_EXT, ei) == PFM_SUCCESS;
}

/* Attribute a of event e when it is a unit mask. */
static int umask_info(int e, int a, pfm_event_attr_info_t *ai)
{
	memset(ai, 0, sizeof *ai);
	ai->size = sizeof *ai;
	return pfm_get_event_attr_info(e, a, PFM_OS_PERF_EVENT_EXT, ai) == PFM_SUCCESS &&
	       ai->type == PFM_ATTR_UMASK;
}

/* Events of a core PMU: one native per unit mask, and the bare event when
 * it needs none (no unit masks, or a default one). */
static int add_core_pmu(perf_unit *u, const pfm_pmu_info_t *pi)
{
	for (int e = pi->first_event; e != -1; e = pfm_get_event_next(e)) {
		pfm_event_info_t ei;
		if (!event_info(e, &ei))
			continue;
		int numasks = 0, dfl = 0, rc;
		for (int a = 0; a < ei.nattrs; a++) {
			pfm_event_attr_info_t ai;
			if (!umask_info(e, a, &ai))
				continue;
			numasks++;
			dfl |= ai.is_dfl;
			char *name;
			if (asprintf(&name, "%s::%s:%s", pi->name, ei.name, ai.name) < 0)
				name = NULL;
			rc = add_native(u, name, ai.desc ? ai.desc : ei.desc, pi->name,
					ei.code, e);
			if (rc)
				return rc;
		}
		if (!numasks || dfl) {
			char *name;
			if (asprintf(&name, "%s::%s", pi->name, ei.name) < 0)
				name = NULL;
			rc = add_native(u, name, ei.desc, pi->name, ei.code, e);
			if (rc)
				return rc;
		}
	}
	note_pmu(u, pi->name);
	return CLAB_OK;
}

/* Is `subsys` (the part of a tracepoint name before ':') in the list? */
static int listed(const char *list, const char *s, size_t len)
{
	const char *p = list;
	while (*p) {
		p += strspn(p, ", \t");
		size_t l = strcspn(p, ", \t");
		if (l && l == len && strncasecmp(p, s, len) == 0)
			return 1;
		p += l;
	}
	return 0;
}

/* libpfm4 lists a tracepoint subsystem as one event whose unit masks are
 * its tracepoints ("perf::syscalls:sys_enter_read"): each is a native of
 * group "tracepoint" (they join the profile's `events` list). */
static int add_tracepoints(perf_unit *u, const pfm_pmu_info_t *pi, int e,
			   const pfm_event_info_t *ei, int *ntp)
{
	for (int a = 0; a < ei->nattrs; a++) {
		pfm_event_attr_info_t ai;
		if (!umask_info(e, a, &ai))
			continue;
		char *name;
		if (asprintf(&name, "%s::%s:%s", pi->name, ei->name, ai.name) < 0)
			return CLAB_E_NOMEM;
		struct perf_event_attr at;
		if (encode_locked(name, PFM_PLM3, &at) != PFM_SUCCESS ||
		    at.type != PERF_TYPE_TRACEPOINT) {
			free(name);
			continue;
		}
		int rc = add_native(u, name, ai.desc ? ai.desc : ei->desc, "tracepoint", at.config,
				    e);
		if (rc)
			return rc;
		++*ntp;
	}
	return CLAB_OK;
}

/* The kernel's events of libpfm4's generic `perf` PMU: software events
 * always; generic hardware and cache events when the kernel has a PMU;
 * tracepoints of the subsystems asked for when the kernel permits them. */
static int add_perf_pmu(perf_unit *u, const pfm_pmu_info_t *pi, int hw_ok,
			const char *tracepoints, int tp_ok, int *ntp)
{
	for (int e = pi->first_event; e != -1; e = pfm_get_event_next(e)) {
		pfm_event_info_t ei;
		if (!event_info(e, &ei))
			continue;
		if (listed(tracepoints, ei.name, strlen(ei.name))) {
			/* a tracepoint subsystem: one native per tracepoint */
			int rc = tp_ok ? add_tracepoints(u, pi, e, &ei, ntp) : CLAB_OK;
			if (rc)
				return rc;
			continue;
		}
		char *name;
		if (asprintf(&name, "%s::%s", pi->name, ei.name) < 0)
			return CLAB_E_NOMEM;
		struct perf_event_attr a;
		int prc = encode_locked(name, PFM_PLM3, &a);
		int keep = 0;
		if (prc == PFM_SUCCESS) {
			switch (a.type) {
			case PERF_TYPE_SOFTWARE:
				keep = 1;
				break;
			case PERF_TYPE_HARDWARE:
			case PERF_TYPE_HW_CACHE:
				keep = hw_ok;
				break;

			}
		}
		if (!keep) {
			free(name);
			continue;
		}
		int rc = add_native(u, name, ei.desc, pi->name, a.config, e);
		if (rc)
			return rc;
	}
	note_pmu(u, pi->name);
	return CLAB_OK;
}

static int enumerate(perf_unit *u, const char *tracepoints)
{
	int hw_errno = 0;
	int kernel_hw = kernel_opens(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, 0, &hw_errno);
	int paranoid = clab_perf_paranoid();
	int tp_ok = paranoid <= -1 || geteuid() == 0;
	char core[128] = "";
	int rc = CLAB_OK, ntp = 0;
	pfm_pmu_t p;
	pthread_mutex_lock(&pfm_lock);
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present)
			continue;
		if (u->uncore) {
			if (pi.type == PFM_PMU_TYPE_UNCORE)
				rc = add_core_pmu(u, &pi);
		} else if (pi.type == PFM_PMU_TYPE_CORE) {
			rc = add_core_pmu(u, &pi);
			snprintf(core + strlen(core), sizeof core - strlen(core), "%s%s",
				 core[0] ? ", " : "", pi.name);
		} else if (strcmp(pi.name, "perf") == 0) {
			rc = add_perf_pmu(u, &pi, kernel_hw, tracepoints, tp_ok, &ntp);
		}
		if (rc)
			break;
	}
	pthread_mutex_unlock(&pfm_lock);
	if (rc)
		return rc;
	/* short: PAPI shows notes in a 128-character component description */
	const char *e = strerrorname_np(hw_errno);
	if (!core[0] && !kernel_hw)
		snprintf(u->pmu_note, sizeof u->pmu_note,
			 "no hardware PMU (libpfm4 finds none, kernel %s; a VM?): software events only",
			 e ? e : "refuses");
	else if (!core[0])
		snprintf(u->pmu_note, sizeof u->pmu_note,
			 "libpfm4 knows no core PMU of this CPU: generic hardware and software events only");
	else if (!kernel_hw)
		snprintf(u->pmu_note, sizeof u->pmu_note,
			 "libpfm4 finds PMU %s but the kernel counts no hardware event (%s): they cannot count here",
			 core, e ? e : "refused");
	if (tracepoints && *tracepoints && !tp_ok)
		snprintf(u->tp_note, sizeof u->tp_note,
			 "tracepoints (%s) need perf_event_paranoid <= -1 or root (it is %d): not listed",
			 tracepoints, paranoid);
	else if (tracepoints && *tracepoints && !ntp)
		snprintf(u->tp_note, sizeof u->tp_note,
			 "tracepoints (%s): libpfm4 lists none (it reads them under debugfs: mount -t debugfs none /sys/kernel/debug)",
			 tracepoints);
	return CLAB_OK;
}

/* The profile's `events` list narrows the table; every name must be one. */
static int select_events(perf_unit *u, clab_machine *m, const char *section,
			 const char *list)
{
	char *keep = calloc((size_t)u->n + 1, 1);
	if (!keep)
		return CLAB_E_NOMEM;
	const char *p = list;
	int rc = CLAB_OK;
	while (*p && !rc) {
		p += strspn(p, ", \t");
		size_t l = strcspn(p, ", \t");
		if (!l)
			break;
		int found = 0;
		for (int i = 0; i < u->n; i++)
			if (strncasecmp(u->natives[i].name, p, l) == 0 &&
			    !u->natives[i].name[l])
				keep[i] = found = 1;
		if (!found)
			rc = clab_seterr(CLAB_E_PROFILE,
					 "machine %s: [%s] events: '%.*s' is not an event libpfm4 lists on this machine%s%s (see counterlab-native-avail)",
					 clab_machine_name(m), section, (int)l, p,
					 u->pmu_note[0] ? "; " : "", u->pmu_note);
		p += l;
	}
	int n = 0;
	for (int i = 0; i < u->n; i++) {
		if (keep[i] || rc || strcmp(u->natives[i].group, "tracepoint") == 0)
			u->natives[n++] = u->natives[i];
		else
			free((char *)u->natives[i].name);
	}
	u->n = n;
	free(keep);
	return rc;
}

static void perf_close(void *unit)
{
	perf_unit *u = unit;
	if (!u)
		return;
	for (int i = 0; i < u->n; i++)
		free((char *)u->natives[i].name);
	free(u->natives);
	free(u);
}

static const char *const perf_keys[] = {"events", "domain", "tracepoints", "scope", "pmus", NULL};

/* The kernel's PMUs (/sys/bus/event_source/devices), for messages. */
static void kernel_pmus(char *out, size_t cap)
{
	out[0] = 0;
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	size_t len = 0;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || len + l + 3 > cap)
			continue;
		if (len) {
			memcpy(out + len, ", ", 2);
			len += 2;
		}
		memcpy(out + len, e->d_name, l + 1);
		len += l;
	}
	if (d)
		closedir(d);
}


static const char *unit_setting(clab_machine *m, const char *section,
				const char *key, const char *def)
{
	char full[256];
	snprintf(full, sizeof full, "%s.%s", section, key);
	const char *v = clab_machine_setting(m, full);
	return v && *v ? v : def;
}

static int perf_open_unit(clab_machine *m, const char *section, void **unit,
			  clab_unit_desc *d)
{
	int rc = pfm_ready();
	if (rc)
		return rc;
	perf_unit *u = calloc(1, sizeof *u);
	if (!u)
		return CLAB_E_NOMEM;
	const char *domain = unit_setting(m, section, "domain", "user");
	if (!plm_of(domain) || strlen(domain) >= sizeof u->domain) {
		free(u);
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: [%s] domain = %s (use user, kernel or all)",
				   clab_machine_name(m), section, domain);
	}
	strcpy(u->domain, domain);
	u->q_user = u->q_kernel = -1;
	const char *scope = unit_setting(m, section, "scope", "thread");
	const char *pmus = unit_setting(m, section, "pmus", "core");
	u->node = strcasecmp(scope, "node") == 0;
	u->uncore = strcasecmp(pmus, "uncore") == 0;
	if ((!u->node && strcasecmp(scope, "thread") != 0) ||
	    (!u->uncore && strcasecmp(pmus, "core") != 0) || (u->uncore && !u->node)) {
		free(u);
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: [%s] scope = %s, pmus = %s: scope is thread or node, "
				   "pmus is core or uncore, and uncore PMUs count only with scope = node",
				   clab_machine_name(m), section, scope, pmus);
	}
	rc = enumerate(u, unit_setting(m, section, "tracepoints", ""));
	if (!rc && u->uncore && !u->n) {
		char have[256];
		kernel_pmus(have, sizeof have);
		perf_close(u);
		return clab_seterr(CLAB_E_NODEV,
				   "no uncore PMU here: libpfm4 finds none that the kernel exports "
				   "(the kernel has: %s; an L3 or uncore PMU is amd_l3, uncore_cbox_N or "
				   "uncore_cha_N; a VM seldom has one)", have[0] ? have : "none");
	}
	const char *events = unit_setting(m, section, "events", "all");
	if (!rc && strcasecmp(events, "all") != 0)
		rc = select_events(u, m, section, events);
	if (rc) {
		perf_close(u);
		return rc;
	}
	/* the note, most pressing first: a refused domain refuses every event;
	 * absent hardware events matter only where the profile asked for all */
	int err, all = strcasecmp(events, "all") == 0;
	const char *part[3] = {"", u->tp_note, all && !u->uncore ? u->pmu_note : ""};
	char dom[200] = "";
	if (u->node && !kernel_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 1, &err))
		snprintf(dom, sizeof dom,
			 "node-wide counting refused: perf_event_paranoid %d (needs <= 0 or root)",
			 clab_perf_paranoid());
	else if (strcmp(u->domain, "user") != 0 &&
	    !kernel_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0, &err))
		snprintf(dom, sizeof dom,
			 "the %s domain is refused: perf_event_paranoid is %d (needs <= 1, or root/CAP_PERFMON)",
			 u->domain, clab_perf_paranoid());
	part[0] = dom;
	for (int i = 0; i < 3; i++)
		if (part[i][0]) {
			size_t o = strlen(u->note);
			snprintf(u->note + o, NOTE_LEN - o, "%s%s", o ? "; " : "", part[i]);
		}
	/* PAPI shows 128 characters: the note must fit after the prefix */
	if (u->node)
		snprintf(u->descr, sizeof u->descr,
			 "perf_event%s, every CPU of the node summed (%s domain)%s%s",
			 u->uncore ? " uncore" : "", u->domain, u->note[0] ? "; " : "", u->note);
	else
		snprintf(u->descr, sizeof u->descr,
			 "Linux perf_event counters of the calling thread (%s domain), events from libpfm4%s%s",
			 u->domain, u->note[0] ? "; " : "", u->note);
	*unit = u;
	*d = (clab_unit_desc){
		.description = u->descr,
		.rules = u->node ?
			 "Each event set is one perf_event group on each CPU that counts for the node "
			 "(an uncore PMU's cpumask, else every online CPU), summed; the kernel multiplexes "
			 "each CPU's group apart and each is scaled by its own time enabled / time running. "
			 "No overflow." :
			 "Each event set is one perf_event group of the calling thread; "
			 "the kernel places its events on counters and multiplexes groups "
			 "that do not fit, and reads are scaled by time enabled / time running. "
			 "An event armed for overflow samples every period: the kernel signals the "
			 "thread and counterlab runs the handler with the group stopped (the "
			 "thread's CPU-time timer checks the thresholds too).",
		.ncounters = PERF_MAX_EVENTS,
		.width = 64,
		.scope = u->node ? CLAB_SCOPE_NODE : CLAB_SCOPE_THREAD,
		/* the kernel signals at the crossing; the group counts on until
		 * the handler starts (at once, or at the end of a library call).
		 * Node-wide groups have no thread to signal (and uncore PMUs
		 * cannot sample). */
		.overflow = u->node ? CLAB_OVF_NONE : CLAB_OVF_SLOW,
		.self_multiplex = 1,
		/* user and kernel apart by perf's exclude bits; `domain` is what
		 * a set counts until told otherwise */
		.contexts = 1,
		.default_context = strcmp(u->domain, "user") == 0     ? CLAB_CTX_USER
				   : strcmp(u->domain, "kernel") == 0 ? CLAB_CTX_KERNEL
								      : CLAB_CTX_ALL,
		.natives = u->natives,
		.nnative = u->n,
		.quals = u->quals,
		.nquals = u->nquals,
		.note = u->note[0] ? u->note : NULL,
		.pmus = u->pmus,
	};
	return CLAB_OK;
}

/* ---- sets ------------------------------------------------------------------ */

#define RING_PAGES 2

static void close_node(perf_set *s)
{
	node_groups *g = s->node;
	for (int k = g->ncpu * s->n - 1; k >= 0; k--)
		if (g->fd[k] >= 0) {
			close(g->fd[k]);
			g->fd[k] = -1;
		}
}

static void close_group(perf_set *s)
{
	if (s->node) {
		close_node(s);
		return;
	}
	long page = sysconf(_SC_PAGESIZE);
	for (int i = s->n - 1; i >= 0; i--) {
		if (s->ring[i]) {
			munmap(s->ring[i], (size_t)(RING_PAGES * page));
			s->ring[i] = NULL;
		}
		if (s->fd[i] >= 0) {
			close(s->fd[i]);
			s->fd[i] = -1;
		}
	}
}

/* Event i samples: its overflows signal this thread (counterlab's overflow
 * signal, which runs the dispatch) and leave a record in its ring. */
static int arm_signal(perf_set *s, int i)
{
	long page = sysconf(_SC_PAGESIZE);
	void *r = mmap(NULL, (size_t)(RING_PAGES * page), PROT_READ | PROT_WRITE,
		       MAP_SHARED, s->fd[i], 0);
	if (r == MAP_FAILED)
		return clab_seterr(CLAB_E_SYS, "perf ring of %s: %s", s->name[i],
				   strerror(errno));
	s->ring[i] = r;
	s->seen[i] = 0;
	/* When the kernel's queue of real-time signals is full it sends SIGIO
	 * instead, whose default action ends the process (64 threads sampling
	 * every 10 us did): a program that left SIGIO alone has it ignored.
	 * The overflows it stood for stay in the ring, which the thread's
	 * host-clock timer reads at its next tick. */
	struct sigaction io;
	if (sigaction(SIGIO, NULL, &io) == 0 && io.sa_handler == SIG_DFL &&
	    !(io.sa_flags & SA_SIGINFO))
		signal(SIGIO, SIG_IGN);
	/* signal and owner first: an overflow before them would be a SIGIO */
	struct f_owner_ex owner = {F_OWNER_TID, gettid()};
	if (fcntl(s->fd[i], F_SETSIG, clab_overflow_signal()) < 0 ||
	    fcntl(s->fd[i], F_SETOWN_EX, &owner) < 0 ||
	    fcntl(s->fd[i], F_SETFL, O_ASYNC | O_NONBLOCK) < 0)
		return clab_seterr(CLAB_E_SYS, "perf overflow signal of %s: %s",
				   s->name[i], strerror(errno));
	return CLAB_OK;
}

/* In a forked child: another thread of the parent may have held it. */
static void perf_forked(void *unit)
{
	(void)unit;
	pthread_mutex_init(&pfm_lock, NULL);
}

static int read_node(perf_set *s, uint64_t *vals, int rebase);
static inline int read_group(perf_set *s);
static void scaled(const perf_set *s, uint64_t *vals);

/* A forked child inherits the parent's descriptors, which name the
 * parent's events: it closes its copies without touching the events,
 * keeping a running set's counts as of the fork (the copies read them). */
static int forked(perf_set *s)
{
	if (s->pid == getpid())
		return 0;
	if (s->running && s->node)
		read_node(s, s->saved, 0);
	else if (s->running && read_group(s) == CLAB_OK)
		scaled(s, s->saved);
	close_group(s);
	s->running = 0;
	s->tid = 0; /* opened afresh at the next acquire */
	return 1;
}

/* Says why the kernel refused event i of the group. */
static int open_error(const perf_set *s, int i, int err, const char *domain)
{
	const char *name = s->name[i];
	switch (err) {
	case EACCES:
	case EPERM:
		return clab_seterr(CLAB_E_SYS,
				   "perf_event_open(%s, %s domain): permission denied; perf_event_paranoid is %d "
				   "(user-domain counting of your own threads needs <= 2, the kernel domain <= 1, "
				   "tracepoints <= -1 or root: sysctl kernel.perf_event_paranoid=N, or CAP_PERFMON)",
				   name, domain, clab_perf_paranoid());
	case ENOENT:
	case EOPNOTSUPP:
		return clab_seterr(CLAB_E_NOEVENT,
				   "perf_event_open(%s): the kernel cannot count this event here (%s): "
				   "its PMU is absent (no hardware PMU: a VM?) or lacks the event",
				   name, strerror(err));
	case EINVAL:
	case ENOSPC:
		if (i > 0)
			return clab_seterr(CLAB_E_RATE,
					   "perf_event_open(%s): the kernel refuses a group of %d events (%s): "
					   "more than the PMU counts at once, or events that cannot share a group; use fewer events per set",
					   name, i + 1, strerror(err));
		return clab_seterr(CLAB_E_NOEVENT,
				   "perf_event_open(%s): the kernel refuses its encoding (%s)",
				   name, strerror(err));
	case EMFILE:
	case ENFILE:
		return clab_seterr(CLAB_E_SYS,
				   "perf_event_open(%s): out of file descriptors (%s): each event takes one; raise ulimit -n",
				   name, strerror(err));
	default:
		return clab_seterr(CLAB_E_SYS, "perf_event_open(%s): %s", name,
				   strerror(err));
	}
}

/* Opens the group for the calling thread, disabled. */
static int open_group(perf_set *s, const char *domain)
{
	for (int i = 0; i < s->n; i++)
		s->fd[i] = -1;
	for (int i = 0; i < s->n; i++) {
		long fd = perf_open(&s->attr[i], i ? s->fd[0] : -1);
		if (fd < 0) {
			int err = errno;
			close_group(s);
			return open_error(s, i, err, domain);
		}
		s->fd[i] = (int)fd;
	}
	s->tid = gettid();
	s->pid = getpid();
	for (int i = 0; i < s->n; i++)
		if (s->attr[i].sample_period) {
			int rc = arm_signal(s, i);
			if (rc) {
				close_group(s);
				return rc;
			}
		}
	return CLAB_OK;
}

/* ---- node-wide sets ------------------------------------------------------ */

/* A kernel cpulist ("0-3,8,10-11") into a new array; its length, or -1. */
static int read_cpulist(const char *path, int **out)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t len = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[len] = 0;
	int n = 0, cap = 16, *v = malloc((size_t)cap * sizeof *v);
	char *p = buf;
	while (v && *p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0 || a > 65535)
			break;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 65535)
				break;
		}
		for (long c = a; c <= b; c++) {
			if (n == cap) {
				int *w = realloc(v, (size_t)(cap *= 2) * sizeof *v);
				if (!w) {
					free(v);
					return -1;
				}
				v = w;
			}
			v[n++] = (int)c;
		}
		p = end + (*end == ',');
		if (*end != ',' && *end != '\n' && *end)
			break;
	}
	if (!v || !n || (*p && *p != '\n')) {
		free(v);
		return -1;
	}
	*out = v;
	return n;
}

/* The CPUs that count for the node: an uncore PMU's cpumask (one CPU per
 * package, die or L3, as its driver says), else every online CPU. */
static int node_cpus(uint32_t type, int **cpus)
{
	char path[300] = "/sys/devices/system/cpu/online";
	if (type >= PERF_TYPE_MAX) { /* a PMU the kernel numbered at boot */
		DIR *d = opendir("/sys/bus/event_source/devices");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char tp[300];
			unsigned t;
			snprintf(tp, sizeof tp, "/sys/bus/event_source/devices/%s/type", e->d_name);
			FILE *f = fopen(tp, "r");
			int hit = f && fscanf(f, "%u", &t) == 1 && t == type;
			if (f)
				fclose(f);
			if (hit) {
				snprintf(path, sizeof path, "/sys/bus/event_source/devices/%s/cpumask",
					 e->d_name);
				if (access(path, R_OK) != 0)
					strcpy(path, "/sys/devices/system/cpu/online");
				break;
			}
		}
		if (d)
			closedir(d);
	}
	int n = read_cpulist(path, cpus);
	if (n < 0)
		return clab_seterr(CLAB_E_SYS, "linux-perf: cannot read the CPU list %s", path);
	return n;
}

/* Opens the group on every CPU of the node, disabled. */
static int open_node(perf_set *s, const char *domain)
{
	node_groups *g = s->node;
	for (int k = 0; k < g->ncpu * s->n; k++)
		g->fd[k] = -1;
	for (int c = 0; c < g->ncpu; c++)
		for (int i = 0; i < s->n; i++) {
			int *fd = &g->fd[c * s->n];
			long f = syscall(SYS_perf_event_open, &s->attr[i], -1, g->cpu[c],
					 i ? fd[0] : -1, PERF_FLAG_FD_CLOEXEC);
			if (f < 0) {
				int err = errno;
				close_node(s);
				if (err == EACCES || err == EPERM)
					return clab_seterr(CLAB_E_SYS,
							   "perf_event_open(%s on CPU %d, every process): permission denied; "
							   "node-wide counting needs perf_event_paranoid <= 0 (it is %d) or "
							   "root/CAP_PERFMON", s->name[i], g->cpu[c], clab_perf_paranoid());
				return open_error(s, i, err, domain);
			}
			fd[i] = (int)f;
		}
	s->pid = getpid();
	return CLAB_OK;
}

static int node_ioctl(perf_set *s, unsigned long req, unsigned long arg, const char *what)
{
	node_groups *g = s->node;
	for (int c = 0; c < g->ncpu; c++)
		if (ioctl(g->fd[c * s->n], req, arg) < 0)
			return clab_seterr(CLAB_E_SYS, "perf group %s on CPU %d: %s", what,
					   g->cpu[c], strerror(errno));
	return CLAB_OK;
}

static void scale(const uint64_t *buf, int n, uint64_t en0, uint64_t run0,
		  uint64_t *vals);

/* Reads every CPU's group; with vals, the sum of the scaled counts; with
 * rebase, the times become the new base. */
static int read_node(perf_set *s, uint64_t *vals, int rebase)
{
	node_groups *g = s->node;
	size_t len = (size_t)(3 + s->n) * sizeof(uint64_t);
	if (vals)
		memset(vals, 0, (size_t)s->n * sizeof *vals);
	for (int c = 0; c < g->ncpu; c++) {
		ssize_t got = read(g->fd[c * s->n], s->buf, len);
		if (got != (ssize_t)len)
			return clab_seterr(CLAB_E_SYS, "read of perf group (%s, ...) on CPU %d: %s",
					   s->name[0], g->cpu[c], got < 0 ? strerror(errno) : "short read");
		uint64_t *b = &g->base[2 * c];
		if (rebase) {
			b[0] = s->buf[1];
			b[1] = s->buf[2];
		}
		if (vals) {
			uint64_t v[PERF_MAX_EVENTS];
			scale(s->buf, s->n, b[0], b[1], v);
			for (int i = 0; i < s->n; i++)
				vals[i] += v[i];
		}
	}
	return CLAB_OK;
}

static void free_node(node_groups *g)
{
	if (g) {
		free(g->cpu);
		free(g->fd);
		free(g->base);
		free(g);
	}
}

static void free_names(perf_set *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->own_name >> i & 1)
			free((char *)s->name[i]);
	s->own_name = 0;
}

static void free_set(perf_set *s)
{
	free_names(s);
	free_node(s->node);
	free(s);
}

/* libpfm4's spelling of request r: the native and its modifiers. */
static int request_name(const perf_unit *u, const clab_evreq *r, const char **name)
{
	const char *base = u->natives[r->native].name;
	char full[512];
	size_t o = (size_t)snprintf(full, sizeof full, "%s", base);
	for (int q = 0; q < u->nquals && o < sizeof full; q++)
		if (r->qual_set >> q & 1)
			o += (size_t)snprintf(full + o, sizeof full - o, ":%s=%llu",
					      u->quals[q].name, (unsigned long long)clab_evreq_qual(r, q));
	if (!r->qual_set) {
		*name = base;
		return 0;
	}
	*name = strdup(full);
	return *name ? 1 : -1;
}

/* PAPI's perf_event way with u and k: each, where the event gives it,
 * decides its own context, and the set's contexts decide the other
 * (libpfm4 alone would exclude the context the event does not name).
 * Without either, libpfm4's encoding for the set's domain stands. Sampling
 * is counterlab's overflow (PAPI_overflow): period and freq leave the
 * count as it is, as they do in a PAPI set without overflow. */
static void apply_modifiers(const perf_unit *u, const clab_evreq *r, int flags,
			    struct perf_event_attr *a)
{
	int qu = u->q_user, qk = u->q_kernel;
	int has_u = qu >= 0 && (r->qual_set >> qu & 1), has_k = qk >= 0 && (r->qual_set >> qk & 1);
	if (has_u || has_k) {
		a->exclude_user = has_u ? !clab_evreq_qual(r, qu) : !!(flags & CLAB_PLAN_EXCLUDE_USER);
		a->exclude_kernel = has_k ? !clab_evreq_qual(r, qk) : !!(flags & CLAB_PLAN_EXCLUDE_KERNEL);
	}
	a->sample_period = 0;
	a->freq = 0;
}

static int new_node(perf_set *s)
{
	node_groups *g = calloc(1, sizeof *g);
	if (!g)
		return CLAB_E_NOMEM;
	s->node = g;
	int n = node_cpus(s->attr[0].type, &g->cpu);
	if (n < 0)
		return n;
	g->ncpu = n;
	g->fd = malloc((size_t)n * (size_t)s->n * sizeof *g->fd);
	g->base = calloc(2 * (size_t)n, sizeof *g->base);
	return g->fd && g->base ? CLAB_OK : CLAB_E_NOMEM;
}

static int perf_program(void *unit, int hwthread, const clab_evreq *reqs, int n,
			int flags, void *replace, void **out)
{
	(void)hwthread;
	perf_unit *u = unit;
	int rc;
	if (n > PERF_MAX_EVENTS)
		return clab_seterr(CLAB_E_RATE,
				   "a linux-perf event set holds at most %d events (%d given)",
				   PERF_MAX_EVENTS, n);
	perf_set *s = calloc(1, sizeof *s);
	if (!s)
		return CLAB_E_NOMEM;
	s->n = n;
	/* the set's contexts (clab_evset_set_context, PAPI's domain) */
	s->domain = flags & CLAB_PLAN_EXCLUDE_USER ? "kernel"
		  : flags & CLAB_PLAN_EXCLUDE_KERNEL ? "user" : "all";
	int plm = plm_of(s->domain);
	pthread_mutex_lock(&pfm_lock);
	for (int i = 0; i < n; i++) {
		const char *name;
		int own = request_name(u, &reqs[i], &name);
		if (own < 0) {
			pthread_mutex_unlock(&pfm_lock);
			free_set(s);
			return CLAB_E_NOMEM;
		}
		s->name[i] = name;
		s->own_name |= (uint64_t)own << i;
		int prc = encode_locked(name, plm, &s->attr[i]);
		if (prc != PFM_SUCCESS) {
			pthread_mutex_unlock(&pfm_lock);
			rc = clab_seterr(CLAB_E_NOEVENT, "libpfm4 cannot encode %s: %s", name,
					 pfm_strerror(prc));
			free_set(s);
			return rc;
		}
		struct perf_event_attr *a = &s->attr[i];
		apply_modifiers(u, &reqs[i], flags, a);
		a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
		a->disabled = i == 0; /* siblings follow their leader */
		a->inherit = 0;       /* group reads do not sum inherited children */
	}
	pthread_mutex_unlock(&pfm_lock);
	rc = u->node ? new_node(s) : CLAB_OK;
	if (!rc)
		rc = u->node ? open_node(s, s->domain) : open_group(s, s->domain);
	if (rc) {
		free_set(s);
		return rc;
	}
	if (replace) {
		perf_set *r = replace;
		close_group(r);
		free_names(r);
		node_groups *old = r->node;
		*r = *s;
		free(s);
		s = r;
		free_node(old);
	}
	*out = s;
	return CLAB_OK;
}

static void perf_discard(void *unit, void *set)
{
	(void)unit;
	perf_set *s = set;
	if (!s)
		return;
	forked(s);
	close_group(s);
	free_set(s);
}

/* Reads the group: one read() into the set's buffer. */
CLAB_HOT static inline __attribute__((always_inline)) int read_group(perf_set *s)
{
	size_t len = (size_t)(3 + s->n) * sizeof(uint64_t);
	ssize_t got = read(s->fd[0], s->buf, len);
	if (got != (ssize_t)len)
		return clab_seterr(CLAB_E_SYS, "read of perf group (%s, ...): %s",
				   s->name[0], got < 0 ? strerror(errno) : "short read");
	return CLAB_OK;
}

/* Counts of a group read (buf: nr, time enabled, time running, values)
 * since the times en0, run0, scaled PAPI's way. */
CLAB_HOT static void scale(const uint64_t *buf, int n, uint64_t en0, uint64_t run0,
			   uint64_t *vals)
{
	uint64_t en = buf[1] - en0, run = buf[2] - run0;
	for (int i = 0; i < n; i++) {
		uint64_t v = buf[3 + i];
		if (run == 0)
			vals[i] = 0; /* the group never got on the PMU */
		else if (run == en)
			vals[i] = v;
		else
			vals[i] = (uint64_t)((unsigned __int128)v * en / run);
	}
}

CLAB_HOT static void scaled(const perf_set *s, uint64_t *vals)
{
	scale(s->buf, s->n, s->en0, s->run0, vals);
}

static int perf_acquire(void *unit, void *set, void *replace)
{
	(void)unit;
	perf_set *s = set;
	if (s->node) { /* any thread's: only a forked child opens its own */
		int rc = s->pid == getpid() ? CLAB_OK : open_node(s, s->domain);
		if (rc)
			return rc;
	} else if (s->tid != gettid()) { /* planned by another thread: count this one */
		close_group(s);
		int rc = open_group(s, s->domain);
		if (rc)
			return rc;
	}
	s->acquired = 1;
	if (replace)
		((perf_set *)replace)->acquired = 0;
	return CLAB_OK;
}

static int perf_stop(void *unit, void *set)
{
	(void)unit;
	perf_set *s = set;
	if (!s->running || forked(s))
		return CLAB_OK;
	if (s->node) {
		int rc = node_ioctl(s, PERF_EVENT_IOC_DISABLE, 0, "disable");
		s->running = 0;
		return rc ? rc : read_node(s, s->saved, 0);
	}
	/* the leader alone: it takes its siblings off the PMU with it (with
	 * PERF_IOC_FLAG_GROUP, a task-clock sibling loses time after a
	 * disable/enable cycle on Linux 6.18, seen in papi_host) */
	if (ioctl(s->fd[0], PERF_EVENT_IOC_DISABLE, 0) < 0)
		return clab_seterr(CLAB_E_SYS, "perf group disable: %s", strerror(errno));
	s->running = 0;
	int rc = read_group(s);
	if (!rc)
		scaled(s, s->saved);
	return rc;
}

static void perf_release(void *unit, void *set)
{
	perf_set *s = set;
	perf_stop(unit, s);
	s->acquired = 0; /* the disabled group stays open for the next start */
}

/* Counts and times restart from zero. */
static int rebase(perf_set *s)
{
	if (s->node) {
		int rc = node_ioctl(s, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP, "reset");
		return rc ? rc : read_node(s, NULL, 1);
	}
	if (ioctl(s->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0)
		return clab_seterr(CLAB_E_SYS, "perf group reset: %s", strerror(errno));
	int rc = read_group(s);
	if (rc)
		return rc;
	s->en0 = s->buf[1];
	s->run0 = s->buf[2];
	return CLAB_OK;
}

static int perf_start(void *unit, void *set)
{
	(void)unit;
	perf_set *s = set;
	if (!s->acquired)
		return clab_seterr(CLAB_E_STATE, "linux-perf: start of a set that is not acquired");
	int rc = rebase(s);
	if (rc)
		return rc;
	if (s->node)
		rc = node_ioctl(s, PERF_EVENT_IOC_ENABLE, 0, "enable");
	else if (ioctl(s->fd[0], PERF_EVENT_IOC_ENABLE, 0) < 0) /* siblings follow */
		return clab_seterr(CLAB_E_SYS, "perf group enable: %s", strerror(errno));
	if (rc)
		return rc;
	for (int i = 0; i < s->n; i++)
		s->next[i] = s->period[i];
	s->running = 1;
	return CLAB_OK;
}

/* ---- overflow: perf's sampling signals, counterlab's dispatch ------------- */

static int perf_overflow(void *unit, void *set, int i, uint64_t period, void *cookie)
{
	(void)unit;
	perf_set *s = set;
	if (i < 0 || i >= s->n)
		return clab_seterr(CLAB_E_INVAL, "linux-perf: no request %d", i);
	if (s->running)
		return clab_seterr(CLAB_E_STATE, "linux-perf: arming a running set");
	if (s->node)
		return clab_seterr(CLAB_E_INVAL,
				   "linux-perf: node-wide counters cannot interrupt (no thread to signal; "
				   "uncore PMUs cannot sample)");
	s->period[i] = period;
	s->next[i] = period;
	s->armed = period ? s->armed | 1ull << i : s->armed & ~(1ull << i);
	s->cookie = cookie;
	/* the kernel takes a sampling period only at open: the group anew */
	s->attr[i].sample_period = period;
	s->attr[i].wakeup_events = period ? 1 : 0;
	close_group(s);
	return open_group(s, s->domain);
}

/* A signal or the timer: raise the armed requests that the kernel saw
 * overflow (their rings moved; one call per kernel overflow, whichever
 * signal comes first), or without a ring those past their thresholds. */
static void perf_poll(void *unit, void *set)
{
	(void)unit;
	perf_set *s = set;
	uint64_t v[PERF_MAX_EVENTS], hit = 0;
	if (!s->armed || !s->running || forked(s) || read_group(s))
		return;
	scaled(s, v);
	for (int i = 0; i < s->n; i++) {
		if (!(s->armed >> i & 1))
			continue;
		struct perf_event_mmap_page *pg = s->ring[i];
		if (pg) { /* drain it, or a full ring would stop the signals */
			uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
			if (head != s->seen[i])
				hit |= 1ull << i;
			s->seen[i] = head;
			__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
		}
		else if (v[i] >= s->next[i]) /* no ring: by the count */
			hit |= 1ull << i;
	}
	if (hit)
		clab_overflow_raise(s->cookie, hit);
}

/* The handler runs with the group stopped; after it, requests past their
 * thresholds are armed again one period on from their count. */
static int perf_handler(void *unit, void *set, int on)
{
	(void)unit;
	perf_set *s = set;
	if (!s->running || s->node || forked(s))
		return CLAB_OK;
	if (ioctl(s->fd[0], on ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0) < 0)
		return clab_seterr(CLAB_E_SYS, "perf group %s: %s", on ? "disable" : "enable",
				   strerror(errno));
	if (on)
		return CLAB_OK;
	uint64_t v[PERF_MAX_EVENTS];
	int rc = read_group(s);
	if (rc)
		return rc;
	scaled(s, v);
	for (int i = 0; i < s->n; i++)
		if ((s->armed >> i & 1) && v[i] >= s->next[i])
			s->next[i] = v[i] + s->period[i];
	return CLAB_OK;
}

/* The read path: one read(), no lock, no allocation. */
CLAB_HOT static int perf_read(void *unit, void *set, uint64_t *vals)
{
	(void)unit;
	perf_set *s = set;
	if (!s->running) {
		memcpy(vals, s->saved, (size_t)s->n * sizeof *vals);
		return CLAB_OK;
	}
	if (s->node)
		return read_node(s, vals, 0);
	int rc = read_group(s);
	if (!rc)
		scaled(s, vals);
	return rc;
}

static int perf_reset(void *unit, void *set)
{
	(void)unit;
	perf_set *s = set;
	memset(s->saved, 0, sizeof s->saved);
	return s->running ? rebase(s) : CLAB_OK;
}

static uint64_t perf_counters(void *unit, void *set, int i)
{
	(void)unit;
	(void)set;
	return 1ull << i; /* slot i of the group; the kernel picks the counter */
}

const clab_unit_ops clab_linux_perf_ops = {
	.name = "linux-perf",
	.keys = perf_keys,
	.open = perf_open_unit,
	.close = perf_close,
	.program = perf_program,
	.discard = perf_discard,
	.acquire = perf_acquire,
	.release = perf_release,
	.start = perf_start,
	.stop = perf_stop,
	.read = perf_read,
	.reset = perf_reset,
	.peek = perf_read,
	.counters = perf_counters,
	.overflow = perf_overflow,
	.poll = perf_poll,
	.handler = perf_handler,
	.forked = perf_forked,
};
