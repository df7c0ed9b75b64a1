/* NAS Parallel Benchmarks as traffic patterns: the point-to-point messages
 * of NPB 3.3's MPI versions of BT, CG and MG, class A, B or C, on the
 * map's P ranks. Sizes are in doubles (8 bytes). One iteration of the
 * benchmark is generated; every phase of it is ended with `times` = the
 * iteration count, which is exact because the iterations are identical.
 * Messages a rank would send to itself are left out, and a phase left
 * empty is not ended (one rank sends nothing and counts no phases). Keys:
 * class=A|B|C (default A), iters= (default: the class's count).
 *
 * BT (P = q^2): the multi-partition of the grid into q^3 cells, q per
 * rank. Per time step, copy_faces (6 face messages per rank, one phase),
 * then the x, y and z solves. Simplified: a solve is a pipeline whose
 * stages are staggered across ranks; here its forward sweep is q-1
 * phases in which every rank sends 30 M^2 to its successor and its back
 * substitution q-1 phases in which every rank sends 5 M^2 to its
 * predecessor (M = N/q + 1, the buffer NPB sends); those q-1 phases are
 * identical, so each sweep is one phase repeated (q-1) x niter times.
 *
 * CG (P = 2^k): an nprows x npcols grid of ranks. Vector reductions are
 * log2(npcols) pairwise exchanges in the rank's row of about na/npcols
 * doubles, followed by one exchange with the transpose partner; scalar
 * reductions take the same steps with 1 or 2 doubles. Remainders of
 * na/npcols are ignored. The 25 identical inner iterations of conj_grad
 * are one pass whose phases repeat 25 x niter times.
 *
 * MG (P = 2^k): a px x py x pz grid of ranks (x fastest). Every comm3
 * exchanges ghost faces with both neighbours along x, then y, then z
 * (one phase per axis). Simplified: NPB lets ranks without points take
 * part in coarse levels (comm1p); here a level where any axis has fewer
 * points than ranks has no communication at all.
 *
 * Computation: each benchmark's operations per iteration and rank,
 * added to the iteration's first phase with the memory traffic of its
 * kernels (the profile's roofline prices the two). BT and MG: the
 * operation count NPB reports its Mop/s with, split evenly over the ranks:
 *   BT  3478.8 n^3 - 17655.7 n^2 + 28023.7 n      (n = grid side)
 *   MG  58 n^3
 * CG: NPB's count, 2 na (3 + z(z+1) + 25 (5 + z(z+1)) + 3) (z = nonzer:
 * 11, 13, 15), counts each vector element once, but a rank runs every
 * vector loop over its whole column block of v = na/npcols elements
 * (the ranks of a grid column hold the same block), and adds the pieces
 * a row reduction brings in. Per rank: the matrix-vector products, 26 x
 * 2 na z(z+1) / P as NPB counts them, and 2 + 25 x 10 + 3 + 5 = 260 v
 * vector flops (r.r; per CG step p.q, z and r updated, r.r, p updated;
 * the residual norm; x.z, z.z and x rescaled) plus 26 log2(npcols) v
 * additions in the 26 vector reductions. On one rank that is NPB's count
 * within a few flops a row; on 128 (class A) the vector work is 11 times
 * NPB's share and the total 37% more.
 * Memory traffic (a count of the arrays the kernels stream, the
 * modeller's estimate: each array touched once per kernel, the stencil
 * neighbours and CG's gathered vector from cache):
 *   CG  12 bytes per nonzero and matrix-vector product (an 8-byte value
 *       and a 4-byte column index; 26 products an iteration, z(z+1)
 *       nonzeros a row as NPB counts them), 12 bytes per vector flop
 *       (an axpy reads two vectors and writes one: 24 bytes, 2 flops),
 *       24 per reduction addition (w = w + q: two read, one written)
 *   MG  per point of a level: resid and psinv 24 bytes (two arrays read,
 *       one written), rprj3 8 (the fine residual read; the coarse one
 *       written counts on its level), interp 16 (the fine correction read
 *       and written) and 8 for the coarse one it reads
 *   BT  not counted: its 5x5 block solves (3478.8 flops a point and
 *       step) are the compute-bound kernel of the three */
#include <ctype.h>
#include <string.h>
#include "pattern.h"

#define DOUBLE 8
#define CG_INNER 25 /* conjugate-gradient steps per outer iteration (cgitmax) */

