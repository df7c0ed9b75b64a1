/* PAPI's high-level API with several core events: every event of
 * PAPI_EVENTS must reach the report (PAPI_hl makes one event set per
 * component and thread; all core events share it). The report is written
 * when the measuring process exits, so a child measures. */
#include <dirent.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <counterlab/sim.h>
#include "check.h"

static char *slurp_report(const char *dir)
{
	char sub[600];
	snprintf(sub, sizeof sub, "%s/papi_hl_output", dir);
	DIR *d = opendir(sub);
	CHECK(d, "no report directory %s", sub);
	struct dirent *e;
	static char buf[1 << 16];
	size_t len = 0;
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".json"))
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
		FILE *f = fopen(path, "r");
		CHECK(f, "open %s", path);
		len += fread(buf + len, 1, sizeof buf - 1 - len, f);
		fclose(f);
	}
	closedir(d);
	buf[len] = 0;
	CHECK(len, "empty report in %s", sub);
	return buf;
}

/* The value after "NAME": in the report, or -1. */
static long long value_of(const char *report, const char *name)
{
	char key[128];
	snprintf(key, sizeof key, "\"%s\":", name);
	const char *threads = strstr(report, "\"threads\"");
	const char *p = threads ? strstr(threads, key) : NULL;
	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == '"')
		p++;
	return atoll(p);
}

int main(void)
{
	char dir[] = "/tmp/clab-hl-XXXXXX";
	CHECK(mkdtemp(dir), "mkdtemp");
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=100000,activity=compute", 1);
	setenv("PAPI_EVENTS", "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_BR_CN", 1);
	setenv("PAPI_OUTPUT_DIRECTORY", dir, 1);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		CHECK_PAPI(PAPI_hl_region_begin("work"));
		clab_sim_advance(1000000);
		CHECK_PAPI(PAPI_hl_region_end("work"));
		exit(0);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "measuring child failed");
	const char *report = slurp_report(dir);
	const char *ev[] = {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_BR_CN"};
	for (int i = 0; i < 3; i++) {
		long long v = value_of(report, ev[i]);
		CHECK(v > 0, "%s missing or zero in the report:\n%s", ev[i], report);
	}
	CHECK(value_of(report, "PAPI_TOT_CYC") >= 1000000, "cycles %lld",
	      value_of(report, "PAPI_TOT_CYC"));
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "cleanup");
	printf("PASSED\n");
	return 0;
}
