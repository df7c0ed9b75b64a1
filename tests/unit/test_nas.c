/* NAS benchmark traffic (sim_backends/torus/nas.c): the link loads of BT,
 * CG and MG against sums worked out message by message from the
 * benchmarks' communication, phase counts, how classes and iterations
 * scale the traffic, and the errors for bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "counterlab/torus.h"
#include "../../sim_backends/torus/pattern.h"

typedef int (*bench_fn)(clab_net *, pattern_args *);

typedef struct world {
	clab_torus t;
	clab_map m;
	clab_net *n;
} world;

/* A BG/L torus of `shape`, one rank per node in XYZT order. */
static world *make(const char *shape)
{
	world *w = calloc(1, sizeof *w);
	assert_non_null(w);
	int err;
	if (clab_torus_init(&w->t, clab_netspec_find("bgl"), shape, 1, NULL) ||
	    clab_map_init(&w->m, &w->t, "XYZT") ||
	    !(w->n = clab_net_new(&w->t, &w->m, &err)))
		fail_msg("torus %s: %s", shape, clab_errmsg());
	return w;
}

/* The same torus with the ranks scattered over the nodes by a fixed
 * shuffle (a map file), so that no symmetry of the placement can hide a
 * message of the wrong size sent to the wrong rank. */
static world *make_scattered(const char *shape)
{
	world *w = calloc(1, sizeof *w);
	assert_non_null(w);
	if (clab_torus_init(&w->t, clab_netspec_find("bgl"), shape, 1, NULL))
		fail_msg("torus %s: %s", shape, clab_errmsg());
	uint32_t nodes = w->t.nodes, *perm = malloc(nodes * sizeof *perm), seed = 12345;
	assert_non_null(perm);
	for (uint32_t i = 0; i < nodes; i++)
		perm[i] = i;
	for (uint32_t i = nodes - 1; i > 0; i--) {
		seed = seed * 1103515245u + 12345u;
		uint32_t k = (seed >> 8) % (i + 1), x = perm[i];
		perm[i] = perm[k];
		perm[k] = x;
	}
	char path[] = "/tmp/clab_nas_map.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	for (uint32_t r = 0; r < nodes; r++) {
		int c[CLAB_TORUS_MAXD];
		clab_torus_coords(&w->t, perm[r], c);
		fprintf(f, "%d %d %d 0\n", c[0], c[1], c[2]);
	}
	fclose(f);
	free(perm);
	int err, rc = clab_map_init(&w->m, &w->t, path);
	unlink(path);
	if (rc || !(w->n = clab_net_new(&w->t, &w->m, &err)))
		fail_msg("map of %s: %s", shape, clab_errmsg());
	return w;
}

static void drop(world *w)
{
	clab_net_free(w->n);
	clab_map_free(&w->m);
	free(w);
}

/* Runs fn with the arguments of spec ("NAME:key=value,..."), filled in as
 * clab_net_pattern would. */
static int run(world *w, bench_fn fn, const char *spec)
{
	pattern_args a = {.pattern = spec};
	const char *colon = strchr(spec, ':');
	char buf[256];
	snprintf(buf, sizeof buf, "%s", colon ? colon + 1 : "");
	for (char *save, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		assert_non_null(eq);
		*eq = '\0';
		a.key[a.n] = kv;
		a.val[a.n++] = eq + 1;
	}
	return fn(w->n, &a);
}

/* what summed over every torus link of every node and every VC. */
static uint64_t total(const world *w, enum clab_netctr what)
{
	uint64_t sum = 0;
	for (uint32_t x = 0; x < w->t.nodes; x++)
		sum += clab_net_count(w->n, x, -1, what, 0x7f);
	return sum;
}

/* Chunks one message of `doubles` from rank a to rank b puts on links. */
static uint64_t chunk_hops(const world *w, uint32_t a, uint32_t b, uint64_t doubles)
{
	return clab_netspec_packetize(w->t.spec, doubles * 8).chunks *
	       (uint64_t)clab_torus_hops(&w->t, w->m.node[a], w->m.node[b]);
}

/* Runs spec and returns the chunks sent, checking they were all received. */
static uint64_t chunks_of(world *w, bench_fn fn, const char *spec)
{
	int rc = run(w, fn, spec);
	if (rc)
		fail_msg("%s: %s", spec, clab_errmsg());
	uint64_t sent = total(w, CLAB_NET_SENT_CHUNKS);
	assert_int_equal(sent, total(w, CLAB_NET_RECV_CHUNKS));
	return sent;
}