/* One benchmark being generated: the net and the open phase. */
typedef struct job {
	clab_net *n;
	uint32_t P;
	uint64_t pending; /* messages of the open phase */
	int rc;
	double flops;     /* per rank, for the next phase ended */
	double bytes;     /* memory traffic per rank, with the flops */
} job;

static void msg(job *j, uint32_t src, uint32_t dst, uint64_t doubles)
{
	if (j->rc || src == dst)
		return;
	j->rc = clab_net_send(j->n, src, dst, doubles * DOUBLE, 1, CLAB_VC_MPI);
	j->pending++;
}

/* Ends the open phase as `times` identical phases; an empty one is
 * dropped (it would only count phases that move nothing). */
static void phase(job *j, uint64_t times)
{
	if (!j->rc && j->pending && j->flops > 0) {
		j->rc = clab_net_compute(j->n, j->flops, j->bytes);
		j->flops = j->bytes = 0;
	}
	if (!j->rc && j->pending)
		j->rc = clab_net_phase_end(j->n, times, NULL);
	j->pending = 0;
}

/* class= (A, B or C: 0, 1, 2; A when absent) and iters= (the class's
 * count when absent). */
static int nas_args(pattern_args *a, const char *bench, const uint64_t *niters,
		    int *cls, uint64_t *niter)
{
	const char *v = pattern_find(a, "class");
	if (!v)
		*cls = 0;
	else if (v[0] && !v[1] && strchr("ABCabc", v[0]))
		*cls = toupper((unsigned char)v[0]) - 'A';
	else
		return clab_seterr(CLAB_E_PATTERN, "%s: class=%s: %s comes in classes A, B and C",
				   a->pattern, v, bench);
	return pattern_u64(a, "iters", niters[*cls], 1, 1ull << 32, niter);
}

/* log2(P), or an error for a P that is not a power of two. */
static int power_of_two(pattern_args *a, const char *bench, uint32_t P, int *k)
{
	*k = 0;
	while ((1ull << (*k + 1)) <= P)
		(*k)++;
	if ((1ull << *k) == P)
		return CLAB_OK;
	return clab_seterr(CLAB_E_PATTERN,
			   "%s: the map places %u ranks; %s needs a power of two (%llu or %llu would do)",
			   a->pattern, P, bench, 1ull << *k, 1ull << (*k + 1));
}

/* ---- BT ------------------------------------------------------------------ */

/* The neighbour of rank (i, j) of the q x q grid along axis ax (0 x, 1 y,
 * 2 z) in direction dir (+1 successor, -1 predecessor): x moves i, y
 * moves j, z moves j forward and i back. */
static uint32_t bt_next(long q, long i, long j, int ax, int dir)
{
	long di = ax == 0 ? dir : ax == 2 ? -dir : 0, dj = ax == 0 ? 0 : dir;
	return (uint32_t)((i + di + q) % q + q * ((j + dj + q) % q));
}

