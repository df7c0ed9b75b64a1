/* Machines: profiles (INI data in machines/), their components and the
 * hardware threads that OS threads attach to. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <hwloc.h>
#include <iniparser/iniparser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

static const char *const machine_keys[] = {
	"description", "topology", "clock", "tick", "seed",
	"activity", "host_fp_event", "torus", "ppn", "map", "timer_us", NULL,
};
static const char *const component_names[] = {
	"core", "l2", "io", "network", "kernel", NULL,
};
static const char *const component_keys[] = {
	"backend", "description", "presets", "papi_presets", NULL,
};

static void machines_add(clab_machine *m);
static void machines_remove(clab_machine *m);

static int in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcasecmp(*list, s) == 0)
			return 1;
	return 0;
}

static char *join(const char *const *list)
{
	static __thread char buf[256];
	buf[0] = 0;
	for (; *list; list++) {
		strncat(buf, *list, sizeof buf - strlen(buf) - 3);
		if (list[1])
			strcat(buf, ", ");
	}
	return buf;
}

/* ---- settings ---------------------------------------------------------- */

static int setting_put(clab_machine *m, const char *key, const char *value)
{
	for (int i = 0; i < m->nsettings; i++)
		if (strcasecmp(m->settings[i].key, key) == 0) {
			char *v = strdup(value);
			if (!v)
				return CLAB_E_NOMEM;
			free(m->settings[i].value);
			m->settings[i].value = v;
			return CLAB_OK;
		}
	if (m->nsettings == CLAB_MAX_SETTINGS)
		return clab_seterr(CLAB_E_PROFILE, "too many settings");
	m->settings[m->nsettings].key = strdup(key);
	m->settings[m->nsettings].value = strdup(value);
	if (!m->settings[m->nsettings].key || !m->settings[m->nsettings].value)
		return CLAB_E_NOMEM;
	m->nsettings++;
	return CLAB_OK;
}

const char *clab_machine_setting(const clab_machine *m, const char *key)
{
	for (int i = 0; i < m->nsettings; i++)
		if (strcasecmp(m->settings[i].key, key) == 0)
			return m->settings[i].value;
	return NULL;
}

int clab_read_u64(const char *s, int hex, uint64_t *v, const char **end)
{
	hex = hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = s + 2 * hex;
	char *e;
	errno = 0;
	unsigned long long x = strtoull(digits, &e, hex ? 16 : 10);
	*end = e;
	if (!(hex ? isxdigit : isdigit)((unsigned char)*digits) || errno)
		return 0;
	*v = x;
	return 1;
}

int clab_machine_setting_u64(const clab_machine *m, const char *key,
			     uint64_t def, uint64_t min, uint64_t max,
			     uint64_t *out)
{
	const char *v = clab_machine_setting(m, key);
	if (!v || !*v) {
		*out = def;
		return CLAB_OK;
	}
	uint64_t x;
	const char *end;
	if (!clab_read_u64(v, 1, &x, &end) || *end || x < min || x > max)
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: %s=%s is not an integer in %llu..%llu",
				   m->name, key, v, (unsigned long long)min,
				   (unsigned long long)max);
	*out = x;
	return CLAB_OK;
}

int clab_machine_unit_u64(const clab_machine *m, const char *section,
			  const char *key, uint64_t def, uint64_t min,
			  uint64_t max, uint64_t *out)
{
	char full[256];
	snprintf(full, sizeof full, "%s.%s", section, key);
	return clab_machine_setting_u64(m, full, def, min, max, out);
}

/* ---- profile files ----------------------------------------------------- */

static __thread char ini_error[256];

static int ini_errback(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(ini_error, sizeof ini_error, fmt, ap);
	va_end(ap);
	/* one line: iniparser puts the bad line under its message */
	size_t len = strlen(ini_error);
	if (len && ini_error[len - 1] == '\n')
		ini_error[len - 1] = 0;
	for (char *p = ini_error; *p; p++)
		if (*p == '\n')
			*p = ' ';
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return n;
}

/* A key as a profile writes it: "section:key" in lower case, as
 * iniparser names it, and its line. */
struct ini_key {
	char *name;
	int line;
};

static int by_name_then_line(const void *a, const void *b)
{
	const struct ini_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->line - y->line;
}

/* Trims blanks at both ends in place, lower case (iniparser's keys). */
static char *ini_word(char *s, char *end)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = 0;
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

/* What iniparser would take silently: it reads a line up to a NUL byte
 * and calls the rest of it too long, and a key given twice in a section
 * keeps its last value, so an edit that adds a line without removing
 * the old one would change nothing or the wrong thing. */
