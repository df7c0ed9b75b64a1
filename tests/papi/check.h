/* Tiny assertion helpers for the PAPI-level tests (plain PAPI programs). */
#ifndef CLAB_PAPI_CHECK_H
#define CLAB_PAPI_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <papi.h>

#define CHECK(cond, ...) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)
#define CHECK_PAPI(call) do { int rc_ = (call); \
	CHECK(rc_ == PAPI_OK, "%s: %s", #call, PAPI_strerror(rc_)); } while (0)

/* A new event set of names[0..n), and its end. */
static inline int make_set(const char *const *names, int n)
{
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	for (int i = 0; i < n; i++) {
		int rc = PAPI_add_named_event(es, names[i]);
		CHECK(rc == PAPI_OK, "add %s: %s", names[i], PAPI_strerror(rc));
	}
	return es;
}

static inline void drop_set(int es)
{
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));
}

/* Writes an activity profile for this test and selects it, before PAPI
 * starts. */
static inline void use_activity(const char *text, const char *extra)
{
	static char path[] = "/tmp/clab-papi-act-XXXXXX.ini";
	int fd = mkstemps(path, 4);
	CHECK(fd >= 0, "mkstemps");
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	char spec[512];
	snprintf(spec, sizeof spec, "bgq:clock=virtual,activity=%s%s", path, extra);
	setenv("COUNTERLAB_MACHINE", spec, 1);
}
#endif
