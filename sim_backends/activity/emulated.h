/* Activity from emulated execution (activity = emulated): counterlab-run
 * runs the program under QEMU's user-mode emulator with counterlab's TCG
 * plugin (emulated/plugin.c), which counts what each guest thread executes
 * into a file of per-thread slots that the program's libcounterlab maps
 * (emulated.c) and reads on every sync, as it reads the host's counts for
 * activity = host. The slots hold the same quantities (hostmap.h), so the
 * same mapping turns them into BG/Q events. Plugin and library share this
 * layout and nothing else. */
#ifndef CLAB_EMULATED_H
#define CLAB_EMULATED_H

#include <stdint.h>
#include "hostmap.h"

#define CLAB_EMU_MAGIC 0x636c6162656d7537ull /* "clabemu7" */
#define CLAB_EMU_SLOTS 256                   /* guest threads alive at once */
#define CLAB_EMU_ENV "COUNTERLAB_EMULATED"   /* the slot file, set by counterlab-run */
/* A system call number Linux does not have: the plugin sees it before the
 * emulator refuses it (ENOSYS). Argument 0 stops counting the calling
 * thread, 1 starts it again: the simulator's own work in a sync (which
 * grows with the simulated time it covers) is not the program's.
 * Argument 2 sets the thread's timer (clab_emu_timer). */
#define CLAB_EMU_SYSCALL 0x636c6162L
enum { CLAB_EMU_PAUSE, CLAB_EMU_RESUME, CLAB_EMU_TIMER };

/* One guest thread's cumulative counts, written only by the emulator thread
 * that runs it (the plugin's callbacks run on the guest thread's own host
 * thread, before the code they count), so a read by that guest thread sees
 * a consistent snapshot. `tid` is the thread's id (the guest's gettid()),
 * 0 for a free slot. */
typedef struct clab_emu_slot {
	int64_t tid;
	uint64_t q[CLAB_HQ_N];
} __attribute__((aligned(64))) clab_emu_slot; /* no two slots share a cache line */

/* The file: its header, then the slots. The header also tells a program
 * that an emulated one executed (emulated/guest.c) how to run under the
 * emulator again: the process the plugin counts, its cache policy and its
 * summary file (a program executed in that process's place writes it). */
typedef struct clab_emu_file {
	uint64_t magic;
	uint64_t nslot;
	int64_t pid;            /* the emulator's process (its guest's getpid()) */
	uint32_t cachegrind;    /* the cache policy: 1 cachegrind, 0 a2 */
	uint32_t pad[9];
	char summary[4096];     /* the summary file, "" for none */
	clab_emu_slot slot[CLAB_EMU_SLOTS];
} clab_emu_file;

/* The calling thread's slot in the file COUNTERLAB_EMULATED names: for
 * the sampler (hostcount.c). CLAB_E_NODEV with the reason when the program
 * does not run under counterlab-run, or its thread has no slot. */
int clab_emu_attach(const volatile clab_emu_slot **out);
/* The slot's counts now, every quantity present; counting stops until
 * clab_emu_pause(0). */
void clab_emu_read(const volatile clab_emu_slot *s, clab_host_sample *out);
/* The calling thread's instructions stop counting (on) or count again
 * (off, as often as on was: pauses nest). The library's own work is the
 * simulator's, not the program's: the framework pauses for it. */
void clab_emu_pause(int on);
/* The emulator sends the calling thread signal `sig` every `cycles` of its
 * timing model's cycles from now (0: no more): the overflow engine's ticks
 * under emulation, at points that depend on what the thread executes only. */
void clab_emu_timer(uint64_t cycles, int sig);

#endif
