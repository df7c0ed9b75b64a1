/* counterlab-native-avail as installed: --csv carries every column of the
 * listing in valid CSV (same field count on every line, one line per
 * event), and -e finds events by bare name in any component or as
 * COMPONENT:::NAME, with a message that names what was wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "helpers.h"

#define TOOL CLAB_DATADIR "/../../bin/counterlab-native-avail"

/* Runs the tool with args (stderr joined); returns its exit status. */
static int run(const char *args, char **out)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "COUNTERLAB_MACHINE=bgq %s %s 2>&1", TOOL, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	size_t k;
	while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += k;
		if (n + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[n] = 0;
	*out = buf;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Splits one CSV record (RFC 4180 quoting) at *pos into fields; returns the
 * field count, or -1 for a malformed record. */
static int csv_record(const char *s, size_t *pos, char fields[][64], int max)
{
	size_t i = *pos;
	int nf = 0;
	for (;;) {
		char f[4096];
		size_t o = 0;
		if (s[i] == '"') {
			for (i++;; i++) {
				if (!s[i])
					return -1;
				if (s[i] == '"') {
					if (s[i + 1] != '"')
						break;
					i++;
				}
				if (o + 1 < sizeof f)
					f[o++] = s[i];
			}
			i++;
			if (s[i] != ',' && s[i] != '\n')
				return -1; /* junk after a closing quote */
		} else {
			for (; s[i] && s[i] != ',' && s[i] != '\n'; i++) {
				if (s[i] == '"')
					return -1; /* a bare quote */
				if (o + 1 < sizeof f)
					f[o++] = s[i];
			}
		}
		f[o] = 0;
		if (nf < max)
			snprintf(fields[nf], 64, "%.63s", f);
		nf++;
		if (s[i] == ',') {
			i++;
			continue;
		}
		if (s[i] == '\n')
			i++;
		*pos = i;
		return nf;
	}
}

static void csv_columns(void **state)
{
	(void)state;
	char *out, *listing;
	assert_int_equal(run("--csv", &out), 0);
	assert_int_equal(run("", &listing), 0);
	/* the listing's facts, each with its column */
	static const char *const want[] = {
		"component", "backend", "unit_counters", "counter_width", "unit_scope",
		"overflow", "overflow_latency", "multiplex", "rules", "event", "code",
		"kind", "derived", "formula", "terms", "hw_id", "group", "scope",
		"counters", "qualifiers", "description",
	};
	const int nwant = (int)(sizeof want / sizeof want[0]);
	char f[32][64];
	size_t pos = 0;
	int nh = csv_record(out, &pos, f, 32);
	assert_int_equal(nh, nwant);
	for (int i = 0; i < nwant; i++)
		assert_string_equal(f[i], want[i]);
	int rows = 0, slice_quals = 0, derived = 0;
	while (out[pos]) {
		size_t at = pos;
		int n = csv_record(out, &pos, f, 32);
		if (n != nh)
			fail_msg("row %d has %d fields, header %d: %.200s", rows + 1, n, nh, out + at);
		if (!strcmp(f[9], "PEVT_L2_HITS_SLICE")) {
			assert_string_equal(f[0], "l2");
			assert_string_equal(f[1], "bgq-l2");
			assert_string_equal(f[5], "slow");
			assert_string_equal(f[19], ":slice=0..0xf");
			slice_quals++;
		}
		if (!strcmp(f[9], "PAPI_FP_OPS")) {
			assert_string_equal(f[11], "preset");
			assert_true(strlen(f[14]) > 0); /* its terms */
			derived++;
		}
		rows++;
	}
	assert_int_equal(slice_quals, 1);
	assert_int_equal(derived, 1);
	/* one row per event the listing counts */
	const char *tot = strstr(listing, "Total events reported: ");
	assert_non_null(tot);
	assert_int_equal(rows, atoi(tot + strlen("Total events reported: ")));
	free(out);
	free(listing);
}

static void event_lookup(void **state)
{
	(void)state;
	static const struct { const char *args; int rc; const char *want; } cases[] = {
		{"-e PEVT_L2_HITS", 0, "component l2"},
		{"-e l2:::PEVT_L2_HITS_SLICE:slice=3", 0, "PEVT_L2_HITS_SLICE:slice=0x3"},
		{"-e PEVT_L2_HITS_SLICE:slice=16", 1,
		 "component l2: PEVT_L2_HITS_SLICE: slice=16 is out of range: allowed 0..15 (0..0xf)"},
		{"-e l2:::PEVT_L2_HITS_SLICE:slice=16", 1, "allowed 0..15"},
		/* numbers as in the machine's settings: decimal, or hex after 0x */
		{"-e PEVT_L2_HITS_SLICE:slice=015", 0, "PEVT_L2_HITS_SLICE:slice=0xf"},
		{"-e PEVT_L2_HITS_SLICE:slice=016", 1, "slice=016 is out of range"},
		{"-e PEVT_L2_HITS_SLICE:slice=09", 0, "PEVT_L2_HITS_SLICE:slice=0x9"},
		{"-e PEVT_L2_HITS_SLICE:slice=0xb", 0, "PEVT_L2_HITS_SLICE:slice=0xb"},
		{"-e PEVT_L2_HITS_SLICE:slice=+3", 1, "slice=+3 is not a number"},
		{"-e PEVT_L2_HITS_SLICE:slice=", 1, "slice= is not a number"},
		{"-e core:::PEVT_L2_HITS", 1, "no event 'PEVT_L2_HITS' in component core"},
		{"-e gpu:::PEVT_L2_HITS", 1, "machine bgq has no component 'gpu'"},
		{"-e :::PEVT_L2_HITS", 1, "no component name before ':::'"},
		{"-c io -e l2:::PEVT_L2_HITS", 1, "names component l2, but -c says io"},
		{"-e PEVT_NOPE", 1, "no component of machine bgq has an event 'PEVT_NOPE'"},
		/* the host's units are listed like the simulated ones */
		{"-m linux-proc -e io:::wchar", 0, "counts process activity"},
		{"-m linux-proc -e network:::lo:rx:bytes", 0, "counts node activity"},
		{"-m linux-proc -e kernel:::voluntary_ctxt_switches", 0, "counts thread activity"},
		{"-m linux-proc -e kernel:::ctxt:cpu=0", 1, "ctxt does not take qualifier 'cpu'"},
		{"-m linux-proc -e network:::lo:rx:nope", 1, "no event 'lo:rx:nope' in component network"},
		{"-m linux-proc:core.msr_dir=/nonexistent -c core", 0,
		 "backend linux-msr: disabled: no MSR device for CPU 0"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out;
		int rc = run(cases[i].args, &out);
		if (rc != cases[i].rc || !strstr(out, cases[i].want))
			fail_msg("%s: exit %d, want %d with '%s': %s", cases[i].args, rc,
				 cases[i].rc, cases[i].want, out);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_columns),
		cmocka_unit_test(event_lookup),
	};
	return cmocka_run_group_tests_name("native_avail", tests, NULL, NULL);
}
