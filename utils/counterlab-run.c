/* counterlab-run [--machine PROFILE] [--cache a2|cachegrind] [--summary FILE]
 *                [--argv0 NAME] [--] PROGRAM ARGS...
 *
 * Runs an unmodified, dynamically linked x86-64 program under QEMU's
 * user-mode emulator with counterlab's plugin, so that the program's own
 * instructions and memory accesses drive the simulated node (activity =
 * emulated; docs/emulated.md). The program uses
 * PAPI, libbgpm or nothing as it would natively, and the programs it
 * executes run the same way (guest.c). Exits with the program's status. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <counterlab/counterlab.h>

#define PLUGIN_REL "../lib/counterlab/emulate.so"
#define GUEST_REL "../lib/counterlab/guest.so" /* preloaded into the program */

static void usage(FILE *f)
{
	fprintf(f, "usage: counterlab-run [--machine PROFILE] [--cache a2|cachegrind] "
		   "[--summary FILE] [--argv0 NAME] [--] PROGRAM ARGS...\n"
		   "  runs PROGRAM (a dynamically linked x86-64 program) under qemu-x86_64 with\n"
		   "  counterlab's plugin: its own instructions drive the simulated node\n"
		   "  --machine PROFILE  machine profile (default: $COUNTERLAB_MACHINE, else bgq)\n"
		   "                     with a simulated BG/Q node (bgq, bgq-live);\n"
		   "                     activity = emulated is added to it\n"
		   "  --cache POLICY     a2 (default: the A2's write-through L1D) or cachegrind\n"
		   "                     (write-allocate LRU, to compare with valgrind's cachegrind)\n"
		   "  --summary FILE     write the process's totals there at exit (its directory\n"
		   "                     must exist and be writable)\n"
		   "  --argv0 NAME       the program's argv[0] (default: PROGRAM)\n"
		   "  -h, --help         this text\n"
		   "  (each option with a value also as --option=VALUE)\n");
}

/* QEMU copies the program's path, its environment and its arguments to the
 * top of the guest's stack, below them 8 bytes of platform name and 16
 * random ones (each step aligned to 16), then a table of one pointer per
 * string and its fixed auxiliary entries, aligned to 16 again. So the
 * stack pointer main starts from, and with it the cache sets of all that
 * the program keeps on its stack, moves with the size and the number of
 * the strings: with the user, the directory, the machine. Padding
 * variables make the strings take the same room (a multiple of 64 KB,
 * less the table's 8 bytes a string) and the strings an even number (the
 * table's alignment then does not depend on how many there are): the same
 * stack addresses whatever the environment. Fills the padding into pad
 * (one or two "-E" values) and returns how many. */
enum { STACK_ROOM = 65536 };
static int stack_pad(const char *prog, const char *arg0, char *const *args, int nargs,
		     const char *preload, char *pad[2])
{
	extern char **environ;
	static const char name1[] = "COUNTERLAB_STACK_PAD=", name2[] = "COUNTERLAB_STACK_PAD2=";
	/* the path, as the file's name, and argv[0] */
	size_t room = strlen(prog) + 1 + strlen(arg0) + 1, n = 1 + (size_t)nargs,
	       eq = strcspn(preload, "=") + 1;
	int preloaded = 0;
	for (int j = 0; j < nargs; j++)
		room += strlen(args[j]) + 1;
	for (char **e = environ; *e; e++, n++) {
		int is_preload = strncmp(*e, preload, eq) == 0;
		preloaded |= is_preload;
		room += strlen(is_preload ? preload : *e) + 1;
	}
	if (!preloaded)
		room += strlen(preload) + 1, n++;
	int npad = (n + 1) % 2 ? 2 : 1;
	n += (size_t)npad;
	room += sizeof name1 + (npad > 1 ? sizeof name2 : 0); /* the names and their ends */
	size_t target = (room + 8 * n + 64 + STACK_ROOM - 1) / STACK_ROOM * STACK_ROOM;
	size_t fill = target - 8 * n - room;
	pad[0] = malloc(sizeof name1 + fill);
	pad[1] = (char *)name2;
	if (!pad[0])
		return -1;
	memcpy(pad[0], name1, sizeof name1 - 1);
	memset(pad[0] + sizeof name1 - 1, '-', fill);
	pad[0][sizeof name1 - 1 + fill] = 0;
	return npad;
}

