/* A performance tool's walk over every event, as TAU and HPCToolkit do it:
 * each component with PAPI_enum_cmp_event (PAPI_ENUM_FIRST, then
 * PAPI_ENUM_EVENTS), each event's qualifiers with PAPI_NTV_ENUM_UMASKS, and
 * for each PAPI_get_event_info, PAPI_event_code_to_name and back with
 * PAPI_event_name_to_code. On the bgq, host and gemini profiles (one child
 * each: a process starts PAPI on one machine):
 *  - every pass gives every event and qualifier entry the code the first
 *    pass gave it, the code name_to_code gives its name;
 *  - walking again makes nothing new: PAPI's table of native events takes
 *    no entry (a name never seen before gets the code right after the one
 *    a name got before the walks) and the heap does not grow;
 *  - an event's qualifiers come out as unit masks, each with its
 *    description after "masks:", the way papi_native_avail reads them, and
 *    other spellings of the same qualified name give the same code. */
#define _GNU_SOURCE
#include <malloc.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

/* 200 walks, fewer over a host PMU's thousands of entries (a leak of a
 * byte per entry still shows); entries at most, to stop a runaway walk */
enum { PASSES = 200, WORK = 400000, MIN_PASSES = 20, MAXCODES = 1 << 20 };

static int *first, nfirst, cap;
static char fresh_from[2][PAPI_HUGE_STR_LEN]; /* two qualifier entries' names */

static void same_code(int code, int *n, int pass)
{
	if (pass == 0) {
		CHECK(*n < MAXCODES, "more than %d events and qualifiers", MAXCODES);
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			CHECK((first = realloc(first, (size_t)cap * sizeof *first)), "no memory");
		}
		first[(*n)++] = code;
		return;
	}
	CHECK(*n < nfirst, "pass %d lists more events than the first (%d)", pass, nfirst);
	CHECK(first[*n] == code, "pass %d: entry %d has code %#x, the first pass gave %#x",
	      pass, *n, code, first[*n]);
	(*n)++;
}

/* The event's info, name and code agree. */
static void round_trip(int code, char *symbol)
{
	PAPI_event_info_t info;
	char name[PAPI_HUGE_STR_LEN];
	int back;
	CHECK_PAPI(PAPI_get_event_info(code, &info));
	CHECK_PAPI(PAPI_event_code_to_name(code, name));
	CHECK(strcmp(name, info.symbol) == 0, "code %#x: name %s, info %s", code, name,
	      info.symbol);
	int rc = PAPI_event_name_to_code(name, &back);
	CHECK(rc == PAPI_OK && back == code, "%s: code %#x, name_to_code gave %#x (%s)", name,
	      code, back, PAPI_strerror(rc));
	snprintf(symbol, PAPI_HUGE_STR_LEN, "%s", name);
}

/* One walk over every component; returns the entries seen. */
static int walk(int pass)
{
	int n = 0, nqual = 0;
	for (int cid = 0; cid < PAPI_num_components(); cid++) {
		int code = PAPI_NATIVE_MASK;
		if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cid) != PAPI_OK)
			continue; /* disabled, or no events */
		do {
			char base[PAPI_HUGE_STR_LEN], sym[PAPI_HUGE_STR_LEN];
			round_trip(code, base);
			same_code(code, &n, pass);
			int k = code;
			if (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cid) != PAPI_OK)
				continue;
			do {
				round_trip(k, sym);
				same_code(k, &n, pass);
				size_t bl = strlen(base);
				CHECK(strncmp(sym, base, bl) == 0 && sym[bl] == ':' &&
				      strchr(sym + bl, '='),
				      "qualifier entry %s of %s is not %s:NAME=VALUE", sym, base, base);
				if (nqual < 2)
					snprintf(fresh_from[nqual], sizeof fresh_from[0], "%s", sym);
				nqual++;
			} while (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cid) == PAPI_OK);
		} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cid) == PAPI_OK);
	}
	CHECK(nqual >= 2, "%d qualifier entries in the walk", nqual);
	return n;
}

/* The code of a name never looked up before: the qualifier entry `from`
 * ("EVENT:q=V") with the value V + 1, which every qualifier here allows. */
static int fresh_code(const char *from)
{
	char name[PAPI_HUGE_STR_LEN];
	const char *eq = strrchr(from, '=');
	unsigned long long v = strtoull(eq + 1, NULL, 0);
	snprintf(name, sizeof name, "%.*s=%llu", (int)(eq - from), from, v + 1);
	int code;
	int rc = PAPI_event_name_to_code(name, &code);
	CHECK(rc == PAPI_OK, "%s: %s", name, PAPI_strerror(rc));
	return code;
}