/* CG on 4 ranks (a 2x2 grid): reductions swap with rank r^1, the
 * transpose swaps ranks 1 and 2; na/2 = 7000 doubles per vector. */
static void cg_four_ranks(void **state)
{
	(void)state;
	world *w = make("4x1x1");
	const uint64_t niter = 3, vec = 14000 / 2;
	uint64_t s1 = 0, s2 = 0, v = 0;
	for (uint32_t r = 0; r < 4; r++) {
		s1 += chunk_hops(w, r, r ^ 1, 1);
		s2 += chunk_hops(w, r, r ^ 1, 2);
		v += chunk_hops(w, r, r ^ 1, vec);
	}
	uint64_t tr = chunk_hops(w, 1, 2, vec) + chunk_hops(w, 2, 1, vec);
	uint64_t want = niter * (s1 + 25 * (v + tr + 2 * s1) + v + tr + s1 + s2);
	assert_int_equal(chunks_of(w, pattern_nas_cg, "cg:class=A,iters=3"), want);
	/* 1 + 25 x 4 + 3 + 1 phases per iteration */
	assert_int_equal(clab_net_phases(w->n), niter * 105);
	drop(w);
}

/* BT on 4 ranks (q = 2, class A: 32^3 cells): every face message is
 * 10 x 32 x 32 doubles, two to each of r^1 (x), r^2 (y), r^3 (z); each
 * solve sends 30 x 33^2 forward and 5 x 33^2 back to the same ranks. */
static void bt_four_ranks(void **state)
{
	(void)state;
	world *w = make("4x1x1");
	const uint64_t niter = 2;
	uint64_t want = 0;
	for (uint32_t r = 0; r < 4; r++)
		for (uint32_t x = 1; x <= 3; x++)
			want += 2 * chunk_hops(w, r, r ^ x, 10 * 32 * 32) +
				chunk_hops(w, r, r ^ x, 30 * 33 * 33) +
				chunk_hops(w, r, r ^ x, 5 * 33 * 33);
	assert_int_equal(chunks_of(w, pattern_nas_bt, "bt:class=A,iters=2"), niter * want);
	/* copy_faces, then 3 solves x 2 sweeps x (q - 1) stages, a step each */
	assert_int_equal(clab_net_phases(w->n), niter * 7);
	static const char *const step[4] = {"bt: compute + copy_faces", "bt: x solve pipeline",
					    "bt: y solve pipeline", "bt: z solve pipeline"};
	int nrec;
	const clab_net_record *rec = clab_net_records(w->n, &nrec);
	assert_int_equal(nrec, 4);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(rec[i].label, step[i]);
		assert_int_equal(rec[i].phases, niter * (i ? 2 : 1));
	}
	drop(w);
}

/* BT on 9 ranks (q = 3, class B, N = 102 = 3 x 34): each rank owns
 * three 34^3 cells, two of which face each neighbour. */
static void bt_nine_ranks(void **state)
{
	(void)state;
	world *w = make("9x1x1");
	uint64_t want = 0;
	for (uint32_t r = 0; r < 9; r++) {
		uint32_t i = r % 3, j = r / 3, up = (i + 1) % 3, dn = (i + 2) % 3;
		uint32_t nb[6] = {up + 3 * j, dn + 3 * j, i + 3 * ((j + 1) % 3),
				  i + 3 * ((j + 2) % 3), dn + 3 * ((j + 1) % 3), up + 3 * ((j + 2) % 3)};
		for (int k = 0; k < 6; k++)
			want += chunk_hops(w, r, nb[k], 10 * 2 * 34 * 34) +
				2 * chunk_hops(w, r, nb[k], (k % 2 ? 5 : 30) * 35 * 35);
	}
	assert_int_equal(chunks_of(w, pattern_nas_bt, "bt:class=B,iters=1"), want);
	drop(w);
}

/* Doubles rank r of a q x q BT grid sends to its successor (dir 1) or
 * predecessor (dir 0) along axis ax in copy_faces, straight from the
 * multi-partition: its cells c = 0..q-1 sit at ((i+c) mod q, (j-c) mod q,
 * c), and a face goes out unless the cell is on the grid's far side. */
