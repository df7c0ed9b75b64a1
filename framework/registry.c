/* The backends this build knows, by the names machine profiles use. */
#include <string.h>
#include "internal.h"

extern const clab_unit_ops clab_bgq_punit_ops, clab_bgq_l2_ops,
	clab_bgq_io_ops, clab_bgq_cnk_ops;

static const clab_unit_ops *const backends[] = {
	&clab_bgq_punit_ops,
	&clab_bgq_l2_ops,
	&clab_bgq_io_ops,
	&clab_bgq_cnk_ops,
};

const clab_unit_ops *clab_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}
