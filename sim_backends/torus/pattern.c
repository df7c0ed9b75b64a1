/* Traffic patterns: "NAME:key=value,..." turned into phases of messages
 * on a clab_net. Ranks are the map's ranks 0..nranks-1. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pattern.h"


typedef struct pattern {
	const char *name;
	const char *keys; /* accepted keys, space-separated */
	const char *help;
	int (*run)(clab_net *n, pattern_args *a);
	const char *bare; /* a bare first item is this key's value
			   * ("perm:bitcomp" is perm:of=bitcomp), or NULL */
} pattern;

const char *pattern_find(pattern_args *a, const char *key)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->key[i], key))
			return a->val[i];
	return NULL;
}

int pattern_u64(pattern_args *a, const char *key, uint64_t def, uint64_t min,
		   uint64_t max, uint64_t *out)
{
	const char *v = pattern_find(a, key);
	if (!v) {
		*out = def;
		return CLAB_OK;
	}
	uint64_t x = 0;
	const char *end = v;
	int ok = clab_read_u64(v, 0, &x, &end);
	int shift = *end == 'k' || *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
	end += shift != 0;
	if (!ok || *end || (x << shift) >> shift != x ||
	    (x << shift) < min || (x << shift) > max)
		return clab_seterr(CLAB_E_PATTERN,
				   "%s: %s=%s: want a whole number %llu..%llu (k, M, G allowed)",
				   a->pattern, key, v, (unsigned long long)min,
				   (unsigned long long)max);
	*out = x << shift;
	return CLAB_OK;
}

int pattern_grid(pattern_args *a, const char *key, int k, uint32_t nranks, uint32_t *g)
{
	const char *v = pattern_find(a, key);
	if (!v) {
		uint32_t left = nranks;
		for (int i = 0; i < k; i++) {
			uint32_t best = 1;
			for (uint32_t f = 1; (uint64_t)f * f <= left; f++) {
				/* the largest factor not above left^(1/(k-i)) */
				uint64_t p = 1;
				for (int j = i; j < k; j++)
					p *= f;
				if (p <= left && left % f == 0)
					best = f;
			}
			g[k - 1 - i] = i == k - 1 ? left : best;
			left /= g[k - 1 - i];
		}
		return CLAB_OK;
	}
	const char *p = v;
	uint64_t prod = 1;
	for (int i = 0; i < k; i++) {
		uint64_t x;
		const char *end;
		if (!clab_read_u64(p, 0, &x, &end) || x < 1 || x > nranks ||
		    *end != (i + 1 < k ? 'x' : '\0'))
			return clab_seterr(CLAB_E_PATTERN, "%s: %s=%s: want %d sizes joined by x, e.g. %s",
					   a->pattern, key, v, k, k == 2 ? "16x512" : "4x4x8");
		g[i] = (uint32_t)x;
		prod *= x;
		p = end + 1;
	}
	if (prod != nranks)
		return clab_seterr(CLAB_E_PATTERN, "%s: %s=%s has %llu ranks; the map places %u",
				   a->pattern, key, v, (unsigned long long)prod, nranks);
	return CLAB_OK;
}


/* Every group of `size` ranks spaced `stride` apart (which tile the ranks)
 * does an all-to-all of `bytes` per pair. */
static int alltoall_groups(clab_net *n, const char *who, uint32_t size,
			   uint32_t stride, uint64_t bytes)
{
	uint32_t P = clab_net_nranks(n);
	if (!size || (uint64_t)size * stride > P || P % (size * stride))
		return clab_seterr(CLAB_E_PATTERN,
				   "%s: groups of %u ranks %u apart do not tile the %u ranks",
				   who, size, stride, P);
	uint32_t *r = malloc((size_t)size * sizeof *r);
	if (!r)
		return clab_seterr(CLAB_E_NOMEM, "no memory for a group of %u ranks", size);
	int rc = CLAB_OK;
	for (uint32_t block = 0; block < P && !rc; block += size * stride)
		for (uint32_t off = 0; off < stride && !rc; off++) {
			for (uint32_t i = 0; i < size; i++)
				r[i] = block + off + i * stride;
			rc = clab_net_alltoall(n, r, size, bytes, CLAB_VC_MPI);
		}
	free(r);
	return rc;
}

/* ---- the patterns -------------------------------------------------------- */