static uint64_t bt_face(uint32_t q, uint64_t N, uint32_t r, int ax, int dir)
{
	uint64_t sum = 0;
	for (uint32_t c = 0; c < q; c++) {
		uint32_t at[3] = {(r % q + c) % q, (r / q + q - c) % q, c};
		if (at[ax] == (dir ? q - 1 : 0))
			continue;
		uint64_t area = 1;
		for (int other = 0; other < 3; other++)
			if (other != ax)
				area *= N / q + (at[other] < N % q);
		sum += 10 * area;
	}
	return sum;
}

/* BT with cells of unequal size, ranks scattered over a torus: 9 ranks of class A (64 = 22 + 21 + 21), 16 of class B (102 =
 * 26 + 26 + 25 + 25), 25 of class A (64 = 4 x 13 + 12), 16 of class C
 * (162 = 41 + 41 + 40 + 40). */
static void bt_uneven_cells(void **state)
{
	(void)state;
	/* by hand: rank 0 owns cells (0,0,0) (1,2,1) (2,1,2), rank 4 owns
	 * (1,1,0) (2,0,1) (0,2,2); coordinate 0 is 22 wide, the others 21 */
	assert_int_equal(bt_face(3, 64, 0, 0, 1), 10 * (22 * 22 + 21 * 21));
	assert_int_equal(bt_face(3, 64, 0, 2, 0), 10 * (21 * 21 + 21 * 21));
	assert_int_equal(bt_face(3, 64, 4, 0, 1), 10 * (21 * 22 + 21 * 21));
	assert_int_equal(bt_face(3, 64, 4, 0, 0), 10 * (21 * 22 + 22 * 21));
	assert_int_equal(bt_face(3, 64, 4, 1, 1), 10 * (21 * 22 + 21 * 21));
	static const struct {
		const char *shape, *spec;
		uint32_t q;
		uint64_t N;
	} c[] = {
		{"3x3x1", "bt:class=A,iters=1", 3, 64},
		{"4x4x1", "bt:class=B,iters=1", 4, 102},
		{"5x5x1", "bt:iters=1", 5, 64},
		{"4x4x1", "bt:class=C,iters=1", 4, 162},
	};
	for (size_t t = 0; t < sizeof c / sizeof *c; t++) {
		world *w = make_scattered(c[t].shape);
		uint32_t q = c[t].q;
		uint64_t want = 0, M = c[t].N / q + 1;
		for (uint32_t r = 0; r < q * q; r++) {
			uint32_t i = r % q, j = r / q, ip = (i + 1) % q, im = (i + q - 1) % q,
				 jp = (j + 1) % q, jm = (j + q - 1) % q;
			/* x, y, z successor then predecessor */
			uint32_t nb[6] = {ip + q * j, im + q * j, i + q * jp, i + q * jm,
					  im + q * jp, ip + q * jm};
			for (int k = 0; k < 6; k++)
				want += chunk_hops(w, r, nb[k], bt_face(q, c[t].N, r, k / 2, k % 2 == 0)) +
					(q - 1) * chunk_hops(w, r, nb[k], (k % 2 ? 5 : 30) * M * M);
		}
		assert_int_equal(chunks_of(w, pattern_nas_bt, c[t].spec), want);
		drop(w);
	}
}

/* CG on 8 ranks, classes B and C: a 2 x 4 grid (not square);
 * reductions swap with the rank 2, then 1, columns away; transpose
 * partners by hand; vectors of na/4 doubles. */
static void cg_eight_ranks(void **state)
{
	(void)state;
	static const uint32_t tr[8] = {0, 1, 4, 5, 2, 3, 6, 7};
	static const char *const spec[2] = {"cg:class=B,iters=1", "cg:class=C,iters=1"};
	static const uint64_t na[2] = {75000, 150000};
	for (int c = 0; c < 2; c++) {
		world *w = make_scattered("8x1x1");
		uint64_t s1 = 0, s2 = 0, v = 0, t = 0;
		for (uint32_t r = 0; r < 8; r++) {
			for (uint32_t x = 2; x >= 1; x--) {
				s1 += chunk_hops(w, r, r ^ x, 1);
				s2 += chunk_hops(w, r, r ^ x, 2);
				v += chunk_hops(w, r, r ^ x, na[c] / 4);
			}
			t += chunk_hops(w, r, tr[r], na[c] / 4);
		}
		uint64_t want = s1 + 25 * (v + t + 2 * s1) + v + t + s1 + s2;
		assert_int_equal(chunks_of(w, pattern_nas_cg, spec[c]), want);
		assert_int_equal(clab_net_phases(w->n), 2 + 25 * 7 + 5 + 2);
		drop(w);
	}
}

