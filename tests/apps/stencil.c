/* counterlab-stencil: a MiniGhost-like 3D stencil. Each rank owns an n^3
 * block of doubles on a Px x Py x Pz rank grid (x fastest, as the halo3d
 * pattern numbers ranks); every time step it exchanges its halo with its
 * neighbours (7-point stencil: faces; 27-point: faces, edges and corners)
 * and replaces each value by the mean of its stencil. Which ranks share a
 * node (the rank layout per node) is the map's: COUNTERLAB_MACHINE's map
 * key, a permutation or a map file.
 *
 * Rank 0 prints `step,nw_chunks_sent_total,nw_packets_recv_total` (or the
 * names of the first two --events) and one line per step (counters summed
 * over all simulated nodes, each once), and
 * the checksum of the field. The same traffic offline: counterlab-netsim
 * --pattern halo3d:n=N,grid=PxxPyxPz,stencil=S,periodic=P,steps=K.
 *
 *   mpirun -n 8 counterlab-stencil --n 16 --grid 2x2x2 --stencil 27 --steps 2 */
#include "app.h"

/* The rank at c + sh (x fastest), or -1 past a non-periodic edge. */
static int grid_rank(const uint64_t *g, const int *c, const int *sh, int periodic)
{
	int r = 0;
	for (int d = 2; d >= 0; d--) {
		int x = c[d] + sh[d], gd = (int)g[d];
		if (x < 0 || x >= gd) {
			if (!periodic)
				return -1;
			x = (x + gd) % gd;
		}
		r = r * gd + x;
	}
	return r;
}

#define IDX(x, y, z) ((((size_t)(z) * (m)) + (size_t)(y)) * (m) + (size_t)(x))

static const char usage[] =
	"usage: mpirun -n 8 counterlab-stencil [--n N] [--grid PxxPyxPz] [--stencil 7|27]\n"
	"                 [--steps K] [--periodic 0|1] [--events LIST] [--per-node FILE]\n"
	"A 3D stencil with halo exchanges on a Px x Py x Pz rank grid; rank 0 prints a\n"
	"CSV line per time step and the field's checksum.\n\n"
	"  --n N            each rank's block edge (1..1024; default 8)\n"
	"  --grid PxxPyxPz  the rank grid, x fastest (default ranks x 1 x 1)\n"
	"  --stencil 7|27   faces only, or faces, edges and corners (default 7)\n"
	"  --steps K        time steps (default 1)\n"
	"  --periodic 0|1   wrap the halo at the grid's edges (default 0)\n"
	COMMON_USAGE;