/* rank a sends to rank b, and b answers when `answer` */
static int run_pair(clab_net *n, pattern_args *a, int answer)
{
	uint64_t x, y, bytes, iters;
	uint32_t P = clab_net_nranks(n);
	int rc = pattern_u64(a, "a", 0, 0, P - 1, &x);
	if (!rc) rc = pattern_u64(a, "b", P > 1, 0, P - 1, &y);
	if (!rc) rc = pattern_u64(a, "bytes", 8, 0, 1ull << 40, &bytes);
	if (!rc) rc = pattern_u64(a, "iters", 1, 1, 1ull << 40, &iters);
	if (!rc && x == y)
		rc = clab_seterr(CLAB_E_PATTERN, "%s: a and b are both rank %llu: the message needs two ranks",
				 a->pattern, (unsigned long long)x);
	if (!rc) rc = clab_net_send(n, (uint32_t)x, (uint32_t)y, bytes, 1, CLAB_VC_MPI);
	if (!rc) rc = clab_net_phase_end(n, iters, NULL);
	if (!rc && answer) rc = clab_net_send(n, (uint32_t)y, (uint32_t)x, bytes, 1, CLAB_VC_MPI);
	if (!rc && answer) rc = clab_net_phase_end(n, iters, NULL);
	return rc;
}

static int run_pingpong(clab_net *n, pattern_args *a) { return run_pair(n, a, 1); }

/* One way only, as the published sonar test sends its message. */
static int run_oneway(clab_net *n, pattern_args *a) { return run_pair(n, a, 0); }

static int run_alltoall(clab_net *n, pattern_args *a)
{
	uint64_t bytes, size, stride, iters;
	uint32_t P = clab_net_nranks(n);
	int rc = pattern_u64(a, "bytes", 1024, 0, 1ull << 40, &bytes);
	if (!rc) rc = pattern_u64(a, "group", P, 1, P, &size);
	if (!rc) rc = pattern_u64(a, "stride", 1, 1, P, &stride);
	if (!rc) rc = pattern_u64(a, "iters", 1, 1, 1ull << 40, &iters);
	if (!rc) rc = alltoall_groups(n, a->pattern, (uint32_t)size, (uint32_t)stride, bytes);
	if (!rc) rc = clab_net_phase_end(n, iters, NULL);
	return rc;
}

/* A compute-only phase of every rank: a kernel of `flops` making one pass
 * of `pass` bytes, and `copies` more passes with no flops (local
 * transposes), run one after another. */
static int compute_phase(clab_net *n, const char *label, double flops, double pass, int copies)
{
	clab_net_label(n, label);
	int rc = clab_net_compute(n, flops, pass);
	for (int i = 0; i < copies && !rc; i++)
		rc = clab_net_compute(n, 0, pass);
	return rc ? rc : clab_net_phase_end(n, 1, NULL);
}

static int run_fft3d(clab_net *n, pattern_args *a)
{
	uint64_t side, nx, ny, nz, elem, phase, compute;
	uint32_t P = clab_net_nranks(n), g[2];
	const char *ph = pattern_find(a, "phase");
	int rc = pattern_u64(a, "n", 512, 1, 1u << 20, &side);
	if (!rc) rc = pattern_u64(a, "nx", side, 1, 1u << 20, &nx);
	if (!rc) rc = pattern_u64(a, "ny", side, 1, 1u << 20, &ny);
	if (!rc) rc = pattern_u64(a, "nz", side, 1, 1u << 20, &nz);
	if (!rc) rc = pattern_u64(a, "elem", 16, 1, 1024, &elem);
	if (!rc) rc = pattern_u64(a, "compute", 1, 0, 1, &compute);
	if (!rc) rc = pattern_grid(a, "grid", 2, P, g);
	if (rc)
		return rc;
	if (!ph || !strcmp(ph, "all"))
		phase = 3;
	else if (!strcmp(ph, "1") || !strcmp(ph, "2"))
		phase = (uint64_t)(*ph - '0');
	else
		return clab_seterr(CLAB_E_PATTERN, "%s: phase=%s: want 1, 2 or all", a->pattern, ph);
	/* the pencils: x is split over the Pc ranks of a grid row, z over the
	 * Pr of a column, y over Pr before phase 1 and over Pc after phase 2;
	 * a rank holds at least one point of each (uneven splits are
	 * modelled by their average share) */
	const struct { const char *key, *group; uint64_t size; uint32_t parts; } split[] = {
		{"nx", "row", nx, g[1]}, {"ny", "column", ny, g[0]},
		{"ny", "row", ny, g[1]}, {"nz", "column", nz, g[0]},
	};
	for (int i = 0; i < 4; i++)
		if (split[i].size < split[i].parts)
			return clab_seterr(CLAB_E_PATTERN,
					   "%s: %s=%llu is split over the %u ranks of a grid %s (grid %ux%u): less than one point per rank; want %s >= %u (a larger n or another grid)",
					   a->pattern, split[i].key, (unsigned long long)split[i].size,
					   split[i].parts, split[i].group, g[0], g[1], split[i].key,
					   split[i].parts);
	/* each rank holds 1/P of the cube and sends 1/Pr (1/Pc) of it to each
	 * member of its column (row) group */
	double cells = (double)nx * (double)ny * (double)nz / P, per_rank = cells * (double)elem;
	/* a 1D FFT of length L: 5 L log2 L flops (the usual count) per line,
	 * one pass over the data in and out; packing for an all-to-all (and
	 * unpacking after it) is one more pass, a local transpose: a copy
	 * with no flops, done before or after the FFTs, not during them */
	double pass = 2 * per_rank;
	if (!rc && compute && (phase & 1))
		rc = compute_phase(n, "fft3d: z FFTs + pack", 5 * cells * log2((double)nz), pass, 1);
	if (!rc && (phase & 1)) {
		clab_net_label(n, "fft3d: all-to-all in columns");
		rc = alltoall_groups(n, "fft3d phase 1 (grid columns)", g[0], g[1],
				     (uint64_t)(per_rank / g[0] + 0.999999));
		if (!rc) rc = clab_net_phase_end(n, 1, NULL);
	}
	if (!rc && compute && (phase & 2))
		rc = compute_phase(n, "fft3d: unpack + y FFTs + pack", 5 * cells * log2((double)ny),
				   pass, 2);
	if (!rc && (phase & 2)) {
		clab_net_label(n, "fft3d: all-to-all in rows");
		rc = alltoall_groups(n, "fft3d phase 2 (grid rows)", g[1], 1,
				     (uint64_t)(per_rank / g[1] + 0.999999));
		if (!rc) rc = clab_net_phase_end(n, 1, NULL);
	}
	if (!rc && compute && (phase & 2))
		rc = compute_phase(n, "fft3d: unpack + x FFTs", 5 * cells * log2((double)nx), pass, 1);
	return rc;
}