/* MG on 8 ranks (a 2x2x2 grid on a ring of 8 nodes, so the x, y and z
 * neighbours r^1, r^2, r^4 are 1, 2 and 4 hops away): on level k each
 * neighbour is both the +1 and the -1 one and gets two messages of each
 * face, m = 2 + 2^(k-1); 3 comm3 on levels 2..8 and 2 on level 1. */
static void mg_eight_ranks(void **state)
{
	(void)state;
	world *w = make("8x1x1");
	uint64_t want = 0, calls = 0;
	for (int k = 1; k <= 8; k++) {
		uint64_t m = 2 + (1u << (k - 1)), c = k == 1 ? 2 : 3;
		for (uint32_t r = 0; r < 8; r++)
			want += c * 2 * (chunk_hops(w, r, r ^ 1, (m - 2) * (m - 2)) +
					 chunk_hops(w, r, r ^ 2, m * (m - 2)) +
					 chunk_hops(w, r, r ^ 4, m * m));
		calls += c;
	}
	assert_int_equal(chunks_of(w, pattern_nas_mg, "mg:iters=1"), want);
	assert_int_equal(clab_net_phases(w->n), 3 * calls);
	drop(w);
}

/* Chunks of one MG iteration on a p[0] x p[1] x p[2] grid (x fastest) of
 * 2^lt points: 3 comm3 a level, 2 on level 1, none on a level with fewer
 * points than ranks along some axis; faces with ghosts m = 2 + 2^k/p. */
static uint64_t mg_want(const world *w, const uint32_t *p, int lt)
{
	uint64_t want = 0;
	for (int k = 1; k <= lt; k++) {
		if ((1u << k) < p[0] || (1u << k) < p[1] || (1u << k) < p[2])
			continue;
		uint64_t m[3], calls = k == 1 ? 2 : 3;
		for (int ax = 0; ax < 3; ax++)
			m[ax] = 2 + (1u << k) / p[ax];
		uint64_t face[3] = {(m[1] - 2) * (m[2] - 2), m[0] * (m[2] - 2), m[0] * m[1]};
		for (uint32_t r = 0; r < w->m.nranks; r++)
			for (uint32_t ax = 0, step = 1; ax < 3; step *= p[ax], ax++) {
				uint32_t mine = r / step % p[ax], base = r - mine * step;
				if (p[ax] > 1)
					want += calls * (chunk_hops(w, r, base + (mine + 1) % p[ax] * step, face[ax]) +
							 chunk_hops(w, r, base + (mine + p[ax] - 1) % p[ax] * step, face[ax]));
			}
	}
	return want;
}

/* Chunks sent on link l of every node. */
static uint64_t link_total(const world *w, int l)
{
	uint64_t sum = 0;
	for (uint32_t x = 0; x < w->t.nodes; x++)
		sum += clab_net_count(w->n, x, l, CLAB_NET_SENT_CHUNKS, 0x7f);
	return sum;
}

/* MG on rings of 32 and 64 nodes (hops differ from pair to pair): the
 * grids 2x4x4 and 4x4x4, where the +1 and -1 neighbours differ and level
 * 1 (2 points for 4 ranks) has no traffic. Every exchange goes both ways,
 * so the plus and minus links carry the same. */
static void mg_rings(void **state)
{
	(void)state;
	static const struct {
		const char *shape, *spec;
		uint32_t p[3];
		int lt;
		uint64_t iters, phases;
	} c[] = {
		{"32x1x1", "mg:class=A,iters=1", {2, 4, 4}, 8, 1, 3 * 3 * 7},
		{"64x1x1", "mg:class=C,iters=1", {4, 4, 4}, 9, 1, 3 * 3 * 8},
		{"64x1x1", "mg:class=B,iters=2", {4, 4, 4}, 8, 2, 2 * 3 * 3 * 7},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		world *w = make(c[i].shape);
		assert_int_equal(chunks_of(w, pattern_nas_mg, c[i].spec),
				 c[i].iters * mg_want(w, c[i].p, c[i].lt));
		assert_int_equal(clab_net_phases(w->n), c[i].phases);
		assert_int_equal(link_total(w, 0), link_total(w, 1));
		drop(w);
	}
}

/* On 64 ranks: traffic grows with the class, is linear in the iteration
 * count, and has the expected number of phases. */