static int ini_text(FILE *f, const char *path, int err, const char *what)
{
	char *line = NULL, section[256] = "";
	size_t cap = 0, nkeys = 0, kcap = 0;
	struct ini_key *keys = NULL;
	int rc = CLAB_OK, lineno = 0, continued = 0;
	ssize_t n;
	while (rc == CLAB_OK && (n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if ((size_t)n != strlen(line)) {
			rc = clab_seterr(err, "%s %s:%d: a NUL byte; a profile is text",
					 what, path, lineno);
			break;
		}
		int value_goes_on = continued;
		while (n && isspace((unsigned char)line[n - 1]))
			n--;
		continued = n && line[n - 1] == '\\';
		char *p = line + strspn(line, " \t");
		if (value_goes_on || !*p || *p == ';' || *p == '#')
			continue;
		if (*p == '[') {
			char *close = strchr(p, ']');
			if (close && (size_t)(close - p) < sizeof section)
				strcpy(section, ini_word(p + 1, close));
			continue;
		}
		char *eq = strchr(p, '=');
		if (!eq)
			continue; /* iniparser says what is wrong with it */
		if (nkeys == kcap) {
			kcap = kcap ? 2 * kcap : 64;
			struct ini_key *k = realloc(keys, kcap * sizeof *keys);
			if (!k) {
				rc = clab_seterr(CLAB_E_NOMEM, "%s %s: out of memory", what, path);
				break;
			}
			keys = k;
		}
		char *name;
		if (asprintf(&name, "%s:%s", section, ini_word(p, eq)) < 0) {
			rc = clab_seterr(CLAB_E_NOMEM, "%s %s: out of memory", what, path);
			break;
		}
		keys[nkeys++] = (struct ini_key){name, lineno};
	}
	if (rc == CLAB_OK && ferror(f))
		rc = clab_seterr(err, "%s %s: read error", what, path);
	free(line);
	if (nkeys)
		qsort(keys, nkeys, sizeof *keys, by_name_then_line);
	for (size_t i = 1; rc == CLAB_OK && i < nkeys; i++)
		if (!strcmp(keys[i - 1].name, keys[i].name)) {
			char *key = strchr(keys[i].name, ':');
			*key++ = 0;
			rc = clab_seterr(err, "%s %s:%d: key '%s' of [%s] is given again (first on line %d); "
					 "a key holds one value, remove one of the lines",
					 what, path, keys[i].line, key, keys[i].name, keys[i - 1].line);
		}
	for (size_t i = 0; i < nkeys; i++)
		free(keys[i].name);
	free(keys);
	return rc;
}

static pthread_mutex_t ini_lock = PTHREAD_MUTEX_INITIALIZER;

/* iniparser's error callback is process-wide: load under a lock. */
static dictionary *load_ini(const char *path, int err, const char *what)
{
	FILE *f = clab_data_open(path, err, what);
	if (!f)
		return NULL;
	int rc = ini_text(f, path, err, what);
	fclose(f);
	if (rc)
		return NULL;
	pthread_mutex_lock(&ini_lock);
	ini_error[0] = 0;
	iniparser_set_error_callback(ini_errback);
	dictionary *d = iniparser_load(path);
	iniparser_set_error_callback(NULL);
	pthread_mutex_unlock(&ini_lock);
	if (!d)
		clab_seterr(err, "%s %s: %s", what, path,
			    ini_error[0] ? ini_error : "cannot be parsed");
	return d;
}

/* Loads an INI file, rejecting keys that stand outside a section. */
dictionary *clab_ini_load(const char *path, int err, const char *what)
{
	dictionary *d = load_ini(path, err, what);
	if (!d)
		return NULL;
	for (ssize_t i = 0; i < d->size; i++) {
		if (!d->key[i] || d->val[i] == NULL)
			continue; /* a section entry */
		if (!strchr(d->key[i], ':') || d->key[i][0] == ':') {
			clab_seterr(err, "%s %s: key '%s' is outside any [section]",
				    what, path, d->key[i] + (d->key[i][0] == ':'));
			iniparser_freedict(d);
			return NULL;
		}
	}
	return d;
}

/* The profiles installed beside the library (LIBDIR/../share/counterlab/
 * machines), wherever the tree was copied to. */
static char installed_dir[4096];

static void find_installed_dir(void)
{
	Dl_info info;
	struct stat st;
	if (!dladdr((void *)clab_machine_open, &info) || !info.dli_fname)
		return;
	const char *slash = strrchr(info.dli_fname, '/');
	int len = slash ? (int)(slash - info.dli_fname) : 1;
	snprintf(installed_dir, sizeof installed_dir, "%.*s/../share/counterlab/machines",
		 len, slash ? info.dli_fname : ".");
	if (stat(installed_dir, &st) != 0 || !S_ISDIR(st.st_mode))
		installed_dir[0] = 0;
}

/* PAPI's preset table: $COUNTERLAB_PAPI_EVENTS, else the one PAPI's
 * build installed beside us (LIBDIR/../share/papi/papi_events.csv). */
static char *papi_events_path(void)
{
	const char *env = getenv("COUNTERLAB_PAPI_EVENTS");
	if (env && *env)
		return strdup(env);
	Dl_info info;
	char *p = NULL;
	if (dladdr((void *)clab_machine_open, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		int len = slash ? (int)(slash - info.dli_fname) : 1;
		if (asprintf(&p, "%.*s/../share/papi/papi_events.csv", len,
			     slash ? info.dli_fname : ".") < 0)
			p = NULL;
	}
	char *real = p ? realpath(p, NULL) : NULL; /* shorter in messages */
	if (real) {
		free(p);
		p = real;
	}
	return p;
}

static const char *data_dir(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char *d = getenv("COUNTERLAB_MACHINES");
	if (d && *d)
		return d;
	pthread_once(&once, find_installed_dir);
	return installed_dir[0] ? installed_dir : "/usr/local/share/counterlab/machines";
}

char *clab_machine_file(const clab_machine *m, const char *sub,
			const char *name, const char *ext)
{
	char *p = NULL;
	if (strchr(name, '/'))
		return strdup(name);
	if (asprintf(&p, "%s/%s/%s%s", m->dir, sub, name,
		     strchr(name, '.') ? "" : ext) < 0)
		return NULL;
	return p;
}

static int is_profile(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	return e->d_name[0] != '.' && n > 4 && strcmp(e->d_name + n - 4, ".ini") == 0;
}

const char *clab_machine_profiles_dir(void)
{
	return data_dir();
}

int clab_machine_profiles(int describe, clab_profile_fn fn, void *arg)
{
	const char *dir = data_dir();
	struct dirent **ent;
	int n = scandir(dir, &ent, is_profile, alphasort);
	if (n < 0)
		return clab_seterr(CLAB_E_PROFILE, "machine profiles %s: %s (COUNTERLAB_MACHINES names their directory)",
				   dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char name[256], *path = NULL;
		snprintf(name, sizeof name, "%.*s", (int)strlen(ent[i]->d_name) - 4, ent[i]->d_name);
		dictionary *d = NULL;
		const char *descr = NULL;
		if (describe && asprintf(&path, "%s/%s", dir, ent[i]->d_name) >= 0) {
			/* a profile that does not load says why in place of its description */
			d = clab_ini_load(path, CLAB_E_PROFILE, "machine profile");
			descr = d ? iniparser_getstring(d, "machine:description", "") : clab_errmsg();
		}
		fn(name, descr, arg);
		if (d)
			iniparser_freedict(d);
		free(path);
		free(ent[i]);
	}
	free(ent);
	return n;
}

#define NAMES_LEN 320 /* the profiles an error message lists */

static void add_name(const char *name, const char *descr, void *arg)
{
	char *names = arg;
	(void)descr;
	size_t len = strlen(names);
	snprintf(names + len, NAMES_LEN - len, "%s%s", len ? ", " : "", name);
}

/* A profile that is not there is not a malformed one: the message says
 * which profiles there are. */
static int no_profile(const clab_machine *m, const char *base, int named)
{
	const char *dir = data_dir();
	char names[NAMES_LEN] = "";
	int n = clab_machine_profiles(0, add_name, names);
	if (n <= 0)
		snprintf(names, sizeof names, "none (%s; COUNTERLAB_MACHINES names their directory)",
			 n < 0 ? strerror(errno) : "no NAME.ini");
	if (named)
		return clab_seterr(CLAB_E_PROFILE,
				   "no machine profile '%s' (there is no %s): the profiles in %s are %s; or give the path of a profile file",
				   base, m->path, dir, names);
	return clab_seterr(CLAB_E_PROFILE, "machine profile %s not found (the profiles in %s are %s)",
			   m->path, dir, names);
}

/* Splits "NAME-OR-PATH[:k=v,...]" and applies the overrides after load. */
static int parse_spec(const char *spec, char **base, char **overrides)
{
	const char *colon = strchr(spec, ':'); /* so paths may not hold ':' */
	*base = colon ? strndup(spec, colon - spec) : strdup(spec);
	*overrides = colon ? strdup(colon + 1) : NULL;
	if (!*base || (colon && !*overrides))
		return CLAB_E_NOMEM;
	if (!**base)
		return clab_seterr(CLAB_E_PROFILE,
				   "machine spec '%s': no machine name before ':'",
				   spec);
	if (colon && !**overrides)
		return clab_seterr(CLAB_E_PROFILE,
				   "machine spec '%s': nothing after ':' (drop the ':' or add key=value,...)",
				   spec);
	return CLAB_OK;
}

static int apply_overrides(clab_machine *m, char *list)
{
	/* strtok would skip empty items: walk the commas ourselves */
	const char *seen[CLAB_MAX_SETTINGS];
	int nseen = 0;
	for (char *kv = list, *next; kv; kv = next) {
		next = strchr(kv, ',');
		if (next)
			*next++ = 0;
		if (!*kv)
			return clab_seterr(CLAB_E_PROFILE,
					   "machine overrides: an empty item between commas (use key=value,key=value)");
		char *eq = strchr(kv, '=');
		if (!eq || eq == kv || !eq[1])
			return clab_seterr(CLAB_E_PROFILE,
					   "machine override '%s' is not key=value", kv);
		*eq = 0;
		for (int i = 0; i < nseen; i++)
			if (strcasecmp(seen[i], kv) == 0)
				return clab_seterr(CLAB_E_PROFILE,
						   "machine override '%s' is given twice (give each key once)",
						   kv);
		if (nseen == CLAB_MAX_SETTINGS)
			return clab_seterr(CLAB_E_PROFILE, "too many machine overrides");
		seen[nseen++] = kv;
		/* "unit.key" sets a key of a component section; checked when the
		 * component's backend is known */
		char *dot = strchr(kv, '.');
		int unit_key = dot && dot > kv && dot[1] &&
			       in_list(component_names, strndupa(kv, (size_t)(dot - kv)));
		if (!unit_key &&
		    (!in_list(machine_keys, kv) || strcmp(kv, "description") == 0))
			return clab_seterr(CLAB_E_PROFILE,
					   "unknown machine override '%s' (known: %s, or COMPONENT.KEY)",
					   kv, join(machine_keys + 1));
		int rc = setting_put(m, kv, eq + 1);
		if (rc)
			return rc;
	}
	return CLAB_OK;
}

static int load_component(clab_machine *m, dictionary *d, const char *sec)
{
	char key[256];
	const char *keys[16];
	int nk = iniparser_getsecnkeys(d, sec);
	if (nk > 16)
		return clab_seterr(CLAB_E_PROFILE, "%s: [%s] has too many keys",
				   m->path, sec);
	iniparser_getseckeys(d, sec, keys);
	snprintf(key, sizeof key, "%s:backend", sec);
	const char *backend = iniparser_getstring(d, key, NULL);
	if (!backend || !*backend)
		return clab_seterr(CLAB_E_PROFILE, "%s: [%s] needs a backend = NAME",
				   m->path, sec);
	const clab_unit_ops *ops = clab_backend_find(backend);
	if (!ops)
		return clab_seterr(CLAB_E_PROFILE, "%s: [%s] unknown backend '%s'",
				   m->path, sec, backend);
	/* the backend's own keys become settings "sec.key", overrides first */
	static const char *const none[] = {NULL};
	const char *const *own = ops->keys ? ops->keys : none;
	for (int i = 0; i < nk; i++) {
		const char *k = strchr(keys[i], ':') + 1;
		if (in_list(component_keys, k))
			continue;
		if (!in_list(own, k)) {
			char known[256];
			snprintf(known, sizeof known, "%s", join(component_keys));
			return clab_seterr(CLAB_E_PROFILE,
					   "%s: [%s] unknown key '%s' (known: %s%s%s)",
					   m->path, sec, k, known, *own ? ", " : "",
					   *own ? join(own) : "");
		}
		snprintf(key, sizeof key, "%s.%s", sec, k);
		if (!clab_machine_setting(m, key)) {
			int rc = setting_put(m, key, iniparser_getstring(d, keys[i], ""));
			if (rc)
				return rc;
		}
	}
	for (int i = 0; i < m->nsettings; i++) {
		const char *k = m->settings[i].key, *dot = strchr(k, '.');
		if (dot && strncasecmp(k, sec, (size_t)(dot - k)) == 0 &&
		    !sec[dot - k] && !in_list(own, dot + 1))
			return clab_seterr(CLAB_E_PROFILE,
					   "machine %s: backend %s of [%s] has no key '%s'%s%s%s",
					   m->name, backend, sec, dot + 1,
					   *own ? " (known: " : " (it takes none)", *own ? join(own) : "",
					   *own ? ")" : "");
	}
	if (m->ncomp == CLAB_MAX_COMPONENTS)
		return clab_seterr(CLAB_E_PROFILE, "%s: too many components", m->path);

	clab_component *c = &m->comp[m->ncomp];
	memset(c, 0, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
	c->machine = m;
	c->ops = ops;
	snprintf(key, sizeof key, "%s:description", sec);
	const char *descr = iniparser_getstring(d, key, NULL);
	int rc = ops->open(m, sec, &c->unit, &c->desc);
	if (rc == CLAB_E_NODEV) {
		/* real hardware the host lacks or hides: this component is
		 * disabled with the reason, the machine's others still count */
		memset(&c->desc, 0, sizeof c->desc);
		c->unit = NULL;
		c->disabled = strdup(clab_errmsg());
		if (!c->disabled) {
			pthread_mutex_destroy(&c->lock);
			return CLAB_E_NOMEM;
		}
		rc = CLAB_OK;
	}
	if (rc) {
		pthread_mutex_destroy(&c->lock);
		return rc;
	}
	m->ncomp++; /* from here on closed with the machine */
	c->name = strdup(sec);
	c->description = strdup(descr ? descr : c->desc.description ? c->desc.description
				: "(disabled)");
	if (c->disabled)
		return CLAB_OK; /* no events, so no presets either */
	snprintf(key, sizeof key, "%s:presets", sec);
	const char *presets = iniparser_getstring(d, key, NULL);
	if (presets && *presets) {
		char *path = clab_machine_file(m, "presets", presets, ".csv");
		if (!path)
			return CLAB_E_NOMEM;
		rc = clab_catalog_load_presets(c, path);
		free(path);
	}
	/* papi_presets = auto (PAPI's papi_events.csv as installed with
	 * PAPI, or $COUNTERLAB_PAPI_EVENTS) or a path to such a file */
	snprintf(key, sizeof key, "%s:papi_presets", sec);
	const char *papi = iniparser_getstring(d, key, NULL);
	if (!rc && papi && *papi) {
		char *path = strcmp(papi, "auto") == 0 ? papi_events_path() : strdup(papi);
		if (!path)
			return CLAB_E_NOMEM;
		rc = clab_catalog_load_papi_events(c, path);
		free(path);
	}
	return rc;
}

static int load_settings(clab_machine *m, dictionary *d)
{
	if (iniparser_find_entry(d, "machine") == 0)
		return clab_seterr(CLAB_E_PROFILE, "%s: no [machine] section", m->path);
	const char *keys[CLAB_MAX_SETTINGS];
	int nk = iniparser_getsecnkeys(d, "machine");
	if (nk > CLAB_MAX_SETTINGS)
		return clab_seterr(CLAB_E_PROFILE, "%s: too many keys", m->path);
	iniparser_getseckeys(d, "machine", keys);
	int rc = CLAB_OK;
	for (int i = 0; i < nk && !rc; i++) {
		const char *k = strchr(keys[i], ':') + 1;
		if (!in_list(machine_keys, k))
			rc = clab_seterr(CLAB_E_PROFILE,
					 "%s: [machine] unknown key '%s' (known: %s)",
					 m->path, k, join(machine_keys));
		else
			rc = setting_put(m, k, iniparser_getstring(d, keys[i], ""));
	}
	return rc;
}

/* The simulated backends read the clock and the torus settings, those of
 * the BG/Q node also the activity (a component counts here even when the
 * host disabled it: it would have read them). */
static const char *const bgq_backends[] = {
	"bgq-punit", "bgq-l2", "bgq-io", "bgq-nw", "bgq-cnk", NULL,
};
static const char *const sim_backends[] = {
	"bgq-punit", "bgq-l2", "bgq-io", "bgq-nw", "bgq-cnk", "bgl-nw", "gemini-nw", NULL,
};

static int has_backend(const clab_machine *m, const char *const *backends)
{
	for (int i = 0; i < m->ncomp; i++)
		if (in_list(backends, m->comp[i].ops->name))
			return 1;
	return 0;
}

/* Settings only some machines read are refused, once the components are
 * open, where nothing reads them: a setting is never ignored unheard. */
static int check_used(clab_machine *m)
{
	static const char *const net_keys[] = {"torus", "ppn", "map", "seed", NULL};
	const char *clock = clab_machine_setting(m, "clock");
	const char *act = clab_machine_setting(m, "activity");
	const char *fp = clab_machine_setting(m, "host_fp_event");
	if (!has_backend(m, sim_backends)) {
		for (const char *const *k = net_keys; *k; k++)
			if (clab_machine_setting(m, *k))
				return clab_seterr(CLAB_E_PROFILE,
						   "machine %s: %s=%s: the machine simulates no torus network to read it (backends %s do); drop it",
						   m->name, *k, clab_machine_setting(m, *k),
						   join(sim_backends));
		if (clock && strcmp(clock, "virtual") == 0)
			return clab_seterr(CLAB_E_PROFILE,
					   "machine %s: clock=virtual: nothing on this machine is simulated (its counters are real and count as the program runs); drop clock and tick",
					   m->name);
	}
	if (act && *act && strcmp(act, "none") && !has_backend(m, bgq_backends))
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: activity=%s: no simulated BG/Q node here runs a rate profile (backends %s do); drop it or give activity=none",
				   m->name, act, join(bgq_backends));
	if (fp && !(act && strcmp(act, "host") == 0))
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: host_fp_event=%s is read only with activity=host",
				   m->name, fp);
	return CLAB_OK;
}

/* Components open after the overrides are in, so backends see them. */
static int open_components(clab_machine *m, dictionary *d)
{
	int rc = CLAB_OK;
	int nsec = iniparser_getnsec(d);
	for (int i = 0; i < nsec && !rc; i++) {
		const char *sec = iniparser_getsecname(d, i);
		if (strcmp(sec, "machine") == 0 || strcmp(sec, "hardware") == 0)
			continue;
		if (!in_list(component_names, sec))
			rc = clab_seterr(CLAB_E_PROFILE,
					 "%s: unknown section [%s] (known: machine, hardware, and the components %s)",
					 m->path, sec, join(component_names));
		else
			rc = load_component(m, d, sec);
	}
	if (!rc && m->ncomp == 0)
		rc = clab_seterr(CLAB_E_PROFILE, "%s: no component sections", m->path);
	for (int i = 0; i < m->nsettings && !rc; i++) {
		const char *k = m->settings[i].key, *dot = strchr(k, '.');
		if (dot && !clab_machine_component(m, strndupa(k, (size_t)(dot - k))))
			rc = clab_seterr(CLAB_E_PROFILE,
					 "machine %s: override '%s' names no component of the machine",
					 m->name, k);
	}
	return rc ? rc : check_used(m);
}

/* The node layout is an hwloc synthetic topology ("pack:1 core:17 pu:4"),
 * or "host": the machine this runs on, as hwloc finds it (real backends);
 * read by hwloc itself: cores and hardware threads per core. On the host,
 * OS threads are counted by the kernel wherever they run, so they are not
 * bound one to a PU: any number (up to CLAB_MAX_HWTHREADS) may attach. */
/* hwloc loads its plugins (PCI, OpenCL, GL, XML with ICU) when a process's
 * first topology is created and unloads them with its last, so each machine
 * open loaded and unloaded them again (most of its time), leaving glibc's
 * dynamic TLS with stale entries that LeakSanitizer trips over. A topology
 * kept for the process's life keeps them loaded once. */
static hwloc_topology_t hwloc_anchor;
static pthread_once_t hwloc_anchor_once = PTHREAD_ONCE_INIT;

static void hwloc_keep_plugins(void)
{
	if (hwloc_topology_init(&hwloc_anchor))
		hwloc_anchor = NULL;
}

/* The PUs a synthetic description asks for (the product of its arities,
 * at most `cap` + 1): hwloc takes seconds to minutes to build a layout of
 * thousands of cores, which would be refused after. */
static uint64_t synthetic_pus(const char *desc, uint64_t cap)
{
	uint64_t n = 1;
	for (const char *c = strchr(desc, ':'); c; c = strchr(c + 1, ':')) {
		uint64_t k = strtoull(c + 1, NULL, 10);
		if (k > cap || (k && n * k > cap))
			return cap + 1;
		n *= k ? k : 1;
	}
	return n;
}

static int load_topology(clab_machine *m)
{
	pthread_once(&hwloc_anchor_once, hwloc_keep_plugins);
	const char *desc = clab_machine_setting(m, "topology");
	if (!desc || !*desc)
		desc = "core:1 pu:1";
	int host = strcmp(desc, "host") == 0;
	hwloc_topology_t topo;
	if (hwloc_topology_init(&topo))
		return CLAB_E_NOMEM;
	int rc = CLAB_OK;
	if (!host && synthetic_pus(desc, CLAB_MAX_HWTHREADS) > CLAB_MAX_HWTHREADS) {
		rc = clab_seterr(CLAB_E_PROFILE,
				 "machine %s: topology '%s' has more than %d PUs",
				 m->name, desc, CLAB_MAX_HWTHREADS);
	} else if ((!host && hwloc_topology_set_synthetic(topo, desc)) || hwloc_topology_load(topo)) {
		rc = clab_seterr(CLAB_E_PROFILE,
				 "machine %s: topology '%s' is not an hwloc synthetic description (e.g. pack:1 core:17 pu:4) nor host",
				 m->name, desc);
	} else {
		int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
		int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
		if (host && cores > 0 && pus % cores)
			cores = pus; /* uneven SMT: count PUs as cores */
		if (cores <= 0 || pus % cores || pus > CLAB_MAX_HWTHREADS)
			rc = clab_seterr(CLAB_E_PROFILE,
					 "machine %s: topology '%s' needs cores with equal numbers of PUs (at most %d PUs)",
					 m->name, desc, CLAB_MAX_HWTHREADS);
		m->cores = cores;
		m->threads_per_core = cores > 0 ? pus / cores : 0;
		int pk = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
		int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
		m->packages = pk > 0 ? pk : 1;
		m->numa_nodes = numa > 0 ? numa : 1;
		m->nslots = host ? CLAB_MAX_HWTHREADS : pus;
		m->host = host;
	}
	hwloc_topology_destroy(topo);
	return rc;
}

static int check_settings(clab_machine *m)
{
	int rc = load_topology(m);
	if (rc)
		return rc;
	const char *clock = clab_machine_setting(m, "clock");
	if (clock && strcmp(clock, "virtual") && strcmp(clock, "host"))
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: clock=%s (use virtual or host)",
				   m->name, clock);
	/* tick moves only the virtual clock; on the host clock it would be
	 * ignored without a word */
	uint64_t tick;
	int rc2 = clab_machine_setting_u64(m, "tick", 0, 0, UINT64_MAX / 4, &tick);
	if (rc2)
		return rc2;
	if (tick && !(clock && strcmp(clock, "virtual") == 0))
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: tick=%llu needs clock=virtual (the host clock follows CPU time and ignores tick)",
				   m->name, (unsigned long long)tick);
	const char *act = clab_machine_setting(m, "activity");
	if (act && strcmp(act, "host") == 0 && !(clock && strcmp(clock, "host") == 0))
		return clab_seterr(CLAB_E_PROFILE,
				   "machine %s: activity=host follows the thread's own counts and CPU time: it needs clock=host",
				   m->name);
	uint64_t seed; /* for the network model, which does not read it yet */
	rc = clab_machine_setting_u64(m, "seed", 1, 0, UINT64_MAX, &seed);
	if (rc)
		return rc;
	uint64_t us; /* the overflow timer's period, read when a set arms */
	return clab_machine_setting_u64(m, "timer_us", CLAB_TIMER_US, 10, 1000000, &us);
}