/* Neighbour of grid position c (x fastest) shifted by s in each dimension,
 * or -1 past a non-periodic edge. */
static int64_t grid_rank(const uint32_t *g, const int *c, const int *s, int periodic)
{
	int64_t r = 0;
	for (int d = 2; d >= 0; d--) {
		int x = c[d] + s[d];
		if (x < 0 || x >= (int)g[d]) {
			if (!periodic)
				return -1;
			x = (x + (int)g[d]) % (int)g[d];
		}
		r = r * g[d] + x;
	}
	return r;
}

static int run_halo3d(clab_net *n, pattern_args *a)
{
	uint64_t side, l[3], stencil, elem, vars, periodic, steps;
	uint32_t P = clab_net_nranks(n), g[3];
	int rc = pattern_u64(a, "n", 64, 1, 1u << 16, &side);
	if (!rc) rc = pattern_u64(a, "nx", side, 1, 1u << 16, &l[0]);
	if (!rc) rc = pattern_u64(a, "ny", side, 1, 1u << 16, &l[1]);
	if (!rc) rc = pattern_u64(a, "nz", side, 1, 1u << 16, &l[2]);
	if (!rc) rc = pattern_u64(a, "stencil", 7, 7, 27, &stencil);
	if (!rc) rc = pattern_u64(a, "elem", 8, 1, 1024, &elem);
	if (!rc) rc = pattern_u64(a, "vars", 1, 1, 1024, &vars);
	if (!rc) rc = pattern_u64(a, "periodic", 0, 0, 1, &periodic);
	if (!rc) rc = pattern_u64(a, "steps", 1, 1, 1ull << 40, &steps);
	if (!rc) rc = pattern_grid(a, "grid", 3, P, g);
	if (rc)
		return rc;
	if (stencil != 7 && stencil != 27)
		return clab_seterr(CLAB_E_PATTERN, "%s: stencil=%llu: want 7 or 27",
				   a->pattern, (unsigned long long)stencil);
	for (uint32_t r = 0; r < P && !rc; r++) {
		int c[3] = {(int)(r % g[0]), (int)(r / g[0] % g[1]), (int)(r / g[0] / g[1])};
		for (int s = 0; s < 27 && !rc; s++) {
			int sh[3] = {s % 3 - 1, s / 3 % 3 - 1, s / 9 - 1};
			int moved = !!sh[0] + !!sh[1] + !!sh[2];
			if (!moved || (stencil == 7 && moved > 1))
				continue;
			/* a face, edge or corner: the extent of the dimensions not moved in */
			uint64_t cells = 1;
			for (int d = 0; d < 3; d++)
				cells *= sh[d] ? 1 : l[d];
			int64_t to = grid_rank(g, c, sh, (int)periodic);
			if (to >= 0 && (uint32_t)to != r)
				rc = clab_net_send(n, r, (uint32_t)to, cells * elem * vars, 1, CLAB_VC_MPI);
		}
	}
	if (!rc) rc = clab_net_phase_end(n, steps, NULL);
	return rc;
}

