/* The backends this build knows, by the names machine profiles use. */
#include <string.h>
#include "counterlab/torus.h"
#include "internal.h"

extern const clab_unit_ops clab_bgq_punit_ops, clab_bgq_l2_ops,
	clab_bgq_io_ops, clab_bgq_nw_ops, clab_bgq_cnk_ops, clab_bgl_nw_ops, clab_linux_perf_ops;
extern const clab_unit_ops clab_linux_io_ops, clab_linux_net_ops,
	clab_linux_proc_kernel_ops, clab_linux_msr_ops;
extern const clab_unit_ops clab_gemini_nw_ops;
const clab_netevent *clab_bgq_netevents(int *n);
const clab_netevent *clab_bgl_netevents(int *n);
const clab_netevent *clab_torus_netevents(int *n);

static const clab_unit_ops *const backends[] = {
	&clab_bgq_punit_ops,
	&clab_bgq_l2_ops,
	&clab_bgq_io_ops,
	&clab_bgq_nw_ops,
	&clab_bgq_cnk_ops,
	&clab_bgl_nw_ops,
	&clab_linux_perf_ops,
	&clab_linux_io_ops,
	&clab_linux_net_ops,
	&clab_linux_proc_kernel_ops,
	&clab_linux_msr_ops,
	&clab_gemini_nw_ops,
};

/* The network unit events of each torus machine (counterlab-netsim). */
static const struct {
	const char *machine;
	const clab_netevent *(*events)(int *n);
} netevents[] = {
	{"bgq", clab_bgq_netevents},
	{"bgl", clab_bgl_netevents},
	{"torus", clab_torus_netevents},
};

const clab_unit_ops *clab_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

const clab_netevent *clab_netevents(const char *machine, int *n)
{
	for (size_t i = 0; i < sizeof netevents / sizeof netevents[0]; i++)
		if (machine && strcmp(netevents[i].machine, machine) == 0)
			return netevents[i].events(n);
	*n = 0;
	return NULL;
}
