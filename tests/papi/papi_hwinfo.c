/* PAPI's hardware description is the simulated machine's when one of its
 * components is PAPI component 0: PAPI_get_hardware_info (vendor, model,
 * clock, cores, threads, sockets, NUMA nodes, the cache hierarchy) must say
 * what the machine profile says. The expected values are read here from the
 * profile file itself ($COUNTERLAB_MACHINES/bgq.ini), with a reader of its
 * own. A profile without a [hardware] section leaves the host's
 * description alone. PAPI's device queries (PAPI_enum_dev_type ...,
 * papi_hardware_avail) describe the same node, and the host without one. */
#include <ctype.h>
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define MAXKEYS 64
static struct { char sec[32], key[32], val[128]; } ini[MAXKEYS];
static int nini;

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static void read_profile(const char *path)
{
	FILE *f = fopen(path, "r");
	CHECK(f, "cannot open %s", path);
	char line[512], sec[32] = "";
	while (fgets(line, sizeof line, f)) {
		char *c = strchr(line, ';');
		if (c)
			*c = 0;
		char *s = trim(line);
		if (*s == '[') {
			snprintf(sec, sizeof sec, "%.*s", (int)strcspn(s + 1, "]"), s + 1);
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq || nini == MAXKEYS)
			continue;
		*eq = 0;
		snprintf(ini[nini].sec, sizeof ini[nini].sec, "%s", sec);
		snprintf(ini[nini].key, sizeof ini[nini].key, "%s", trim(s));
		snprintf(ini[nini].val, sizeof ini[nini].val, "%s", trim(eq + 1));
		nini++;
	}
	fclose(f);
}

static const char *get(const char *sec, const char *key)
{
	for (int i = 0; i < nini; i++)
		if (!strcmp(ini[i].sec, sec) && !strcasecmp(ini[i].key, key))
			return ini[i].val;
	return NULL;
}

static long long bytes(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	switch (*end) {
	case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	}
	return v;
}

/* "pack:1 core:17 pu:4" -> how many objects of type (per parent) */
static int topo_count(const char *topo, const char *type)
{
	char pat[32];
	snprintf(pat, sizeof pat, "%s:", type);
	const char *p = strstr(topo, pat);
	return p ? atoi(p + strlen(pat)) : 1;
}