/* A binomial tree: in round k the ranks that have the data (relative to
 * the root, below 2^k) send it 2^k further. */
static int run_bcast(clab_net *n, pattern_args *a)
{
	uint64_t root, bytes, iters;
	uint32_t P = clab_net_nranks(n);
	int rc = pattern_u64(a, "root", 0, 0, P - 1, &root);
	if (!rc) rc = pattern_u64(a, "bytes", 1024, 0, 1ull << 40, &bytes);
	if (!rc) rc = pattern_u64(a, "iters", 1, 1, 1ull << 40, &iters);
	for (uint64_t span = 1; !rc && span < P; span *= 2) {
		for (uint64_t rel = 0; rel < span && rel + span < P && !rc; rel++)
			rc = clab_net_send(n, (uint32_t)((rel + root) % P),
					   (uint32_t)((rel + span + root) % P), bytes, 1, CLAB_VC_MPI);
		if (!rc) rc = clab_net_phase_end(n, iters, NULL);
	}
	return rc;
}

/* The BG/L receiver-congestion microbenchmark: the neighbours of the
 * centre's node across its links 0, 1, ... (X-, X+, Y-, ...) each send it
 * `bytes` at once; with send=1 the centre sends as much back to each, with
 * dests=J to the neighbours across its first J links whatever the
 * senders. A range lo..hi of senders runs one phase per count. */
static int run_incast(clab_net *n, pattern_args *a)
{
	const clab_torus *t = clab_net_torus(n);
	uint32_t P = clab_net_nranks(n), most = 2 * (uint32_t)t->ndims;
	uint64_t center, bytes, send, dests, iters, lo = 1, hi = 1;
	const char *v = pattern_find(a, "senders");
	if (v) {
		char *end;
		unsigned long x = strtoul(v, &end, 10), y = x;
		if (end != v && end[0] == '.' && end[1] == '.') {
			const char *b = end + 2;
			y = strtoul(b, &end, 10);
			if (end == b)
				y = 0;
		}
		if (end == v || *end || !isdigit((unsigned char)*v) || x < 1 || y < x || y > most)
			return clab_seterr(CLAB_E_PATTERN,
					   "%s: senders=%s: want a count or a range LO..HI within 1..%u (the centre's links)",
					   a->pattern, v, most);
		lo = x, hi = y;
	}
	int rc = pattern_u64(a, "center", 0, 0, P - 1, &center);
	if (!rc) rc = pattern_u64(a, "bytes", 1u << 20, 0, 1ull << 40, &bytes);
	if (!rc) rc = pattern_u64(a, "send", 0, 0, 1, &send);
	if (!rc) rc = pattern_u64(a, "dests", 0, 0, most, &dests);
	if (!rc) rc = pattern_u64(a, "iters", 1, 1, 1ull << 40, &iters);
	if (rc)
		return rc;
	if (send && pattern_find(a, "dests"))
		return clab_seterr(CLAB_E_PATTERN,
				   "%s: send=1 (back to every sender) and dests= (to the first J links) both say where the centre sends; give one",
				   a->pattern);
	/* the neighbours, each a distinct node holding a rank */
	uint32_t home = clab_net_node_of(n, (uint32_t)center), nb[2 * CLAB_TORUS_MAXD];
	uint32_t far = hi > dests ? (uint32_t)hi : (uint32_t)dests;
	for (uint32_t i = 0; i < far; i++) {
		uint32_t y = clab_torus_neighbor(t, home, (int)i);
		int64_t r = clab_net_rank_at(n, y);
		for (uint32_t j = 0; j < i && r >= 0; j++)
			if (clab_net_node_of(n, nb[j]) == y)
				r = -1;
		if (y == home || r < 0)
			return clab_seterr(CLAB_E_PATTERN,
					   "%s: the node across link %u of rank %llu's node is %s; %llu senders need that many distinct neighbour nodes holding ranks",
					   a->pattern, i, (unsigned long long)center,
					   y == home ? "itself (a mesh edge)" : "taken or empty",
					   (unsigned long long)far);
		nb[i] = (uint32_t)r;
	}
	for (uint64_t k = lo; k <= hi && !rc; k++) {
		char label[64];
		char to[32] = "";
		if (dests)
			snprintf(to, sizeof to, ", centre sending to %u", (unsigned)dests);
		snprintf(label, sizeof label, "incast: %llu sender%s%s", (unsigned long long)k,
			 k > 1 ? "s" : "", send ? ", centre sending" : to);
		clab_net_label(n, label);
		for (uint32_t i = 0; i < k && !rc; i++) {
			rc = clab_net_send(n, nb[i], (uint32_t)center, bytes, 1, CLAB_VC_MPI);
			if (!rc && send)
				rc = clab_net_send(n, (uint32_t)center, nb[i], bytes, 1, CLAB_VC_MPI);
		}
		for (uint32_t i = 0; i < dests && !rc; i++)
			rc = clab_net_send(n, (uint32_t)center, nb[i], bytes, 1, CLAB_VC_MPI);
		if (!rc) rc = clab_net_phase_end(n, iters, NULL);
	}
	return rc;
}