static int die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "counterlab-run: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return 127;
}

/* bad usage: a bad option value, a machine or summary it cannot use */
static int refuse(const char *fmt, const char *a, const char *b)
{
	die(fmt, a, b);
	return 2;
}

/* path of an executable named `name` on PATH (or name itself with a '/') */
static int find_exec(const char *name, char *out, size_t len)
{
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(out, len, "%.*s/%s", (int)n, path, name);
		if (access(out, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

/* NULL when the program is one the emulator can count, else why not */
static const char *check_program(const char *path, char *why, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return why;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s is a directory, not a program", path);
		return why;
	}
	if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
		snprintf(why, len, "%s is not an executable file (chmod +x it, or name the program)", path);
		return why;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	ssize_t got = fd < 0 ? -1 : read(fd, &eh, sizeof eh);
	if (got < (ssize_t)EI_NIDENT || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		if (fd >= 0)
			close(fd);
		snprintf(why, len, "%s is not an ELF program (a script? name its interpreter: "
			 "counterlab-run -- /bin/sh %s)", path, path);
		return why;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || got < (ssize_t)sizeof eh ||
	    eh.e_machine != EM_X86_64) {
		close(fd);
		snprintf(why, len, "%s is not an x86-64 program (machine %d, class %d): the emulator "
			 "here runs x86-64 programs; build it for x86-64", path,
			 got >= (ssize_t)sizeof eh ? eh.e_machine : -1, eh.e_ident[EI_CLASS]);
		return why;
	}
	int dynamic = 0;
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
		    (ssize_t)sizeof ph)
			break;
		if (ph.p_type == PT_INTERP)
			dynamic = 1;
	}
	close(fd);
	if (!dynamic) {
		snprintf(why, len, "%s is statically linked: counts reach a program through the "
			 "libcounterlab it loads; link it dynamically (without -static)", path);
		return why;
	}
	return NULL;
}

/* The profile with ours (what emulation needs: activity=emulated,
 * clock=virtual, tick=0) in place of any value of those keys it has, so
 * that a counterlab-run run by the program it runs adds them once. -1: too
 * long */
static int emulated_spec(const char *machine, const char *keys, char *out, size_t len)
{
	static const char *const ours[] = {"activity=", "clock=", "tick="};
	const char *colon = strchr(machine, ':');
	size_t n = colon ? (size_t)(colon - machine) : strlen(machine), w;
	if (n + 1 >= len)
		return -1;
	memcpy(out, machine, n);
	w = n;
	out[w++] = ':';
	for (const char *p = colon ? colon + 1 : ""; *p;) {
		size_t k = strcspn(p, ",");
		int drop = 0;
		for (size_t j = 0; j < sizeof ours / sizeof *ours; j++)
			drop |= !strncmp(p, ours[j], strlen(ours[j]));
		if (!drop && k) {
			if (w + k + 1 >= len)
				return -1;
			memcpy(out + w, p, k);
			w += k;
			out[w++] = ',';
		}
		p += k + (p[k] != 0);
	}
	int m = snprintf(out + w, len - w, "%s", keys);
	return m < 0 || (size_t)m >= len - w ? -1 : 0;
}

/* The emulator drives the simulated BG/Q node (its bgq-* backends); on a
 * machine without one, activity = emulated would disable every component
 * only once the program starts PAPI, with a reason about keys added here. */
static int has_bgq_node(clab_machine *m)
{
	for (int i = 0; i < clab_machine_ncomponents(m); i++) {
		clab_component_info ci;
		clab_component_get_info(clab_machine_component_at(m, i), &ci);
		if (ci.backend && !strncmp(ci.backend, "bgq-", 4))
			return 1;
	}
	return 0;
}

enum { NAMES_LEN = 512 }; /* the profile names add_if_bgq lists */

