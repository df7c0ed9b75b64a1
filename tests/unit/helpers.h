/* Shared by the cmocka unit tests. */
#ifndef CLAB_TEST_HELPERS_H
#define CLAB_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "counterlab/counterlab.h"
#include "counterlab/sim.h"

/* Opens spec or fails the test with the library's message. */
static inline clab_machine *open_machine(const char *spec)
{
	clab_machine *m = NULL;
	int rc = clab_machine_open(spec, &m);
	if (rc)
		fail_msg("open %s: %s: %s", spec, clab_strerror(rc), clab_errmsg());
	return m;
}

static inline uint32_t code_of(clab_component *c, const char *name)
{
	uint32_t code = 0;
	int rc = clab_event_lookup(c, name, &code);
	if (rc)
		fail_msg("lookup %s: %s", name, clab_errmsg());
	return code;
}

/* Binds the calling OS thread to hardware thread h of m as well. */
static inline clab_thread *attach_hw(clab_machine *m, int h)
{
	clab_thread *t;
	int rc = clab_thread_attach_at(m, h, &t);
	if (rc)
		fail_msg("attach %d: %s", h, clab_errmsg());
	return t;
}

/* Programs names[0..n) into a new set of thread t; returns the rc. */
static inline int program(clab_component *c, clab_thread *t, clab_evset **s,
			  const char *const *names, int n)
{
	uint32_t codes[64];
	for (int i = 0; i < n; i++)
		codes[i] = code_of(c, names[i]);
	if (!*s)
		assert_int_equal(clab_evset_create(c, t, s), CLAB_OK);
	return clab_evset_program(*s, codes, n);
}

#endif
