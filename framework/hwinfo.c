/* The machine's hardware as its profile describes it: the [hardware]
 * section (vendor, model, clock, memory, caches) and the node's topology
 * (packages, NUMA nodes, cores, threads). Tools that describe the machine
 * read it through clab_machine_hw_info(); the counters never do. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <iniparser/iniparser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "internal.h"

#define MAX_CACHE_LEVEL 4

static const char *const hw_keys[] = {
	"vendor", "model", "revision", "cpuid_family", "cpuid_model",
	"cpuid_stepping", "mhz", "memory", "app_cores", NULL,
};

/* "l" LEVEL [d|i|u|p]: a cache key; no letter means unified. */
static int cache_key(const char *k, clab_cache_desc *c)
{
	if ((k[0] != 'l' && k[0] != 'L') || k[1] < '1' || k[1] > '0' + MAX_CACHE_LEVEL)
		return 0;
	c->level = k[1] - '0';
	switch (k[2]) {
	case 0: case 'u': case 'U': c->kind = CLAB_CACHE_UNIFIED; break;
	case 'd': case 'D': c->kind = CLAB_CACHE_DATA; break;
	case 'i': case 'I': c->kind = CLAB_CACHE_INST; break;
	case 'p': case 'P': c->kind = CLAB_CACHE_PREFETCH; break;
	default: return 0;
	}
	return k[2] == 0 || k[3] == 0;
}

/* A byte count: digits with an optional K, M or G (powers of 1024). */
static int parse_bytes(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;
	const char *end;
	if (!clab_read_u64(s, 0, &v, &end))
		return 0;
	int shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if ((*end == 'B' || *end == 'b') && shift)
		end++;
	if (*end || v == 0 || v > (max >> shift))
		return 0;
	*out = (uint64_t)v << shift;
	return 1;
}

static int parse_int(const char *s, long min, long max, int *out)
{
	uint64_t v;
	const char *end;
	if (!clab_read_u64(s, 1, &v, &end) || *end || v < (uint64_t)min || v > (uint64_t)max)
		return 0;
	*out = (int)v;
	return 1;
}

/* "SIZE LINE WAYS [wt|wb]" */
static int parse_cache(clab_machine *m, const char *key, const char *val,
		       clab_cache_desc *c)
{
	char *buf = strdupa(val), *save = NULL; /* all of it: a cut would hide a tail */
	char *tok[5];
	int n = 0;
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		tok[n < 5 ? n++ : 4] = t;
	uint64_t line = 0;
	const char *why = NULL;
	c->write_back = -1;
	if (n < 3 || n > 4)
		why = "needs SIZE LINE WAYS [wt|wb]";
	else if (!parse_bytes(tok[0], INT32_MAX, &c->size))
		why = "SIZE is not a byte count (e.g. 16K, 32M) up to 2G-1";
	else if (!parse_bytes(tok[1], 1u << 20, &line) || (line & (line - 1)))
		why = "LINE is not a power of two of bytes up to 1M";
	else if (c->size % line)
		why = "SIZE is not a whole number of lines";
	else if (strcasecmp(tok[2], "full") == 0)
		c->ways = CLAB_CACHE_FULL;
	else if (!parse_int(tok[2], 1, (long)(c->size / line), &c->ways))
		why = "WAYS is not 'full' or a number from 1 to the number of lines";
	else if ((c->size / line) % (uint64_t)c->ways)
		why = "the lines do not divide into WAYS-way sets";
	if (!why && n == 4) {
		if (strcasecmp(tok[3], "wb") == 0)
			c->write_back = 1;
		else if (strcasecmp(tok[3], "wt") == 0)
			c->write_back = 0;
		else
			why = "the write policy is not wt or wb";
	}
	if (why)
		return clab_seterr(CLAB_E_PROFILE, "%s: [hardware] %s = %s: %s",
				   m->path, key, val, why);
	c->line = (int)line;
	return CLAB_OK;
}

/* Packages, NUMA nodes, cores and threads of the node's topology (read
 * by the machine), of which an application runs on app_cores cores (0:
 * all of them; the others run the operating system). */
static int count_topology(clab_machine *m, clab_hw_info *hw, int app_cores)
{
	int cores = app_cores ? app_cores : m->cores;
	hw->sockets = m->packages;
	hw->numa_nodes = m->numa_nodes;
	hw->threads_per_core = m->threads_per_core;
	hw->cores_per_socket = cores / hw->sockets;
	if (cores % hw->sockets)
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: %d cores do not split evenly over %d packages",
				   m->name, cores, hw->sockets);
	return CLAB_OK;
}

