/* The engine behind every Linux unit (see lx.h): a table of natives, each
 * a number in a kernel file; sets read the change since their start. The
 * kernel's counters always count and are shared by everyone, so any number
 * of sets may run at once and nothing is reserved. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lx.h"

#define LX_SET_MAX 64

typedef struct lx_set {
	int n;
	int ev[LX_SET_MAX];
	int cpu[LX_SET_MAX];       /* -1: all CPUs (interrupts) or the starting CPU (MSRs) */
	uint32_t addr[LX_SET_MAX]; /* LX_MSR */
	int width[LX_SET_MAX];
	int run_cpu[LX_SET_MAX];   /* the CPU each request reads, fixed at start */
	uint64_t base[LX_SET_MAX], stopped[LX_SET_MAX];
	pid_t tid;                 /* the thread that started the set */
	pid_t pid;                 /* its process (a forked child's copy reads the parent's) */
	int running, acquired;
	/* the files one read takes in, one after another: sized at start, so
	 * that a read allocates nothing (it may run in a signal handler that
	 * interrupted malloc), unless a file outgrew twice its size then */
	char *text;
	size_t cap, used;          /* used: bytes the last read took in */
} lx_set;

int lx_add(lx_unit *u, const char *name, const char *descr, const char *group,
	   enum clab_scope scope, uint8_t quals, const lx_src *src)
{
	if (u->n == u->cap) {
		int cap = u->cap ? 2 * u->cap : 32;
		clab_native *nn = realloc(u->natives, (size_t)cap * sizeof *nn);
		if (!nn)
			return CLAB_E_NOMEM;
		u->natives = nn;
		lx_src *ns = realloc(u->src, (size_t)cap * sizeof *ns);
		if (!ns)
			return CLAB_E_NOMEM;
		u->src = ns;
		u->cap = cap;
	}
	char *nm = strdup(name), *ds = strdup(descr), *gr = strdup(group);
	char *path = src->path ? strdup(src->path) : NULL;
	char *key = src->key ? strdup(src->key) : NULL;
	if (!nm || !ds || !gr || (src->path && !path) || (src->key && !key)) {
		free(nm), free(ds), free(gr), free(path), free(key);
		return CLAB_E_NOMEM;
	}
	u->natives[u->n] = (clab_native){
		.name = nm, .descr = ds, .group = gr, .hw_id = (uint32_t)u->n,
		.ctr_mask = 0, .scope = (uint8_t)scope, .quals = quals,
	};
	u->src[u->n] = *src;
	u->src[u->n].path = path;
	u->src[u->n].key = key;
	u->n++;
	return CLAB_OK;
}

void lx_dir(clab_machine *m, const char *section, const char *key,
	    const char *env, const char *def, char *out, size_t cap)
{
	char full[256];
	snprintf(full, sizeof full, "%s.%s", section, key);
	const char *v = clab_machine_setting(m, full);
	if (!v || !*v)
		v = env ? getenv(env) : NULL;
	if (!v || !*v)
		v = def;
	snprintf(out, cap, "%s", v);
}

void lx_close(void *unit)
{
	lx_unit *u = unit;
	if (!u)
		return;
	for (int i = 0; i < u->n; i++) {
		free((char *)u->natives[i].name);
		free((char *)u->natives[i].descr);
		free((char *)u->natives[i].group);
		free(u->src[i].path);
		free(u->src[i].key);
	}
	free(u->natives);
	free(u->src);
	free(u->cpu_col);
	free(u->priv);
	free(u);
}

int lx_open(const lx_kind_ops *k, clab_machine *m, const char *section,
	    void **unit, clab_unit_desc *d)
{
	lx_unit *u = calloc(1, sizeof *u);
	if (!u)
		return CLAB_E_NOMEM;
	u->ops = k;
	u->scope = CLAB_SCOPE_NODE;
	int rc = k->discover(u, m, section);
	if (rc) {
		lx_close(u);
		return rc;
	}
	/* no hardware counters to share: a set has LX_SET_MAX slots and any
	 * event takes any of them (request i holds slot i) */
	for (int i = 0; i < u->n; i++)
		u->natives[i].ctr_mask = ~0ull;
	*unit = u;
	*d = (clab_unit_desc){
		.description = u->description,
		.rules = u->rules,
		.ncounters = LX_SET_MAX,
		.width = 64,
		.scope = u->scope,
		.overflow = CLAB_OVF_NONE,
		.natives = u->natives,
		.nnative = u->n,
		.quals = u->quals,
		.nquals = u->nquals,
	};
	return CLAB_OK;
}

