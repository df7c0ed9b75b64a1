/* The program's side of activity = emulated (see emulated.h): the slot
 * file is mapped once per process; a thread finds its slot by its id,
 * which the plugin records at the thread's every system call (so the
 * gettid() below registers the calling thread before the search). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "counterlab/backend.h"
#include "emulated.h"

static pthread_once_t map_once = PTHREAD_ONCE_INIT;
static const volatile clab_emu_file *map;
static int map_errno;

static void map_file(void)
{
	const char *path = getenv(CLAB_EMU_ENV);
	if (!path || !*path)
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		map_errno = errno;
		return;
	}
	void *p = mmap(NULL, sizeof(clab_emu_file), PROT_READ, MAP_SHARED, fd, 0);
	map_errno = p == MAP_FAILED ? errno : 0;
	close(fd);
	if (p != MAP_FAILED)
		map = p;
}

int clab_emu_attach(const volatile clab_emu_slot **out)
{
	pthread_once(&map_once, map_file);
	const char *path = getenv(CLAB_EMU_ENV);
	if (!path || !*path)
		return clab_seterr(CLAB_E_NODEV,
				   "activity = emulated counts a program that runs under the emulator: "
				   "start it as 'counterlab-run [--machine PROFILE] -- PROGRAM ARGS...' "
				   "(%s is not set)", CLAB_EMU_ENV);
	if (!map)
		return clab_seterr(CLAB_E_NODEV, "activity = emulated: cannot map %s=%s (%s); "
				   "start the program with counterlab-run", CLAB_EMU_ENV, path,
				   strerror(map_errno ? map_errno : EINVAL));
	if (map->magic != CLAB_EMU_MAGIC || map->nslot != CLAB_EMU_SLOTS)
		return clab_seterr(CLAB_E_NODEV, "activity = emulated: %s=%s is not a slot file of "
				   "this counterlab's plugin; start the program with counterlab-run",
				   CLAB_EMU_ENV, path);
	int64_t tid = (int64_t)gettid();
	for (int i = 0; i < CLAB_EMU_SLOTS; i++)
		if (map->slot[i].tid == tid) {
			*out = &map->slot[i];
			clab_guard_set_pause(clab_emu_pause);
			return CLAB_OK;
		}
	return clab_seterr(CLAB_E_NODEV, "activity = emulated: thread %lld has no slot in %s "
			   "(more than %d threads at once, or the program was not started by "
			   "counterlab-run)", (long long)tid, path, CLAB_EMU_SLOTS);
}

/* Pauses of the thread now open (nested: the outermost opens and closes;
 * a resume with none open, from a thread that attached within a call,
 * does nothing) */
static __thread int pauses;

/* PEVT_AXU_FP_EXCEPT counts edges of the FPSCR's exception summary bit
 * (FX): an FP instruction sets it when it raises an exception flag that
 * was clear, and it stays set until software clears the flags. The x86's
 * flags (MXCSR and the x87 status word, which the emulator keeps as the
 * CPU would) stand for the FPSCR's, the summary for "some flag set". The
 * plugin cannot read them (QEMU 7.2 shows a plugin no registers), so the
 * thread looks at its own flags each time it enters the library: an edge
 * when they were all clear as it last left it and some are set now.
 * Approximate: clearing the flags clears this summary (the A2's FX stays
 * set until software clears FX itself), and clearing and raising them
 * again between two calls counts once. The library's own work raises no
 * flags (the emulated tests check it), so the flags it sees are the
 * program's. */
#define FP_FLAGS (FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INEXACT)
static __thread int fx_set;         /* some were set as it last left */
static __thread uint64_t fx_edges;  /* (an edge before the thread's first
				     * read lies in every read's baseline) */

void clab_emu_pause(int on)
{
	if (on ? pauses++ == 0 : pauses > 0 && --pauses == 0) {
		int saved = errno; /* (the kernel answers ENOSYS: the program's errno stays) */
		syscall(CLAB_EMU_SYSCALL, (long)(on ? CLAB_EMU_PAUSE : CLAB_EMU_RESUME));
		if (on) {
			int set = fetestexcept(FP_FLAGS) != 0;
			fx_edges += !fx_set && set;
			fx_set = set;
		}
		errno = saved;
	}
}

void clab_emu_read(const volatile clab_emu_slot *s, clab_host_sample *out)
{
	clab_emu_pause(1);
	memset(out, 0, sizeof *out);
	for (int q = 0; q < CLAB_HQ_N; q++)
		out->q[q] = s->q[q];
	out->q[CLAB_HQ_FP_EXCEPT] = fx_edges; /* (s is the calling thread's slot) */
	out->have = (UINT64_C(1) << CLAB_HQ_N) - 1;
}

void clab_emu_timer(uint64_t cycles, int sig)
{
	syscall(CLAB_EMU_SYSCALL, (long)CLAB_EMU_TIMER, (long)cycles, (long)sig);
}