static void classes_on_64(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		bench_fn fn;
		uint64_t niter[3], phases_per_iter; /* for class A */
	} b[] = {
		/* copy_faces x 1 + 6 sweeps x 7 stages */
		{"bt", pattern_nas_bt, {200, 200, 200}, 1 + 6 * 7},
		/* 8x8 grid, 3 steps a reduction: 3 + 25 x 10 + 7 + 3 */
		{"cg", pattern_nas_cg, {15, 75, 75}, 263},
		/* 4x4x4 grid: level 1 has 2 points for 4 ranks, so 21 comm3 */
		{"mg", pattern_nas_mg, {4, 20, 20}, 21 * 3},
	};
	for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
		uint64_t prev = 0;
		for (int c = 0; c < 3; c++) {
			char spec[64];
			snprintf(spec, sizeof spec, "%s:class=%c", b[i].name, 'A' + c);
			world *w = make("4x4x4");
			uint64_t all = chunks_of(w, b[i].fn, spec);
			if (c == 0)
				assert_int_equal(clab_net_phases(w->n), b[i].niter[0] * b[i].phases_per_iter);
			drop(w);
			w = make("4x4x4");
			snprintf(spec, sizeof spec, "%s:class=%c,iters=1", b[i].name, 'A' + c);
			uint64_t one = chunks_of(w, b[i].fn, spec);
			drop(w);
			assert_true(one > 0);
			assert_int_equal(all, b[i].niter[c] * one);
			assert_true(all > prev);
			prev = all;
		}
		/* once registered, the table entry runs the same code */
		char spec[64];
		snprintf(spec, sizeof spec, "%s:class=B,iters=1", b[i].name);
		world *w = make("4x4x4"), *v = make("4x4x4");
		int rc = clab_net_pattern(w->n, spec);
		if (rc == CLAB_OK)
			assert_int_equal(total(w, CLAB_NET_SENT_CHUNKS),
					 chunks_of(v, b[i].fn, spec));
		else
			assert_non_null(strstr(clab_errmsg(), "unknown traffic pattern"));
		drop(w);
		drop(v);
	}
}

/* Modelled seconds of `spec` on a 128-node BG/L block under the map
 * permutation perm, keeping its first `ranks` ranks, in engine e (0 flow,
 * 1 packet). A block smaller than a midplane (8 x 8 x 8) has no
 * wrap-around links, so its 8 x 4 x 4 is a mesh (Blue Gene's torus needs
 * whole midplanes: stated for BG/P's blocks, recalled for BG/L's). */
static double block_s(const char *perm, uint32_t ranks, int e, const char *spec)
{
	clab_torus t;
	clab_map m;
	int err;
	if (clab_torus_init(&t, clab_netspec_find("bgl"), "8mx4mx4m", 1, NULL) ||
	    clab_map_init(&m, &t, perm))
		fail_msg("8mx4mx4m %s: %s", perm, clab_errmsg());
	m.nranks = ranks;
	clab_net *n = clab_net_new(&t, &m, &err);
	assert_non_null(n);
	assert_int_equal(clab_net_configure(n, e ? CLAB_NET_PACKET : CLAB_NET_FLOW,
					     CLAB_ROUTE_MPI, 1), CLAB_OK);
	if (clab_net_pattern(n, spec))
		fail_msg("%s on %s: %s", spec, perm, clab_errmsg());
	double s = clab_net_time(n);
	clab_net_free(n);
	clab_map_free(&m);
	return s;
}

/* The published BG/L mapping study (128 nodes, coprocessor mode, NAS BT
 * on 121 ranks, the six XYZ permutations): YZX and ZYX about 15% faster
 * than the default XYZ, no map more than about 15%. On the block's mesh
 * the model gives 9-10% in both engines (on a torus, which a 128-node
 * block is not, 5-7%): BT's y and z partners (ranks 11 and 10 apart) are
 * 5.9 and 5.1 hops away under XYZ, where its rows of 11 wrap along X's 8
 * nodes and pile onto the X links, and 4.4 and 4.8 under YZX. The rest is
 * the compute share: 71% of BT's time at the profile's 10% of peak. CG
 * varies more than MG, as published; both vary more than BT (published:
 * less), which is printed, not checked: CG's 7000-byte row exchanges
 * share X links under XYZ and its compute is 18% of its time
 * (docs/torus.md, "Why CG varies most in the model"). */
