/* Tiny assertion helpers for the PAPI-level tests (plain PAPI programs). */
#ifndef CLAB_PAPI_CHECK_H
#define CLAB_PAPI_CHECK_H
#include <errno.h>
#include <pthread.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <papi.h>

#define CHECK(cond, ...) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)
#define CHECK_PAPI(call) do { int rc_ = (call); \
	CHECK(rc_ == PAPI_OK, "%s: %s", #call, PAPI_strerror(rc_)); } while (0)

/* A new event set of names[0..n), and its end. */
static inline int make_set(const char *const *names, int n)
{
	int es = PAPI_NULL;
	CHECK_PAPI(PAPI_create_eventset(&es));
	for (int i = 0; i < n; i++) {
		int rc = PAPI_add_named_event(es, names[i]);
		CHECK(rc == PAPI_OK, "add %s: %s", names[i], PAPI_strerror(rc));
	}
	return es;
}

static inline void drop_set(int es)
{
	CHECK_PAPI(PAPI_cleanup_eventset(es));
	CHECK_PAPI(PAPI_destroy_eventset(&es));
}

/* What PAPI prints on stderr while f(arg) runs. */
static inline void capture_stderr(void (*f)(const void *), const void *arg, char *out, size_t len)
{
	char path[] = "/tmp/clab-papi-err-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, out, len - 1);
	out[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(path);
}

static char activity_path[] = "/tmp/clab-papi-act-XXXXXX.ini";
static void remove_activity(void) { unlink(activity_path); }

/* Writes an activity profile for this test and selects it, before PAPI
 * starts; the file goes when the test exits. */
static inline void use_activity(const char *text, const char *extra)
{
	const char *path = activity_path;
	int fd = mkstemps(activity_path, 4);
	CHECK(fd >= 0, "mkstemps");
	atexit(remove_activity);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	char spec[512];
	snprintf(spec, sizeof spec, "bgq:clock=virtual,activity=%s%s", path, extra);
	setenv("COUNTERLAB_MACHINE", spec, 1);
}
/* fn handles sig, system calls restarting after it. */
static inline void on_signal(int sig, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* PAPI for the threads of machine spec. */
static inline void papi_threads_on(const char *spec)
{
	setenv("COUNTERLAB_MACHINE", spec, 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	CHECK_PAPI(PAPI_thread_init(pthread_self));
}

/* 1 where component cname's note says the kernel refuses the domain its
 * profile asked for (perf_event_paranoid >= 2 without root): its sets are
 * then made to count the user domain, which an unprivileged thread may. */
static inline int user_domain_if_refused(const char *cname)
{
	int cidx = PAPI_get_component_index(cname);
	const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	if (!ci || !strstr(ci->description, "domain is refused"))
		return 0;
	CHECK_PAPI(PAPI_set_cmp_domain(PAPI_DOM_USER, cidx));
	return 1;
}

/* The names before the first NULL of names[0..max). */
static inline int count_names(const char *const *names, int max)
{
	int n = 0;
	while (n < max && names[n])
		n++;
	return n;
}

/* Runs one(k) for k in 0..n, each in a child process, for tests whose
 * failure may be a hang: a child that has not ended after limit_s seconds
 * is killed and counts as failed. The name of case k is the string at
 * name + k * stride (a field of an array of structs); with only, just the
 * cases whose name contains it run. Prints PASSED when none failed and
 * returns the exit status. */
static volatile pid_t child_pid_;
static volatile int child_hung_;

static void child_watchdog_(int sig)
{
	(void)sig;
	child_hung_ = 1;
	if (child_pid_ > 0)
		kill(child_pid_, SIGKILL);
}

/* A child that crashes says where: the faulting address and the stack
 * (addresses within each object, for addr2line), then dies of the same
 * signal. */
static void child_crash_(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	void *pc[64];
	char head[96];
	int len = snprintf(head, sizeof head, "signal %d at address %p; stack:\n", sig, si->si_addr);
	if (write(2, head, (size_t)len) < 0)
		_exit(128 + sig);
	backtrace_symbols_fd(pc, backtrace(pc, 64), 2);
	raise(sig); /* SA_RESETHAND: the default action now */
}

static inline int each_in_child(int n, const char *const *name, size_t stride,
				int (*one)(int k), int limit_s, const char *only)
{
	on_signal(SIGALRM, child_watchdog_);
	int bad = 0;
	for (int k = 0; k < n; k++) {
		const char *nm = *(const char *const *)((const char *)name + (size_t)k * stride);
		if (only && !strstr(nm, only))
			continue;
		fflush(stdout);
		child_hung_ = 0;
		pid_t pid = fork();
		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			struct sigaction sa = {.sa_sigaction = child_crash_,
					       .sa_flags = SA_SIGINFO | SA_RESETHAND};
			void *warm[1];
			backtrace(warm, 1); /* loads the unwinder now, not in the handler */
			sigaction(SIGSEGV, &sa, NULL);
			sigaction(SIGBUS, &sa, NULL);
			int rc = one(k);
			fflush(stdout);
			_exit(rc);
		}
		child_pid_ = pid;
		alarm((unsigned)limit_s);
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		alarm(0);
		child_pid_ = 0;
		if (child_hung_) {
			fprintf(stderr, "%s: FAILED: no end within %d s (a deadlock?)\n", nm, limit_s);
			bad++;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "%s: FAILED (%s %d)\n", nm,
				WIFEXITED(st) ? "exit status" : "signal",
				WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			bad++;
		}
	}
	if (bad)
		return 1;
	printf("PASSED\n");
	return 0;
}
#endif