int lx_program(void *unit, int hw, const clab_evreq *reqs, int n, int flags,
	       void *replace, void **out)
{
	lx_unit *u = unit;
	lx_set *r = replace;
	(void)hw; /* the simulated hardware thread means nothing to the host */
	(void)flags;
	if (n > LX_SET_MAX)
		return clab_seterr(CLAB_E_CONFLICT, "a set holds at most %d events", LX_SET_MAX);
	if (r && r->acquired)
		return clab_seterr(CLAB_E_STATE, "cannot replan a set that is counting");
	lx_set *s = calloc(1, sizeof *s);
	if (!s)
		return CLAB_E_NOMEM;
	s->n = n;
	for (int i = 0; i < n; i++) {
		const clab_evreq *q = &reqs[i];
		const lx_src *src = &u->src[q->native];
		s->ev[i] = (int)q->native;
		s->cpu[i] = (q->qual_set >> LX_Q_CPU & 1) ? (int)clab_evreq_qual(q, LX_Q_CPU) : -1;
		s->width[i] = src->width;
		if (src->kind == LX_PERCPU && s->cpu[i] >= 0 &&
		    (s->cpu[i] > u->cpu_max || u->cpu_col[s->cpu[i]] < 0)) {
			free(s);
			return clab_seterr(CLAB_E_QUALIFIER,
					   "%s: cpu=%d is not a CPU the kernel lists (offline or absent)",
					   u->natives[q->native].name, (int)clab_evreq_qual(q, LX_Q_CPU));
		}
		if (src->kind == LX_MSR) {
			int given = q->qual_set >> LX_Q_ADDR & 1;
			uint32_t a = src->msr_raw ? (uint32_t)clab_evreq_qual(q, LX_Q_ADDR) : src->msr;
			if (src->msr_raw && !given) {
				free(s);
				return clab_seterr(CLAB_E_QUALIFIER,
						   "%s needs the register as :addr=0xNNN (allowed: %s)",
						   u->natives[q->native].name, clab_lx_msr_allowlist());
			}
			if (!clab_lx_msr_allowed(a, &s->width[i])) {
				free(s);
				return clab_seterr(CLAB_E_QUALIFIER,
						   "MSR %#x is not a counter register this backend may read (allowed: %s)",
						   a, clab_lx_msr_allowlist());
			}
			s->addr[i] = a;
		}
	}
	lx_discard(unit, r);
	*out = s;
	return CLAB_OK;
}

void lx_discard(void *unit, void *set)
{
	(void)unit;
	if (set)
		free(((lx_set *)set)->text);
	free(set);
}

int lx_acquire(void *unit, void *set, void *replace)
{
	(void)unit;
	lx_set *r = replace;
	if (r)
		r->acquired = 0;
	((lx_set *)set)->acquired = 1;
	return CLAB_OK;
}

void lx_release(void *unit, void *set)
{
	(void)unit;
	((lx_set *)set)->acquired = 0;
}


static int path_of(const lx_unit *u, const lx_set *s, const lx_src *src,
		   char *out, size_t cap)
{
	const char *rel = src->path;
	const char *root = u->root;
	if (rel[0] == '@') { /* the unit's second root */
		rel++;
		root = u->alt_root;
	}
	/* a forked child's copy stops with the parent's counts */
	char self[16] = "self";
	if (s->pid && s->pid != getpid())
		snprintf(self, sizeof self, "%d", (int)s->pid);
	if (strncmp(rel, "thread-self/", 12) == 0 && s->tid && s->tid != gettid())
		return snprintf(out, cap, "%s/%s/task/%d/%s", root, self, (int)s->tid, rel + 12)
		       >= (int)cap ? clab_seterr(CLAB_E_SYS, "path too long") : CLAB_OK;
	if (strncmp(rel, "self/", 5) == 0 && strcmp(self, "self"))
		return snprintf(out, cap, "%s/%s/%s", root, self, rel + 5)
		       >= (int)cap ? clab_seterr(CLAB_E_SYS, "path too long") : CLAB_OK;
	if ((size_t)snprintf(out, cap, "%s/%s", root, rel) >= cap)
		return clab_seterr(CLAB_E_SYS, "path under %s too long", root);
	return CLAB_OK;
}

/* Reads path into the set's text from byte *used on, growing the text only
 * when the file does not fit. */
static int take_in(lx_set *s, const char *path, size_t *used)
{
	for (;;) {
		size_t len;
		int rc = s->text ? clab_lx_read_into(path, s->text + *used, s->cap - *used, &len) : 1;
		if (rc == CLAB_OK) {
			*used += len + 1;
			return CLAB_OK;
		}
		if (rc < 0)
			return rc;
		size_t cap = s->cap ? 2 * s->cap : 4096;
		if (cap - *used > LX_FILE_MAX)
			return clab_seterr(CLAB_E_SYS, "%s is larger than %u bytes", path,
					   LX_FILE_MAX - 1);
		char *t = realloc(s->text, cap);
		if (!t)
			return CLAB_E_NOMEM;
		s->text = t;
		s->cap = cap;
	}
}

