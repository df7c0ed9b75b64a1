/* Private to backends/linux: what the linux-perf backend exposes to its
 * tests (encoding through libpfm4, the kernel's permission setting). */
#ifndef CLAB_LINUX_PERF_H
#define CLAB_LINUX_PERF_H

#include <perfmon/pfmlib_perf_event.h> /* libpfm4's perf_event.h, not linux/ (they clash) */
#include <stddef.h>

/* Encodes libpfm4 event `name` for the calling thread's counters in the
 * domain `domain` ("user", "kernel" or "all") into attr (zeroed first). On
 * failure CLAB_E_NOEVENT (or CLAB_E_INVAL for a bad domain) with libpfm4's
 * reason in clab_errmsg(). */
int clab_perf_encode(const char *name, const char *domain,
		     struct perf_event_attr *attr);

/* /proc/sys/kernel/perf_event_paranoid, or 99 when it cannot be read. */
int clab_perf_paranoid(void);

#endif