int pattern_nas_bt(clab_net *n, pattern_args *a)
{
	static const uint64_t side[3] = {64, 102, 162}, niters[3] = {200, 200, 200};
	int cls;
	uint64_t niter;
	int rc = nas_args(a, "BT", niters, &cls, &niter);
	if (rc)
		return rc;
	uint32_t P = clab_net_nranks(n);
	long q = 0;
	while ((q + 1) * (q + 1) <= (long)P)
		q++;
	if ((uint64_t)(q * q) != P)
		return clab_seterr(CLAB_E_PATTERN,
				   "%s: the map places %u ranks; BT needs a square number (%ld or %ld would do)",
				   a->pattern, P, q * q, (q + 1) * (q + 1));
	if (q == 1)
		return CLAB_OK;
	uint64_t N = side[cls];
	if ((uint64_t)q > N) /* a cell would hold no points */
		return clab_seterr(CLAB_E_PATTERN,
				   "%s: the map places %u ranks, so BT cuts its %llu^3 grid into %ld^3 cells, more cells a side than points; class %c takes at most %llu ranks%s",
				   a->pattern, P, (unsigned long long)N, q, 'A' + cls,
				   (unsigned long long)(N * N), cls < 2 ? ", a larger class more" : "");
	double nn = (double)N;
	job j = {n, P, 0, CLAB_OK,
		 (3478.8 * nn * nn * nn - 17655.7 * nn * nn + 28023.7 * nn) / P, 0};
	clab_net_label(n, "bt: compute + copy_faces");

	/* copy_faces: to each neighbour, 5 variables x 2 ghost layers of the
	 * faces of the rank's cells that are not on the grid's far side */
	for (uint32_t r = 0; r < P; r++) {
		long i = r % q, jj = r / q;
		uint64_t face[3][2] = {{0}}; /* [axis][0 pred, 1 succ] */
		for (long c = 0; c < q; c++) {
			long cell[3] = {(i + c) % q, ((jj - c) % q + q) % q, c};
			uint64_t ext[3];
			for (int ax = 0; ax < 3; ax++)
				ext[ax] = N / (uint64_t)q + ((uint64_t)cell[ax] < N % (uint64_t)q);
			for (int ax = 0; ax < 3; ax++) {
				uint64_t area = ext[(ax + 1) % 3] * ext[(ax + 2) % 3];
				face[ax][1] += cell[ax] != q - 1 ? area : 0;
				face[ax][0] += cell[ax] != 0 ? area : 0;
			}
		}
		for (int ax = 0; ax < 3; ax++) {
			msg(&j, r, bt_next(q, i, jj, ax, +1), 10 * face[ax][1]);
			msg(&j, r, bt_next(q, i, jj, ax, -1), 10 * face[ax][0]);
		}
	}
	phase(&j, niter);

	/* x, y, z solves: forward elimination (5x5 block and right-hand side
	 * per line) to the successor, back substitution to the predecessor;
	 * a step each, as a map favours some axes' partners over others */
	static const char *const solve[3] = {"bt: x solve pipeline", "bt: y solve pipeline",
					     "bt: z solve pipeline"};
	uint64_t M = N / (uint64_t)q + 1;
	for (int ax = 0; ax < 3; ax++) {
		clab_net_label(n, solve[ax]);
		for (int dir = +1; dir >= -1; dir -= 2) {
			for (uint32_t r = 0; r < P; r++)
				msg(&j, r, bt_next(q, r % q, r / q, ax, dir),
				    (dir > 0 ? 30 : 5) * M * M);
			phase(&j, (uint64_t)(q - 1) * niter);
		}
	}
	return j.rc;
}

/* ---- CG ------------------------------------------------------------------ */

/* A reduction in each row of `cols` ranks: log2(cols) phases, in step s
 * every rank exchanges `doubles` with the rank cols >> s columns away. */
static void cg_reduce(job *j, uint32_t cols, uint64_t doubles, uint64_t times)
{
	for (uint32_t dist = cols >> 1; dist; dist >>= 1) {
		for (uint32_t r = 0; r < j->P; r++)
			msg(j, r, r - r % cols + ((r % cols) ^ dist), doubles);
		phase(j, times);
	}
}

/* The exchange with the transpose partner (itself on a square grid's
 * diagonal). */
static void cg_transpose(job *j, uint32_t rows, uint32_t cols, uint64_t doubles,
			 uint64_t times)
{
	for (uint32_t r = 0; r < j->P; r++) {
		uint32_t h = r / 2, to = rows == cols ? r % rows * rows + r / rows
			: 2 * (h % rows * rows + h / rows) + r % 2;
		msg(j, r, to, doubles);
	}
	phase(j, times);
}

int pattern_nas_cg(clab_net *n, pattern_args *a)
{
	static const uint64_t na_of[3] = {14000, 75000, 150000}, niters[3] = {15, 75, 75};
	static const int nonzer[3] = {11, 13, 15};
	int cls, k;
	uint64_t niter;
	uint32_t P = clab_net_nranks(n);
	int rc = nas_args(a, "CG", niters, &cls, &niter);
	if (!rc)
		rc = power_of_two(a, "CG", P, &k);
	if (rc)
		return rc;
	int l2cols = (k + 1) / 2;
	uint32_t cols = 1u << l2cols, rows = 1u << (k / 2);
	uint64_t vec = na_of[cls] / cols, inner = CG_INNER * niter;
	double zz = nonzer[cls] * (nonzer[cls] + 1.0), na = (double)na_of[cls];
	/* per rank (above): NPB's share of the products, the vector loops
	 * and reduction additions over the rank's block */
	double matvec = 2 * na * zz * (CG_INNER + 1) / P;
	double vector = 260.0 * (double)vec, adds = (CG_INNER + 1.0) * l2cols * (double)vec;
	job j = {n, P, 0, CLAB_OK, matvec + vector + adds, 6 * matvec + 12 * vector + 24 * adds};
	clab_net_label(n, "cg: compute + reductions");

	cg_reduce(&j, cols, 1, niter);          /* rho = r.r */
	clab_net_label(n, "cg: reductions");
	cg_reduce(&j, cols, vec, inner);        /* q = A p: row sums... */
	cg_transpose(&j, rows, cols, vec, inner); /* ...to the column layout */
	cg_reduce(&j, cols, 1, inner);          /* p.q */
	cg_reduce(&j, cols, 1, inner);          /* new rho */
	cg_reduce(&j, cols, vec, niter);        /* residual A z */
	cg_transpose(&j, rows, cols, vec, niter);
	cg_reduce(&j, cols, 1, niter);          /* its norm */
	cg_reduce(&j, cols, 2, niter);          /* x.z and z.z */
	return j.rc;
}