static int values(lx_unit *u, lx_set *s, uint64_t *v)
{
	/* each file once per call, whoever of the set's requests needs it:
	 * a request's path is its source's relative path under the set's
	 * fixed root, process and thread */
	struct {
		const char *rel;
		size_t at;
	} seen[LX_SET_MAX];
	int nseen = 0, rc = CLAB_OK;
	size_t used = 0;
	char path[1024];
	for (int i = 0; i < s->n && !rc; i++) {
		const lx_src *src = &u->src[s->ev[i]];
		if (src->kind == LX_MSR) {
			rc = clab_lx_msr_read(u->root, s->run_cpu[i], s->addr[i], &v[i]);
			continue;
		}
		int k = 0;
		while (k < nseen && strcmp(seen[k].rel, src->path))
			k++;
		if (k == nseen) {
			rc = path_of(u, s, src, path, sizeof path);
			if (!rc) {
				seen[nseen].rel = src->path;
				seen[nseen++].at = used;
				rc = take_in(s, path, &used);
			}
			if (rc)
				break;
		}
		const char *buf = s->text + seen[k].at;
		switch (src->kind) {
		case LX_KV:
			rc = clab_lx_kv(buf, path, src->key, &v[i]);
			break;
		case LX_FIELD:
			rc = clab_lx_field(buf, path, src->idx, &v[i]);
			break;
		case LX_ROW:
			rc = clab_lx_row(buf, path, src->kcol, src->key, src->idx, src->n, &v[i]);
			break;
		case LX_PERCPU:
			rc = s->cpu[i] < 0
			     ? clab_lx_row(buf, path, src->kcol, src->key, 1, u->ncpu, &v[i])
			     : clab_lx_row(buf, path, src->kcol, src->key, 1 + u->cpu_col[s->cpu[i]], 1, &v[i]);
			break;
		case LX_MSR:
			break;
		}
	}
	s->used = used;
	return rc;
}

static uint64_t delta(uint64_t now, uint64_t base, int width)
{
	uint64_t d = now - base;
	return width > 0 && width < 64 ? d & ((1ull << width) - 1) : d;
}

int lx_start(void *unit, void *set)
{
	lx_unit *u = unit;
	lx_set *s = set;
	if (!s->acquired)
		return clab_seterr(CLAB_E_STATE, "start: the set is not acquired");
	s->tid = gettid();
	s->pid = getpid();
	int here = sched_getcpu();
	for (int i = 0; i < s->n; i++)
		s->run_cpu[i] = s->cpu[i] >= 0 ? s->cpu[i] : here < 0 ? 0 : here;
	int rc = values(u, s, s->base);
	/* room for the files to grow to twice their size before a read must
	 * allocate */
	char *t;
	if (!rc && s->cap < 2 * s->used && (t = realloc(s->text, 2 * s->used))) {
		s->text = t;
		s->cap = 2 * s->used;
	}
	memset(s->stopped, 0, sizeof s->stopped);
	s->running = !rc;
	return rc;
}

int lx_stop(void *unit, void *set)
{
	lx_set *s = set;
	uint64_t v[LX_SET_MAX];
	if (!s->running)
		return CLAB_OK;
	int rc = values(unit, s, v);
	if (rc)
		return rc; /* still running: a later stop may succeed */
	for (int i = 0; i < s->n; i++)
		s->stopped[i] = delta(v[i], s->base[i], s->width[i]);
	s->running = 0;
	return CLAB_OK;
}

int lx_read(void *unit, void *set, uint64_t *vals)
{
	lx_set *s = set;
	if (!s->running) {
		memcpy(vals, s->stopped, (size_t)s->n * sizeof *vals);
		return CLAB_OK;
	}
	uint64_t v[LX_SET_MAX];
	int rc = values(unit, s, v);
	if (rc)
		return rc;
	for (int i = 0; i < s->n; i++)
		vals[i] = delta(v[i], s->base[i], s->width[i]);
	return CLAB_OK;
}

int lx_reset(void *unit, void *set)
{
	lx_set *s = set;
	memset(s->stopped, 0, sizeof s->stopped);
	return s->running ? values(unit, s, s->base) : CLAB_OK;
}

uint64_t lx_counters(void *unit, void *set, int i)
{
	(void)unit;
	lx_set *s = set;
	return i >= 0 && i < s->n ? 1ull << i : 0;
}
