/* The four BG/Q node-wide units through whichever PAPI this is linked
 * with: the papi-bgpm build (PAPI 7.0's own bgpm/L2unit, IOunit, NWunit,
 * CNKunit over libbgpm) or counterlab's own build (components l2, io,
 * network, kernel). tests/papi-bgpm/run.sh runs both and compares.
 *
 *   units list    each bgpm component's events as PAPI enumerates them:
 *                 "UNIT LABEL" lines (papi-bgpm build only)
 *   units count   reads "UNIT LABEL" lines; counts each event alone over
 *                 the unit's activity and prints "UNIT LABEL VALUE", or
 *                 "UNIT LABEL refused" when PAPI will not add it
 *
 * The virtual clock with tick=0 (set here) makes each run's activity, and
 * so every count, the same in both builds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "papi.h"
#include "counterlab/sim.h"

#define CYCLES 1000000
#define L2_SLICES 16

static const struct unit {
	const char *name, *bgpm, *clab;
} units[] = {
	{"L2", "bgpm/L2Unit", "l2"},
	{"IO", "bgpm/IOUnit", "io"},
	{"NW", "bgpm/NWUnit", "network"},
	{"CNK", "bgpm/CNKUnit", "kernel"},
};
#define NUNITS (int)(sizeof units / sizeof units[0])

static int is_bgpm;

static void die(const char *what, int rc)
{
	fprintf(stderr, "units: %s: %s\n", what, PAPI_strerror(rc));
	exit(2);
}

/* What the unit counts: the node's L2 sees the thread's compute profile,
 * the message unit a message each way, the torus a pattern's traffic,
 * CNK the thread's system calls. */
static int activity(const char *unit)
{
	if (!strcmp(unit, "IO")) {
		if (clab_sim_message(CLAB_MSG_SEND, 100000) || clab_sim_message(CLAB_MSG_RECV_FIFO, 5000) ||
		    clab_sim_message(CLAB_MSG_RECV_PUT, 70000) || clab_sim_message(CLAB_MSG_RECV_RGET, 300))
			return -1;
	} else if (!strcmp(unit, "NW")) {
		if (clab_sim_traffic("alltoall:bytes=4096", NULL))
			return -1;
	} else if (!strcmp(unit, "CNK")) {
		const char *ev[] = {"PEVT_CNKHWT_SYSCALL"};
		uint64_t n[] = {42};
		if (clab_sim_work(1000, ev, n, 1))
			return -1;
	}
	return clab_sim_advance(CYCLES);
}

static void list(void)
{
	for (int u = 0; u < NUNITS; u++) {
		int cidx = PAPI_get_component_index(units[u].bgpm);
		if (cidx < 0)
			die(units[u].bgpm, cidx);
		int code = PAPI_NATIVE_MASK, rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx);
		for (; rc == PAPI_OK; rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx)) {
			char name[PAPI_MAX_STR_LEN];
			if ((rc = PAPI_event_code_to_name(code, name)) != PAPI_OK)
				die("PAPI_event_code_to_name", rc);
			const char *label = strstr(name, ":::");
			printf("%s %s\n", units[u].name, label ? label + 3 : name);
		}
	}
}

static const struct unit *unit_named(const char *name)
{
	for (int u = 0; u < NUNITS; u++)
		if (!strcmp(units[u].name, name))
			return &units[u];
	return NULL;
}

/* A bgpm component's event has one code by its full name and by its bare
 * label (PAPI asks each component in turn for a bare name). */
static void same_event(const char *name, const char *label)
{
	int full, bare, rc;
	if ((rc = PAPI_event_name_to_code(name, &full)) != PAPI_OK)
		die(name, rc);
	if ((rc = PAPI_event_name_to_code(label, &bare)) != PAPI_OK)
		die(label, rc);
	if (full != bare) {
		fprintf(stderr, "units: %s is 0x%x, %s 0x%x\n", name, (unsigned)full, label, (unsigned)bare);
		exit(2);
	}
}

static void count(void)
{
	char uname[16], label[128];
	while (scanf("%15s %127s", uname, label) == 2) {
		const struct unit *u = unit_named(uname);
		if (!u) {
			fprintf(stderr, "units: no unit %s\n", uname);
			exit(2);
		}
		/* BGPM reads a _SLICE event as the sum of the 16 slices
		 * (Bgpm_ReadEvent on a per-slice set); counterlab's l2 reads
		 * one slice per event (:slice=N), so it counts all 16 and adds */
		size_t len = strlen(label);
		int nslices = !is_bgpm && len > 6 && !strcmp(label + len - 6, "_SLICE") ? L2_SLICES : 1;
		char name[256];
		int es = PAPI_NULL, rc = PAPI_create_eventset(&es);
		long long v[L2_SLICES], sum = 0;
		if (rc != PAPI_OK)
			die("PAPI_create_eventset", rc);
		for (int k = 0; rc == PAPI_OK && k < nslices; k++) {
			int n = snprintf(name, sizeof name, "%s:::%s", is_bgpm ? u->bgpm : u->clab, label);
			if (nslices > 1)
				snprintf(name + n, sizeof name - (size_t)n, ":slice=%d", k);
			rc = PAPI_add_named_event(es, name);
		}
		if (is_bgpm)
			same_event(name, label);
		if (rc != PAPI_OK) {
			fprintf(stderr, "units: %s: %s\n", name, PAPI_strerror(rc));
			printf("%s %s refused\n", uname, label);
		} else {
			if ((rc = PAPI_start(es)) != PAPI_OK)
				die(name, rc);
			if (activity(uname)) {
				fprintf(stderr, "units: %s activity failed\n", uname);
				exit(2);
			}
			if ((rc = PAPI_stop(es, v)) != PAPI_OK)
				die(name, rc);
			for (int k = 0; k < nslices; k++)
				sum += v[k];
			printf("%s %s %lld\n", uname, label, sum);
		}
		if ((rc = PAPI_cleanup_eventset(es)) != PAPI_OK || (rc = PAPI_destroy_eventset(&es)) != PAPI_OK)
			die("PAPI_destroy_eventset", rc);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "list") && strcmp(argv[1], "count"))) {
		fprintf(stderr, "usage: units list|count\n");
		return 2;
	}
	setenv("COUNTERLAB_MACHINE", "bgq:clock=virtual,tick=0,activity=compute,torus=4x4x4x4x2", 1);
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT)
		die("PAPI_library_init", rc);
	is_bgpm = PAPI_get_component_index(units[0].bgpm) >= 0;
	if (!strcmp(argv[1], "list")) {
		if (!is_bgpm) {
			fprintf(stderr, "units list: this PAPI has no bgpm components\n");
			return 2;
		}
		list();
	} else
		count();
	return 0;
}
