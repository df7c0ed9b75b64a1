/* Event catalog of a component: the backend's native table, presets from
 * data files, and qualified natives interned under codes of their own.
 *
 * Codes: [0, nnative) natives, [nnative, nnative+npreset) presets, then
 * qualified variants in the order they were first looked up. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "internal.h"

static uint32_t npreset_base(const clab_component *c)
{
	return (uint32_t)c->desc.nnative;
}

/* Qualified natives live in a code range of their own, so that presets
 * loaded later do not move them. */
#define QUAL_BASE 0x20000000u
static uint32_t qual_base(const clab_component *c)
{
	(void)c;
	return QUAL_BASE;
}

static int find_native(const clab_component *c, const char *name, size_t len)
{
	for (int i = 0; i < c->desc.nnative; i++)
		if (strncasecmp(c->desc.natives[i].name, name, len) == 0 &&
		    c->desc.natives[i].name[len] == 0)
			return i;
	return -1;
}

static int find_preset(const clab_component *c, const char *name)
{
	for (int i = 0; i < c->npreset; i++)
		if (strcasecmp(c->presets[i].name, name) == 0)
			return i;
	return -1;
}

static int find_qual(const clab_component *c, const char *name, size_t len)
{
	for (int i = 0; i < c->desc.nquals; i++)
		if (strncasecmp(c->desc.quals[i].name, name, len) == 0 &&
		    c->desc.quals[i].name[len] == 0)
			return i;
	return -1;
}