/* The unit masks of `event`: the qualifiers want[] (NULL-ended) in order,
 * and no more unless `more`, each described after "masks:"; `spelled`
 * (another spelling of the first) has the first one's code. */
static void qualifiers_of(const char *event, const char *const *want, int more,
			  const char *spelled)
{
	int code, k, i = 0;
	CHECK_PAPI(PAPI_event_name_to_code(event, &code));
	int cid = PAPI_get_event_component(code);
	k = code;
	int rc = PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cid);
	CHECK(rc == PAPI_OK, "%s: no qualifiers enumerated (%s)", event, PAPI_strerror(rc));
	int first_code = k;
	do {
		PAPI_event_info_t info;
		CHECK_PAPI(PAPI_get_event_info(k, &info));
		if (!want[i] && more)
			break;
		CHECK(want[i], "%s: more qualifiers than expected: %s", event, info.symbol);
		const char *q = strrchr(info.symbol, ':');
		size_t ql = strlen(want[i]);
		CHECK(strncmp(q + 1, want[i], ql) == 0 && q[1 + ql] == '=',
		      "%s: qualifier %d is %s, expected :%s=", event, i, info.symbol, want[i]);
		const char *d = strstr(info.long_descr, "masks:");
		CHECK(d && strlen(d) > 6, "%s: no qualifier description: %s", info.symbol,
		      info.long_descr);
		if (i == 0)
			printf("  %s -- %s\n", q, d + 6);
		i++;
	} while (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cid) == PAPI_OK);
	CHECK(!want[i], "%s: %d qualifiers, expected %s next", event, i, want[i]);
	int other;
	CHECK_PAPI(PAPI_event_name_to_code(spelled, &other));
	CHECK(other == first_code, "%s: code %#x, its enumerated spelling has %#x", spelled,
	      other, first_code);
}

/* Bytes in use on the heap: large blocks (PAPI's table, once it is big)
 * are mapped apart and counted in hblkhd. */
static long heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return (long)(mi.uordblks + mi.hblkhd);
}

static void run(const char *profile, const char *event, const char *const *want, int more,
		const char *spelled)
{
	setenv("COUNTERLAB_MACHINE", profile, 1);
	CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT, "PAPI_library_init");
	nfirst = walk(0);
	int passes = WORK / nfirst < MIN_PASSES ? MIN_PASSES : WORK / nfirst > PASSES ? PASSES : WORK / nfirst;
	int before = fresh_code(fresh_from[0]);
	CHECK(walk(1) == nfirst, "the second walk lists another number of entries");
	long heap = heap_in_use();
	for (int pass = 2; pass < passes; pass++)
		CHECK(walk(pass) == nfirst, "walk %d lists another number of entries", pass);
	long grown = heap_in_use() - heap;
	int after = fresh_code(fresh_from[1]);
	CHECK(after == before + 1,
	      "PAPI's native table grew by %d entries over %d walks (new names got %#x, then %#x)",
	      after - before - 1, passes - 1, before, after);
	CHECK(grown < 16384, "the heap grew by %ld bytes over %d walks", grown, passes - 2);
	printf("%s: %d events and qualifiers, same codes over %d walks, heap %+ld bytes\n",
	       profile, nfirst, passes, grown);
	qualifiers_of(event, want, more, spelled);
	PAPI_shutdown();
}

int main(void)
{
	static const char *const slice[] = {"slice", NULL};
	static const char *const tile[] = {"tile", "row", "col", NULL};
	static const char *const perf[] = {"u", "k", NULL};
	static const struct {
		const char *profile, *event;
		const char *const *want;
		const char *spelled;
		int more; /* want[] is the start of the list (libpfm4's modifiers) */
	} cases[] = {
		{"bgq", "l2:::PEVT_L2_HITS_SLICE", slice, "pevt_l2_hits_slice:SLICE=0x0", 0},
		{"gemini", "network:::TILE_VC0_PHITS", tile, "TILE_VC0_PHITS:tile=00", 0},
		{"host", "perf::TASK-CLOCK", perf, "core:::perf::TASK-CLOCK:U=0", 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fflush(stdout);
		pid_t pid = fork();
		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			run(cases[i].profile, cases[i].event, cases[i].want, cases[i].more,
			    cases[i].spelled);
			exit(0);
		}
		int st;
		CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "profile %s failed",
		      cases[i].profile);
	}
	printf("PASSED\n");
	return 0;
}
