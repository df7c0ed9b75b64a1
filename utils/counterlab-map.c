/* counterlab-map: writes rank map files for the torus model (see --help).
 *
 * A map file has one line per rank, in rank order: the coordinates of the
 * rank's node, then its slot on the node ("a b c d e t" on BG/Q, "x y z t"
 * on BG/L), the format clab_map_init reads. Each kind of map is a
 * generator that fills a clab_map; every map is checked to put each rank
 * on a distinct slot of the torus before anything is written.
 *
 * The generators are plain functions so that tests/unit/test_map.c can
 * include this file with COUNTERLAB_MAP_NO_MAIN defined. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "counterlab/torus.h"

#define MAX_KEYS 8
#define NITEMS (CLAB_TORUS_MAXD + 1)   /* torus dimensions and the slot */

/* The key=value arguments of a kind, split in place in buf. */
typedef struct kvlist {
	int n;
	const char *spec;          /* the whole KIND:key=value,... */
	const char *key[MAX_KEYS], *val[MAX_KEYS];
	char *buf;                 /* a copy of spec, split in place */
} kvlist;

typedef int (*gen_fn)(clab_map *m, const clab_torus *t, const kvlist *kv);

typedef struct kind {
	const char *name, *keys, *usage, *help;
	gen_fn gen;
} kind;

/* Size of item i: a torus dimension, or (i == ndims) the slots of a node. */
static int item_size(const clab_torus *t, int i)
{
	return i < t->ndims ? t->size[i] : t->ppn;
}

static uint32_t total_ranks(const clab_torus *t)
{
	return t->nodes * (uint32_t)t->ppn;
}

/* "4x4x4x4x2" (a mesh dimension with its m), into buf. */

static void map_put(clab_map *m, const clab_torus *t, uint32_t r, const int *c)
{
	m->node[r] = clab_torus_node(t, c);
	m->slot[r] = (uint16_t)c[t->ndims];
}

/* ---- values of keys ------------------------------------------------------ */

static const char *kv_get(const kvlist *kv, const char *key)
{
	for (int i = 0; i < kv->n; i++)
		if (!strcmp(kv->key[i], key))
			return kv->val[i];
	return NULL;
}

/* *out = the whole number under key in lo..hi, or def when it is absent. */
static int kv_uint(const kvlist *kv, const char *key, uint64_t lo, uint64_t hi,
		   uint64_t def, uint64_t *out)
{
	const char *v = kv_get(kv, key), *end = "";
	uint64_t x = def;
	if (v && (!clab_read_u64(v, 1, &x, &end) || *end || x < lo || x > hi))
		return clab_seterr(CLAB_E_INVAL, "%s: %s=%s: want a whole number %llu..%llu",
				   kv->spec, key, v, (unsigned long long)lo, (unsigned long long)hi);
	*out = x;
	return CLAB_OK;
}

/* Items named by letters (dimensions, and the slot's letter when
 * with_slot) into item[]: each once; returns how many or -1 (message set). */
static int letters_items(const clab_torus *t, const kvlist *kv, const char *key,
			 const char *v, int with_slot, int *item)
{
	const char *L = t->letters;
	int n = 0, max = t->ndims + (with_slot ? 1 : 0);
	unsigned seen = 0;
	for (const char *p = v; *p; p++) {
		const char *at = strchr(L, toupper((unsigned char)*p));
		int i = at ? (int)(at - L) : -1;
		if (i < 0 || i >= max || (seen >> i & 1) || n == max) {
			clab_seterr(CLAB_E_INVAL, "%s: %s=%s: want letters of %.*s, each at most once",
				    kv->spec, key, v, max, L);
			return -1;
		}
		seen |= 1u << i;
		item[n++] = i;
	}
	if (!n)
		clab_seterr(CLAB_E_INVAL, "%s: %s= is empty", kv->spec, key);
	return n ? n : -1;
}

/* ---- the reflected walk --------------------------------------------------
 * A walk visits every combination of some items (dimensions or the slot),
 * listed slowest first, in a mixed-radix reflected Gray code: a digit runs
 * backwards whenever the index of the slower digits is odd (a snake, or
 * boustrophedon), so consecutive indices differ by one in a single item. */
typedef struct walk {
	int n, item[NITEMS], size[NITEMS];
} walk;

static void walk_add(walk *w, const clab_torus *t, int item)
{
	w->item[w->n] = item;
	w->size[w->n++] = item_size(t, item);
}

