/* counterlab-run's part inside the program: preloaded into the program it
 * runs (never into the emulator), for two things qemu-user (7.2) does not
 * do as the machine would.
 *
 * Signal handlers: qemu-user enters x86-64 handlers with the stack 8
 * bytes off the ABI's 16, and a handler that stores vector registers on
 * it (printf of a double, PAPI_read, the unwinder) faults. Every handler
 * the program installs is entered through one that realigns the stack
 * first; what the program asks back of sigaction is its own handler.
 *
 * Programs the program executes: qemu-user hands exec to the host, so the
 * new program would run natively and uncounted (a shell's commands, env,
 * time, taskset). counterlab-run gives the program it starts
 * COUNTERLAB_RUN_STARTED=1, which is turned to 0 here; a program that
 * starts with this library preloaded and without that was
 * executed by an emulated one, and runs itself again under counterlab-run
 * with the same arguments and environment. Statically linked and setuid
 * programs, and those executed with an environment of their own (env -i),
 * do not load it and stay native. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../emulated.h"

typedef void (*action_fn)(int, siginfo_t *, void *);

static action_fn program_handler[_NSIG];

/* x86-64 signal frames always pass (sig, info, context), whether or not
 * the program asked for SA_SIGINFO: passing all three serves both kinds */
__attribute__((force_align_arg_pointer)) static void aligned_entry(int sig, siginfo_t *si, void *uc)
{
	action_fn h = __atomic_load_n(&program_handler[sig], __ATOMIC_ACQUIRE);
	if (h)
		h(sig, si, uc);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*next)(int, const struct sigaction *, struct sigaction *);
	if (!next)
		next = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	if (sig <= 0 || sig >= _NSIG)
		return next(sig, act, old);
	action_fn before = __atomic_load_n(&program_handler[sig], __ATOMIC_ACQUIRE);
	struct sigaction via;
	if (act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
		via = *act;
		via.sa_sigaction = aligned_entry;
		__atomic_store_n(&program_handler[sig], act->sa_sigaction, __ATOMIC_RELEASE);
		act = &via;
	}
	int rc = next(sig, act, old);
	if (rc == 0 && old && old->sa_sigaction == aligned_entry)
		old->sa_sigaction = before;
	return rc;
}

/* glibc's signal() reaches sigaction inside the library, past the
 * preload: the same BSD semantics, through the one above */
sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act = {.sa_handler = handler, .sa_flags = SA_RESTART}, old;
	sigemptyset(&act.sa_mask);
	if (sig > 0 && sig < _NSIG)
		sigaddset(&act.sa_mask, sig);
	return sigaction(sig, &act, &old) < 0 ? SIG_ERR : old.sa_handler;
}

/* The program's environment for counterlab-run: this library left out of
 * LD_PRELOAD (counterlab-run gives it to the program, not to itself or the
 * emulator), the rest as it is. NULL when out of memory. */
static char **without_self(char **env, const char *self)
{
	size_t n = 0, len = strlen(self);
	while (env[n])
		n++;
	char **out = malloc((n + 1) * sizeof *out);
	if (!out)
		return NULL;
	for (size_t i = 0; i <= n; i++) {
		out[i] = env[i];
		if (!env[i] || strncmp(env[i], "LD_PRELOAD=", 11))
			continue;
		char *kept = malloc(strlen(env[i]) + 1), *w = kept;
		if (!kept)
			return NULL;
		w += sprintf(w, "LD_PRELOAD=");
		for (const char *p = env[i] + 11; *p;) {
			size_t k = strcspn(p, ": ");
			if (k && !(k == len && !strncmp(p, self, len)))
				w += sprintf(w, "%s%.*s", w[-1] == '=' ? "" : ":", (int)k, p);
			p += k + (p[k] != 0);
		}
		out[i] = kept;
	}
	return out;
}

/* glibc passes an ELF constructor the program's arguments */
__attribute__((constructor)) static void follow_exec(int argc, char **argv)
{
	extern char **environ;
	/* turned to 0 in place (not taken out, which would move the
	 * environment's pointers: the program's own memory, whose cache
	 * lines the counts see) for what it executes */
	char *started = getenv("COUNTERLAB_RUN_STARTED");
	if (started && started[0] == '1') {
		started[0] = '0';
		return;
	}
	/* how the emulator that executed this program ran, from its slot
	 * file's header (not the environment: what the program's stack holds
	 * stays the same whatever the summary's name, and so do its counts) */
	const char *slots = getenv(CLAB_EMU_ENV);
	clab_emu_file h;
	int fd = slots ? open(slots, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t got = fd < 0 ? -1 : pread(fd, &h, offsetof(clab_emu_file, slot), 0);
	if (fd >= 0)
		close(fd);
	Dl_info self;
	char exe[PATH_MAX], run[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (got != (ssize_t)offsetof(clab_emu_file, slot) || h.magic != CLAB_EMU_MAGIC || argc < 1 ||
	    n <= 0 || !dladdr((void *)follow_exec, &self) || !self.dli_fname)
		return; /* preloaded by hand, outside counterlab-run */
	exe[n] = 0;
	h.summary[sizeof h.summary - 1] = 0;
	/* PREFIX/lib/counterlab/guest.so: PREFIX/bin/counterlab-run */
	const char *slash = strrchr(self.dli_fname, '/');
	snprintf(run, sizeof run, "%.*s/../../bin/counterlab-run",
		 slash ? (int)(slash - self.dli_fname) : 1, slash ? self.dli_fname : ".");
	char **av = malloc(((size_t)argc + 10) * sizeof *av), **env = without_self(environ, self.dli_fname);
	if (!av || !env)
		return;
	int k = 0;
	av[k++] = run;
	av[k++] = "--cache";
	av[k++] = h.cachegrind ? "cachegrind" : "a2";
	/* the summary is the process's: an exec that keeps the process
	 * (env, exec in a shell) reports there, a forked child does not */
	if (h.summary[0] && h.pid == (int64_t)getpid()) {
		av[k++] = "--summary";
		av[k++] = h.summary;
	}
	av[k++] = "--argv0";
	av[k++] = argv[0];
	av[k++] = "--";
	av[k++] = exe;
	for (int i = 1; i < argc; i++)
		av[k++] = argv[i];
	av[k] = NULL;
	execve(run, av, env);
	fprintf(stderr, "counterlab-run: %s runs natively, uncounted: cannot run %s: %s\n", exe, run,
		strerror(errno));
}
