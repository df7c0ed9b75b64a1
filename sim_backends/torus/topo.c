/* Torus topology, dimension-ordered routes and rank maps. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "counterlab/torus.h"

#define MAX_SIZE 1024            /* nodes along one dimension */
#define MAX_NODES (1u << 22)

static int letter_dim(const clab_torus *t, int ch)
{
	const char *p = strchr(t->letters, toupper(ch));
	return ch && p ? (int)(p - t->letters) : -1;
}

/* Dimensions in a shape: its sizes joined by 'x'. */
static int shape_dims(const char *shape)
{
	int k = 1;
	for (const char *p = shape; *p; p++)
		k += *p == 'x';
	return k;
}

int clab_torus_init(clab_torus *t, const clab_netspec *spec,
		    const char *shape, int ppn, const char *order)
{
	memset(t, 0, sizeof *t);
	t->spec = spec;
	const char *p = shape ? shape : spec->shape;
	t->ndims = spec->ndims ? spec->ndims : shape_dims(p);
	if (t->ndims > CLAB_TORUS_MAXD)
		return clab_seterr(CLAB_E_MAP, "torus \"%s\" has %d dimensions; the model takes 1..%d",
				   p, t->ndims, CLAB_TORUS_MAXD);
	/* the generic torus letters its dimensions A, B, ... and the slot T */
	snprintf(t->letters, sizeof t->letters, "%.*s%s", t->ndims, spec->letters,
		 spec->ndims ? spec->letters + spec->ndims : "T");
	uint64_t nodes = 1;
	for (int d = 0; d < t->ndims; d++) {
		uint64_t v;
		const char *end;
		if (!clab_read_u64(p, 0, &v, &end) || v < 1 || v > MAX_SIZE)
			return clab_seterr(CLAB_E_MAP,
					   "torus \"%s\": dimension %c needs a size 1..%d, as in %s",
					   shape, t->letters[d], MAX_SIZE, spec->shape);
		t->size[d] = (int)v;
		t->wrap[d] = *end != 'm';
		end += *end == 'm';
		if (d == spec->fixed_dim && v != (uint64_t)spec->fixed_size)
			return clab_seterr(CLAB_E_MAP,
					   "torus \"%s\": on %s dimension %c is always %d",
					   shape, spec->name, t->letters[d], spec->fixed_size);
		if (*end != 'x' && *end)
			return clab_seterr(CLAB_E_MAP,
					   "torus \"%s\": '%c' after dimension %c's size: sizes are joined by x, a size followed by m is a mesh dimension, as in %s",
					   shape, *end, t->letters[d], spec->shape);
		if (*end != (d + 1 < t->ndims ? 'x' : '\0'))
			return clab_seterr(CLAB_E_MAP,
					   "torus \"%s\": a %s torus has %d dimensions (%.*s), written like %s",
					   shape, spec->name, t->ndims, t->ndims,
					   t->letters, spec->shape);
		p = end + 1;
		nodes *= (uint64_t)v;
	}
	if (nodes > MAX_NODES)
		return clab_seterr(CLAB_E_MAP, "torus \"%s\" has %llu nodes; the model takes at most %u",
				   shape, (unsigned long long)nodes, MAX_NODES);
	if (ppn < 1 || ppn > spec->max_ppn)
		return clab_seterr(CLAB_E_MAP, "%d ranks per node: %s nodes take 1..%d",
				   ppn, spec->name, spec->max_ppn);
	t->nodes = (uint32_t)nodes;
	t->ppn = ppn;
	t->nlinks = 2 * t->ndims + spec->io_link;
	for (int d = t->ndims - 1, s = 1; d >= 0; s *= t->size[d], d--)
		t->stride[d] = (uint32_t)s;
	if (order && *order) {
		unsigned seen = 0;
		for (int i = 0; i < t->ndims; i++) {
			int d = letter_dim(t, order[i]);
			if (d < 0 || d >= t->ndims || (seen & (1u << d)) ||
			    (i + 1 == t->ndims && order[i + 1]))
				return clab_seterr(CLAB_E_MAP,
						   "routing order \"%s\": give each of %.*s once",
						   order, t->ndims, t->letters);
			seen |= 1u << d;
			t->order[i] = d;
		}
	} else { /* longest dimension first; ties in letter order */
		for (int i = 0; i < t->ndims; i++)
			t->order[i] = i;
		for (int i = 1; i < t->ndims; i++)
			for (int j = i; j > 0 && t->size[t->order[j]] > t->size[t->order[j - 1]]; j--) {
				int x = t->order[j];
				t->order[j] = t->order[j - 1];
				t->order[j - 1] = x;
			}
	}
	return CLAB_OK;
}

void clab_torus_coords(const clab_torus *t, uint32_t node, int *c)
{
	for (int d = 0; d < t->ndims; d++)
		c[d] = (int)(node / t->stride[d] % (uint32_t)t->size[d]);
}