int main(int argc, char **argv)
{
	app a;
	app_init(&a, "counterlab-stencil", usage, &argc, &argv);
	uint64_t n = 8, stencil = 7, steps = 1, periodic = 0, g[3] = {0, 0, 0};
	const char *events = APP_EVENTS;
	for (int i = 1; i < argc; i++) {
		if (app_common_opt(&a, argc, argv, &i, &events))
			continue;
		if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = app_u64(&a, "--n", argv[++i], 1, 1024);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = app_u64(&a, "--steps", argv[++i], 1, 1u << 20);
		else if (!strcmp(argv[i], "--periodic") && i + 1 < argc)
			periodic = app_u64(&a, "--periodic", argv[++i], 0, 1);
		else if (!strcmp(argv[i], "--stencil") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "7") || !strcmp(argv[i + 1], "27")))
			stencil = app_u64(&a, "--stencil", argv[++i], 7, 27);
		else if (!strcmp(argv[i], "--grid") && i + 1 < argc) {
			/* three whole numbers 1.. joined by x, nothing else */
			const char *v = argv[++i];
			char buf[64], *p[3] = {buf, NULL, NULL};
			snprintf(buf, sizeof buf, "%s", v);
			p[1] = strchr(buf, 'x');
			p[2] = p[1] ? strchr(p[1] + 1, 'x') : NULL;
			int ok = strlen(v) < sizeof buf && p[2] && !strchr(p[2] + 1, 'x');
			for (int d = 1; ok && d < 3; d++)
				*p[d]++ = '\0';
			for (int d = 0; ok && d < 3; d++)
				ok = *p[d] && !p[d][strspn(p[d], "0123456789")];
			if (!ok)
				app_die(&a, "--grid %s: want PxxPyxPz, three whole numbers, e.g. 2x2x4", v);
			for (int d = 0; d < 3; d++)
				g[d] = app_u64(&a, "--grid", p[d], 1, 1u << 20);
		} else
			app_bad_arg(&a, argv[i]);
	}
	if (!g[0]) { /* x fastest: P x 1 x 1 unless given */
		g[0] = (uint64_t)a.size;
		g[1] = g[2] = 1;
	}
	if (g[0] * g[1] * g[2] != (uint64_t)a.size)
		app_die(&a, "%s", "--grid: Px x Py x Pz must be the number of ranks");
	app_events(&a, events);
	int c[3] = {a.me % (int)g[0], a.me / (int)g[0] % (int)g[1], a.me / (int)g[0] / (int)g[1]};
	size_t m = n + 2, cells = m * m * m;
	double *u = calloc(cells, sizeof *u), *v = calloc(cells, sizeof *v);
	double *sbuf = malloc(27 * n * n * sizeof *sbuf), *rbuf = malloc(27 * n * n * sizeof *rbuf);
	app_check(&a, !u || !v || !sbuf || !rbuf ? "no memory for this rank's grid" : NULL);
	for (size_t z = 1; z <= n; z++)
		for (size_t y = 1; y <= n; y++)
			for (size_t x = 1; x <= n; x++)
				/* 1..11: no halo word is all zero bits, which Gemini
				 * would compress (offline patterns count none) */
				u[IDX(x, y, z)] = (double)(1 + (a.me * 7 + (int)(x * 3 + y * 5 + z)) % 11);
	if (a.me == 0 && events == (const char *)APP_EVENTS)
		printf("step,nw_chunks_sent_total,nw_packets_recv_total\n");
	else if (a.me == 0) /* the first two events, by their names */
		printf("step,%s,%s\n", strrchr(a.names[0], ':') ? strrchr(a.names[0], ':') + 1 : a.names[0],
		       a.nev < 2 ? "-" : strrchr(a.names[1], ':') ? strrchr(a.names[1], ':') + 1 : a.names[1]);
	for (uint64_t step = 0; step < steps; step++) {
		MPI_Request req[54];
		int nreq = 0;
		size_t off[27];
		for (int s = 0, used = 0; s < 27; s++) {
			int sh[3] = {s % 3 - 1, s / 3 % 3 - 1, s / 9 - 1};
			int back[3] = {-sh[0], -sh[1], -sh[2]};
			int moved = !!sh[0] + !!sh[1] + !!sh[2];
			off[s] = (size_t)-1;
			if (!moved || (stencil == 7 && moved > 1))
				continue;
			int to = grid_rank(g, c, sh, (int)periodic), from = grid_rank(g, c, back, (int)periodic);
			size_t lo[3], hi[3], len = 0;
			for (int d = 0; d < 3; d++) { /* our layer facing the shift */
				lo[d] = sh[d] < 0 ? 1 : sh[d] > 0 ? n : 1;
				hi[d] = sh[d] ? lo[d] : n;
			}
			off[s] = (size_t)used * n * n;
			used++;
			if (to >= 0 && to != a.me) {
				for (size_t z = lo[2]; z <= hi[2]; z++)
					for (size_t y = lo[1]; y <= hi[1]; y++)
						for (size_t x = lo[0]; x <= hi[0]; x++)
							sbuf[off[s] + len++] = u[IDX(x, y, z)];
				MPI_Isend(sbuf + off[s], (int)len, MPI_DOUBLE, to, s, MPI_COMM_WORLD, &req[nreq++]);
			}
			if (from >= 0 && from != a.me) {
				size_t cnt = 1;
				for (int d = 0; d < 3; d++)
					cnt *= sh[d] ? 1 : n;
				MPI_Irecv(rbuf + off[s], (int)cnt, MPI_DOUBLE, from, s, MPI_COMM_WORLD, &req[nreq++]);
			} else {
				off[s] = (size_t)-1; /* nothing arrives: the halo keeps zeros */
			}
		}
		MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
		for (int s = 0; s < 27; s++) { /* what came from c - sh fills the halo there */
			int sh[3] = {s % 3 - 1, s / 3 % 3 - 1, s / 9 - 1};
			int moved = !!sh[0] + !!sh[1] + !!sh[2];
			if (!moved || (stencil == 7 && moved > 1) || off[s] == (size_t)-1)
				continue;
			size_t lo[3], hi[3], k = off[s];
			for (int d = 0; d < 3; d++) {
				lo[d] = sh[d] > 0 ? 0 : sh[d] < 0 ? n + 1 : 1;
				hi[d] = sh[d] ? lo[d] : n;
			}
			for (size_t z = lo[2]; z <= hi[2]; z++)
				for (size_t y = lo[1]; y <= hi[1]; y++)
					for (size_t x = lo[0]; x <= hi[0]; x++)
						u[IDX(x, y, z)] = rbuf[k++];
		}
		for (size_t z = 1; z <= n; z++)
			for (size_t y = 1; y <= n; y++)
				for (size_t x = 1; x <= n; x++) {
					double sum = 0;
					int k = 0;
					for (int s = 0; s < 27; s++) {
						int dx = s % 3 - 1, dy = s / 3 % 3 - 1, dz = s / 9 - 1;
						if (stencil == 7 && !!dx + !!dy + !!dz > 1)
							continue;
						sum += u[IDX(x + dx, y + dy, z + dz)];
						k++;
					}
					v[IDX(x, y, z)] = sum / k;
				}
		double *t = u;
		u = v;
		v = t;
		uint64_t tot[APP_MAXEV];
		app_phase(&a, tot);
		if (a.me == 0)
			printf("%llu,%llu,%llu\n", (unsigned long long)step + 1, (unsigned long long)tot[0],
			       (unsigned long long)(a.nev > 1 ? tot[1] : 0));
	}
	double local = 0, check;
	for (size_t z = 1; z <= n; z++)
		for (size_t y = 1; y <= n; y++)
			for (size_t x = 1; x <= n; x++)
				local += u[IDX(x, y, z)];
	MPI_Reduce(&local, &check, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (a.me == 0)
		fprintf(stderr, "counterlab-stencil: checksum %.6f\n", check);
	free(u);
	free(v);
	free(sbuf);
	free(rbuf);
	app_finish(&a);
	return 0;
}
