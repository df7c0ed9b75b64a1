/* Error codes, their names, and the per-thread error detail. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

static const char *const messages[CLAB_NERRORS] = {
	[0] = "no error",
	[-CLAB_E_INVAL] = "invalid argument",
	[-CLAB_E_NOMEM] = "out of memory",
	[-CLAB_E_NOEVENT] = "unknown event",
	[-CLAB_E_CONFLICT] = "events cannot be counted together",
	[-CLAB_E_QUALIFIER] = "bad event qualifier",
	[-CLAB_E_PROFILE] = "bad machine profile or spec",
	[-CLAB_E_ACTIVITY] = "malformed activity profile",
	[-CLAB_E_NOSUPP] = "operation not supported by this unit",
	[-CLAB_E_STATE] = "wrong state for this operation",
	[-CLAB_E_NOCOMP] = "no such component",
	[-CLAB_E_SYS] = "system error",
	[-CLAB_E_NOTHREAD] = "no free simulated hardware thread",
	[-CLAB_E_RATE] = "more than the hardware can count or produce",
	[-CLAB_E_MAP] = "bad torus shape or rank map",
	[-CLAB_E_PATTERN] = "bad traffic pattern",
	[-CLAB_E_PARSE] = "malformed kernel counter file",
	[-CLAB_E_NODEV] = "counter device absent or not permitted",
};

const char *clab_strerror(int err)
{
	if (err > 0 || err <= -CLAB_NERRORS)
		return "unknown error code";
	return messages[-err];
}

static __thread char errbuf[512];

const char *clab_errmsg(void)
{
	return errbuf;
}

/* Callers often wrap the detail they got ("...: %s", clab_errmsg()), so the
 * message is formatted apart and then copied: the buffer may be an
 * argument. */
int clab_seterr(int err, const char *fmt, ...)
{
	char msg[sizeof errbuf];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	memcpy(errbuf, msg, sizeof errbuf);
	return err;
}

const char *clab_scope_name(enum clab_scope s)
{
	switch (s) {
	case CLAB_SCOPE_THREAD: return "thread";
	case CLAB_SCOPE_CORE: return "core";
	case CLAB_SCOPE_NODE: return "node";
	case CLAB_SCOPE_PROCESS: return "process";
	case CLAB_SCOPE_CPU: return "cpu";
	case CLAB_SCOPE_PACKAGE: return "package";
	}
	return "?";
}

const char *clab_overflow_name(enum clab_overflow o)
{
	switch (o) {
	case CLAB_OVF_NONE: return "none";
	case CLAB_OVF_FAST: return "fast";
	case CLAB_OVF_SLOW: return "slow";
	}
	return "?";
}

const char *clab_derived_name(enum clab_derived d)
{
	switch (d) {
	case CLAB_NOT_DERIVED: return "NOT_DERIVED";
	case CLAB_DERIVED_ADD: return "DERIVED_ADD";
	case CLAB_DERIVED_SUB: return "DERIVED_SUB";
	case CLAB_DERIVED_POSTFIX: return "DERIVED_POSTFIX";
	}
	return "?";
}