uint32_t clab_torus_node(const clab_torus *t, const int *c)
{
	uint32_t n = 0;
	for (int d = 0; d < t->ndims; d++)
		n += (uint32_t)c[d] * t->stride[d];
	return n;
}

int clab_torus_delta(const clab_torus *t, int d, int a, int b, int odd)
{
	int k = b - a, s = t->size[d];
	if (!t->wrap[d])
		return k;
	if (k < 0)
		k += s;
	if (2 * k == s)
		return odd ? -k : k;
	return 2 * k < s ? k : k - s;
}

/* 1 when node n's coordinates sum to an odd number. */
static int node_odd(const clab_torus *t, uint32_t n)
{
	int c[CLAB_TORUS_MAXD], sum = 0;
	clab_torus_coords(t, n, c);
	for (int d = 0; d < t->ndims; d++)
		sum += c[d];
	return sum & 1;
}

int clab_torus_hops(const clab_torus *t, uint32_t a, uint32_t b)
{
	int ca[CLAB_TORUS_MAXD], cb[CLAB_TORUS_MAXD], h = 0;
	clab_torus_coords(t, a, ca);
	clab_torus_coords(t, b, cb);
	for (int d = 0; d < t->ndims; d++)
		h += abs(clab_torus_delta(t, d, ca[d], cb[d], 0));
	return h;
}

uint32_t clab_torus_neighbor(const clab_torus *t, uint32_t n, int link)
{
	if (link < 0 || link >= 2 * t->ndims)
		return n;
	int d = link / 2, c = (int)(n / t->stride[d] % (uint32_t)t->size[d]);
	int to = c + (link & 1 ? 1 : -1);
	if (to < 0 || to >= t->size[d]) {
		if (!t->wrap[d])
			return n;
		to = (to + t->size[d]) % t->size[d];
	}
	return n + (uint32_t)(to - c) * t->stride[d];
}

int clab_torus_route(const clab_torus *t, uint32_t src, uint32_t dst, int rot,
		     void (*fn)(void *arg, uint32_t node, int link), void *arg)
{
	int cs[CLAB_TORUS_MAXD], cd[CLAB_TORUS_MAXD], hops = 0;
	clab_torus_coords(t, src, cs);
	clab_torus_coords(t, dst, cd);
	uint32_t cur = src;
	int odd = node_odd(t, src);
	for (int i = 0; i < t->ndims; i++) {
		int d = t->order[(i + rot) % t->ndims];
		int k = clab_torus_delta(t, d, cs[d], cd[d], odd);
		int link = 2 * d + (k > 0);
		for (int h = 0; h < abs(k); h++, hops++) {
			if (fn)
				fn(arg, cur, link);
			cur = clab_torus_neighbor(t, cur, link);
		}
	}
	return hops;
}

const char *clab_torus_shape(const clab_torus *t, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int d = 0; d < t->ndims && k < len; d++)
		k += (size_t)snprintf(buf + k, len - k, "%s%d%s", d ? "x" : "", t->size[d],
				      t->wrap[d] ? "" : "m");
	return buf;
}

/* ---- rank maps ----------------------------------------------------------- */

static int letters_only(const char *spec)
{
	size_t n = strlen(spec);
	if (!n || n > CLAB_TORUS_MAXD + 1)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalpha((unsigned char)spec[i]))
			return 0;
	return 1;
}

int clab_map_alloc(clab_map *m, uint32_t n)
{
	m->nranks = n;
	m->node = malloc((size_t)n * sizeof *m->node);
	m->slot = malloc((size_t)n * sizeof *m->slot);
	if (!m->node || !m->slot) {
		clab_map_free(m);
		return clab_seterr(CLAB_E_NOMEM, "no memory for a map of %u ranks", n);
	}
	return CLAB_OK;
}

static int map_permutation(clab_map *m, const clab_torus *t, const char *perm)
{
	const clab_netspec *s = t->spec;
	int nl = t->ndims + 1, dim[CLAB_TORUS_MAXD + 1];
	unsigned seen = 0;
	for (int i = 0; i < nl; i++) {
		int d = letter_dim(t, perm[i]);
		if (d < 0 || (seen & (1u << d)) || (i + 1 == nl && perm[i + 1]))
			return clab_seterr(CLAB_E_MAP,
					   "map \"%s\" is neither a permutation of %s (each letter once, the %s on %s) nor a map file",
					   perm, t->letters, clab_netspec_convention(s), s->name);
		seen |= 1u << d;
		dim[i] = d;
	}
	int rc = clab_map_alloc(m, t->nodes * (uint32_t)t->ppn);
	if (rc)
		return rc;
	for (uint32_t r = 0; r < m->nranks; r++) {
		uint32_t q = r, node = 0;
		/* the fastest letter takes the lowest digit of the rank */
		for (int k = 0; k < nl; k++) {
			int d = dim[s->leftmost_fastest ? k : nl - 1 - k];
			uint32_t size = d == t->ndims ? (uint32_t)t->ppn : (uint32_t)t->size[d];
			uint32_t c = q % size;
			q /= size;
			if (d == t->ndims)
				m->slot[r] = (uint16_t)c;
			else
				node += c * t->stride[d];
		}
		m->node[r] = node;
	}
	return CLAB_OK;
}