static void add_if_bgq(const char *name, const char *descr, void *arg)
{
	char *list = arg;
	clab_machine *m;
	(void)descr;
	if (clab_machine_open(name, &m))
		return;
	if (has_bgq_node(m) && strlen(list) + strlen(name) + 3 < NAMES_LEN)
		sprintf(list + strlen(list), "%s%s", *list ? ", " : "", name);
	clab_machine_close(m);
}

/* NULL when emulation can drive the machine, else why not */
static const char *check_machine(const char *machine, char *why, size_t len)
{
	char spec[PATH_MAX], can[NAMES_LEN] = "";
	clab_machine *m;
	/* the profile as the user gave it, without the keys this adds */
	if (emulated_spec(machine, "activity=none", spec, sizeof spec)) {
		snprintf(why, len, "--machine %s: too long", machine);
		return why;
	}
	if (clab_machine_open(spec, &m)) {
		snprintf(why, len, "machine %s: %s", machine, clab_errmsg());
		return why;
	}
	int ok = has_bgq_node(m);
	clab_machine_close(m);
	if (ok)
		return NULL;
	clab_machine_profiles(0, add_if_bgq, can);
	snprintf(why, len, "machine %s has no simulated BG/Q node (no bgq-* backend) for the "
		 "program's instructions to drive; machines that have one: %s", machine,
		 *can ? can : "none in the profile directory");
	return why;
}

/* NULL when the summary can be written (as far as can be told before the
 * run), else why not */