static void check_simulated(void)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	CHECK(hw, "no hardware info");
	const char *vendor = get("hardware", "vendor"), *model = get("hardware", "model");
	const char *mhz = get("hardware", "mhz"), *topo = get("machine", "topology");
	CHECK(vendor && model && mhz && topo, "profile lacks [hardware] vendor/model/mhz or topology");
	CHECK(!strcmp(hw->vendor_string, vendor), "vendor '%s', profile '%s'", hw->vendor_string, vendor);
	if (!strcmp(vendor, "IBM"))
		CHECK(hw->vendor == PAPI_VENDOR_IBM, "vendor code %d", hw->vendor);
	CHECK(!strcmp(hw->model_string, model), "model '%s', profile '%s'", hw->model_string, model);
	CHECK(hw->cpu_max_mhz == atoi(mhz) && hw->cpu_min_mhz == atoi(mhz),
	      "MHz %d..%d, profile %s", hw->cpu_min_mhz, hw->cpu_max_mhz, mhz);
	CHECK(PAPI_get_opt(PAPI_CLOCKRATE, NULL) == atoi(mhz), "PAPI_CLOCKRATE");
	/* real cycles tick at that clock (as a BG/Q's timebase does): cycles
	 * read inside a window of nanoseconds are no more than its worth, and
	 * over a sleep of 50 ms at least the sleep's */
	long long n0 = PAPI_get_real_nsec(), c0 = PAPI_get_real_cyc();
	usleep(50000);
	long long c1 = PAPI_get_real_cyc(), n1 = PAPI_get_real_nsec();
	CHECK(c1 - c0 <= (n1 - n0) * atoi(mhz) / 1000 + 1 && c1 - c0 >= 50000LL * atoi(mhz) - 1,
	      "real cycles %lld in %lld ns at %s MHz", c1 - c0, n1 - n0, mhz);
	int sockets = topo_count(topo, "pack"), cores = topo_count(topo, "core");
	int threads = topo_count(topo, "pu"), numa = topo_count(topo, "numa");
	/* the cores an application runs on, when the profile sets them apart
	 * from those of the operating system */
	const char *app = get("hardware", "app_cores");
	if (app)
		cores = atoi(app) / sockets;
	CHECK(hw->sockets == sockets, "sockets %d, topology %s", hw->sockets, topo);
	CHECK(hw->cores == cores, "cores per socket %d, topology %s, app_cores %s", hw->cores,
	      topo, app ? app : "-");
	CHECK(hw->threads == threads, "threads per core %d, topology %s", hw->threads, topo);
	CHECK(hw->nnodes == numa, "NUMA nodes %d, topology %s", hw->nnodes, topo);
	CHECK(hw->totalcpus == sockets * cores * threads, "totalcpus %d", hw->totalcpus);
	CHECK(hw->ncpu == hw->totalcpus / numa, "ncpu %d", hw->ncpu);
	CHECK(PAPI_get_opt(PAPI_MAX_CPUS, NULL) == hw->ncpu, "PAPI_MAX_CPUS");
	CHECK(!hw->virtualized, "the simulated node is no virtual machine");

	/* every cache of the profile, at its level, with its geometry */
	int ncache = 0, maxlevel = 0;
	for (int i = 0; i < nini; i++) {
		const char *k = ini[i].key;
		if (strcmp(ini[i].sec, "hardware") || tolower((unsigned char)k[0]) != 'l' ||
		    !isdigit((unsigned char)k[1]))
			continue;
		int level = k[1] - '0';
		char kind = (char)tolower((unsigned char)k[2]);
		int type = kind == 'd' ? PAPI_MH_TYPE_DATA : kind == 'i' ? PAPI_MH_TYPE_INST
			 : kind == 'p' ? PAPI_MH_TYPE_PREF : PAPI_MH_TYPE_UNIFIED;
		char size[32], line[32], ways[32], policy[8] = "";
		CHECK(sscanf(ini[i].val, "%31s %31s %31s %7s", size, line, ways, policy) >= 3,
		      "profile cache %s = %s", k, ini[i].val);
		long long sz = bytes(size), ln = bytes(line);
		int assoc = !strcmp(ways, "full") ? SHRT_MAX : atoi(ways);
		const PAPI_mh_level_t *L = &hw->mem_hierarchy.level[level - 1];
		int found = 0;
		for (int j = 0; j < PAPI_MH_MAX_LEVELS; j++) {
			const PAPI_mh_cache_info_t *c = &L->cache[j];
			int t = type == PAPI_MH_TYPE_PREF ? (c->type & PAPI_MH_TYPE_PREF)
				: PAPI_MH_CACHE_TYPE(c->type);
			if (!c->type || t != type)
				continue;
			CHECK(c->size == sz && c->line_size == ln && c->num_lines == sz / ln &&
			      c->associativity == assoc,
			      "L%d %s: size %d line %d lines %d ways %d; profile %s", level, k,
			      c->size, c->line_size, c->num_lines, c->associativity, ini[i].val);
			if (!strcmp(policy, "wb"))
				CHECK(PAPI_MH_CACHE_WRITE_POLICY(c->type) == PAPI_MH_TYPE_WB, "%s policy", k);
			found++;
		}
		CHECK(found == 1, "%s (%s) found %d times at level %d", k, ini[i].val, found, level);
		ncache++;
		if (level > maxlevel)
			maxlevel = level;
	}
	CHECK(ncache >= 2, "profile lists %d caches", ncache);
	CHECK(hw->mem_hierarchy.levels == maxlevel, "levels %d, profile %d",
	      hw->mem_hierarchy.levels, maxlevel);
	int listed = 0;
	for (int l = 0; l < hw->mem_hierarchy.levels; l++)
		for (int j = 0; j < PAPI_MH_MAX_LEVELS; j++)
			listed += hw->mem_hierarchy.level[l].cache[j].type != 0;
	CHECK(listed == ncache, "PAPI lists %d caches, profile %d", listed, ncache);

	/* PAPI_get_dmem_info describes this process's memory, which the host
	 * gives; it keeps working beside the simulated hardware */
	PAPI_dmem_info_t dm;
	CHECK_PAPI(PAPI_get_dmem_info(&dm));
	CHECK(dm.pagesize > 0 && dm.size > 0, "dmem pagesize %lld size %lld", dm.pagesize, dm.size);
	printf("%s %s, %d MHz, %d x %d x %d, %d caches in %d levels\n", hw->vendor_string,
	       hw->model_string, hw->cpu_max_mhz, hw->sockets, hw->cores, hw->threads,
	       listed, hw->mem_hierarchy.levels);
}

/* The CPU device PAPI's device queries report: its name, and how many
 * device types were enumerated. */