int clab_machine_open(const char *spec, clab_machine **out)
{
	*out = NULL;
	const char *from = "machine spec";
	if (!spec) {
		spec = getenv("COUNTERLAB_MACHINE");
		from = "COUNTERLAB_MACHINE";
	}
	if (!spec)
		spec = "bgq";
	if (!*spec)
		return clab_seterr(CLAB_E_PROFILE,
				   "%s is empty (give NAME-OR-PATH[:key=value,...], e.g. bgq:clock=virtual, or leave it unset for bgq)",
				   from);
	clab_machine *m = calloc(1, sizeof *m);
	if (!m)
		return CLAB_E_NOMEM;
	pthread_mutex_init(&m->lock, NULL);
	char *base = NULL, *over = NULL;
	int rc = parse_spec(spec, &base, &over);
	if (rc)
		goto fail;
	int named = !strchr(base, '/') && !strstr(base, ".ini");
	/* messages name the file: one too long for the system, cut short */
	size_t most = named ? NAME_MAX - 4 : PATH_MAX - 1;
	if (strlen(base) > most) {
		rc = clab_seterr(CLAB_E_PROFILE,
				 "machine profile %s '%.60s...' is %zu bytes long; the system takes at most %zu",
				 named ? "name" : "path", base, strlen(base), most);
		goto fail;
	}
	if (!named) {
		m->path = strdup(base);
		const char *slash = strrchr(base, '/');
		m->dir = slash ? strndup(base, slash - base) : strdup(".");
		const char *nm = slash ? slash + 1 : base;
		m->name = strndup(nm, strcspn(nm, "."));
	} else {
		for (const char *p = base; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') {
				rc = clab_seterr(CLAB_E_PROFILE,
						 isprint((unsigned char)*p)
						 ? "machine name '%s' has a bad character '%c' (a name is letters, digits, - and _; a path has a /)"
						 : "machine name '%s' has a bad byte 0x%02x (a name is letters, digits, - and _; a path has a /)",
						 base, (unsigned char)*p);
				goto fail;
			}
		m->name = strdup(base);
		m->dir = strdup(data_dir());
		if (asprintf(&m->path, "%s/%s.ini", m->dir, base) < 0)
			m->path = NULL;
	}
	if (!m->path || !m->dir || !m->name) {
		rc = CLAB_E_NOMEM;
		goto fail;
	}
	struct stat st;
	if (stat(m->path, &st) != 0 && errno == ENOENT) {
		rc = no_profile(m, base, named);
		goto fail;
	}
	dictionary *d = clab_ini_load(m->path, CLAB_E_PROFILE, "machine profile");
	if (!d) {
		rc = CLAB_E_PROFILE;
		goto fail;
	}
	rc = load_settings(m, d);
	if (!rc && over)
		rc = apply_overrides(m, over);
	if (!rc)
		rc = check_settings(m);
	if (!rc) {
		m->slot = calloc(m->nslots, sizeof *m->slot);
		if (!m->slot)
			rc = CLAB_E_NOMEM;
	}
	if (!rc)
		rc = clab_hwinfo_load(m, d);
	if (!rc)
		rc = open_components(m, d);
	iniparser_freedict(d);
	if (rc)
		goto fail;
	free(base);
	free(over);
	machines_add(m);
	*out = m;
	return CLAB_OK;
fail:
	free(base);
	free(over);
	clab_machine_close(m);
	return rc;
}

