/* Loading rate profiles (see activity.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <iniparser/iniparser.h>
#include "activity.h"
#include "counterlab/backend.h"

/* "1.25" -> 1250000; at most 6 decimals, at most 1000 per cycle. */
static int parse_rate(const char *s, uint64_t *ppm)
{
	uint64_t whole = 0, frac = 0;
	int nd = 0, nw = 0;
	for (; *s >= '0' && *s <= '9'; s++, nw++)
		if ((whole = whole * 10 + (uint64_t)(*s - '0')) > 1000)
			return -1;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (nd++ < 6)
				frac = frac * 10 + (uint64_t)(*s - '0');
	if (*s || (nw == 0 && nd == 0))
		return -1;
	for (int i = nd < 6 ? nd : 6; i < 6; i++)
		frac *= 10;
	*ppm = whole * CLAB_PPM + frac;
	return 0;
}

static int load_phase(dictionary *d, const char *path, const char *sec,
		      clab_phase *ph)
{
	int nk = iniparser_getsecnkeys(d, sec);
	const char **keys = calloc((size_t)nk + 1, sizeof *keys);
	ph->rate = calloc((size_t)nk + 1, sizeof *ph->rate);
	ph->name = strdup(strchr(sec, ' ') ? strchr(sec, ' ') + 1 : sec);
	if (!keys || !ph->rate || !ph->name) {
		free(keys);
		return CLAB_E_NOMEM;
	}
	iniparser_getseckeys(d, sec, keys);
	int rc = CLAB_OK, have_cycles = 0;
	for (int i = 0; i < nk && !rc; i++) {
		const char *k = strchr(keys[i], ':') + 1;
		const char *v = iniparser_getstring(d, keys[i], "");
		uint64_t x;
		if (strcmp(k, "cycles") == 0) {
			char *end;
			ph->cycles = strtoull(v, &end, 10);
			if (!*v || *end || *v == '-')
				rc = clab_seterr(CLAB_E_ACTIVITY,
						 "%s: [%s] cycles=%s is not a cycle count",
						 path, sec, v);
			have_cycles = 1;
		} else if (parse_rate(v, &x)) {
			rc = clab_seterr(CLAB_E_ACTIVITY,
					 "%s: [%s] %s=%s is not a rate (events per cycle, 0..1000, e.g. 0.25)",
					 path, sec, k, v);
		} else {
			ph->rate[ph->nrate].event = strdup(k);
			ph->rate[ph->nrate++].ppm = x;
		}
	}
	if (!rc && !have_cycles)
		rc = clab_seterr(CLAB_E_ACTIVITY, "%s: [%s] needs cycles = N", path, sec);
	free(keys);
	return rc;
}

int clab_activity_load(const char *path, clab_activity **out)
{
	*out = NULL;
	dictionary *d = clab_ini_load(path, CLAB_E_ACTIVITY, "activity profile");
	if (!d)
		return CLAB_E_ACTIVITY;
	clab_activity *a = calloc(1, sizeof *a);
	int nsec = iniparser_getnsec(d), rc = CLAB_OK;
	if (!a || !(a->phase = calloc((size_t)nsec + 1, sizeof *a->phase))) {
		rc = CLAB_E_NOMEM;
		goto out;
	}
	a->name = strdup(path);
	for (int i = 0; i < nsec && !rc; i++) {
		const char *sec = iniparser_getsecname(d, i);
		if (strcmp(sec, "profile") == 0)
			continue;
		if (strncmp(sec, "phase", 5) != 0 || (sec[5] && sec[5] != ' '))
			rc = clab_seterr(CLAB_E_ACTIVITY,
					 "%s: unknown section [%s] (use [profile] and [phase NAME])",
					 path, sec);
		else
			rc = load_phase(d, path, sec, &a->phase[a->nphase++]);
	}
	if (!rc && a->nphase == 0)
		rc = clab_seterr(CLAB_E_ACTIVITY, "%s: no [phase] section", path);
	for (int i = 0; i < a->nphase && !rc; i++) {
		if (a->phase[i].cycles == 0 && a->nphase > 1)
			rc = clab_seterr(CLAB_E_ACTIVITY,
					 "%s: phase %s has cycles=0; only a single phase may run forever",
					 path, a->phase[i].name);
		a->period += a->phase[i].cycles;
	}
out:
	iniparser_freedict(d);
	if (rc)
		clab_activity_free(a);
	else
		*out = a;
	return rc;
}

void clab_activity_free(clab_activity *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->nphase; i++) {
		for (int r = 0; r < a->phase[i].nrate; r++)
			free(a->phase[i].rate[r].event);
		free(a->phase[i].rate);
		free(a->phase[i].name);
	}
	free(a->phase);
	free(a->name);
	free(a);
}