static int map_file(clab_map *m, const clab_torus *t, const char *path)
{
	FILE *f = clab_data_open(path, CLAB_E_MAP, "map file");
	if (!f)
		return CLAB_E_MAP;
	uint32_t slots = t->nodes * (uint32_t)t->ppn, cap = 1024, n = 0;
	uint8_t *used = calloc(slots, 1);
	int rc = clab_map_alloc(m, cap);
	if (rc || !used) {
		fclose(f);
		free(used);
		return rc ? rc : clab_seterr(CLAB_E_NOMEM, "no memory for map file %s", path);
	}
	char *line = NULL;
	size_t linecap = 0;
	ssize_t len;
	for (int lineno = 1; (len = getline(&line, &linecap, f)) >= 0; lineno++) {
		/* a NUL would end the line early and hide what follows */
		if (memchr(line, '\0', (size_t)len)) {
			rc = clab_seterr(CLAB_E_MAP, "%s:%d: a NUL byte; a map file is text, one line \"%s\" (%d numbers) per rank",
					 path, lineno, t->letters, t->ndims + 1);
			goto out;
		}
		char *h = strchr(line, '#');
		if (h)
			*h = '\0';
		int c[CLAB_TORUS_MAXD + 1], k = 0;
		char *p = line, *end;
		for (;;) {
			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			long v = strtol(p, &end, 10);
			if (end == p || !(isspace((unsigned char)*end) || !*end) || k > t->ndims) {
				rc = clab_seterr(CLAB_E_MAP, "%s:%d: want %d whole numbers (%s coordinates, then the slot on the node)",
						 path, lineno, t->ndims + 1, t->letters);
				goto out;
			}
			int max = k < t->ndims ? t->size[k] : t->ppn;
			/* as written: strtol clamps what it cannot hold to LONG_MAX */
			if (v < 0 || v >= max) {
				rc = clab_seterr(CLAB_E_MAP, "%s:%d: %c = %.*s is outside 0..%d of this torus (%d ranks per node)",
						 path, lineno, t->letters[k], (int)(end - p), p, max - 1, t->ppn);
				goto out;
			}
			c[k++] = (int)v;
			p = end;
		}
		if (!k)
			continue;
		if (k != t->ndims + 1) {
			rc = clab_seterr(CLAB_E_MAP, "%s:%d: %d numbers; a line is \"%s\" coordinates and the slot (%d numbers)",
					 path, lineno, k, t->letters, t->ndims + 1);
			goto out;
		}
		uint32_t node = clab_torus_node(t, c), slot = node * (uint32_t)t->ppn + (uint32_t)c[t->ndims];
		if (used[slot]) {
			rc = clab_seterr(CLAB_E_MAP, "%s:%d: rank %u is given a place another rank already has",
					 path, lineno, n);
			goto out;
		}
		used[slot] = 1;
		if (n == cap) {
			cap *= 2;
			uint32_t *nn = realloc(m->node, cap * sizeof *nn);
			if (nn)
				m->node = nn;
			uint16_t *ns = realloc(m->slot, cap * sizeof *ns);
			if (ns)
				m->slot = ns;
			if (!nn || !ns) {
				rc = clab_seterr(CLAB_E_NOMEM, "no memory for map file %s", path);
				goto out;
			}
		}
		m->node[n] = node;
		m->slot[n++] = (uint16_t)c[t->ndims];
	}
	if (ferror(f))
		rc = clab_seterr(CLAB_E_MAP, "map file %s: read error", path);
	else if (!n)
		rc = clab_seterr(CLAB_E_MAP, "map file %s places no ranks", path);
out:
	free(line);
	fclose(f);
	free(used);
	m->nranks = n;
	if (rc)
		clab_map_free(m);
	return rc;
}

int clab_map_init(clab_map *m, const clab_torus *t, const char *spec)
{
	memset(m, 0, sizeof *m);
	if (!spec || !*spec)
		spec = t->letters;
	return letters_only(spec) ? map_permutation(m, t, spec)
						 : map_file(m, t, spec);
}

void clab_map_free(clab_map *m)
{
	free(m->node);
	free(m->slot);
	m->node = NULL;
	m->slot = NULL;
	m->nranks = 0;
}