void clab_machine_close(clab_machine *m)
{
	if (!m)
		return;
	for (int i = m->ncomp - 1; i >= 0; i--) {
		clab_component *c = &m->comp[i];
		if (c->unit)
			c->ops->close(c->unit);
		free(c->disabled);
		clab_catalog_free(c);
		free(c->name);
		free(c->description);
		pthread_mutex_destroy(&c->lock);
	}
	for (int i = m->nshared - 1; i >= 0; i--) {
		m->shared[i].destroy(m->shared[i].obj);
		free(m->shared[i].key);
	}
	for (int i = 0; i < m->nsettings; i++) {
		free(m->settings[i].key);
		free(m->settings[i].value);
	}
	machines_remove(m);
	if (m->slot) /* handles still attached (a handle detached goes with its last set) */
		for (int h = 0; h < m->nslots; h++)
			if (m->slot[h] && !m->slot[h]->refs)
				free(m->slot[h]);
	free(m->slot);
	free(m->hw);
	free(m->name);
	free(m->path);
	free(m->dir);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static clab_machine *default_machine;
static int default_rc;
static char default_err[512];

static void open_default(void)
{
	default_rc = clab_machine_open(NULL, &default_machine);
	if (default_rc)
		snprintf(default_err, sizeof default_err, "%s", clab_errmsg());
}

int clab_machine_default(clab_machine **out)
{
	pthread_once(&default_once, open_default);
	*out = default_machine;
	if (default_rc)
		clab_seterr(default_rc, "%s", default_err);
	return default_rc;
}

const char *clab_machine_name(const clab_machine *m) { return m->name; }
const char *clab_machine_path(const clab_machine *m) { return m->path; }

const char *clab_machine_description(const clab_machine *m)
{
	const char *d = clab_machine_setting(m, "description");
	return d ? d : "";
}

int clab_machine_ncomponents(const clab_machine *m) { return m->ncomp; }

clab_component *clab_machine_component_at(clab_machine *m, int i)
{
	return i >= 0 && i < m->ncomp ? &m->comp[i] : NULL;
}

clab_component *clab_machine_component(clab_machine *m, const char *name)
{
	for (int i = 0; i < m->ncomp; i++)
		if (strcmp(m->comp[i].name, name) == 0)
			return &m->comp[i];
	clab_seterr(CLAB_E_NOCOMP, "machine %s has no component '%s'", m->name,
		    name);
	return NULL;
}

int clab_machine_nhwthreads(const clab_machine *m)
{
	return m->nslots;
}

int clab_machine_ncores(const clab_machine *m)
{
	return m->cores;
}

int clab_machine_threads_per_core(const clab_machine *m)
{
	return m->threads_per_core;
}

void *clab_machine_shared(clab_machine *m, const char *key,
			  clab_shared_create create, void (*destroy)(void *),
			  int *err)
{
	*err = CLAB_OK;
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < m->nshared; i++)
		if (strcmp(m->shared[i].key, key) == 0) {
			pthread_mutex_unlock(&m->lock);
			return m->shared[i].obj;
		}
	void *obj = NULL;
	if (m->nshared == CLAB_MAX_SHARED)
		*err = clab_seterr(CLAB_E_NOMEM, "too many shared objects");
	else if ((obj = create(m, err)) != NULL) {
		m->shared[m->nshared].key = strdup(key);
		m->shared[m->nshared].obj = obj;
		m->shared[m->nshared].destroy = destroy;
		m->nshared++;
	}
	pthread_mutex_unlock(&m->lock);
	return obj;
}