static void bt_mapping_study(void **state)
{
	(void)state;
	static const char *const perm[6] = {"XYZT", "XZYT", "YXZT", "YZXT", "ZXYT", "ZYXT"};
	for (int e = 0; e < 2; e++) {
		double bt[6], spread[2] = {0, 0};
		for (int p = 0; p < 6; p++)
			bt[p] = block_s(perm[p], 121, e, "bt:class=A");
		for (int b = 0; b < 2; b++) {
			double lo = 1e30, hi = 0;
			for (int p = 0; p < 6; p++) {
				double s = block_s(perm[p], 128, e, b ? "mg:class=A" : "cg:class=A");
				lo = s < lo ? s : lo;
				hi = s > hi ? s : hi;
			}
			spread[b] = hi / lo;
		}
		double yzx = 1 - bt[3] / bt[0], zyx = 1 - bt[5] / bt[0];
		print_message("%s: BT YZX %.1f%%, ZYX %.1f%% faster than XYZ; slowest / fastest: CG %.3f, MG %.3f\n",
			      e ? "packet" : "flow", 100 * yzx, 100 * zyx, spread[0], spread[1]);
		assert_true(yzx >= 0.08 && zyx >= 0.08); /* published about 0.15; see above */
		assert_true(spread[1] < spread[0]);      /* MG varies less than CG */
		for (int p = 0; p < 6; p++) {
			assert_true(1 - bt[p] / bt[0] <= 0.15);
			if (p != 3 && p != 5)
				assert_true(bt[3] < bt[p] && bt[5] < bt[p]);
		}
	}
}

/* Compute with memory traffic: at the profile's rates (10% of peak, half
 * the memory bandwidth) CG and MG are flop-bound; with the flop rate at
 * peak they are bound by the bytes their kernels stream. 8 ranks on a
 * 2x2x2 BG/L torus (2.8 GB/s a rank), class A, one iteration, worked by
 * hand: CG (a 2 x 4 grid, column blocks of 3500) per rank 26 products of
 * 14000 x 132 / 8 nonzeros at 12 bytes, 260 x 3500 vector flops at 12
 * bytes and 26 reductions of 2 steps adding 3500 at 24 bytes; MG 73 bytes
 * a point on levels 2..8 (rprj3 8 + 1 for its coarse point, interp 16,
 * resid 24, psinv 24), 24 on level 1 and 24 for the last resid on level 8. */
static void memory_traffic(void **state)
{
	(void)state;
	clab_netspec spec = *clab_netspec_find("bgl");
	double rate = spec.mem_bytes_s * spec.mem_eff, mg = 24.0 * 8 + 24.0 * (1 << 24);
	for (int lev = 2; lev <= 8; lev++)
		mg += 73.0 * (double)(1ull << (3 * lev));
	const struct { bench_fn fn; const char *spec; double bytes; } b[2] = {
		{pattern_nas_cg, "cg:iters=1",
		 8 * (26.0 * 14000 * 132 * 12 / 8 + 260.0 * 3500 * 12 + 26.0 * 2 * 3500 * 24)},
		{pattern_nas_mg, "mg:iters=1", mg},
	};
	for (int i = 0; i < 2; i++)
		for (int peak = 0; peak < 2; peak++) {
			spec.flop_eff = peak ? 1 : 0.1;
			world w;
			int err;
			if (clab_torus_init(&w.t, &spec, "2x2x2", 1, NULL) ||
			    clab_map_init(&w.m, &w.t, "XYZT") || !(w.n = clab_net_new(&w.t, &w.m, &err)))
				fail_msg("2x2x2: %s", clab_errmsg());
			assert_int_equal(run(&w, b[i].fn, b[i].spec), CLAB_OK);
			double got = clab_net_totals(w.n).compute, mem = b[i].bytes / 8 / rate;
			if (peak)
				assert_true(fabs(got / mem - 1) < 1e-9);
			else
				assert_true(got > 1.1 * mem); /* flop-bound */
			clab_net_free(w.n);
			clab_map_free(&w.m);
		}
}

/* CG's compute per rank: NPB's share of the matrix-vector products, but
 * every vector loop over the rank's whole column block (na / npcols: the
 * ranks of a grid column repeat it) and the additions of the row
 * reductions, which NPB's operation count leaves out. Flop-bound (memory
 * made free), class A, one iteration, by hand: 2 ranks (1 x 2, blocks of
 * 7000, 1 reduction step) and 8 ranks (2 x 4, blocks of 3500, 2 steps). */
