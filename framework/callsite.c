/* Where in the program an overflow happened. The address the overflow
 * engine knows (the call site of the outermost library call, or the PC a
 * signal interrupted) may lie inside libcounterlab or a layer over it
 * (PAPI's glue inside libpapi, libbgpm): profiles must credit the program's
 * own code, so the stack is walked up to the first frame outside them.
 *
 * The walk uses libgcc's unwinder (.eh_frame: no frame pointers needed)
 * and runs in the overflow signal's handler, so nothing on its path may
 * allocate or lock: the libraries' address ranges are found beforehand
 * (when each layer registers), and the unwinder's one-time set-up runs at
 * load time. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <unwind.h>
#include "internal.h"

#define LAYERS_MAX 8
#define FRAMES_MAX 256

static struct {
	uintptr_t lo, hi;
} layer[LAYERS_MAX];
static int nlayers; /* entries below it are complete (release/acquire) */
static pthread_mutex_t layer_lock = PTHREAD_MUTEX_INITIALIZER;

struct object {
	uintptr_t addr;  /* in: an address of the object */
	uintptr_t lo, hi; /* out: its loaded segments, [lo, hi) */
	int seen, main;  /* objects visited; the object is the main program */
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct object *o = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	int holds = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
		holds |= o->addr >= a && o->addr < b;
	}
	if (!holds) {
		o->seen++;
		return 0;
	}
	o->lo = lo;
	o->hi = hi;
	o->main = o->seen++ == 0; /* the main program comes first */
	return 1;
}

void clab_callsite_library(const void *addr)
{
	struct object o = {.addr = (uintptr_t)addr};
	/* linked into the program itself (static archive): its frames and
	 * the program's cannot be told apart, so none are skipped */
	if (!dl_iterate_phdr(find_object, &o) || o.main)
		return;
	uintptr_t lo = o.lo, hi = o.hi;
	pthread_mutex_lock(&layer_lock);
	int n = nlayers, known = 0;
	for (int i = 0; i < n; i++)
		known |= layer[i].lo == lo;
	if (!known && n < LAYERS_MAX) {
		layer[n].lo = lo;
		layer[n].hi = hi;
		__atomic_store_n(&nlayers, n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&layer_lock);
}

static int in_layers(uintptr_t pc)
{
	int n = __atomic_load_n(&nlayers, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++)
		if (pc >= layer[i].lo && pc < layer[i].hi)
			return 1;
	return 0;
}

struct walk {
	uintptr_t from;  /* the frame to start after */
	uintptr_t found; /* the first frame after it outside the layers */
	int passed, frames;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	uintptr_t ip = _Unwind_GetIP(ctx);
	if (++w->frames > FRAMES_MAX)
		return _URC_END_OF_STACK;
	if (!w->passed) {
		w->passed = ip == w->from;
		return _URC_NO_REASON;
	}
	if (in_layers(ip))
		return _URC_NO_REASON;
	w->found = ip;
	return _URC_END_OF_STACK; /* any code but NO_REASON ends the walk */
}

/* pc is a return address or an interrupted PC on the current stack (the
 * unwinder reports both as they are). Outside the layers it is the
 * program's already; inside, the walk starts at its frame, so the
 * handler's own frames and the signal trampoline below it are passed by. */
void *clab_callsite(void *pc)
{
	if (!pc || !in_layers((uintptr_t)pc))
		return pc;
	struct walk w = {.from = (uintptr_t)pc};
	_Unwind_Backtrace(step, &w);
	return w.found ? (void *)w.found : pc;
}

/* The unwinder sets itself up on first use: at load time, not in a signal
 * handler. */
__attribute__((constructor)) static void callsite_init(void)
{
	clab_callsite_library((const void *)clab_callsite);
	struct walk w = {.from = 1};
	_Unwind_Backtrace(step, &w);
}