/* ---- MG ------------------------------------------------------------------ */

/* comm3 on level lev (2^lev points per dimension) of a p[0] x p[1] x p[2]
 * rank grid: both ghost faces along x, then y, then z. */
static void mg_comm3(job *j, const uint32_t *p, int lev, uint64_t times)
{
	uint64_t m[3];
	for (int ax = 0; ax < 3; ax++) {
		if ((1ull << lev) < p[ax])
			return; /* see the simplification above */
		m[ax] = 2 + (1ull << lev) / p[ax];
	}
	uint64_t face[3] = {(m[1] - 2) * (m[2] - 2), m[0] * (m[2] - 2), m[0] * m[1]};
	for (int ax = 0; ax < 3; ax++) {
		for (uint32_t r = 0; r < j->P; r++) {
			for (int dir = -1; dir <= 1; dir += 2) {
				uint32_t c[3] = {r % p[0], r / p[0] % p[1], r / p[0] / p[1]};
				c[ax] = (c[ax] + (dir > 0 ? 1 : p[ax] - 1)) % p[ax];
				msg(j, r, c[0] + p[0] * (c[1] + p[1] * c[2]), face[ax]);
			}
		}
		phase(j, times);
	}
}

/* Memory bytes of one iteration (above) on all ranks: mg3P's restriction
 * down to level 1, psinv there, then interp, resid and psinv on every
 * level up to lt; then resid on level lt. */
static double mg_bytes(int lt)
{
	double b = 0;
	for (int lev = lt; lev >= 1; lev--) {
		double pts = (double)(1ull << (3 * lev)), coarse = pts / 8;
		if (lev > 1)
			b += 8 * pts + 8 * coarse + 16 * pts + 24 * pts; /* rprj3, interp, resid */
		b += 24 * pts;                                          /* psinv */
	}
	return b + 24 * (double)(1ull << (3 * lt));             /* resid after mg3P */
}

int pattern_nas_mg(clab_net *n, pattern_args *a)
{
	static const int log_side[3] = {8, 8, 9};
	static const uint64_t niters[3] = {4, 20, 20};
	int cls, k;
	uint64_t niter;
	uint32_t P = clab_net_nranks(n);
	int rc = nas_args(a, "MG", niters, &cls, &niter);
	if (!rc)
		rc = power_of_two(a, "MG", P, &k);
	if (rc)
		return rc;
	int dx = k / 3, dy = (k - dx) / 2, lt = log_side[cls];
	uint32_t p[3] = {1u << dx, 1u << dy, P >> dx >> dy};
	double side = (double)(1u << lt);
	job j = {n, P, 0, CLAB_OK, 58 * side * side * side / P, mg_bytes(lt) / P};
	clab_net_label(n, "mg: compute + face exchanges");

	/* mg3P: restriction down to level 1, smoothing there, then up:
	 * residual and smoothing on each level; then the residual on the
	 * finest level. Level lt: 3 comm3, levels 2..lt-1: 3, level 1: 2. */
	for (int lev = lt - 1; lev >= 1; lev--) {
		mg_comm3(&j, p, lev, niter);    /* rprj3 */
		if (j.flops == 0)
			clab_net_label(n, "mg: face exchanges");
	}
	mg_comm3(&j, p, 1, niter);              /* psinv */
	for (int lev = 2; lev <= lt; lev++) {
		mg_comm3(&j, p, lev, niter);    /* resid */
		mg_comm3(&j, p, lev, niter);    /* psinv */
	}
	mg_comm3(&j, p, lt, niter);             /* resid after mg3P */
	return j.rc;
}