void clab_machine_set_sim(clab_machine *m, const clab_sim_ops *ops, void *sim)
{
	m->sim_ops = ops;
	m->sim = sim;
}

/* ---- threads ----------------------------------------------------------- */

/* The open machines, so that a thread's exit can find what it holds. */
static struct {
	pthread_mutex_t lock;
	clab_machine *m[16];
	int n;
} machines = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

static void machines_add(clab_machine *m)
{
	pthread_mutex_lock(&machines.lock);
	if (machines.n < 16)
		machines.m[machines.n++] = m;
	pthread_mutex_unlock(&machines.lock);
}

static void machines_remove(clab_machine *m)
{
	pthread_mutex_lock(&machines.lock);
	for (int i = 0; i < machines.n; i++)
		if (machines.m[i] == m)
			machines.m[i] = machines.m[--machines.n];
	pthread_mutex_unlock(&machines.lock);
}

/* A thread that exits without letting go of its hardware threads (no
 * PAPI_unregister_thread, no clab_thread_detach) lets go here: a key
 * destructor, armed when the thread first attaches. */
static void unbind(clab_thread *t);
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void detach_all_of(pthread_t self)
{
	for (;;) {
		clab_thread *t = NULL;
		pthread_mutex_lock(&machines.lock);
		for (int i = 0; i < machines.n && !t; i++) {
			clab_machine *m = machines.m[i];
			pthread_mutex_lock(&m->lock);
			for (int h = 0; h < clab_machine_nhwthreads(m) && !t; h++)
				if (m->slot[h] && pthread_equal(m->slot[h]->owner, self))
					t = m->slot[h];
			pthread_mutex_unlock(&m->lock);
		}
		pthread_mutex_unlock(&machines.lock);
		if (!t)
			return;
		unbind(t);
	}
}