/* ---- permutations -------------------------------------------------------- */

/* log2 of x when x is a power of two, else -1. */
static int log2_exact(uint32_t x)
{
	int b = 0;
	if (!x)
		return -1;
	for (; !(x & 1); x >>= 1)
		b++;
	return x == 1 ? b : -1;
}

/* Reads a permutation file: one destination rank per line (line i: the
 * destination of rank i; blank lines and '#' comments skipped), each of
 * 0..P-1 exactly once. */
static int perm_file(const char *path, uint32_t P, uint32_t *dst)
{
	FILE *f = clab_data_open(path, CLAB_E_PATTERN, "permutation file");
	if (!f)
		return CLAB_E_PATTERN;
	uint8_t *seen = calloc(P, 1);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint32_t r = 0;
	int rc = seen ? CLAB_OK : clab_seterr(CLAB_E_NOMEM, "no memory for %u ranks", P);
	for (int lineno = 1; !rc && (len = getline(&line, &cap, f)) >= 0; lineno++) {
		if (memchr(line, '\0', (size_t)len)) {
			rc = clab_seterr(CLAB_E_PATTERN, "%s:%d: a NUL byte; a permutation file is text, one destination rank per line",
					 path, lineno);
			break;
		}
		char *h = strchr(line, '#'), *p = line, *end;
		if (h)
			*h = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			continue;
		errno = 0;
		unsigned long long v = strtoull(p, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		if (!isdigit((unsigned char)*p) || *end || errno)
			rc = clab_seterr(CLAB_E_PATTERN, "%s:%d: want one whole number (the destination of rank %u)",
					 path, lineno, r);
		else if (r == P)
			rc = clab_seterr(CLAB_E_PATTERN, "%s:%d: more lines than the %u ranks", path, lineno, P);
		else if (v >= P)
			rc = clab_seterr(CLAB_E_PATTERN, "%s:%d: rank %llu does not exist (0..%u)",
					 path, lineno, v, P - 1);
		else if (seen[v])
			rc = clab_seterr(CLAB_E_PATTERN, "%s:%d: rank %llu is a destination twice: not a permutation",
					 path, lineno, v);
		else {
			seen[v] = 1;
			dst[r++] = (uint32_t)v;
		}
	}
	if (!rc && ferror(f))
		rc = clab_seterr(CLAB_E_PATTERN, "permutation file %s: read error", path);
	if (!rc && r != P)
		rc = clab_seterr(CLAB_E_PATTERN, "permutation file %s gives %u destinations; the map places %u ranks",
				 path, r, P);
	free(line);
	free(seen);
	fclose(f);
	return rc;
}

/* dst[r] = the rank on the node whose coordinates are r's node's moved by
 * `by` (per dimension, modulo the ring), in r's slot. */
static int perm_coords(clab_net *n, pattern_args *a, int tornado, uint32_t *dst)
{
	const clab_torus *t = clab_net_torus(n);
	const clab_map *m = clab_net_map(n);
	size_t slots = (size_t)t->nodes * (size_t)t->ppn;
	int64_t *at = malloc(slots * sizeof *at);
	if (!at)
		return clab_seterr(CLAB_E_NOMEM, "no memory for %zu slots", slots);
	for (size_t i = 0; i < slots; i++)
		at[i] = -1;
	for (uint32_t r = 0; r < m->nranks; r++)
		at[(size_t)m->node[r] * (size_t)t->ppn + m->slot[r]] = r;
	int rc = CLAB_OK;
	for (uint32_t r = 0; r < m->nranks && !rc; r++) {
		int c[CLAB_TORUS_MAXD];
		clab_torus_coords(t, m->node[r], c);
		for (int d = 0; d < t->ndims; d++) /* tornado: ceil(k/2) - 1 round */
			c[d] = (c[d] + (tornado ? (t->size[d] + 1) / 2 - 1 : 1)) % t->size[d];
		int64_t to = at[(size_t)clab_torus_node(t, c) * (size_t)t->ppn + m->slot[r]];
		if (to < 0)
			rc = clab_seterr(CLAB_E_PATTERN, "%s: rank %u's destination slot holds no rank (use a map that fills the torus)",
					 a->pattern, r);
		dst[r] = (uint32_t)to;
	}
	free(at);
	return rc;
}

/* The next number of the splitmix64 sequence of seed (reproducible
 * draws for the random patterns). */
static uint64_t splitmix64(uint64_t *seed)
{
	uint64_t z = (*seed += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int run_uniform(clab_net *n, pattern_args *a)
{
	uint32_t P = clab_net_nranks(n);
	uint64_t bytes, msgs, seed, iters, hot;
	int rc = pattern_u64(a, "bytes", 512, 0, 1ull << 40, &bytes);
	if (!rc) rc = pattern_u64(a, "msgs", P > 1 ? P - 1 : 1, 1, 1u << 24, &msgs);
	if (!rc) rc = pattern_u64(a, "seed", 1, 0, UINT64_MAX, &seed);
	if (!rc) rc = pattern_u64(a, "iters", 1, 1, 1ull << 40, &iters);
	if (!rc) rc = pattern_u64(a, "hot", 0, 0, P, &hot);
	if (!rc && P < 2)
		rc = clab_seterr(CLAB_E_PATTERN, "%s: needs at least 2 ranks", a->pattern);
	if (!rc && (uint64_t)P * msgs > 1u << 24) /* each is a flow of its own */
		rc = clab_seterr(CLAB_E_PATTERN, "%s: %u ranks x %llu messages is more than 2^24 messages",
				 a->pattern, P, (unsigned long long)msgs);
	/* hot=H: destinations are the H ranks i P / H (BookSim2's hotspot
	 * traffic); a hot rank draws among the others */
	for (uint32_t r = 0; r < P && !rc; r++) {
		uint64_t me = hot ? ((uint64_t)r * hot + P - 1) / P : r; /* r's hot index, if hot */
		int is_hot = !hot || (me < hot && me * P / hot == r);
		uint64_t among = (hot ? hot : P) - is_hot;
		for (uint64_t i = 0; i < msgs && among && !rc; i++) {
			uint64_t d = splitmix64(&seed) % among; /* any but r */
			d += is_hot && d >= me;
			rc = clab_net_send(n, r, (uint32_t)(hot ? d * P / hot : d), bytes, 1, CLAB_VC_MPI);
		}
	}
	return rc ? rc : clab_net_phase_end(n, iters, NULL);
}

static int run_perm(clab_net *n, pattern_args *a)
{
	uint32_t P = clab_net_nranks(n);
	uint64_t bytes, iters, k, seed;
	const char *of = pattern_find(a, "of"), *file = pattern_find(a, "file");
	int rc = pattern_u64(a, "bytes", 1024, 0, 1ull << 40, &bytes);
	if (!rc) rc = pattern_u64(a, "iters", 1, 1, 1ull << 40, &iters);
	if (!rc) rc = pattern_u64(a, "k", 1, 0, P ? P - 1 : 0, &k);
	if (!rc) rc = pattern_u64(a, "seed", 1, 0, UINT64_MAX, &seed);
	if (rc)
		return rc;
	if (!of)
		of = file ? "file" : "";
	if (!strcmp(of, "file") != !!file)
		return clab_seterr(CLAB_E_PATTERN, "%s: a permutation file is perm:file=PATH (and file= goes only with it)",
				   a->pattern);
	if (pattern_find(a, "k") && strcmp(of, "shift"))
		return clab_seterr(CLAB_E_PATTERN, "%s: k= goes only with perm:shift", a->pattern);
	if (pattern_find(a, "seed") && strcmp(of, "random"))
		return clab_seterr(CLAB_E_PATTERN, "%s: seed= goes only with perm:random", a->pattern);
	uint32_t *dst = malloc((size_t)P * sizeof *dst + 1);
	if (!dst)
		return clab_seterr(CLAB_E_NOMEM, "no memory for a permutation of %u ranks", P);
	int b = log2_exact(P);
	if (!strcmp(of, "bitcomp") || !strcmp(of, "transpose") || !strcmp(of, "shuffle")) {
		if (b < 0 || (of[0] == 't' && b % 2))
			rc = clab_seterr(CLAB_E_PATTERN, "%s: %s needs a power of two of ranks%s; the map places %u",
					 a->pattern, of, of[0] == 't' ? " with an even exponent" : "", P);
		for (uint32_t r = 0; r < P && !rc; r++)
			dst[r] = of[0] == 'b' ? ~r & (P - 1)
				: of[0] == 't' ? ((r << (b / 2)) | (r >> (b / 2))) & (P - 1)
				: ((r << 1) | (r >> (b - 1))) & (P - 1);
	} else if (!strcmp(of, "tornado") || !strcmp(of, "neighbor")) {
		rc = perm_coords(n, a, of[0] == 't', dst);
	} else if (!strcmp(of, "shift")) {
		for (uint32_t r = 0; r < P; r++)
			dst[r] = (uint32_t)((r + k) % P);
	} else if (!strcmp(of, "random")) { /* Fisher-Yates */
		for (uint32_t r = 0; r < P; r++)
			dst[r] = r;
		for (uint32_t r = P; r > 1; r--) {
			uint32_t j = (uint32_t)(splitmix64(&seed) % r), x = dst[r - 1];
			dst[r - 1] = dst[j];
			dst[j] = x;
		}
	} else if (!strcmp(of, "file")) {
		rc = perm_file(file, P, dst);
	} else {
		rc = clab_seterr(CLAB_E_PATTERN, "%s: of=%s: want bitcomp, transpose, shuffle, tornado, neighbor, shift (k=), random (seed=) or file=PATH",
				 a->pattern, of);
	}
	for (uint32_t r = 0; r < P && !rc; r++)
		if (dst[r] != r) /* a rank its own destination sends nothing */
			rc = clab_net_send(n, r, dst[r], bytes, 1, CLAB_VC_MPI);
	free(dst);
	return rc ? rc : clab_net_phase_end(n, iters, NULL);
}

static const pattern patterns[] = {
	{"pingpong", "a b bytes iters",
	 "rank a sends `bytes` to rank b and b answers, iters times (a=0,b=1,bytes=8)",
	 run_pingpong, NULL},
	{"oneway", "a b bytes iters",
	 "rank a sends `bytes` to rank b, iters times, with no answer (a=0,b=1,bytes=8)",
	 run_oneway, NULL},
	{"alltoall", "bytes group stride iters",
	 "all-to-all of `bytes` per pair in groups of `group` ranks `stride` apart (default: all ranks, stride 1)",
	 run_alltoall, NULL},
	{"fft3d", "n nx ny nz elem grid phase compute",
	 "2D-decomposed 3D FFT of an n^3 (or nx*ny*nz) cube of elem-byte elements (16, double complex) on grid=PrxPc, rank = r*Pc + c; phase 1: z FFTs and packing, all-to-all in grid columns (Pr ranks c, c+Pc, ...), phase 2: y FFTs, all-to-all in grid rows (Pc ranks), x FFTs; phase=1|2|all; compute=0 leaves out the FFTs and local transposes; each rank holds a point of every pencil (nx >= Pc, ny >= Pr and Pc, nz >= Pr)",
	 run_fft3d, NULL},
	{"halo3d", "n nx ny nz stencil elem vars periodic grid steps",
	 "halo exchange of a 3D stencil (7: faces, 27: faces, edges, corners) with local blocks n^3 (nx,ny,nz) of elem-byte values x vars, rank grid=PxxPyxPz (x fastest), periodic=0|1, steps time steps",
	 run_halo3d, NULL},
	{"bcast", "root bytes iters",
	 "broadcast of `bytes` from root along a binomial tree of point-to-point messages, one phase per round",
	 run_bcast, NULL},
	{"incast", "senders bytes send dests center iters",
	 "receiver congestion: the neighbours of rank center's node (across links 0, 1, ...: X-, X+, Y-, ...) each send it `bytes` at once, and with send=1 it sends as much back, with dests=J as much to the neighbours across its first J links; senders=K or LO..HI (one phase per count; default 1, bytes 1M, send 0, dests 0, center 0)",
	 run_incast, NULL},
	{"perm", "of k seed file bytes iters",
	 "every rank r sends `bytes` to perm(r) at once: perm:bitcomp (~r), transpose (swap the halves of r's bits), shuffle (rotate r's bits left), tornado (each torus coordinate + ceil(k/2)-1), neighbor (each coordinate + 1), shift (r + k), random (seed=), or file=PATH (line i: rank i's destination); the bit patterns need a power of two of ranks",
	 run_perm, "of"},
	{"uniform", "bytes msgs seed hot iters",
	 "uniform random traffic: every rank sends msgs messages of `bytes` (default 512, and as many as it has peers), each to a rank drawn at random from the others (seed=), in the order drawn, all at once; hot=H draws among the H hot-spot ranks i*P/H only",
	 run_uniform, NULL},
	{"bt", "class iters",
	 "NAS BT (class A, B, C): multi-partition face exchange and x, y, z solve pipelines on a square number of ranks",
	 pattern_nas_bt, NULL},
	{"cg", "class iters",
	 "NAS CG (class A, B, C): row reductions and transpose exchanges on a 2D grid, a power of two of ranks",
	 pattern_nas_cg, NULL},
	{"mg", "class iters",
	 "NAS MG (class A, B, C): face exchanges on every level of the V-cycle, 3D grid, a power of two of ranks",
	 pattern_nas_mg, NULL},
};
#define NPATTERNS (int)(sizeof patterns / sizeof *patterns)

const char *clab_net_pattern_help(void)
{
	static char buf[8192];
	if (!buf[0]) {
		size_t o = 0;
		for (int i = 0; i < NPATTERNS; i++)
			o += (size_t)snprintf(buf + o, sizeof buf - o, "  %-9s keys: %s\n            %s\n",
					      patterns[i].name, patterns[i].keys, patterns[i].help);
	}
	return buf;
}

/* key is one of the space-separated words of keys. */
static int key_known(const char *keys, const char *key)
{
	size_t len = strlen(key);
	for (const char *w = keys; *w; w += strcspn(w, " "), w += *w == ' ')
		if (strcspn(w, " ") == len && !strncmp(w, key, len))
			return 1;
	return 0;
}

/* Splits the items after the colon of spec (in args, a copy the values
 * point into: any length) into a. */
static int pattern_parse(const pattern *p, char *args, pattern_args *a)
{
	const char *spec = a->pattern;
	if (!*args)
		return clab_seterr(CLAB_E_PATTERN, "%s: nothing after ':' (drop the ':' or give key=value,...; %s takes: %s)",
				   spec, p->name, p->keys);
	for (char *q = args, *next; q; q = next) {
		next = strchr(q, ',');
		if (next)
			*next++ = '\0';
		char *eq = strchr(q, '=');
		if (!*q)
			return clab_seterr(CLAB_E_PATTERN, "%s: an empty item between commas (use key=value,key=value)",
					   spec);
		if (p->bare && !eq && q == args) {
			a->key[0] = p->bare;
			a->val[0] = q;
			a->n = 1;
			continue;
		}
		if (!eq || eq == q)
			return clab_seterr(CLAB_E_PATTERN, "%s: \"%s\" is not key=value; %s takes: %s",
					   spec, q, p->name, p->keys);
		*eq = '\0';
		if (!key_known(p->keys, q))
			return clab_seterr(CLAB_E_PATTERN, "%s: unknown key \"%s\"; %s takes: %s",
					   spec, q, p->name, p->keys);
		for (int i = 0; i < a->n; i++)
			if (!strcmp(a->key[i], q))
				return clab_seterr(CLAB_E_PATTERN, "%s: key \"%s\" given twice",
						   spec, q);
		if (!eq[1])
			return clab_seterr(CLAB_E_PATTERN, "%s: %s= has no value", spec, q);
		if (a->n == PATTERN_MAX_ARGS) /* known keys, each once: not reached */
			return clab_seterr(CLAB_E_PATTERN, "%s: too many keys", spec);
		a->key[a->n] = q;
		a->val[a->n++] = eq + 1;
	}
	return CLAB_OK;
}

int clab_net_pattern(clab_net *n, const char *spec)
{
	/* messages name the spec, a long one cut short: the rest of a message
	 * (what was wrong, what would work) must fit */
	char shown[96];
	snprintf(shown, sizeof shown, "%.80s%s", spec, strlen(spec) > 80 ? "..." : "");
	pattern_args a = {.pattern = shown};
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const pattern *p = NULL;
	for (int i = 0; i < NPATTERNS; i++)
		if (strlen(patterns[i].name) == len && !strncmp(patterns[i].name, spec, len))
			p = &patterns[i];
	if (!p) {
		char names[256] = "";
		for (int i = 0; i < NPATTERNS; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
				 i ? ", " : "", patterns[i].name);
		return clab_seterr(CLAB_E_PATTERN, "unknown traffic pattern \"%.*s%s\"; known: %s",
				   (int)(len > 80 ? 80 : len), spec, len > 80 ? "..." : "", names);
	}
	char *args = colon ? strdup(colon + 1) : NULL;
	if (colon && !args)
		return clab_seterr(CLAB_E_NOMEM, "no memory for pattern %s", shown);
	int rc = args ? pattern_parse(p, args, &a) : CLAB_OK;
	if (!rc) {
		clab_net_label(n, p->name); /* patterns name their phases more finely */
		rc = p->run(n, &a);
	}
	free(args);
	return rc;
}
