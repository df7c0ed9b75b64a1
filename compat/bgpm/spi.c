/* The few CNK and hardware calls BGPM programs use, answered by the
 * simulated node: processor ids from the thread's simulated hardware
 * thread, the personality from the machine profile, time from the
 * thread's simulated clock. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/counterlab.h"
#include "counterlab/sim.h"
#include "counterlab/torus.h"
#include "spi/include/kernel/location.h"
#include "spi/include/kernel/process.h"
#include "hwi/include/bqc/A2_inlines.h"
#include "spi/include/upci/upci.h"
#include "spi.h"

enum { APP_HWTHREADS = 64 }; /* 16 cores x 4 threads; core 17 is the kernel's */

static unsigned ppn(clab_machine *m)
{
	const char *v = clab_machine_setting(m, "ppn");
	unsigned n = v ? (unsigned)strtoul(v, NULL, 10) : 1;
	return n < 1 ? 1 : n > APP_HWTHREADS ? APP_HWTHREADS : n;
}

static unsigned long rank_of(clab_machine *m);

/* The process's T coordinate: how many ranks of its node come before it
 * in the machine's rank map (rank % ppn when there is no torus). */
static unsigned tcoord(clab_machine *m)
{
	unsigned long r = rank_of(m);
	unsigned p = ppn(m), t = (unsigned)(r % p);
	clab_torus tor;
	clab_map map;
	const clab_netspec *spec = clab_netspec_find("bgq");
	if (spec && !clab_torus_init(&tor, spec, clab_machine_setting(m, "torus"), (int)p, NULL) &&
	    !clab_map_init(&map, &tor, clab_machine_setting(m, "map"))) {
		if (r < map.nranks) {
			t = 0;
			for (unsigned long q = 0; q < r; q++)
				t += map.node[q] == map.node[r];
		}
		clab_map_free(&map);
	}
	return t < p ? t : t % p;
}

void bgpm_process_hw(int *first, int *count)
{
	clab_machine *m;
	unsigned p = 1, t = 0;
	if (!clab_machine_default(&m)) {
		p = ppn(m);
		t = tcoord(m);
	}
	*count = (int)(APP_HWTHREADS / p);
	*first = (int)t * *count;
}

static __thread clab_thread *placed;
static pthread_key_t left_key;
static pthread_once_t left_once = PTHREAD_ONCE_INIT;

static void left(void *t) { bgpm_on_left(t); }
static void left_key_create(void) { pthread_key_create(&left_key, left); }

/* t is the thread's place from now on. */
static clab_thread *settle(clab_thread *t)
{
	placed = t;
	pthread_once(&left_once, left_key_create);
	pthread_setspecific(left_key, t);
	bgpm_on_placed(t);
	return t;
}

/* CNK spreads a process's threads over its cores before doubling up:
 * the k-th thread of a process on c cores goes to core k % c. */
clab_thread *bgpm_self(void)
{
	clab_machine *m;
	if (placed)
		return placed;
	if (clab_machine_default(&m))
		return NULL;
	clab_thread *t;
	if (!clab_thread_current(m, &t)) /* placed already (PAPI, the sim API) */
		return clab_thread_attach(m, &t) ? NULL : settle(t);
	int first, count;
	bgpm_process_hw(&first, &count);
	int cores = count >= 4 ? count / 4 : 1, per = count >= 4 ? 4 : count;
	for (int k = 0; k < count; k++) {
		int hw = per < 4 ? first + k : first + (k % cores) * 4 + k / cores;
		if (!clab_thread_attach_at(m, hw, &t))
			return settle(t);
	}
	/* more threads than the process has */
	return clab_thread_attach(m, &t) ? NULL : settle(t);
}

static int hwthread(void)
{
	clab_thread *t = bgpm_self();
	return t ? clab_thread_hwthread(t) : 0;
}

uint32_t Kernel_ProcessorID(void) { return (uint32_t)hwthread(); }
uint32_t Kernel_ProcessorCoreID(void) { return (uint32_t)hwthread() / 4; }
uint32_t Kernel_ProcessorThreadID(void) { return (uint32_t)hwthread() % 4; }

uint32_t Kernel_ProcessCount(void)
{
	clab_machine *m;
	return clab_machine_default(&m) ? 1 : ppn(m);
}

uint32_t Kernel_ProcessorCount(void)
{
	int first, count;
	bgpm_process_hw(&first, &count);
	return (uint32_t)count;
}

uint32_t Kernel_MyTcoord(void)
{
	clab_machine *m;
	return clab_machine_default(&m) ? 0 : tcoord(m);
}

uint64_t Kernel_ThreadMask(uint32_t t)
{
	if (t >= Kernel_ProcessCount())
		return 0;
	uint32_t n = Kernel_ProcessorCount();
	uint64_t mask = 0;
	for (uint32_t h = t * n; h < (t + 1) * n; h++)
		mask |= 0x8000000000000000ull >> h;
	return mask;
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

/* The calling thread's own simulated cycles. */
uint64_t GetTimeBase(void)
{
	clab_thread *t = bgpm_self();
	return t ? clab_thread_now(t) : 0;
}

/* A BG/Q delay spins on the timebase, executing instructions all the
 * while (IBM's examples count and overflow on them). So does this one
 * where the thread's clock moves by itself (the program's own
 * instructions under counterlab-run, the host's time), looking at the
 * clock after runs of an empty loop sized to half the time still to go
 * (each look is a library call); on the virtual clock, which moves only
 * when told, the time still to go passes at once. */
void Delay(uint64_t pclks)
{
	clab_thread *t = bgpm_self();
	if (!t)
		return;
	uint64_t now = clab_thread_now(t), end = now + pclks, spins = 64;
	for (int still = 0; now < end;) {
		for (uint64_t i = 0; i < spins; i++)
			__asm__ volatile("");
		uint64_t was = now;
		now = clab_thread_now(t);
		if (now == was) {
			if (++still == 2) {
				clab_thread_advance(t, end - now);
				return;
			}
		} else if (now < end) { /* cycles a spin took, so far */
			uint64_t want = (end - now) / 2 * spins / (now - was);
			spins = want ? want : 1;
		}
	}
}

void Upci_Delay(uint64_t clks) { Delay(clks); }