static void thread_exit(void *arg)
{
	(void)arg;
	detach_all_of(pthread_self());
}

/* Before a fork, the forking thread's simulated clocks catch up with it
 * (sync: on the host clock, its CPU time; emulated, what it ran), so that
 * the sets its child inherits keep their counts up to the fork: the child
 * lets go of those clocks before anything reads them (fork_child). Not
 * from a handler inside a counterlab call, where the node's locks may be
 * held: the counts then stand as last brought up. */
static void fork_prepare(void)
{
	if (CLAB_ENTER()) {
		clab_leave(CLAB_OK);
		return;
	}
	pthread_t self = pthread_self();
	pthread_mutex_lock(&machines.lock);
	for (int i = 0; i < machines.n; i++) {
		clab_machine *m = machines.m[i];
		if (!m->sim_ops || !m->sim_ops->sync)
			continue;
		for (int h = 0; h < clab_machine_nhwthreads(m); h++) {
			pthread_mutex_lock(&m->lock); /* (another thread may be letting go of its slot) */
			int mine = m->slot[h] && pthread_equal(m->slot[h]->owner, self);
			pthread_mutex_unlock(&m->lock);
			if (mine)
				m->sim_ops->sync(m->sim, h);
		}
	}
	pthread_mutex_unlock(&machines.lock);
	clab_leave(CLAB_OK);
}