static void list_quals(const clab_component *c, uint32_t mask, char *buf,
		       size_t len)
{
	buf[0] = 0;
	for (int q = 0; q < c->desc.nquals; q++)
		if (mask & (1u << q)) {
			if (buf[0])
				strncat(buf, ", ", len - strlen(buf) - 1);
			strncat(buf, c->desc.quals[q].name, len - strlen(buf) - 1);
		}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Gives qualifier q of req the value x, keeping the values in q's order. */
static int set_qual(clab_evreq *req, int q, uint64_t x)
{
	int n = __builtin_popcount(req->qual_set);
	if (n == CLAB_MAX_GIVEN)
		return CLAB_E_QUALIFIER;
	int at = __builtin_popcount(req->qual_set & ((1u << q) - 1));
	memmove(&req->given[at + 1], &req->given[at], (size_t)(n - at) * sizeof req->given[0]);
	req->given[at] = x;
	req->qual_set |= 1u << q;
	return CLAB_OK;
}

/* Parses ":q=v:q=v" (or ":q" for a switch, 0..1) after a native name into req. */
static int parse_quals(const clab_component *c, int native, const char *s,
		       clab_evreq *req)
{
	const clab_native *ev = &c->desc.natives[native];
	char accepted[256];
	memset(req, 0, sizeof *req);
	req->native = (uint32_t)native;
	while (*s == ':') {
		s++;
		size_t klen = strcspn(s, "=:");
		int q = klen ? find_qual(c, s, klen) : -1;
		list_quals(c, ev->quals, accepted, sizeof accepted);
		if (q < 0 || !(ev->quals & (1u << q)))
			return clab_seterr(CLAB_E_QUALIFIER,
					   "%s does not take qualifier '%.*s' (accepts: %s)",
					   ev->name, (int)klen, s, accepted);
		if (req->qual_set & (1u << q))
			return clab_seterr(CLAB_E_QUALIFIER,
					   "%s: qualifier '%s' given twice", ev->name,
					   c->desc.quals[q].name);
		const clab_qual_info *qi = &c->desc.quals[q];
		const char *v = s + klen + 1;
		const char *end = s + klen;
		uint64_t x = 1; /* libpfm4's style: a bare switch is on */
		if (s[klen] != '=') {
			if (qi->min != 0 || qi->max != 1)
				return clab_seterr(CLAB_E_QUALIFIER,
						   "%s: qualifier '%s' needs a value: %s=N, N in %llu..%llu",
						   ev->name, qi->name, qi->name,
						   (unsigned long long)qi->min,
						   (unsigned long long)qi->max);
		} else {
			/* numbers as the machine's settings take them */
			if (!clab_read_u64(v, 1, &x, &end) || (*end && *end != ':'))
				return clab_seterr(CLAB_E_QUALIFIER,
						   "%s: %s=%.*s is not a number", ev->name,
						   qi->name, (int)strcspn(v, ":"), v);
			if (x < qi->min || x > qi->max)
				return clab_seterr(CLAB_E_QUALIFIER,
						   "%s: %s=%.*s is out of range: allowed %llu..%llu (%#llx..%#llx)",
						   ev->name, qi->name, (int)(end - v), v,
						   (unsigned long long)qi->min,
						   (unsigned long long)qi->max,
						   (unsigned long long)qi->min,
						   (unsigned long long)qi->max);
		}
		int rc = set_qual(req, q, x);
		if (rc)
			return clab_seterr(rc, "%s: at most %d qualifiers at once", ev->name,
					   CLAB_MAX_GIVEN);
		s = end;
	}
	if (*s)
		return clab_seterr(CLAB_E_NOEVENT, "%s: junk '%s' after event name",
				   ev->name, s);
	return CLAB_OK;
}

/* Canonical spelling: qualifiers in table order, values in hex. */
static char *canonical_name(const clab_component *c, const clab_evreq *req)
{
	char buf[512];
	size_t n = (size_t)snprintf(buf, sizeof buf, "%s",
				    c->desc.natives[req->native].name);
	for (int q = 0; q < c->desc.nquals && n < sizeof buf; q++)
		if (req->qual_set & (1u << q))
			n += (size_t)snprintf(buf + n, sizeof buf - n, ":%s=%#llx",
					      c->desc.quals[q].name,
					      (unsigned long long)clab_evreq_qual(req, q));
	return strdup(buf);
}

static int intern(clab_component *c, const clab_evreq *req, uint32_t *code)
{
	int rc = CLAB_OK;
	pthread_mutex_lock(&c->lock);
	for (int i = 0; i < c->nqual; i++)
		if (memcmp(&c->qual[i].req, req, sizeof *req) == 0) {
			*code = qual_base(c) + (uint32_t)i;
			goto out;
		}
	if (c->nqual == c->qual_cap) {
		int cap = c->qual_cap ? 2 * c->qual_cap : 16;
		clab_qualified *q = realloc(c->qual, (size_t)cap * sizeof *q);
		if (!q) {
			rc = CLAB_E_NOMEM;
			goto out;
		}
		c->qual = q;
		c->qual_cap = cap;
	}
	c->qual[c->nqual].req = *req;
	c->qual[c->nqual].name = canonical_name(c, req);
	if (!c->qual[c->nqual].name) {
		rc = CLAB_E_NOMEM;
		goto out;
	}
	*code = qual_base(c) + (uint32_t)c->nqual++;
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int clab_event_lookup(clab_component *c, const char *name, uint32_t *code)
{
	if (!name || !*name)
		return clab_seterr(CLAB_E_NOEVENT, "empty event name");
	/* Names may hold ':' themselves (PAPI's style for devices,
	 * "eth0:rx:bytes"): the longest native the name starts with wins, and
	 * what follows it are qualifiers. */
	size_t len = strlen(name);
	int i = find_native(c, name, len);
	while (i < 0) {
		const char *colon = memrchr(name, ':', len);
		if (!colon)
			break;
		len = (size_t)(colon - name);
		i = find_native(c, name, len);
	}
	if (i < 0) {
		len = strcspn(name, ":");
		int p = name[len] ? -1 : find_preset(c, name);
		if (p >= 0) {
			*code = npreset_base(c) + (uint32_t)p;
			return CLAB_OK;
		}
		/* "eth9:rx:bytes" is named whole; "BOGUS:q=1" without its qualifiers */
		int shown = strchr(name, '=') ? (int)len : (int)strlen(name);
		return clab_seterr(CLAB_E_NOEVENT,
				   "no event '%.*s' in component %s (list them with counterlab-native-avail)%s%s",
				   shown, name, c->name, c->desc.note ? ": " : "",
				   c->desc.note ? c->desc.note : "");
	}
	if (!name[len]) {
		*code = (uint32_t)i;
		return CLAB_OK;
	}
	clab_evreq req;
	int rc = parse_quals(c, i, name + len, &req);
	return rc ? rc : intern(c, &req, code);
}

/* PAPI lists a native's qualifiers as its unit masks, each as an event of
 * its own: the native with that qualifier alone at its lowest value. The
 * entries are interned like any qualified name, so each listing gives the
 * codes the first one made. */
int clab_event_next_qual(clab_component *c, uint32_t code, uint32_t *next)
{
	clab_evreq req;
	if (clab_catalog_preset(c, code))
		return clab_seterr(CLAB_E_NOEVENT, "preset %s takes no qualifiers",
				   clab_catalog_preset(c, code)->name);
	int rc = clab_catalog_req(c, code, &req);
	if (rc)
		return rc;
	uint32_t accepts = c->desc.natives[req.native].quals;
	/* after the last qualifier the code carries */
	int q = req.qual_set ? 32 - __builtin_clz(req.qual_set) : 0;
	while (q < c->desc.nquals && !(accepts >> q & 1))
		q++;
	if (q >= c->desc.nquals)
		return clab_seterr(CLAB_E_NOEVENT, "%s takes no further qualifier",
				   c->desc.natives[req.native].name);
	clab_evreq one;
	memset(&one, 0, sizeof one);
	one.native = req.native;
	set_qual(&one, q, c->desc.quals[q].min);
	return intern(c, &one, next);
}

int clab_catalog_req(clab_component *c, uint32_t code, clab_evreq *req)
{
	if (code < npreset_base(c)) {
		memset(req, 0, sizeof *req);
		req->native = code;
		return CLAB_OK;
	}
	if (code < qual_base(c))
		return clab_seterr(CLAB_E_NOEVENT, "code %u of %s is not a native event",
				   code, c->name);
	pthread_mutex_lock(&c->lock);
	uint32_t i = code - qual_base(c);
	int ok = i < (uint32_t)c->nqual;
	if (ok)
		*req = c->qual[i].req;
	pthread_mutex_unlock(&c->lock);
	return ok ? CLAB_OK
		  : clab_seterr(CLAB_E_NOEVENT, "no event with code %u in %s",
				code, c->name);
}

const clab_preset *clab_catalog_preset(const clab_component *c, uint32_t code)
{
	if (code >= npreset_base(c) && code < npreset_base(c) + (uint32_t)c->npreset)
		return &c->presets[code - npreset_base(c)];
	return NULL;
}

int clab_event_get_info(clab_component *c, uint32_t code, clab_event_info *info)
{
	memset(info, 0, sizeof *info);
	info->code = code;
	const clab_preset *p = clab_catalog_preset(c, code);
	if (p) {
		info->name = p->name;
		info->descr = p->descr;
		info->group = "preset";
		info->is_preset = 1;
		info->derived = p->derived;
		info->postfix = p->postfix;
		info->nterms = p->nterms;
		memcpy(info->terms, p->terms, sizeof info->terms);
		uint64_t mask = ~0ull;
		for (int t = 0; t < p->nterms; t++) {
			clab_evreq r = {0};
			if (clab_catalog_req(c, p->terms[t], &r) == CLAB_OK)
				mask &= c->desc.natives[r.native].ctr_mask;
		}
		info->ctr_mask = mask;
		info->scope = c->desc.scope;
		return CLAB_OK;
	}
	clab_evreq req;
	int rc = clab_catalog_req(c, code, &req);
	if (rc)
		return rc;
	const clab_native *n = &c->desc.natives[req.native];
	if (code < npreset_base(c)) {
		info->name = n->name;
	} else { /* the table may grow under another thread; names stay put */
		pthread_mutex_lock(&c->lock);
		info->name = c->qual[code - qual_base(c)].name;
		pthread_mutex_unlock(&c->lock);
	}
	info->descr = n->descr;
	info->group = n->group;
	info->hw_id = n->hw_id;
	info->ctr_mask = n->ctr_mask;
	info->scope = (enum clab_scope)n->scope;
	info->quals = n->quals;
	info->qual_set = req.qual_set;
	info->nterms = 1;
	info->terms[0] = code;
	return CLAB_OK;
}

int clab_component_nquals(const clab_component *c) { return c->desc.nquals; }

int clab_component_qual(const clab_component *c, int i, clab_qual_info *q)
{
	if (i < 0 || i >= c->desc.nquals)
		return CLAB_E_INVAL;
	*q = c->desc.quals[i];
	return CLAB_OK;
}

/* ---- postfix formulas -------------------------------------------------- */

/* PAPI's postfix syntax: tokens separated by '|', N<i> = term i, numbers,
 * and + - * /. */
int clab_postfix_compile(const char *text, int nterms, clab_token *tok,
			 int *ntok)
{
	int n = 0, depth = 0;
	const char *s = text;
	while (*s) {
		size_t len = strcspn(s, "|");
		if (len == 0) {
			s++;
			continue;
		}
		if (n == CLAB_MAX_TOKENS)
			return clab_seterr(CLAB_E_PROFILE, "formula '%s' is too long", text);
		clab_token *t = &tok[n++];
		char *end;
		if (len == 1 && strchr("+-*/", *s)) {
			t->kind = *s == '+' ? CLAB_TOK_ADD : *s == '-' ? CLAB_TOK_SUB
				: *s == '*' ? CLAB_TOK_MUL : CLAB_TOK_DIV;
			if (depth < 2)
				return clab_seterr(CLAB_E_PROFILE,
						   "formula '%s': operator '%c' lacks operands",
						   text, *s);
			depth--;
		} else if (*s == 'N') {
			long i = strtol(s + 1, &end, 10);
			if (end != s + len || end == s + 1 || i < 0 || i >= nterms)
				return clab_seterr(CLAB_E_PROFILE,
						   "formula '%s': bad term '%.*s' (%d terms)",
						   text, (int)len, s, nterms);
			t->kind = CLAB_TOK_TERM;
			t->value = i;
			depth++;
		} else {
			long long v = strtoll(s, &end, 10);
			if (end != s + len)
				return clab_seterr(CLAB_E_PROFILE,
						   "formula '%s': bad token '%.*s'", text,
						   (int)len, s);
			t->kind = CLAB_TOK_CONST;
			t->value = v;
			depth++;
		}
		s += len;
	}
	if (depth != 1)
		return clab_seterr(CLAB_E_PROFILE,
				   "formula '%s' does not reduce to one value", text);
	*ntok = n;
	return CLAB_OK;
}

int64_t clab_postfix_eval(const clab_token *tok, int ntok, const int64_t *terms)
{
	int64_t st[CLAB_MAX_TOKENS];
	int sp = 0;
	for (int i = 0; i < ntok; i++) {
		int64_t b;
		switch (tok[i].kind) {
		case CLAB_TOK_TERM: st[sp++] = terms[tok[i].value]; break;
		case CLAB_TOK_CONST: st[sp++] = tok[i].value; break;
		default:
			b = st[--sp];
			if (tok[i].kind == CLAB_TOK_ADD) st[sp - 1] += b;
			else if (tok[i].kind == CLAB_TOK_SUB) st[sp - 1] -= b;
			else if (tok[i].kind == CLAB_TOK_MUL) st[sp - 1] *= b;
			else st[sp - 1] = b ? st[sp - 1] / b : 0;
		}
	}
	return st[0];
}

/* ---- preset files ------------------------------------------------------ */

/* One preset per line: name,kind,terms,postfix,description
 * kind: direct | add | sub | postfix; terms: space-separated event names
 * (qualifiers allowed); postfix only for kind postfix. '#' starts a comment. */
static int parse_preset_line(clab_component *c, char *line, const char *where,
			     clab_preset *p)
{
	char *field[5];
	int nf = 0;
	for (char *s = line; nf < 5; nf++) {
		field[nf] = s;
		char *comma = nf < 4 ? strchr(s, ',') : NULL;
		if (!comma) {
			nf++;
			break;
		}
		*comma = 0;
		s = comma + 1;
	}
	if (nf != 5)
		return clab_seterr(CLAB_E_PROFILE,
				   "%s: want name,kind,terms,postfix,description",
				   where);
	static const struct { const char *kind; enum clab_derived d; } kinds[] = {
		{"direct", CLAB_NOT_DERIVED}, {"add", CLAB_DERIVED_ADD},
		{"sub", CLAB_DERIVED_SUB}, {"postfix", CLAB_DERIVED_POSTFIX},
	};
	int k;
	for (k = 0; k < 4; k++)
		if (strcmp(field[1], kinds[k].kind) == 0)
			break;
	if (k == 4)
		return clab_seterr(CLAB_E_PROFILE,
				   "%s: kind '%s' (use direct, add, sub or postfix)",
				   where, field[1]);
	if (!field[0][0] || find_preset(c, field[0]) >= 0 ||
	    find_native(c, field[0], strlen(field[0])) >= 0)
		return clab_seterr(CLAB_E_PROFILE,
				   "%s: preset name '%s' is empty or taken", where,
				   field[0]);
	memset(p, 0, sizeof *p);
	p->derived = kinds[k].d;
	char *save = NULL;
	for (char *t = strtok_r(field[2], " ", &save); t;
	     t = strtok_r(NULL, " ", &save)) {
		if (p->nterms == CLAB_MAX_TERMS)
			return clab_seterr(CLAB_E_PROFILE, "%s: too many terms", where);
		uint32_t code;
		if (clab_event_lookup(c, t, &code) || clab_catalog_preset(c, code))
			return clab_seterr(CLAB_E_PROFILE,
					   "%s: term '%s' is not a native event of %s (%s)",
					   where, t, c->name, clab_errmsg());
		p->terms[p->nterms++] = code;
	}
	if (p->nterms == 0 || (p->derived == CLAB_NOT_DERIVED && p->nterms != 1) ||
	    ((p->derived == CLAB_DERIVED_ADD || p->derived == CLAB_DERIVED_SUB) &&
	     p->nterms < 2))
		return clab_seterr(CLAB_E_PROFILE, "%s: %d terms do not fit kind %s",
				   where, p->nterms, field[1]);
	if (p->derived == CLAB_DERIVED_POSTFIX) {
		if (clab_postfix_compile(field[3], p->nterms, p->tok, &p->ntok))
			return clab_seterr(CLAB_E_PROFILE, "%s: %s", where, clab_errmsg());
	} else if (field[3][0]) {
		return clab_seterr(CLAB_E_PROFILE, "%s: a postfix needs kind postfix",
				   where);
	}
	p->name = strdup(field[0]);
	p->postfix = p->derived == CLAB_DERIVED_POSTFIX ? strdup(field[3]) : NULL;
	p->descr = strdup(field[4]);
	return CLAB_OK;
}

int clab_catalog_load_presets(clab_component *c, const char *path)
{
	FILE *f = clab_data_open(path, CLAB_E_PROFILE, "presets");
	if (!f)
		return CLAB_E_PROFILE;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = CLAB_OK;
	while (!rc && getline(&line, &cap, f) > 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (line[0] == '#' || line[0] == 0)
			continue;
		if (lineno == 1 || strncmp(line, "name,", 5) == 0)
			continue; /* header */
		clab_preset *np = realloc(c->presets, (size_t)(c->npreset + 1) * sizeof *np);
		if (!np) {
			rc = CLAB_E_NOMEM;
			break;
		}
		c->presets = np;
		char where[512];
		snprintf(where, sizeof where, "%s:%d", path, lineno);
		rc = parse_preset_line(c, line, where, &c->presets[c->npreset]);
		if (!rc)
			c->npreset++;
	}
	free(line);
	fclose(f);
	return rc;
}

/* ---- PAPI's preset table ---------------------------------------------------- */

/* Splits a line of papi_events.csv at commas (no quoting but NOTE's, which
 * comes last and is dropped). */
static int split_csv(char *line, char **f, int max)
{
	int n = 0;
	for (char *s = line; s && n < max;) {
		f[n++] = s;
		s = strchr(s, ',');
		if (s)
			*s++ = 0;
	}
	return n;
}

static int unit_has_pmu(const clab_component *c, const char *pmu)
{
	for (int i = 0; c->desc.pmus && c->desc.pmus[i]; i++)
		if (strcmp(c->desc.pmus[i], pmu) == 0 && strcmp(pmu, "perf") != 0)
			return 1;
	return 0;
}

static const struct { const char *papi; const char *ours; } papi_kinds[] = {
	{"NOT_DERIVED", "direct"}, {"DERIVED_ADD", "add"}, {"DERIVED_SUB", "sub"},
	{"DERIVED_POSTFIX", "postfix"},
};

/* One PRESET line of PMU `pmu`'s section, in our preset format: terms
 * without a PMU are the section's PMU's ("EVENT:UMASK" -> "pmu::EVENT:UMASK"). */
static int papi_preset_line(clab_component *c, const char *pmu, char **f, int nf,
			    const char *where)
{
	int k = -1;
	for (int i = 0; i < 4; i++)
		if (strcmp(f[2], papi_kinds[i].papi) == 0)
			k = i;
	if (k < 0)
		return clab_seterr(CLAB_E_PROFILE, "%s: kind '%s' is not PAPI's", where, f[2]);
	int first = k == 3 ? 4 : 3; /* a postfix formula comes before its terms */
	char terms[1024] = "", line[2048];
	for (int i = first; i < nf && strcmp(f[i], "NOTE") != 0; i++)
		snprintf(terms + strlen(terms), sizeof terms - strlen(terms), "%s%s%s%s",
			 terms[0] ? " " : "", strstr(f[i], "::") ? "" : pmu,
			 strstr(f[i], "::") ? "" : "::", f[i]);
	/* PAPI writes N0|N1|+| and also N0|N1|+ */
	char postfix[256] = "";
	if (k == 3) {
		snprintf(postfix, sizeof postfix, "%s", nf > 3 ? f[3] : "");
		size_t l = strlen(postfix);
		if (l && postfix[l - 1] != '|' && l + 1 < sizeof postfix)
			strcat(postfix, "|");
	}
	snprintf(line, sizeof line, "%s,%s,%s,%s,PAPI preset from papi_events.csv (%s)",
		 f[1], papi_kinds[k].ours, terms, postfix, pmu);
	clab_preset *np = realloc(c->presets, (size_t)(c->npreset + 1) * sizeof *np);
	if (!np)
		return CLAB_E_NOMEM;
	c->presets = np;
	int rc = parse_preset_line(c, line, where, &c->presets[c->npreset]);
	if (!rc)
		c->npreset++;
	return rc;
}

int clab_catalog_load_papi_events(clab_component *c, const char *path)
{
	char pmus[256] = "";
	for (int i = 0; c->desc.pmus && c->desc.pmus[i]; i++)
		if (unit_has_pmu(c, c->desc.pmus[i]))
			snprintf(pmus + strlen(pmus), sizeof pmus - strlen(pmus), "%s%s",
				 pmus[0] ? ", " : "", c->desc.pmus[i]);
	if (!pmus[0]) {
		c->presets_note = strdup("no PAPI presets: no hardware PMU (PAPI's table has none for software events)");
		return c->presets_note ? CLAB_OK : CLAB_E_NOMEM;
	}
	FILE *f = clab_data_open(path, CLAB_E_PROFILE, "PAPI's preset table");
	if (!f) { /* the unit still counts: say why it has no presets */
		char note[512];
		snprintf(note, sizeof note,
			 "no PAPI presets: %s (set COUNTERLAB_PAPI_EVENTS to PAPI's papi_events.csv)",
			 clab_errmsg());
		c->presets_note = strdup(note);
		return c->presets_note ? CLAB_OK : CLAB_E_NOMEM;
	}
	char *line = NULL, *fld[24], cur[24][64], last_skip[160] = "";
	size_t cap = 0;
	int lineno = 0, ncur = 0, in_cpu = 0, mine = 0, loaded = 0, skipped = 0, sections = 0;
	int rc = CLAB_OK;
	while (!rc && getline(&line, &cap, f) > 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		int nf = split_csv(line, fld, 24);
		if (strcmp(fld[0], "CPU") == 0 && nf >= 2) {
			/* consecutive CPU lines name the PMUs of one section */
			if (!in_cpu)
				ncur = 0;
			in_cpu = 1;
			if (ncur < 24)
				snprintf(cur[ncur++], sizeof cur[0], "%s", fld[1]);
			continue;
		}
		if (in_cpu) {
			in_cpu = 0;
			mine = -1;
			for (int i = 0; i < ncur && mine < 0; i++)
				if (unit_has_pmu(c, cur[i]))
					mine = i;
			sections += mine >= 0;
		}
		if (mine < 0 || strcmp(fld[0], "PRESET") != 0 || nf < 4)
			continue;
		char where[512];
		snprintf(where, sizeof where, "%s:%d", path, lineno);
		int prc = papi_preset_line(c, cur[mine], fld, nf, where);
		if (prc == CLAB_E_NOMEM)
			rc = prc;
		else if (prc) { /* a term the unit does not list, or a repeat */
			skipped++;
			snprintf(last_skip, sizeof last_skip, "%s", clab_errmsg());
		} else {
			loaded++;
		}
	}
	free(line);
	fclose(f);
	if (rc)
		return rc;
	char note[512];
	if (!sections)
		snprintf(note, sizeof note, "no PAPI presets: %s has no section for PMU %s", path, pmus);
	else
		snprintf(note, sizeof note,
			 "PAPI presets of PMU %s from %s: %d loaded, %d skipped%s%s", pmus, path,
			 loaded, skipped, skipped ? " (last: " : "", skipped ? last_skip : "");
	if (skipped && strlen(note) + 2 < sizeof note)
		strcat(note, ")");
	c->presets_note = strdup(note);
	return c->presets_note ? CLAB_OK : CLAB_E_NOMEM;
}

void clab_catalog_free(clab_component *c)
{
	free(c->presets_note);
	for (int i = 0; i < c->npreset; i++) {
		free(c->presets[i].name);
		free(c->presets[i].descr);
		free(c->presets[i].postfix);
	}
	free(c->presets);
	for (int i = 0; i < c->nqual; i++)
		free(c->qual[i].name);
	free(c->qual);
}

void clab_component_get_info(const clab_component *c, clab_component_info *i)
{
	i->name = c->name;
	i->description = c->description;
	i->backend = c->ops->name;
	i->rules = c->desc.rules ? c->desc.rules : "";
	i->ncounters = c->desc.ncounters;
	i->width = c->desc.width;
	i->scope = c->desc.scope;
	i->overflow = c->desc.overflow;
	i->overflow_latency = c->desc.overflow_latency;
	i->can_multiplex = c->desc.can_multiplex;
	i->contexts = c->desc.contexts;
	i->default_context = c->desc.contexts && c->desc.default_context ? c->desc.default_context
									 : CLAB_CTX_ALL;
	i->self_multiplex = c->desc.self_multiplex;
	i->clock_mhz = c->desc.clock_mhz;
	i->nnative = c->desc.nnative;
	i->npreset = c->npreset;
	i->note = c->desc.note ? c->desc.note : "";
	i->presets_note = c->presets_note ? c->presets_note : "";
	i->pmus = c->desc.pmus;
}

const char *clab_component_disabled(const clab_component *c)
{
	return c->disabled;
}

clab_machine *clab_component_machine(const clab_component *c)
{
	return c->machine;
}
