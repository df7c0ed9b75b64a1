/* Preloaded by counterlab-run into the program it runs (never into the
 * emulator): qemu-user (7.2) enters x86-64 signal handlers with the stack
 * 8 bytes off the ABI's 16, and a handler that stores vector registers on
 * it (printf of a double, PAPI_read, the unwinder) faults. Every handler
 * the program installs is entered through one that realigns the stack
 * first; what the program asks back of sigaction is its own handler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>

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