static void cg_rank_compute(void **state)
{
	(void)state;
	static const struct { const char *shape; double ranks, block, steps; } c[] = {
		{"2x1x1", 2, 7000, 1}, {"2x2x2", 8, 3500, 2},
	};
	clab_netspec spec = *clab_netspec_find("bgl");
	spec.mem_bytes_s = 1e13;
	double rate = spec.peak_flops * spec.flop_eff / spec.cores; /* one rank a node */
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		world w;
		int err;
		if (clab_torus_init(&w.t, &spec, c[i].shape, 1, NULL) ||
		    clab_map_init(&w.m, &w.t, "XYZT") || !(w.n = clab_net_new(&w.t, &w.m, &err)))
			fail_msg("%s: %s", c[i].shape, clab_errmsg());
		assert_int_equal(run(&w, pattern_nas_cg, "cg:iters=1"), CLAB_OK);
		double flops = 26 * 2 * 14000.0 * 132 / c[i].ranks + 260 * c[i].block +
			       26 * c[i].steps * c[i].block;
		assert_true(fabs(clab_net_totals(w.n).compute / (flops / rate) - 1) < 1e-9);
		clab_net_free(w.n);
		clab_map_free(&w.m);
	}
}

/* One rank: nothing leaves it and no phase is counted. */
static void single_rank(void **state)
{
	(void)state;
	bench_fn fns[3] = {pattern_nas_bt, pattern_nas_cg, pattern_nas_mg};
	for (int i = 0; i < 3; i++) {
		world *w = make("1x1x1");
		assert_int_equal(run(w, fns[i], "x:class=C"), CLAB_OK);
		assert_int_equal(clab_net_phases(w->n), 0);
		assert_int_equal(clab_net_local_bytes(w->n), 0);
		drop(w);
	}
}

static void expect_error(world *w, bench_fn fn, const char *spec, const char *says)
{
	assert_int_equal(run(w, fn, spec), CLAB_E_PATTERN);
	if (!strstr(clab_errmsg(), says))
		fail_msg("%s: message \"%s\" does not say \"%s\"", spec, clab_errmsg(), says);
	assert_int_equal(clab_net_phases(w->n), 0);
}

static void bad_input(void **state)
{
	(void)state;
	world *w = make("4x4x4");
	expect_error(w, pattern_nas_bt, "bt:class=D", "class=D: BT comes in classes A, B and C");
	expect_error(w, pattern_nas_cg, "cg:class=AB", "class=AB");
	expect_error(w, pattern_nas_mg, "mg:class=", "classes A, B and C");
	expect_error(w, pattern_nas_cg, "cg:iters=0", "iters=0");
	expect_error(w, pattern_nas_mg, "mg:iters=many", "iters=many");
	drop(w);
	w = make("2x2x2");
	expect_error(w, pattern_nas_bt, "bt", "8 ranks; BT needs a square number (4 or 9 would do)");
	drop(w);
	w = make("3x3x1");
	expect_error(w, pattern_nas_cg, "cg", "9 ranks; CG needs a power of two (8 or 16 would do)");
	expect_error(w, pattern_nas_mg, "mg", "MG needs a power of two");
	drop(w);
	w = make("3x1x1");
	expect_error(w, pattern_nas_mg, "mg:class=B", "(2 or 4 would do)");
	drop(w);
	/* 65^2 ranks: 65 cells a side of class A's 64 points */
	w = make("65x65x1");
	expect_error(w, pattern_nas_bt, "bt", "into 65^3 cells, more cells a side than points; class A takes at most 4096 ranks");
	assert_int_equal(run(w, pattern_nas_bt, "bt:class=B,iters=1"), CLAB_OK);
	drop(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cg_four_ranks),
		cmocka_unit_test(bt_four_ranks),
		cmocka_unit_test(bt_nine_ranks),
		cmocka_unit_test(bt_uneven_cells),
		cmocka_unit_test(cg_eight_ranks),
		cmocka_unit_test(mg_eight_ranks),
		cmocka_unit_test(mg_rings),
		cmocka_unit_test(classes_on_64),
		cmocka_unit_test(bt_mapping_study),
		cmocka_unit_test(memory_traffic),
		cmocka_unit_test(cg_rank_compute),
		cmocka_unit_test(single_rank),
		cmocka_unit_test(bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
