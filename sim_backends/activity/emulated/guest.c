/* counterlab-run's part inside the program: preloaded into the program it
 * runs (never into the emulator), for three things qemu-user (7.2) does not
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
 * do not load it and stay native.
 *
 * /proc/self/maps: qemu-user shows code as read-only ("r--p", merged with
 * the read-only data beside it), so what looks for the executable
 * mappings (PAPI_get_executable_info, the text range PAPI_profil is
 * given, an unwinder) finds none. Opened through this library, the maps
 * read as the kernel shows them: each loaded object's executable segments
 * (from its program headers) marked x, apart from their neighbours. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
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

/* ---- /proc/self/maps ---------------------------------------------------- */

typedef struct spans { /* the loaded objects' executable segments, pages */
	struct {
		uintptr_t lo, hi;
	} s[512];
	int n;
} spans;

static int note_exec(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	spans *x = arg;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < info->dlpi_phnum && x->n < (int)(sizeof x->s / sizeof *x->s); i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		x->s[x->n].lo = lo & ~(pg - 1);
		x->s[x->n++].hi = (lo + ph->p_memsz + pg - 1) & ~(pg - 1);
	}
	return 0;
}

static int is_own_maps(const char *path)
{
	char own[64];
	if (!path || strncmp(path, "/proc/", 6))
		return 0;
	snprintf(own, sizeof own, "/proc/%d/maps", (int)getpid());
	return !strcmp(path, "/proc/self/maps") || !strcmp(path, "/proc/thread-self/maps") ||
	       !strcmp(path, own);
}

/* A line of the maps, cut where an executable segment begins or ends,
 * each piece x where one holds it. */
static void put_line(FILE *out, const char *line, const spans *x)
{
	unsigned long lo, hi, off;
	char perm[5];
	int at = 0;
	if (sscanf(line, "%lx-%lx %4s %lx %n", &lo, &hi, perm, &off, &at) != 4 || !at ||
	    strlen(perm) != 4) {
		fputs(line, out);
		return;
	}
	const char *rest = line + at; /* device, inode, name */
	int file = strncmp(rest, "00:00 0 ", 8) != 0;
	for (unsigned long a = lo; a < hi;) {
		unsigned long b = hi;
		int exec = perm[2] == 'x';
		for (int i = 0; i < x->n; i++) {
			if (x->s[i].lo <= a && a < x->s[i].hi) {
				exec = 1;
				b = b < x->s[i].hi ? b : x->s[i].hi;
			} else if (a < x->s[i].lo && x->s[i].lo < b) {
				b = x->s[i].lo;
			}
		}
		fprintf(out, "%08lx-%08lx %c%c%c%c %08lx %s", a, b, perm[0], perm[1],
			exec ? 'x' : perm[2], perm[3], off + (file ? a - lo : 0), rest);
		a = b;
	}
}

/* The process's maps as the kernel would show them, in a file of their
 * own (O_CLOEXEC as flags say); -1 with errno as open's. */
static int maps_fd(const char *path, int flags)
{
	int in = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	ssize_t got = 0;
	while (buf && (got = read(in, buf + len, cap - len)) > 0) {
		if ((len += (size_t)got) < cap)
			continue;
		char *b = realloc(buf, 2 * cap + 1);
		if (!b)
			free(buf);
		buf = b;
		cap *= 2;
	}
	close(in);
	int fd = buf && got == 0 ? memfd_create("maps", flags & O_CLOEXEC ? MFD_CLOEXEC : 0) : -1;
	int wfd = fd >= 0 ? dup(fd) : -1;
	FILE *out = wfd >= 0 ? fdopen(wfd, "w") : NULL;
	if (!out) {
		int e = buf ? errno : ENOMEM;
		if (wfd >= 0)
			close(wfd);
		if (fd >= 0)
			close(fd);
		free(buf);
		errno = e;
		return -1;
	}
	buf[len] = 0;
	spans x = {.n = 0};
	dl_iterate_phdr(note_exec, &x);
	for (char *l = buf; *l;) {
		char *nl = strchr(l, '\n');
		char keep = nl ? nl[1] : 0;
		if (nl)
			nl[1] = 0;
		put_line(out, l, &x);
		if (!nl)
			break;
		nl[1] = keep;
		l = nl + 1;
	}
	fclose(out);
	free(buf);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*next)(const char *, const char *);
	if (is_own_maps(path) && mode && mode[0] == 'r' && !strchr(mode, '+')) {
		int fd = maps_fd(path, strchr(mode, 'e') ? O_CLOEXEC : 0);
		return fd < 0 ? NULL : fdopen(fd, "r");
	}
	if (!next)
		next = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	if (!next) {
		errno = ENOSYS;
		return NULL;
	}
	return next(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
}

/* open and openat (and their 64 names, one function in glibc) */
static int open_at(int dir, const char *path, int flags, va_list ap)
{
	static int (*next)(int, const char *, int, ...);
	mode_t mode = flags & O_CREAT || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
	if (is_own_maps(path) && (flags & O_ACCMODE) == O_RDONLY)
		return maps_fd(path, flags);
	if (!next)
		next = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	return next(dir, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int fd = open_at(AT_FDCWD, path, flags, ap);
	va_end(ap);
	return fd;
}

int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int fd = open_at(dir, path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int openat64(int dir, const char *path, int flags, ...) __attribute__((alias("openat")));