static int load(clab_machine *m, dictionary *d, clab_hw_info *hw)
{
	int app_cores = 0;
	const char *keys[64];
	int nk = iniparser_getsecnkeys(d, "hardware");
	if (nk > 64)
		return clab_seterr(CLAB_E_PROFILE, "%s: [hardware] has too many keys",
				   m->path);
	iniparser_getseckeys(d, "hardware", keys);
	for (int i = 0; i < nk; i++) {
		const char *k = strchr(keys[i], ':') + 1;
		const char *v = iniparser_getstring(d, keys[i], "");
		clab_cache_desc c;
		memset(&c, 0, sizeof c);
		int ok = 1;
		if (cache_key(k, &c)) {
			if (hw->ncache == CLAB_HW_MAX_CACHES)
				return clab_seterr(CLAB_E_PROFILE,
						   "%s: [hardware] has more than %d caches",
						   m->path, CLAB_HW_MAX_CACHES);
			int rc = parse_cache(m, k, v, &c);
			if (rc)
				return rc;
			hw->cache[hw->ncache++] = c;
		} else if (strcmp(k, "vendor") == 0) {
			ok = *v && strlen(v) < sizeof hw->vendor;
			snprintf(hw->vendor, sizeof hw->vendor, "%s", v);
		} else if (strcmp(k, "model") == 0) {
			ok = *v && strlen(v) < sizeof hw->model;
			snprintf(hw->model, sizeof hw->model, "%s", v);
		} else if (strcmp(k, "revision") == 0) {
			char *end;
			errno = 0;
			hw->revision = strtod(v, &end);
			ok = !errno && end != v && !*end && isfinite(hw->revision) &&
			     hw->revision >= 0;
		} else if (strcmp(k, "cpuid_family") == 0) {
			ok = parse_int(v, 0, INT32_MAX, &hw->cpuid_family);
		} else if (strcmp(k, "cpuid_model") == 0) {
			ok = parse_int(v, 0, INT32_MAX, &hw->cpuid_model);
		} else if (strcmp(k, "cpuid_stepping") == 0) {
			ok = parse_int(v, 0, INT32_MAX, &hw->cpuid_stepping);
		} else if (strcmp(k, "mhz") == 0) {
			ok = parse_int(v, 1, 1000000, &hw->mhz);
		} else if (strcmp(k, "memory") == 0) {
			ok = parse_bytes(v, UINT64_MAX, &hw->memory);
		} else if (strcmp(k, "app_cores") == 0) {
			ok = parse_int(v, 1, m->cores, &app_cores);
		} else {
			char known[256] = "";
			for (const char *const *p = hw_keys; *p; p++)
				snprintf(known + strlen(known), sizeof known - strlen(known),
					 "%s, ", *p);
			return clab_seterr(CLAB_E_PROFILE,
					   "%s: [hardware] unknown key '%s' (known: %sand caches "
					   "l1d, l1i, l1p, l2, ... = SIZE LINE WAYS [wt|wb])",
					   m->path, k, known);
		}
		if (!ok)
			return clab_seterr(CLAB_E_PROFILE,
					   "%s: [hardware] %s = '%s' is not a valid %s",
					   m->path, k, v,
					   strcmp(k, "memory") == 0 ? "byte count (e.g. 16G)"
					   : strcmp(k, "mhz") == 0 ? "clock in MHz (1..1000000)"
					   : strcmp(k, "revision") == 0 ? "revision number"
					   : strncmp(k, "cpuid_", 6) == 0 ? "non-negative integer"
					   : strcmp(k, "app_cores") == 0 ? "count of the topology's cores"
					   : "name (1..127 characters)");
	}
	if (!hw->vendor[0] || !hw->model[0] || !hw->mhz)
		return clab_seterr(CLAB_E_PROFILE,
				   "%s: [hardware] needs vendor, model and mhz", m->path);
	for (int i = 0; i < hw->ncache; i++)
		for (int j = 0; j < i; j++)
			if (hw->cache[i].level == hw->cache[j].level &&
			    hw->cache[i].kind == hw->cache[j].kind)
				return clab_seterr(CLAB_E_PROFILE,
						   "%s: [hardware] two caches of one kind at level %d",
						   m->path, hw->cache[i].level);
	return count_topology(m, hw, app_cores);
}

int clab_hwinfo_load(clab_machine *m, dictionary *d)
{
	if (iniparser_find_entry(d, "hardware") == 0)
		return CLAB_OK;
	clab_hw_info *hw = calloc(1, sizeof *hw);
	if (!hw)
		return CLAB_E_NOMEM;
	int rc = load(m, d, hw);
	if (rc) {
		free(hw);
		return rc;
	}
	m->hw = hw;
	return CLAB_OK;
}

int clab_machine_hw_info(const clab_machine *m, clab_hw_info *out)
{
	if (!m->hw)
		return clab_seterr(CLAB_E_NOSUPP,
				   "machine %s: profile %s has no [hardware] section",
				   m->name, m->path);
	*out = *m->hw;
	return CLAB_OK;
}
