/* Every kind of bad COUNTERLAB_MACHINE, each through PAPI_library_init in a
 * child of its own under a watchdog: nothing hangs or crashes, stderr names
 * the bad input once, and every counterlab component is disabled with a
 * reason that names it too. Good machines still start, silently. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static const char *const comps[] = {"core", "l2", "io", "network", "kernel"};
#define NCOMPS 5
#define WATCHDOG_S 20

/* Child: PAPI starts on spec (NULL: unset); exit status 0 when every
 * component is disabled (bad = 1) naming needle, or (bad = 0) component
 * needle is enabled and takes an event set. */
static void child(const char *spec, int bad, const char *needle)
{
	alarm(WATCHDOG_S); /* a hang dies of SIGALRM */
	if (spec)
		setenv("COUNTERLAB_MACHINE", spec, 1);
	else
		unsetenv("COUNTERLAB_MACHINE");
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	for (int i = 0; i < NCOMPS; i++) {
		int cid = PAPI_get_component_index(comps[i]);
		CHECK(cid >= 0, "no component %s", comps[i]);
		const PAPI_component_info_t *ci = PAPI_get_component_info(cid);
		if (!bad)
			continue;
		CHECK(ci->disabled, "%s: component %s is enabled", spec, comps[i]);
		CHECK(strncmp(ci->disabled_reason, "counterlab: ", 12) == 0 &&
		      strstr(ci->disabled_reason, needle),
		      "%s: %s's reason '%s' lacks '%s'", spec, comps[i], ci->disabled_reason, needle);
	}
	if (!bad) {
		int cid = PAPI_get_component_index(needle);
		const PAPI_component_info_t *ci = PAPI_get_component_info(cid);
		CHECK(!ci->disabled, "%s: %s disabled: %s", spec, needle, ci->disabled_reason);
		int es = PAPI_NULL;
		CHECK_PAPI(PAPI_create_eventset(&es));
		CHECK_PAPI(PAPI_assign_eventset_component(es, cid));
	}
	exit(0);
}

/* Runs one case; its stderr comes back through a pipe. */
static int run(const char *what, const char *spec, int bad, const char *needle,
	       const char *err_needle)
{
	int fd[2];
	CHECK(pipe(fd) == 0, "pipe");
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		close(fd[1]);
		child(spec, bad, needle);
	}
	close(fd[1]);
	size_t len = 0, cap = 1 << 16;
	char *err = malloc(cap + 1);
	ssize_t got;
	while ((got = read(fd[0], err + len, cap - len)) > 0 || (got < 0 && errno == EINTR))
		if (got > 0 && (len += (size_t)got) == cap)
			CHECK((err = realloc(err, (cap *= 2) + 1)) != NULL, "realloc");
	close(fd[0]);
	err[len] = 0;
	int status;
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	int fails = 0;
	if (WIFSIGNALED(status)) {
		printf("FAIL %s: %s\n", what,
		       WTERMSIG(status) == SIGALRM ? "hung (watchdog)" : strsignal(WTERMSIG(status)));
		fails++;
	} else if (WEXITSTATUS(status)) {
		printf("FAIL %s: exit %d\n", what, WEXITSTATUS(status));
		fails++;
	}
	/* the one line a bad machine gets on stderr, naming the input */
	int lines = 0;
	for (const char *p = err; (p = strstr(p, "counterlab: COUNTERLAB_MACHINE=")); p++)
		lines++;
	for (const char *p = err; (p = strstr(p, "counterlab: the default machine")); p++)
		lines++;
	if (bad && (lines != 1 || !memmem(err, len, err_needle, strlen(err_needle)))) {
		printf("FAIL %s: stderr has %d report lines, want 1 naming '%s'\n", what, lines, err_needle);
		fails++;
	}
	if (!bad && lines) {
		printf("FAIL %s: a good machine reported on stderr\n", what);
		fails++;
	}
	if (fails)
		printf("---- its stderr:\n%.4000s\n----\n", err);
	else
		printf("ok %s\n", what);
	free(err);
	return fails;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(data, 1, n, f) == n && fclose(f) == 0, "write %s", path);
}

