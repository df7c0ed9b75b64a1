/* The few CNK and hardware calls BGPM programs use, answered by the
 * simulated node: processor ids from the thread's simulated hardware
 * thread, the personality from the machine profile, time from the
 * thread's simulated clock. */
#include <stdlib.h>
#include <string.h>
#include "counterlab/counterlab.h"
#include "counterlab/sim.h"
#include "counterlab/torus.h"
#include "spi/include/kernel/location.h"
#include "spi/include/kernel/process.h"
#include "hwi/include/bqc/A2_inlines.h"

enum { APP_HWTHREADS = 64 }; /* 16 cores x 4 threads; core 17 is the kernel's */

static int hwthread(void)
{
	clab_machine *m;
	clab_thread *t;
	if (clab_machine_default(&m) || clab_thread_attach(m, &t))
		return 0;
	int hw = clab_thread_hwthread(t);
	clab_thread_detach(t); /* the attach above only looked */
	return hw;
}

uint32_t Kernel_ProcessorID(void) { return (uint32_t)hwthread(); }
uint32_t Kernel_ProcessorCoreID(void) { return (uint32_t)hwthread() / 4; }
uint32_t Kernel_ProcessorThreadID(void) { return (uint32_t)hwthread() % 4; }

static unsigned ppn(clab_machine *m)
{
	const char *v = clab_machine_setting(m, "ppn");
	unsigned n = v ? (unsigned)strtoul(v, NULL, 10) : 1;
	return n ? n : 1;
}

uint32_t Kernel_ProcessCount(void)
{
	clab_machine *m;
	return clab_machine_default(&m) ? 1 : ppn(m);
}

uint32_t Kernel_ProcessorCount(void)
{
	uint32_t p = Kernel_ProcessCount();
	return p > APP_HWTHREADS ? 1 : APP_HWTHREADS / p;
}

/* This process's rank as the network unit takes it. */
static unsigned long rank_of(clab_machine *m)
{
	const char *v = clab_machine_setting(m, "network.rank");
	if (!v)
		v = getenv("OMPI_COMM_WORLD_RANK");
	if (!v)
		v = getenv("PMI_RANK");
	return v ? strtoul(v, NULL, 10) : 0;
}

int Kernel_GetPersonality(Personality_t *p, size_t size)
{
	clab_machine *m;
	clab_hw_info hw;
	if (!p || size < sizeof *p || clab_machine_default(&m))
		return -1;
	memset(p, 0, sizeof *p);
	p->Version = 1;
	p->PersonalitySizeWords = (uint8_t)(sizeof *p / 4);
	if (!clab_machine_hw_info(m, &hw)) {
		p->Kernel_Config.FreqMHz = (uint32_t)hw.mhz;
		p->DDR_Config.DDRSizeMB = (uint32_t)(hw.memory >> 20);
	}
	clab_torus t;
	clab_map map;
	const clab_netspec *spec = clab_netspec_find("bgq");
	if (!spec || clab_torus_init(&t, spec, clab_machine_setting(m, "torus"), (int)ppn(m), NULL))
		return 0; /* no torus in the profile: shape and coordinates stay 0 */
	if (clab_map_init(&map, &t, clab_machine_setting(m, "map")))
		return 0;
	unsigned long r = rank_of(m);
	int c[CLAB_TORUS_MAXD] = {0};
	if (r < map.nranks)
		clab_torus_coords(&t, map.node[r], c);
	clab_map_free(&map);
	Personality_Networks_t *n = &p->Network_Config;
	uint8_t *size5[5] = {&n->Anodes, &n->Bnodes, &n->Cnodes, &n->Dnodes, &n->Enodes};
	uint8_t *coord5[5] = {&n->Acoord, &n->Bcoord, &n->Ccoord, &n->Dcoord, &n->Ecoord};
	for (int d = 0; d < 5 && d < t.ndims; d++) {
		*size5[d] = (uint8_t)t.size[d];
		*coord5[d] = (uint8_t)c[d];
	}
	return 0;
}

uint64_t GetTimeBase(void) { return clab_sim_now(); }

void Delay(uint64_t pclks) { clab_sim_advance(pclks); }
