/* The host's topology through hwloc (never /sys by hand): which package a
 * logical CPU belongs to, and where a node-wide counter's device (a network
 * interface, a block device, an InfiniBand HCA) is attached. Loaded once per
 * process, with I/O devices, the first time a unit asks. */
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "lx.h"

static hwloc_topology_t topo;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	if (hwloc_topology_init(&topo))
		return;
	/* OS devices are filtered out by default; we want to know where they sit */
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	/* no counter sits on an accelerator or a display, and their discovery
	 * would start GPU runtimes (OpenCL's ICD loader, CUDA, X11) inside the
	 * measured process */
	static const char *const unused[] = {"opencl", "cuda", "nvml", "rsmi", "levelzero", "gl"};
	for (size_t i = 0; i < sizeof unused / sizeof *unused; i++)
		hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, unused[i]);
	if (hwloc_topology_load(topo)) {
		hwloc_topology_destroy(topo);
		return;
	}
	loaded = 1; /* kept for the process's life, like the kernel it describes */
}

static int ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

void clab_lx_locality(const char *osdev, char *out, size_t cap)
{
	snprintf(out, cap, "no place hwloc knows (a virtual device, or hwloc found no I/O)");
	if (!ready())
		return;
	for (hwloc_obj_t o = hwloc_get_next_osdev(topo, NULL); o;
	     o = hwloc_get_next_osdev(topo, o)) {
		if (!o->name || strcmp(o->name, osdev) != 0)
			continue;
		hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(topo, o);
		if (!a)
			return;
		if (a->type == HWLOC_OBJ_MACHINE)
			snprintf(out, cap, "the machine (no closer locality)");
		else
			snprintf(out, cap, "%s %u", hwloc_obj_type_string(a->type), a->logical_index);
		return;
	}
}

int clab_lx_cpu_package(int cpu)
{
	if (!ready() || cpu < 0)
		return -1;
	hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu);
	if (!pu)
		return -1;
	hwloc_obj_t pk = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
	return pk ? (int)pk->logical_index : -1;
}

int clab_lx_cpu_max(void)
{
	if (!ready())
		return -1;
	int max = -1;
	for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, NULL); pu;
	     pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))
		if ((int)pu->os_index > max)
			max = (int)pu->os_index;
	return max;
}