int main(void)
{
	char dir[] = "/tmp/clab-badmachine-XXXXXX";
	CHECK(mkdtemp(dir), "mkdtemp");
	char fifo[64], cut[64], binary[64], text[64], empty[64], spaced[64];
	snprintf(fifo, sizeof fifo, "%s/fifo.ini", dir);
	CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
	/* the shipped bgq profile cut inside a key, two letters into the
	 * first "key = value" line past its first 600 bytes */
	char prof[4096], buf[65536];
	const char *machines = getenv("COUNTERLAB_MACHINES");
	snprintf(prof, sizeof prof, "%s/bgq.ini", machines ? machines : "machines");
	FILE *f = fopen(prof, "rb");
	size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	CHECK(len > 600, "read %s", prof);
	fclose(f);
	buf[len] = 0;
	char *line = buf + 600;
	for (;;) {
		line = strchr(line, '\n');
		CHECK(line, "no key = value line past byte 600 of %s", prof);
		line++;
		if (*line >= 'a' && *line <= 'z' && strchr(line, '=') &&
		    strchr(line, '=') < strchr(line, '\n'))
			break;
	}
	snprintf(cut, sizeof cut, "%s/cut.ini", dir);
	write_bytes(cut, buf, (size_t)(line - buf) + 2);
	/* seeded garbage: any bytes (NULs among them), and printable lines */
	unsigned char junk[3000];
	uint64_t s = 12345;
	for (size_t i = 0; i < sizeof junk; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		junk[i] = (unsigned char)(s >> 56);
	}
	snprintf(binary, sizeof binary, "%s/binary.ini", dir);
	write_bytes(binary, junk, sizeof junk);
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = i % 61 == 60 ? '\n' : (unsigned char)(' ' + junk[i] % 95);
	snprintf(text, sizeof text, "%s/text.ini", dir);
	write_bytes(text, junk, sizeof junk);
	snprintf(empty, sizeof empty, "%s/empty.ini", dir);
	write_bytes(empty, "", 0);
	snprintf(spaced, sizeof spaced, "%s/a b,c.ini", dir); /* an odd but good name */
	write_bytes(spaced, "[machine]\ntopology = core:1 pu:1\n", 33);
	/* huge strings: a key, a name, a value */
	size_t huge = 100000;
	char *hkey = malloc(huge + 16), *hname = malloc(huge + 1), *hval = malloc(huge + 32);
	strcpy(hkey, "bgq:");
	memset(hkey + 4, 'k', huge);
	strcpy(hkey + 4 + huge, "=1");
	memset(hname, 'n', huge);
	hname[huge] = 0;
	strcpy(hval, "bgq:clock=virtual,tick=");
	memset(hval + 23, '9', huge);
	hval[23 + huge] = 0;
	char dirmsg[128], fifomsg[128], cutmsg[128], binmsg[128], textmsg[128], emptymsg[128];
	snprintf(dirmsg, sizeof dirmsg, "%s is a directory, not a file", dir);
	snprintf(fifomsg, sizeof fifomsg, "%s is a FIFO, not a file", fifo);
	snprintf(cutmsg, sizeof cutmsg, "machine profile %s", cut);
	snprintf(binmsg, sizeof binmsg, "machine profile %s:1: a NUL byte", binary);
	snprintf(textmsg, sizeof textmsg, "machine profile %s", text);
	snprintf(emptymsg, sizeof emptymsg, "%s: no [machine] section", empty);
	const struct {
		const char *what, *spec, *needle, *err_needle; /* err_needle NULL: needle */
	} bad[] = {
		{"/dev/zero", "/dev/zero", "machine profile /dev/zero is a character device, not a file", NULL},
		{"a directory", dir, dirmsg, NULL},
		{"a FIFO", fifo, fifomsg, NULL},
		{"empty", "", "COUNTERLAB_MACHINE is empty", NULL},
		{"unknown profile", "bgqq", "no machine profile 'bgqq'", "the profiles in "},
		{"unknown path", "/nonexistent/bgq.ini", "machine profile /nonexistent/bgq.ini not found", NULL},
		{"unknown key", "bgq:tik=5", "unknown machine override 'tik' (known: topology, clock, tick", NULL},
		{"unknown unit key", "bgq:kernel.fit=5", "has no key 'fit'", NULL},
		{"bad number", "bgq:seed=x", "seed=x is not an integer in 0..18446744073709551615", NULL},
		{"negative", "bgq:seed=-7", "seed=-7 is not an integer", NULL},
		{"blank and sign", "bgq:seed= -7", "seed= -7 is not an integer", NULL},
		{"overflow", "bgq:seed=99999999999999999999", "seed=99999999999999999999 is not an integer", NULL},
		{"bad unit number", "bgq:io.port_latency=0x", "io.port_latency=0x is not an integer in 1..1048576", NULL},
		{"real counters, virtual clock", "host:clock=virtual,tick=1000", "machine host: clock=virtual: nothing on this machine is simulated", NULL},
		{"activity without a node", "bgl:activity=compute", "activity=compute: no simulated BG/Q node", NULL},
		{"torus without a network", "linux-proc:torus=4x4", "torus=4x4: the machine simulates no torus network", NULL},
		{"huge key", hkey, "unknown machine override 'kkkkkkkkkkkkkkkkkkkk", "COUNTERLAB_MACHINE='bgq:kkkkkkkkkkkk"},
		{"huge name", hname, "machine profile name 'nnnnnnnnnnnnnnnnnnnn", NULL},
		{"huge number", hval, "tick=99999999999999999999", NULL},
		{"stray comma", "bgq:,", "an empty item between commas", NULL},
		{"double comma", "bgq:clock=virtual,,tick=5", "an empty item between commas", NULL},
		{"trailing colon", "bgq:", "nothing after ':'", NULL},
		{"leading colon", ":bgq", "no machine name before ':'", NULL},
		{"double colon", "bgq::", "machine override ':' is not key=value", NULL},
		{"bare equals", "bgq:=", "machine override '=' is not key=value", NULL},
		{"double equals", "bgq:clock=virtual,tick==5", "tick==5 is not an integer", NULL},
		{"equals in name", "bgq=1", "machine name 'bgq=1' has a bad character '='", NULL},
		{"non-UTF-8 key", "bgq:\xff\xfe=1", "unknown machine override '\xff\xfe'", NULL},
		{"non-UTF-8 name", "bg\xc3\x28q", "has a bad byte 0xc3", NULL},
		{"control byte", "bgq:\x01=1", "unknown machine override '\x01'", "COUNTERLAB_MACHINE='bgq:\\x01=1'"},
		{"truncated profile", cut, cutmsg, NULL},
		{"binary garbage", binary, binmsg, NULL},
		{"text garbage", text, textmsg, NULL},
		{"empty profile", empty, emptymsg, NULL},
		{"no component in a profile", spaced, "no component sections", spaced},
	};
	int fails = 0;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		fails += run(bad[i].what, bad[i].spec, 1, bad[i].needle,
			     bad[i].err_needle ? bad[i].err_needle : bad[i].needle);
	/* good machines, each with a component that must count; and unset */
	static const struct { const char *spec, *comp; } good[] = {
		{"bgq:clock=virtual,tick=1000", "core"}, {"bgq", "kernel"}, {"host", "core"},
		{"linux-proc", "io"}, {"gemini", "network"}, {"bgl:seed=7", "network"},
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		fails += run(good[i].spec, good[i].spec, 0, good[i].comp, NULL);
	fails += run("unset (bgq)", NULL, 0, "core", NULL);
	unlink(fifo);
	unlink(cut);
	unlink(binary);
	unlink(text);
	unlink(empty);
	unlink(spaced);
	rmdir(dir);
	free(hkey);
	free(hname);
	free(hval);
	if (fails) {
		printf("papi_badmachine: %d FAILED\n", fails);
		return 1;
	}
	printf("papi_badmachine: PASSED\n");
	return 0;
}