/* A forked child is a process of its own: it inherits none of the
 * parent's counting. Its one thread keeps its hardware threads; the
 * others' are free; every inherited set stops and lets go of the unit,
 * its counts as of the fork (PAPI's state is inherited, so the set's
 * stop, which PAPI still owes, succeeds; the thread's own sets may start
 * again). Locks held by the parent's other threads at the fork are made
 * anew, the simulator's first. */
static void fork_child(void)
{
	pthread_t self = pthread_self();
	pthread_mutex_init(&machines.lock, NULL);
	pthread_mutex_init(&ini_lock, NULL);
	for (int i = 0; i < machines.n; i++) {
		clab_machine *m = machines.m[i];
		pthread_mutex_init(&m->lock, NULL);
		for (int c = 0; c < m->ncomp; c++)
			pthread_mutex_init(&m->comp[c].lock, NULL);
		if (m->sim_ops && m->sim_ops->forked)
			m->sim_ops->forked(m->sim);
		for (int c = 0; c < m->ncomp; c++)
			if (m->comp[c].unit && m->comp[c].ops->forked)
				m->comp[c].ops->forked(m->comp[c].unit);
		for (int h = 0; h < clab_machine_nhwthreads(m); h++) {
			clab_thread *t = m->slot[h];
			if (!t)
				continue;
			/* first the clock: the child's CPU time starts anew */
			if (m->sim_ops && m->sim_ops->detach)
				m->sim_ops->detach(m->sim, h);
			int mine = pthread_equal(t->owner, self);
			for (clab_evset *s = t->sets; s; s = s->tnext)
				(mine ? clab_evset_halt : clab_evset_orphan)(s);
			if (mine) /* the child's thread, where its signals go */
				t->tid = (pid_t)syscall(SYS_gettid);
			if (!mine) {
				t->attached = 0;
				m->slot[h] = NULL;
			}
		}
	}
}

static void exit_key_create(void)
{
	pthread_key_create(&exit_key, thread_exit);
	pthread_atfork(fork_prepare, NULL, fork_child);
}

static void arm_exit_hook(void)
{
	pthread_once(&exit_once, exit_key_create);
	if (!pthread_getspecific(exit_key))
		pthread_setspecific(exit_key, (void *)1);
}

static clab_thread *bind_locked(clab_machine *m, int hw)
{
	clab_thread *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->machine = m;
	t->hwthread = hw;
	t->owner = pthread_self();
	t->tid = (pid_t)syscall(SYS_gettid);
	t->attached = 1;
	t->held = 1;
	m->slot[hw] = t;
	return t;
}

