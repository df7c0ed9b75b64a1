/* Tests of the host's perf_event counters ask the kernel directly whether
 * it opens an event for this thread, so that they do not take the backend
 * under test at its word. */
#ifndef CLAB_TEST_PERF_PROBE_H
#define CLAB_TEST_PERF_PROBE_H

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
/* struct perf_event_attr comes from the includer: <linux/perf_event.h>
 * or libpfm4's <perfmon/pfmlib_perf_event.h>, which cannot be mixed */

static inline int kernel_opens(uint32_t type, uint64_t config, int exclude_kernel)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = exclude_kernel;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}

#endif
