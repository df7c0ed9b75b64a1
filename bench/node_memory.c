/* bench/node_memory: resident memory of one simulated node, i.e. what
 * clab_machine_open("bgq:clock=virtual") plus one event set (PAPI_TOT_CYC)
 * on an attached thread add to the process's VmRSS. As a check of the
 * method, the same measurement of a plain 1 MiB malloc, every page touched,
 * comes first. Prints one JSON object on stdout. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "counterlab/counterlab.h"

#define SPEC "bgq:clock=virtual"

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static long heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();
	return (long)(mi.uordblks + mi.hblkhd); /* arena in use + mmapped blocks */
}

static _Noreturn void die(const char *what, int rc)
{
	fprintf(stderr, "node_memory: %s: %s: %s\n", what, clab_strerror(rc),
		clab_errmsg());
	exit(1);
}

int main(void)
{
	/* the method on a known quantity (the first rss_kib() faults in stdio) */
	rss_kib();
	heap_bytes();
	long r0 = rss_kib();
	size_t len = 1u << 20;
	volatile char *buf = malloc(len);
	if (!buf) {
		fprintf(stderr, "node_memory: out of memory\n");
		return 1;
	}
	long page = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < len; i += (size_t)page)
		buf[i] = 1;
	long r1 = rss_kib();
	free((void *)buf);

	long before = rss_kib(), heap0 = heap_bytes();
	clab_machine *m;
	int rc = clab_machine_open(SPEC, &m);
	if (rc)
		die("clab_machine_open", rc);
	clab_component *c = clab_machine_component(m, "core");
	if (!c)
		die("clab_machine_component(core)", CLAB_E_NOCOMP);
	long after_open = rss_kib();
	clab_thread *t;
	clab_evset *s;
	uint32_t code;
	if ((rc = clab_thread_attach(m, &t)))
		die("clab_thread_attach", rc);
	if ((rc = clab_evset_create(c, t, &s)))
		die("clab_evset_create", rc);
	if ((rc = clab_event_lookup(c, "PAPI_TOT_CYC", &code)))
		die("clab_event_lookup(PAPI_TOT_CYC)", rc);
	if ((rc = clab_evset_add(s, code)))
		die("clab_evset_add", rc);
	long after = rss_kib(), heap1 = heap_bytes();
	if (r0 < 0 || r1 < 0 || before < 0 || after < 0) {
		fprintf(stderr, "node_memory: no VmRSS in /proc/self/status\n");
		return 1;
	}
	printf("{\"machine_spec\":\"%s\",\"rss_before_kib\":%ld,"
	       "\"rss_after_open_kib\":%ld,\"rss_after_kib\":%ld,"
	       "\"node_rss_kib\":%ld,\"node_heap_kib\":%ld,"
	       "\"check_malloc_1mib_rss_kib\":%ld}\n",
	       SPEC, before, after_open, after, after - before,
	       (heap1 - heap0) / 1024, r1 - r0);
	clab_evset_destroy(s);
	clab_thread_detach(t);
	clab_machine_close(m);
	return 0;
}