static const char *check_summary(const char *path, char *why, size_t len)
{
	struct stat st;
	if (!*path) {
		snprintf(why, len, "--summary needs a file name");
		return why;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			snprintf(why, len, "cannot write summary %s: it is a directory", path);
		else if (access(path, W_OK) != 0)
			snprintf(why, len, "cannot write summary %s: %s", path, strerror(errno));
		else
			return NULL;
		return why;
	}
	if (errno != ENOENT) {
		snprintf(why, len, "cannot write summary %s: %s", path, strerror(errno));
		return why;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	if (access(dirname(dir), W_OK | X_OK) != 0) {
		int e = errno;
		snprintf(dir, sizeof dir, "%s", path);
		snprintf(why, len, "cannot write summary %s: %s: %s", path, dirname(dir), strerror(e));
		return why;
	}
	return NULL;
}

static volatile pid_t child;

/* a termination request goes to the program; the slot file is removed
 * once it has ended */
static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	const char *machine = getenv("COUNTERLAB_MACHINE"), *cache = "a2", *summary = NULL,
		   *argv0 = NULL;
	enum { MACHINE, CACHE, SUMMARY, ARGV0, NVALUED };
	static const char *const valued[NVALUED] = {"--machine", "--cache", "--summary", "--argv0"};
	int i;
	for (i = 1; i < argc; i++) {
		/* --name VALUE or --name=VALUE */
		int opt = NVALUED;
		const char *val = NULL;
		for (int v = 0; v < NVALUED && opt == NVALUED; v++) {
			size_t l = strlen(valued[v]);
			if (strncmp(argv[i], valued[v], l) || (argv[i][l] && argv[i][l] != '='))
				continue;
			opt = v;
			if (argv[i][l])
				val = argv[i] + l + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return refuse("%s needs a value (see --help)", argv[i], NULL);
		}
		if (opt == MACHINE) {
			machine = val;
			if (!*machine)
				return refuse("--machine needs a profile name (see --help)", NULL, NULL);
		} else if (opt == CACHE) {
			cache = val;
			if (strcmp(cache, "a2") && strcmp(cache, "cachegrind"))
				return refuse("--cache %s: the policies are a2 and cachegrind", cache, NULL);
		} else if (opt == SUMMARY) {
			summary = val;
		} else if (opt == ARGV0) {
			argv0 = val;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "counterlab-run: unknown option %s\n", argv[i]);
			usage(stderr);
			return 2;
		} else {
			break;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	if (!machine || !*machine)
		machine = "bgq";

	char prog[PATH_MAX], qemu[PATH_MAX], why[3 * PATH_MAX];
	if (check_machine(machine, why, sizeof why))
		return refuse("%s", why, NULL);
	if (summary && check_summary(summary, why, sizeof why))
		return refuse("%s", why, NULL);
	if (!*argv[i])
		return refuse("the program name is empty%s%s", "", "");
	if (find_exec(argv[i], prog, sizeof prog))
		return die("%s: no such program on PATH", argv[i], NULL);
	if (check_program(prog, why, sizeof why))
		return die("%s", why, NULL);
	if (find_exec("qemu-x86_64", qemu, sizeof qemu))
		return die("qemu-x86_64 is missing: install Debian's qemu-user "
			   "('make deps' as root, or apt-get install qemu-user)%s%s", "", "");

	char self[PATH_MAX], plugin[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return die("cannot read /proc/self/exe: %s%s", strerror(errno), "");
	self[n] = 0;
	const char *bin = dirname(self);
	snprintf(plugin, sizeof plugin, "%s/%s", bin, PLUGIN_REL);
	if (access(plugin, R_OK) != 0)
		return die("counterlab's plugin %s is missing (%s): rebuild with make", plugin,
			   strerror(errno));
	/* the program's preloads, after ours; the emulator gets none */
	char guest[PATH_MAX + 64], preload[4 * PATH_MAX];
	snprintf(guest, sizeof guest, "%s/%s", bin, GUEST_REL);
	if (access(guest, R_OK) != 0)
		return die("counterlab's %s is missing (%s): rebuild with make", guest,
			   strerror(errno));
	const char *theirs = getenv("LD_PRELOAD");
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s%s%s", guest, theirs && *theirs ? ":" : "",
		 theirs && *theirs ? theirs : "");
	unsetenv("LD_PRELOAD");

	/* the slot file: on tmpfs when there is one */
	char slots[PATH_MAX];
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	snprintf(slots, sizeof slots, "%s/counterlab-emu-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(slots);
	if (fd < 0)
		return die("cannot create %s: %s", slots, strerror(errno));
	close(fd);

	char spec[PATH_MAX], parg[3 * PATH_MAX];
	if (emulated_spec(machine, "activity=emulated,clock=virtual,tick=0", spec, sizeof spec))
		return die("--machine %s: too long%s", machine, "");
	snprintf(parg, sizeof parg, "%s,slots=%s,cache=%s%s%s", plugin, slots, cache,
		 summary ? ",summary=" : "", summary ? summary : "");
	setenv("COUNTERLAB_MACHINE", spec, 1);
	setenv("COUNTERLAB_EMULATED", slots, 1);

	pid_t pid = fork();
	if (pid < 0) {
		unlink(slots);
		return die("fork: %s%s", strerror(errno), "");
	}
	if (pid == 0) {
		/* the same addresses every run: cache sets, and so counts, repeat */
		personality(ADDR_NO_RANDOMIZE);
		int nargs = argc - i;
		char **av = calloc((size_t)nargs + 16, sizeof *av), *pad[2];
		unsetenv("COUNTERLAB_STACK_PAD"); /* a counterlab-run's own, run under another */
		unsetenv("COUNTERLAB_STACK_PAD2");
		setenv("COUNTERLAB_RUN_STARTED", "1", 1); /* the program sets it to 0 (guest.c) */
		int npad = stack_pad(prog, argv0 ? argv0 : prog, argv + i + 1, nargs - 1, preload, pad);
		if (!av || npad < 0)
			_exit(127);
		int k = 0;
		av[k++] = qemu;
		av[k++] = "-cpu";
		av[k++] = "max";
		av[k++] = "-plugin";
		av[k++] = parg;
		av[k++] = "-E";
		av[k++] = preload;
		if (argv0) {
			av[k++] = "-0";
			av[k++] = (char *)argv0;
		}
		for (int j = 0; j < npad; j++) {
			av[k++] = "-E";
			av[k++] = pad[j];
		}
		av[k++] = prog;
		for (int j = i + 1; j < argc; j++)
			av[k++] = argv[j];
		execv(qemu, av);
		fprintf(stderr, "counterlab-run: cannot run %s: %s\n", qemu, strerror(errno));
		_exit(127);
	}
	child = pid;
	signal(SIGINT, SIG_IGN); /* the program decides; we clean up after it */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	unlink(slots);
	if (WIFSIGNALED(st)) {
		signal(WTERMSIG(st), SIG_DFL);
		raise(WTERMSIG(st));
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}