static int cpu_device(const char **name, unsigned *threads, unsigned *l1d)
{
	void *h;
	int types = 0, found = 0;
	while (PAPI_enum_dev_type(PAPI_DEV_TYPE_ENUM__ALL, &h) == PAPI_OK) {
		int id, count;
		types++;
		CHECK_PAPI(PAPI_get_dev_type_attr(h, PAPI_DEV_TYPE_ATTR__INT_PAPI_ID, &id));
		CHECK_PAPI(PAPI_get_dev_type_attr(h, PAPI_DEV_TYPE_ATTR__INT_COUNT, &count));
		if (id != PAPI_DEV_TYPE_ID__CPU || count < 1)
			continue;
		found++;
		CHECK_PAPI(PAPI_get_dev_attr(h, 0, PAPI_DEV_ATTR__CPU_CHAR_NAME, name));
		CHECK_PAPI(PAPI_get_dev_attr(h, 0, PAPI_DEV_ATTR__CPU_UINT_THREAD_COUNT, threads));
		CHECK_PAPI(PAPI_get_dev_attr(h, 0, PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_SIZE, l1d));
	}
	CHECK(found == 1, "%d CPU device types", found);
	return types;
}

static void check_devices(void)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	const char *name, *vendor, *status;
	unsigned threads, l1d;
	CHECK(cpu_device(&name, &threads, &l1d) == 1, "a simulated node has one device type");
	CHECK(!strcmp(name, get("hardware", "model")), "device '%s', profile '%s'", name,
	      get("hardware", "model"));
	CHECK((int)threads == hw->totalcpus, "device threads %u, hardware info %d", threads,
	      hw->totalcpus);
	CHECK(l1d == bytes(get("hardware", "l1d")), "device L1d %u, profile %s", l1d,
	      get("hardware", "l1d"));
	void *h;
	CHECK_PAPI(PAPI_enum_dev_type(PAPI_DEV_TYPE_ENUM__FIRST, &h));
	CHECK_PAPI(PAPI_get_dev_type_attr(h, PAPI_DEV_TYPE_ATTR__CHAR_NAME, &vendor));
	CHECK(!strcmp(vendor, get("hardware", "vendor")), "device vendor '%s'", vendor);
	CHECK_PAPI(PAPI_get_dev_type_attr(h, PAPI_DEV_TYPE_ATTR__CHAR_STATUS, &status));
	CHECK(strstr(status, "simulated"), "device status '%s'", status);
	/* GPUs: none on the node */
	CHECK(PAPI_enum_dev_type(PAPI_DEV_TYPE_ENUM__CUDA, &h) != PAPI_OK, "a CUDA device type");
}

/* A machine whose profile has no [hardware] section: the host stays. */
static void check_host(const char *model)
{
	char path[] = "/tmp/clab-papi-hw-XXXXXX.ini";
	int fd = mkstemps(path, 4);
	CHECK(fd >= 0, "mkstemps");
	FILE *f = fdopen(fd, "w");
	fputs("[machine]\ntopology = pack:1 core:17 pu:4\nclock = virtual\n"
	      "[core]\nbackend = bgq-punit\n", f);
	fclose(f);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		setenv("COUNTERLAB_MACHINE", path, 1);
		CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
		const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
		CHECK(!PAPI_get_component_info(0)->disabled, "core disabled: %s",
		      PAPI_get_component_info(0)->disabled_reason);
		CHECK(strcmp(hw->model_string, model) != 0, "host model replaced");
		long n = sysconf(_SC_NPROCESSORS_CONF);
		CHECK(hw->totalcpus == n, "host totalcpus %d, sysconf %ld", hw->totalcpus, n);
		const char *name;
		unsigned threads, l1d;
		cpu_device(&name, &threads, &l1d); /* PAPI's sysdetect: the host CPU */
		CHECK(strcmp(name, model) != 0, "host device named '%s'", name);
		CHECK((long)threads == n, "host device threads %u, sysconf %ld", threads, n);
		printf("without [hardware]: host %s, %d CPUs\n", hw->model_string, hw->totalcpus);
		exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	unlink(path);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "host check failed");
}

int main(void)
{
	const char *dir = getenv("COUNTERLAB_MACHINES");
	char path[4096];
	snprintf(path, sizeof path, "%s/bgq.ini", dir ? dir : ".");
	read_profile(path);
	check_host(get("hardware", "model"));
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual", 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "init");
	CHECK(PAPI_get_component_index("core") == 0, "core is not component 0");
	check_simulated();
	check_devices();
	PAPI_shutdown();
	printf("papi_hwinfo: PASSED\n");
	return 0;
}