static void walk_place(const walk *w, uint32_t i, int *c)
{
	for (int k = w->n - 1; k >= 0; k--) {
		uint32_t s = (uint32_t)w->size[k], raw = i % s;
		i /= s;  /* now the index of the slower digits */
		c[w->item[k]] = (int)(i & 1 ? s - 1 - raw : raw);
	}
}

/* ---- the kinds ----------------------------------------------------------- */

static int gen_perm(clab_map *m, const clab_torus *t, const kvlist *kv)
{
	const char *order = kv_get(kv, "order");
	if (!order)
		order = t->letters;
	/* clab_map_init takes anything but letters for a file name: check here */
	const char *L = t->letters;
	int ok = (int)strlen(order) == t->ndims + 1;
	for (int i = 0; ok && order[i]; i++) {
		const char *at = strchr(L, toupper((unsigned char)order[i]));
		ok = at && *at && !strchr(order + i + 1, *at) && !strchr(order + i + 1, tolower(*at));
	}
	if (!ok)
		return clab_seterr(CLAB_E_INVAL, "perm:%s: want a permutation of %s (each letter once, %s on %s), e.g. perm:%s",
				   order, L, clab_netspec_convention(t->spec), t->spec->name, L);
	return clab_map_init(m, t, order);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* log2 of x when x is a power of two, else -1. */
static int log2_of(uint64_t x)
{
	int b = 0;
	while (x > 1 && !(x & 1))
		x >>= 1, b++;
	return x == 1 ? b : -1;
}

/* The binary-reflected Gray-code embedding over address bits: every item
 * (dimension or slot) of size 2^k is a k-bit Gray-code word, its
 * coordinate that word's rank in the reflected code. The row's Gray code
 * fills the rows' bits, the column's the others, both most significant
 * first in letter order, an item's high bits first. rowbits= names the
 * rows' bits, a letter per bit, each item giving its lowest bits; by
 * default the shortest items give theirs first (on a ring of 4 or less
 * every one-bit change is a neighbour: splitting it costs nothing). With
 * whole items for the rows this is gen_gray's snake. */
static int gray_bits(clab_map *m, const clab_torus *t, const kvlist *kv,
		     uint64_t rows, uint64_t cols, const char *rb)
{
	uint32_t p = total_ranks(t);
	int n = t->ndims + 1, k[NITEMS], nrow[NITEMS] = {0}, need = log2_of(rows), all = 0;
	for (int i = 0; i < n; i++) {
		if ((k[i] = log2_of((uint64_t)item_size(t, i))) < 0)
			return clab_seterr(CLAB_E_INVAL, "%s: a Gray code over address bits needs sizes that are powers of two; %c has %d",
					   kv->spec, t->letters[i], item_size(t, i));
		all += k[i];
	}
	if (need < 0 || rows * cols != p)
		return clab_seterr(CLAB_E_INVAL, "%s: rows and cols must be powers of two with R*C = %u ranks (%d address bits)",
				   kv->spec, p, all);
	if (rb) {
		int got = 0;
		for (const char *c = rb; *c; c++, got++) {
			const char *at = strchr(t->letters, toupper((unsigned char)*c));
			int i = at && *at ? (int)(at - t->letters) : -1;
			if (i < 0 || i >= n || ++nrow[i] > k[i]) {
				char has[8 * NITEMS] = "";
				for (int j = 0, len = 0; j < n; j++)
					len += snprintf(has + len, sizeof has - (size_t)len, "%s%c %d",
							j ? ", " : "", t->letters[j], k[j]);
				return clab_seterr(CLAB_E_INVAL, "%s: rowbits=%s: want letters of %.*s, each at most as often as its item has bits (%s)",
						   kv->spec, rb, n, t->letters, has);
			}
		}
		if (got != need)
			return clab_seterr(CLAB_E_INVAL, "%s: rowbits=%s names %d bits; %llu rows take %d",
					   kv->spec, rb, got, (unsigned long long)rows, need);
	} else {
		for (int left = need; left > 0;) {
			int best = -1;
			for (int i = 0; i < n; i++)
				if (nrow[i] < k[i] && (best < 0 || k[i] < k[best]))
					best = i;
			nrow[best]++, left--;
		}
	}
	int rc = clab_map_alloc(m, p);
	if (rc)
		return rc;
	for (uint32_t r = 0; r < p; r++) {
		uint64_t row = r / cols, col = r % cols, gr = row ^ row >> 1, gc = col ^ col >> 1;
		int rbit = need, cbit = all - need, c[NITEMS];
		for (int i = 0; i < n; i++) {
			uint32_t w = 0;
			for (int b = k[i] - 1; b >= 0; b--) /* its bits below nrow[i] are the row's */
				w |= (uint32_t)(b < nrow[i] ? gr >> --rbit & 1 : gc >> --cbit & 1) << b;
			for (uint32_t s = w >> 1; s; s >>= 1) /* the word's rank in the code */
				w ^= s;
			c[i] = (int)w;
		}
		map_put(m, t, r, c);
	}
	return CLAB_OK;
}

static int gen_gray(clab_map *m, const clab_torus *t, const kvlist *kv)
{
	uint32_t p = total_ranks(t);
	uint64_t rows = 0, cols = 0;
	int rc = kv_uint(kv, "rows", 1, p, 0, &rows);
	if (!rc)
		rc = kv_uint(kv, "cols", 1, p, 0, &cols);
	if (rc)
		return rc;
	const char *rd = kv_get(kv, "rowdims"), *rb = kv_get(kv, "rowbits");
	int forced = -1;
	if (rd && rb)
		return clab_seterr(CLAB_E_INVAL, "%s: rowdims= (whole items) and rowbits= (address bits) both choose the rows; give one",
				   kv->spec);
	if (rb) {
		if (!rows && !cols)
			rows = (uint64_t)1 << strlen(rb);
		if (!rows)
			rows = p % cols ? 0 : p / cols;
		if (!cols)
			cols = p % rows ? 0 : p / rows;
		return gray_bits(m, t, kv, rows, cols, rb);
	}
	if (rd) {
		/* the rows are these items: their sizes multiply to the rows */
		int item[NITEMS], k = letters_items(t, kv, "rowdims", rd, 1, item);
		if (k < 0)
			return CLAB_E_INVAL;
		uint64_t prod = 1;
		forced = 0;
		for (int i = 0; i < k; i++) {
			forced |= 1 << item[i];
			prod *= (uint64_t)item_size(t, item[i]);
		}
		if ((rows && rows != prod) || (cols && cols * prod != p))
			return clab_seterr(CLAB_E_INVAL, "%s: rowdims=%s make %llu rows of %llu; rows/cols disagree",
					   kv->spec, rd, (unsigned long long)prod,
					   (unsigned long long)(p / prod));
		rows = prod;
		cols = p / prod;
	}
	if (!rows && !cols)
		return clab_seterr(CLAB_E_INVAL, "gray needs rows=R and/or cols=C with R*C = %u ranks, or rowdims=LETTERS", p);
	if (!rows)
		rows = p % cols ? 0 : p / cols;
	if (!cols)
		cols = p % rows ? 0 : p / rows;
	/* the first group of items whose sizes multiply to the rows (the
	 * lowest mask, so the slot tends to go with the columns) */
	int n = t->ndims + 1, nmask = 1 << n, pick = -1;
	uint64_t prod[1 << NITEMS];
	for (int mask = 0; mask < nmask; mask++) {
		prod[mask] = 1;
		for (int i = 0; i < n; i++)
			if (mask >> i & 1)
				prod[mask] *= (uint64_t)item_size(t, i);
		if (pick < 0 && prod[mask] == rows && rows * cols == p &&
		    (forced < 0 || mask == forced))
			pick = mask;
	}
	int pow2 = 1;
	for (int i = 0; i < n; i++)
		pow2 &= log2_of((uint64_t)item_size(t, i)) >= 0;
	if (pick < 0 && forced < 0 && pow2 && rows * cols == p && log2_of(rows) >= 0)
		return gray_bits(m, t, kv, rows, cols, NULL); /* split by address bits */
	if (pick < 0) {
		char works[320] = "";
		size_t len = 0;
		qsort(prod, (size_t)nmask, sizeof *prod, cmp_u64);
		for (int k = 0; k < nmask && len + 24 < sizeof works; k++)
			if (!k || prod[k] != prod[k - 1])
				len += (size_t)snprintf(works + len, sizeof works - len, "%s%llux%llu",
							k ? ", " : "", (unsigned long long)prod[k],
							(unsigned long long)(p / prod[k]));
		return clab_seterr(CLAB_E_INVAL, "%s: %s; R x C that work on this torus: %s%s",
				   kv->spec, rows * cols != p ? "rows x cols must be all the ranks"
				   : "no group of the dimensions (and the slot) has that many rows", works,
				   pow2 && forced < 0 ? "; by address bits any power of two R" : "");
	}
	walk wr = {0}, wc = {0};
	for (int i = 0; i < n; i++)
		walk_add(pick >> i & 1 ? &wr : &wc, t, i);
	if ((rc = clab_map_alloc(m, p)))
		return rc;
	int c[NITEMS];
	for (uint32_t r = 0; r < p; r++) {
		walk_place(&wr, r / (uint32_t)cols, c);
		walk_place(&wc, r % (uint32_t)cols, c);
		map_put(m, t, r, c);
	}
	return CLAB_OK;
}

/* Unfold maps: one reflected walk over the dimensions in letter order (A
 * slowest) and the slot, which sits last (core-first), first (core-last),
 * or just before the two innermost dimensions (core-planes: a plane of the
 * innermost two dimensions is snaked for slot 0, back for slot 1, ...,
 * before the walk moves on to the next plane). */
static int gen_unfold(clab_map *m, const clab_torus *t, const kvlist *kv)
{
	static const char *const orders[] = {"core-first", "core-last", "core-planes"};
	const char *o = kv_get(kv, "order");
	int v = 0;
	while (o && v < 3 && strcmp(o, orders[v]))
		v++;
	if (v == 3)
		return clab_seterr(CLAB_E_INVAL, "unfold:order=%s: want core-first, core-last or core-planes", o);
	/* the dimensions slowest first: letter order, the axis moved last */
	int dims[CLAB_TORUS_MAXD], nd = 0, axis = -1;
	const char *ax = kv_get(kv, "axis");
	if (ax) {
		int item[NITEMS];
		if (letters_items(t, kv, "axis", ax, 0, item) != 1)
			return clab_seterr(CLAB_E_INVAL, "%s: axis=%s: want one dimension letter of %.*s",
					   kv->spec, ax, t->ndims, t->letters);
		axis = item[0];
	}
	for (int d = 0; d < t->ndims; d++)
		if (d != axis)
			dims[nd++] = d;
	if (axis >= 0)
		dims[nd++] = axis;
	int at = v == 0 ? t->ndims : v == 1 ? 0 : (t->ndims > 2 ? t->ndims - 2 : 0);
	walk w = {0};
	for (int i = 0; i < t->ndims; i++) {
		if (i == at)
			walk_add(&w, t, t->ndims);
		walk_add(&w, t, dims[i]);
	}
	if (at == t->ndims)
		walk_add(&w, t, t->ndims);
	uint32_t p = total_ranks(t);
	int rc = clab_map_alloc(m, p), c[NITEMS];
	for (uint32_t r = 0; !rc && r < p; r++) {
		walk_place(&w, r, c);
		map_put(m, t, r, c);
	}
	return rc;
}

static int gen_block(clab_map *m, const clab_torus *t, const kvlist *kv)
{
	const char *shape = kv_get(kv, "shape");
	char ts[64];
	if (!shape)
		return clab_seterr(CLAB_E_INVAL, "block needs shape=, one size per dimension %.*s dividing the torus %s",
				   t->ndims, t->letters, clab_torus_shape(t, ts, sizeof ts));
	int b[CLAB_TORUS_MAXD];
	const char *p = shape;
	for (int d = 0; d < t->ndims; d++) {
		uint64_t v;
		const char *end;
		if (!clab_read_u64(p, 0, &v, &end) || *end != (d + 1 < t->ndims ? 'x' : '\0'))
			return clab_seterr(CLAB_E_INVAL, "block:shape=%s: want %d sizes joined by x (%.*s), e.g. 2x2x2x2x2 on bgq, 2x2x2 on bgl",
					   shape, t->ndims, t->ndims, t->letters);
		if (v < 1 || v > (uint64_t)t->size[d] || t->size[d] % (int)v)
			return clab_seterr(CLAB_E_INVAL, "block:shape=%s: %c size %llu does not divide the torus size %d",
					   shape, t->letters[d], (unsigned long long)v, t->size[d]);
		b[d] = (int)v;
		p = end + 1;
	}
	/* inside a block, dimensions fastest first: orient= in the machine's
	 * map convention, default the last dimension fastest */
	int fast[CLAB_TORUS_MAXD];
	for (int d = 0; d < t->ndims; d++)
		fast[d] = t->ndims - 1 - d;
	const char *orient = kv_get(kv, "orient");
	if (orient) {
		int item[NITEMS];
		if (letters_items(t, kv, "orient", orient, 0, item) != t->ndims)
			return clab_seterr(CLAB_E_INVAL, "%s: orient=%s: want a permutation of %.*s (%s)",
					   kv->spec, orient, t->ndims, t->letters,
					   clab_netspec_convention(t->spec));
		for (int i = 0; i < t->ndims; i++)
			fast[i] = item[t->spec->leftmost_fastest ? i : t->ndims - 1 - i];
	}
	uint32_t bnodes = 1, nb[CLAB_TORUS_MAXD];   /* nodes per block, blocks per dimension */
	for (int d = 0; d < t->ndims; d++) {
		nb[d] = (uint32_t)(t->size[d] / b[d]);
		bnodes *= (uint32_t)b[d];
	}
	uint32_t np = total_ranks(t);
	int rc = clab_map_alloc(m, np), c[NITEMS];
	for (uint32_t r = 0; !rc && r < np; r++) {
		uint32_t q = r / (uint32_t)t->ppn, in = q % bnodes, blk = q / bnodes;
		for (int d = t->ndims - 1; d >= 0; d--) {
			c[d] = (int)(blk % nb[d]) * b[d];
			blk /= nb[d];
		}
		for (int i = 0; i < t->ndims; i++) {
			int d = fast[i];
			c[d] += (int)(in % (uint32_t)b[d]);
			in /= (uint32_t)b[d];
		}
		c[t->ndims] = (int)(r % (uint32_t)t->ppn);
		map_put(m, t, r, c);
	}
	return rc;
}

/* splitmix64: the same numbers on every platform. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (n >= 1), without modulo bias. */
static uint32_t rng_below(uint64_t *s, uint32_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
	do
		x = rng_next(s);
	while (x >= limit);
	return (uint32_t)(x % n);
}

static int gen_random(clab_map *m, const clab_torus *t, const kvlist *kv)
{
	uint64_t seed;
	int rc = kv_uint(kv, "seed", 0, UINT64_MAX, 1, &seed);
	uint32_t p = total_ranks(t);
	if (rc || (rc = clab_map_alloc(m, p)))
		return rc;
	uint32_t *perm = m->node;   /* slot indices node*ppn+slot, shuffled in place */
	for (uint32_t i = 0; i < p; i++)
		perm[i] = i;
	for (uint32_t i = p - 1; i > 0; i--) {
		uint32_t j = rng_below(&seed, i + 1), x = perm[i];
		perm[i] = perm[j];
		perm[j] = x;
	}
	for (uint32_t r = 0; r < p; r++) {
		m->slot[r] = (uint16_t)(perm[r] % (uint32_t)t->ppn);
		m->node[r] = perm[r] / (uint32_t)t->ppn;
	}
	return CLAB_OK;
}

/* Group g = (block b, column c) holds ranks b*K*S + c + j*S, j = 0..K-1, on
 * slots (g % (ppn/K))*K + j of node g / (ppn/K). */
static int gen_group(clab_map *m, const clab_torus *t, const kvlist *kv)
{
	uint32_t p = total_ranks(t), ppn = (uint32_t)t->ppn;
	uint64_t k, s;
	int rc = kv_uint(kv, "size", 1, ppn, ppn, &k);
	if (!rc)
		rc = kv_uint(kv, "stride", 1, p, 1, &s);
	if (rc)
		return rc;
	if (ppn % k) {
		char divs[200] = "";
		for (uint32_t d = 1, len = 0; d <= ppn && len + 8 < sizeof divs; d++)
			if (ppn % d == 0)
				len += (uint32_t)snprintf(divs + len, sizeof divs - len, " %u", d);
		return clab_seterr(CLAB_E_INVAL, "%s: size must divide the %u ranks per node (one of%s)",
				   kv->spec, ppn, divs);
	}
	if (p % (k * s))
		return clab_seterr(CLAB_E_INVAL, "%s: %u ranks are not whole blocks of size*stride = %llu; the stride must divide %llu",
				   kv->spec, p,
				   (unsigned long long)(k * s), (unsigned long long)(p / k));
	if ((rc = clab_map_alloc(m, p)))
		return rc;
	uint32_t gpn = ppn / (uint32_t)k, span = (uint32_t)(k * s);
	for (uint32_t r = 0; r < p; r++) {
		uint32_t w = r % span, col = w % (uint32_t)s, j = w / (uint32_t)s;
		uint32_t g = r / span * (uint32_t)s + col;
		m->node[r] = g / gpn;
		m->slot[r] = (uint16_t)(g % gpn * (uint32_t)k + j);
	}
	return CLAB_OK;
}

static const kind kinds[] = {
	{"perm", "order", "perm:ORDER",
	 "ranks in the order of a permutation of the letters (bgq, torus, gemini:\n"
	 "    rightmost letter fastest; bgl: leftmost, XYZT puts rank 1 at (1,0,0)),\n"
	 "    exactly as clab_map_init(ORDER); default the machine's ABCDET / XYZT /\n"
	 "    AB..T", gen_perm},
	{"gray", "rows,cols,rowdims,rowbits", "gray:rows=R,cols=C[,rowdims=LETTERS|rowbits=LETTERS]",
	 "an R x C mesh of ranks (rank = row*C + col) embedded by a reflected Gray\n"
	 "    code: the dimensions and the slot are split into two groups of sizes R\n"
	 "    and C, each walked as a snake, so mesh neighbours are torus neighbours;\n"
	 "    rowdims= names the items of the rows (e.g. XY; T is the slot), the\n"
	 "    other items make the columns (default: the first group that fits);\n"
	 "    when no group fits (2 x 64 on 8x4x4), or with rowbits=, the split is\n"
	 "    by address bits (power-of-two sizes): each item's coordinate is a\n"
	 "    Gray-code word, the rows' bits filled by the row's Gray code, the\n"
	 "    others by the column's; rowbits= names the rows' bits, a letter per\n"
	 "    bit, each item giving its lowest (default: the shortest items' first)", gen_gray},
	{"unfold", "order,axis", "unfold:order=core-first|core-last|core-planes[,axis=L]",
	 "ranks snake through the torus (A slowest; each dimension, the slot too,\n"
	 "    runs back on alternate passes), so consecutive ranks are on the same or\n"
	 "    neighbouring nodes; core-first fills a node's slots first, core-last\n"
	 "    walks the torus once per slot, core-planes snakes each plane of the two\n"
	 "    innermost dimensions once per slot before the next plane (default core-first);\n"
	 "    axis=L: the snake runs along dimension L (it varies fastest), the\n"
	 "    others in letter order (default: the last dimension)", gen_unfold},
	{"block", "shape,orient", "block:shape=bAxbBx...[,orient=LETTERS]",
	 "blocks of bA x bB x ... nodes (sizes dividing the torus), blocks in\n"
	 "    letter order (last fastest), slot fastest; inside a block the nodes\n"
	 "    in letter order, or in orient= (a permutation of the dimension\n"
	 "    letters read in the machine's convention)", gen_block},
	{"random", "seed", "random:seed=S",
	 "a random permutation of all slots (splitmix64 + Fisher-Yates; the same\n"
	 "    seed gives the same map on every platform; default seed 1)", gen_random},
	{"group", "size,stride", "group:size=K,stride=S",
	 "ranks c, c+S, ..., c+(K-1)S of each block of K*S ranks together on one\n"
	 "    node (K divides the ranks per node; groups fill nodes in order, last\n"
	 "    letter fastest); 3D-FFT columns: a Pr x Pc grid is size=Pr,stride=Pc\n"
	 "    (default size = ranks per node, stride 1)", gen_group},
};
#define NKINDS (int)(sizeof kinds / sizeof *kinds)

static int key_allowed(const char *keys, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = keys; (p = strstr(p, key)); p++)
		if ((p == keys || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

/* Splits spec's key=value items into kv (kv->buf, a copy of any length);
 * its generator, or NULL with a clab error. */
static const kind *map_parse(const char *spec, kvlist *kv)
{
	kv->spec = spec;
	if (!(kv->buf = strdup(spec))) {
		clab_seterr(CLAB_E_NOMEM, "no memory for map %.40s", spec);
		return NULL;
	}
	char *args = strchr(kv->buf, ':');
	if (args)
		*args++ = '\0';
	const kind *k = NULL;
	for (int i = 0; i < NKINDS; i++)
		if (!strcmp(kinds[i].name, kv->buf))
			k = &kinds[i];
	if (!k) {
		clab_seterr(CLAB_E_INVAL, "unknown map kind \"%.40s\": want perm, gray, unfold, block, random or group (see --help)",
			    kv->buf);
		return NULL;
	}
	if (args && !strcmp(k->name, "perm") && !strchr(args, '=')) {
		kv->key[kv->n] = "order";   /* perm:ORDER */
		kv->val[kv->n++] = args;
		args = NULL;
	}
	for (char *save = NULL, *a = args ? strtok_r(args, ",", &save) : NULL; a;
	     a = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(a, '=');
		if (!eq || eq == a || !eq[1]) {
			clab_seterr(CLAB_E_INVAL, "%s: \"%s\" is not key=value; %s takes %s (as in %s)",
				    spec, a, k->name, k->keys, k->usage);
			return NULL;
		}
		*eq = '\0';
		if (!key_allowed(k->keys, a)) {
			clab_seterr(CLAB_E_INVAL, "%s: unknown key \"%s\"; %s takes %s (as in %s)",
				    spec, a, k->name, k->keys, k->usage);
			return NULL;
		}
		if (kv_get(kv, a) || kv->n == MAX_KEYS) {
			clab_seterr(CLAB_E_INVAL, "%s: key \"%s\" given twice", spec, a);
			return NULL;
		}
		kv->key[kv->n] = a;
		kv->val[kv->n++] = eq + 1;
	}
	return k;
}

/* Fills m from "KIND[:key=value,...]"; a clab error and message otherwise. */
static int map_generate(clab_map *m, const clab_torus *t, const char *spec)
{
	memset(m, 0, sizeof *m);
	kvlist kv = {0};
	const kind *k = map_parse(spec, &kv);
	int rc = k ? k->gen(m, t, &kv) : CLAB_E_INVAL;
	if (!k && !kv.buf)
		rc = CLAB_E_NOMEM;
	free(kv.buf);
	return rc;
}

/* The internal check: every rank once, on distinct slots in range. */
static int map_check(const clab_map *m, const clab_torus *t)
{
	uint32_t p = total_ranks(t);
	if (m->nranks != p)
		return clab_seterr(CLAB_E_MAP, "internal error: the map has %u ranks, the torus %u slots",
				   m->nranks, p);
	uint8_t *used = calloc(p, 1);
	if (!used)
		return clab_seterr(CLAB_E_NOMEM, "no memory to check a map of %u ranks", p);
	int rc = CLAB_OK;
	for (uint32_t r = 0; r < p && !rc; r++) {
		uint32_t s = m->node[r] * (uint32_t)t->ppn + m->slot[r];
		if (m->node[r] >= t->nodes || m->slot[r] >= t->ppn)
			rc = clab_seterr(CLAB_E_MAP, "internal error: rank %u is off the torus (node %u slot %u)",
					 r, m->node[r], m->slot[r]);
		else if (used[s]++)
			rc = clab_seterr(CLAB_E_MAP, "internal error: rank %u is put on node %u slot %u, which is taken",
					 r, m->node[r], m->slot[r]);
	}
	free(used);
	return rc;
}

static int map_write(FILE *f, const clab_map *m, const clab_torus *t, const char *cmdline)
{
	const char *L = t->letters;
	char ts[64];
	fprintf(f, "# generated by: %s\n# %s torus %s, ppn %d, %u ranks (map strings on %s: %s); one line per rank:",
		cmdline, t->spec->name, clab_torus_shape(t, ts, sizeof ts), t->ppn, m->nranks,
		t->spec->name, clab_netspec_convention(t->spec));
	for (int i = 0; L[i]; i++)
		fprintf(f, " %c", L[i] - 'A' + 'a');
	fputc('\n', f);
	int c[NITEMS];
	for (uint32_t r = 0; r < m->nranks; r++) {
		clab_torus_coords(t, m->node[r], c);
		for (int d = 0; d < t->ndims; d++)
			fprintf(f, "%d ", c[d]);
		fprintf(f, "%u\n", m->slot[r]);
	}
	return ferror(f) ? -1 : 0;
}

/* Writes to path (stdout for NULL or "-"), whole or not at all. */
static int map_save(const char *path, const clab_map *m, const clab_torus *t,
		    const char *cmdline)
{
	if (!path || !strcmp(path, "-"))
		return map_write(stdout, m, t, cmdline) || fflush(stdout)
			? clab_seterr(CLAB_E_SYS, "writing to stdout: %s", strerror(errno)) : 0;
	clab_outfile o;
	int rc = clab_outfile_open(&o, path, CLAB_E_SYS, "map file");
	if (rc)
		return rc;
	if (map_write(o.f, m, t, cmdline)) {
		int e = errno;
		clab_outfile_discard(&o);
		return clab_seterr(CLAB_E_SYS, "writing map file %s: %s", path, strerror(e));
	}
	return clab_outfile_commit(&o, CLAB_E_SYS, "map file");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: counterlab-map --machine bgq|bgl|torus|gemini [--torus SHAPE] [--ppn N] KIND[:key=value,...] [-o FILE]\n"
		"Writes a rank map file for the torus model: one line per rank, in rank\n"
		"order, \"a b c d e t\" (bgq), \"x y z t\" (bgl, gemini) or one number per\n"
		"dimension (torus): node coordinates, then the slot on the node. Read it\n"
		"with --map FILE (clab_map_init).\n\n"
		"  --machine bgq|bgl|torus|gemini\n"
		"                      the machine (default bgq)\n"
		"  --torus SHAPE       torus shape (default bgq 4x4x4x4x2, bgl 8x4x4,\n"
		"                      torus 8x8x8 of 1..6 dimensions, gemini 4x4x4)\n"
		"  --ppn N             ranks per node (default bgq 16, bgl 1, torus 1,\n"
		"                      gemini 32)\n"
		"  --ranks N           keep ranks 0..N-1 only: a map for fewer ranks than\n"
		"                      slots (e.g. 121 ranks on 128 BG/L nodes)\n"
		"  -o, --output FILE   write FILE (whole or not at all); default stdout\n"
		"  -h, --help\n\nMap strings: permutations of ABCDET (bgq), XYZT (bgl, gemini) or AB..T\n"
		"(torus); bgl reads the leftmost letter fastest, the others the rightmost.\n"
		"Kinds (all fill every slot: nodes x ppn ranks; then --ranks keeps the first N):\n");
	for (int i = 0; i < NKINDS; i++)
		fprintf(f, "  %s\n    %s\n", kinds[i].usage, kinds[i].help);
	fprintf(f, "\nExit status: 0 written, 2 bad input or write error (no file written),\n"
		"3 internal error (a generated map failed its check).\n");
}

static int fail(void)
{
	fprintf(stderr, "counterlab-map: %s\n", clab_errmsg());
	return 2;
}

/* The whole program; returns the exit status. */
static int map_tool(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"machine", 1, 0, 'm'}, {"torus", 1, 0, 't'}, {"ppn", 1, 0, 'n'},
		{"output", 1, 0, 'o'}, {"help", 0, 0, 'h'}, {"ranks", 1, 0, 'r'},
		{0, 0, 0, 0},
	};
	char cmdline[1024] = "";
	size_t len = 0;
	for (int i = 0; i < argc && len < sizeof cmdline; i++)
		len += (size_t)snprintf(cmdline + len, sizeof cmdline - len,
					strpbrk(argv[i], " \t\"'") ? "%s'%s'" : "%s%s", i ? " " : "", argv[i]);
	const char *machine = "bgq", *shape = NULL, *out = NULL;
	int ppn = -1, c;
	long ranks = 0;
	clab_seterr(CLAB_OK, "%s", "");
	optind = 0;   /* glibc: start afresh (the tests call this more than once) */
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': machine = optarg; break;
		case 't': shape = optarg; break;
		case 'o': out = optarg; break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 1024) {
				fprintf(stderr, "counterlab-map: --ppn %s: want a whole number of ranks per node, 1..1024\n", optarg);
				return 2;
			}
			ppn = (int)v;
			break;
		}
		case 'r': {
			char *end;
			errno = 0;
			ranks = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || ranks < 1) {
				fprintf(stderr, "counterlab-map: --ranks %s: want a whole number of ranks, at least 1\n", optarg);
				return 2;
			}
			break;
		}
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "counterlab-map: see --help for the options\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "counterlab-map: give exactly one map KIND[:key=value,...] (got %d; see --help)\n",
			argc - optind);
		return 2;
	}
	const clab_netspec *spec = clab_netspec_find(machine);
	if (!spec) {
		fprintf(stderr, "counterlab-map: --machine %s: known machines are", machine);
		for (const char *const *n = clab_netspec_names(); *n; n++)
			fprintf(stderr, " %s", *n);
		fputc('\n', stderr);
		return 2;
	}
	clab_torus t;
	if (clab_torus_init(&t, spec, shape, ppn < 0 ? spec->ppn : ppn, NULL))
		return fail();
	clab_map m;
	if (map_generate(&m, &t, argv[optind]))
		return fail();
	int rc = 0;
	if (map_check(&m, &t)) {
		rc = fail(), rc = 3;
	} else if (ranks > (long)m.nranks) {
		fprintf(stderr, "counterlab-map: --ranks %ld: the torus has only %u slots\n", ranks, m.nranks);
		rc = 2;
	} else {
		if (ranks)
			m.nranks = (uint32_t)ranks;  /* the first N ranks of the map */
		if (map_save(out, &m, &t, cmdline))
			rc = fail();
	}
	clab_map_free(&m);
	return rc;
}

#ifndef COUNTERLAB_MAP_NO_MAIN
int main(int argc, char **argv)
{
	return map_tool(argc, argv);
}
#endif