/* Breadth-first layout: thread i goes to core i % cores, as CNK spreads
 * threads over cores before doubling up. */
int clab_thread_attach(clab_machine *m, clab_thread **out)
{
	pthread_t self = pthread_self();
	int n = clab_machine_nhwthreads(m);
	arm_exit_hook();
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < n; i++)
		if (m->slot[i] && pthread_equal(m->slot[i]->owner, self)) {
			*out = m->slot[i];
			m->slot[i]->held++; /* each attach wants its detach */
			pthread_mutex_unlock(&m->lock);
			return CLAB_OK;
		}
	for (int k = 0; k < n; k++) {
		int core = k % m->cores, smt = k / m->cores;
		int hw = m->host ? k : core * m->threads_per_core + smt;
		if (!m->slot[hw]) {
			*out = bind_locked(m, hw);
			pthread_mutex_unlock(&m->lock);
			return *out ? CLAB_OK : CLAB_E_NOMEM;
		}
	}
	pthread_mutex_unlock(&m->lock);
	*out = NULL;
	return clab_seterr(CLAB_E_NOTHREAD,
			   "all %d hardware threads of machine %s are taken", n,
			   m->name);
}

int clab_thread_current(clab_machine *m, clab_thread **out)
{
	pthread_t self = pthread_self();
	int n = clab_machine_nhwthreads(m);
	*out = NULL;
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < n && !*out; i++)
		if (m->slot[i] && pthread_equal(m->slot[i]->owner, self))
			*out = m->slot[i];
	pthread_mutex_unlock(&m->lock);
	return *out ? CLAB_OK
		    : clab_seterr(CLAB_E_NOTHREAD, "this thread is attached to no hardware thread of %s", m->name);
}

int clab_thread_attach_at(clab_machine *m, int hw, clab_thread **out)
{
	if (hw < 0 || hw >= clab_machine_nhwthreads(m))
		return clab_seterr(CLAB_E_INVAL, "machine %s has no hardware thread %d",
				   m->name, hw);
	int rc = CLAB_OK;
	arm_exit_hook();
	pthread_mutex_lock(&m->lock);
	if (m->slot[hw])
		rc = clab_seterr(CLAB_E_NOTHREAD, "hardware thread %d of %s is taken",
				 hw, m->name);
	else if (!(*out = bind_locked(m, hw)))
		rc = CLAB_E_NOMEM;
	pthread_mutex_unlock(&m->lock);
	return rc;
}

/* A set names its thread from create to destroy (evset.c asks through
 * clab_evset_threads). */
static int thread_ref(clab_thread *t, clab_evset *s)
{
	clab_machine *m = t->machine;
	int rc = CLAB_OK;
	pthread_mutex_lock(&m->lock);
	if (!t->attached) {
		rc = clab_seterr(CLAB_E_NOTHREAD,
				 "hardware thread %d was let go of; attach again", t->hwthread);
	} else {
		s->tnext = t->sets;
		t->sets = s;
		t->refs++;
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static void thread_unref(clab_thread *t, clab_evset *s)
{
	clab_machine *m = t->machine;
	pthread_mutex_lock(&m->lock);
	for (clab_evset **p = &t->sets; *p; p = &(*p)->tnext)
		if (*p == s) {
			*p = s->tnext;
			break;
		}
	int gone = --t->refs == 0 && !t->held;
	pthread_mutex_unlock(&m->lock);
	if (gone)
		free(t);
}

static const clab_evset_threads set_threads = {.ref = thread_ref, .unref = thread_unref};

__attribute__((constructor)) static void threads_register(void)
{
	clab_evset_threads_use(&set_threads);
}

/* Lets go of hardware thread t: its running sets stop and give back their
 * counters (their counts stay readable), none of its sets can start again,
 * and the next OS thread to attach gets the hardware thread afresh. */
static void unbind(clab_thread *t)
{
	clab_machine *m = t->machine;
	clab_evset *sets[256];
	for (;;) { /* in batches: stopping a set must not hold the lock */
		int n = 0;
		pthread_mutex_lock(&m->lock);
		if (!t->attached) {
			pthread_mutex_unlock(&m->lock);
			return;
		}
		for (clab_evset *s = t->sets; s && n < 256; s = s->tnext)
			if (!s->orphan)
				sets[n++] = s;
		pthread_mutex_unlock(&m->lock);
		if (!n)
			break;
		for (int i = 0; i < n; i++)
			clab_evset_orphan(sets[i]);
	}
	pthread_mutex_lock(&m->lock);
	t->attached = 0;
	if (m->slot[t->hwthread] == t)
		m->slot[t->hwthread] = NULL;
	pthread_mutex_unlock(&m->lock);
	if (m->sim_ops && m->sim_ops->detach)
		m->sim_ops->detach(m->sim, t->hwthread);
}

/* The handle lives on while its holder has not detached or sets name it:
 * a thread that exited is only unbound by the exit hook, so whoever holds
 * the handle (PAPI's record of the thread) may still detach it safely. */
void clab_thread_detach(clab_thread *t)
{
	if (!t)
		return;
	clab_machine *m = t->machine;
	pthread_mutex_lock(&m->lock);
	int last = --t->held == 0;
	pthread_mutex_unlock(&m->lock);
	if (!last)
		return;
	unbind(t);
	pthread_mutex_lock(&m->lock);
	int gone = t->refs == 0;
	pthread_mutex_unlock(&m->lock);
	if (gone)
		free(t);
}

void clab_thread_destroy_sets(clab_thread *t, clab_component *c)
{
	clab_machine *m = t->machine;
	for (;;) { /* one at a time: destroying takes the lock */
		pthread_mutex_lock(&m->lock);
		clab_evset *s = t->sets;
		while (s && s->c != c)
			s = s->tnext;
		pthread_mutex_unlock(&m->lock);
		if (!s)
			return;
		clab_evset_destroy(s);
	}
}

int clab_thread_hwthread(const clab_thread *t) { return t->hwthread; }
