/* counterlab-fft3d: a 3D FFT of an n^3 cube of double complex values,
 * 2D-decomposed on a Pr x Pc process grid (rank = r * Pc + c) as in the
 * published BG/Q mapping study: FFTs along z; all-to-all within each grid
 * column (the Pr ranks c, c + Pc, ...) that makes y whole; FFTs along y;
 * all-to-all within each grid row (Pc consecutive ranks) that makes x
 * whole; FFTs along x. FFTW does the 1D transforms. Small cubes (n <= 32,
 * or --verify 1) are checked against a serial FFTW 3D transform.
 *
 * Rank 0 prints `phase,nw_chunks_sent_total,nw_packets_recv_total,seconds`
 * and one line per all-to-all: the network counters of the phase summed
 * over all simulated nodes (each once) and the phase's wall-clock time.
 * The same traffic offline: counterlab-netsim --pattern
 * fft3d:n=N,grid=PrxPc,compute=0.
 *
 *   mpirun -n 16 counterlab-fft3d --n 32 --grid 4x4 */
#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include "app.h"

static double complex input(uint64_t x, uint64_t y, uint64_t z)
{
	/* a fixed function of the position, not too regular */
	return sin(0.37 * (double)x + 1.3 * (double)(y * y % 7)) + (double)(z % 5) * 0.25 +
	       I * cos(0.11 * (double)(x * z) + (double)y);
}

/* In-place 1D FFTs of length n: howmany lines, stride apart, dist apart. */
static void ffts(fftw_complex *data, int n, int howmany, int stride, int dist)
{
	fftw_plan p = fftw_plan_many_dft(1, &n, howmany, data, NULL, stride, dist, data, NULL,
					 stride, dist, FFTW_FORWARD, FFTW_ESTIMATE);
	fftw_execute(p);
	fftw_destroy_plan(p);
}

static const char usage[] =
	"usage: mpirun -n 16 counterlab-fft3d [--n N] [--grid PrxPc] [--verify 0|1]\n"
	"                 [--events LIST] [--per-node FILE]\n"
	"A 3D FFT of an N^3 cube on a Pr x Pc rank grid; rank 0 prints a CSV line per\n"
	"all-to-all phase.\n\n"
	"  --n N            the cube's edge (default 16; Pr and Pc must divide it)\n"
	"  --grid PrxPc     the rank grid (default the squarest for the ranks)\n"
	"  --verify 0|1     check against a serial FFT (default 1 when N <= 32)\n"
	COMMON_USAGE;

int main(int argc, char **argv)
{
	app a;
	app_init(&a, "counterlab-fft3d", usage, &argc, &argv);
	uint64_t n = 16, pr = 0, pc = 0;
	int verify = -1;
	const char *events = APP_EVENTS;
	for (int i = 1; i < argc; i++) {
		if (app_common_opt(&a, argc, argv, &i, &events))
			continue;
		if (!strcmp(argv[i], "--n") && i + 1 < argc) {
			n = app_u64(&a, "--n", argv[++i], 1, 4096);
		} else if (!strcmp(argv[i], "--verify") && i + 1 < argc) {
			verify = (int)app_u64(&a, "--verify", argv[++i], 0, 1);
		} else if (!strcmp(argv[i], "--grid") && i + 1 < argc) {
			char *x = strchr(argv[++i], 'x');
			if (!x)
				app_die(&a, "--grid %s: want PrxPc, e.g. 4x4", argv[i]);
			*x = '\0';
			pr = app_u64(&a, "--grid", argv[i], 1, 1u << 20);
			pc = app_u64(&a, "--grid", x + 1, 1, 1u << 20);
		} else {
			app_bad_arg(&a, argv[i]);
		}
	}
	if (!pr) { /* the squarest grid, Pr <= Pc */
		for (pr = 1; (pr + 1) * (pr + 1) <= (uint64_t)a.size; pr++)
			;
		while (a.size % pr)
			pr--;
		pc = (uint64_t)a.size / pr;
	}
	if (pr * pc != (uint64_t)a.size || n % pr || n % pc) {
		char msg[160];
		snprintf(msg, sizeof msg, "grid %llux%llu: needs Pr x Pc = %d ranks and both to divide n = %llu",
			 (unsigned long long)pr, (unsigned long long)pc, a.size, (unsigned long long)n);
		app_die(&a, "%s", msg);
	}
	if (verify < 0)
		verify = n <= 32;
	int r = a.me / (int)pc, c = a.me % (int)pc;
	int N = (int)n, xl = N / (int)pc, yl = N / (int)pr, zl = N / (int)pr, yl2 = N / (int)pc;
	size_t cells = (size_t)xl * yl * N;
	fftw_complex *d = fftw_alloc_complex(cells), *s = fftw_alloc_complex(cells);
	char why[160];
	snprintf(why, sizeof why, "no memory for this rank's two blocks of %zu x %d x %d points (%.3g GB)",
		 (size_t)xl, yl, N, 2.0 * (double)cells * sizeof *d / 1e9);
	app_check(&a, !d || !s ? why : NULL);
	MPI_Comm col, row;
	MPI_Comm_split(MPI_COMM_WORLD, c, r, &col); /* rank in col = r */
	MPI_Comm_split(MPI_COMM_WORLD, r, c, &row); /* rank in row = c */
	app_events(&a, events);

	/* x in column c's range, y in row r's, z whole: [xl][yl][N] */
	for (int x = 0; x < xl; x++)
		for (int y = 0; y < yl; y++)
			for (int z = 0; z < N; z++)
				d[((size_t)x * yl + y) * N + z] = input((uint64_t)(c * xl + x),
									  (uint64_t)(r * yl + y), (uint64_t)z);
	ffts(d, N, xl * yl, 1, N);
	/* to member i of the column: z in its range; back: [xl][N][zl] */
	for (int i = 0; i < (int)pr; i++)
		for (int x = 0; x < xl; x++)
			for (int y = 0; y < yl; y++)
				memcpy(&s[(((size_t)i * xl + x) * yl + y) * zl],
				       &d[((size_t)x * yl + y) * N + (size_t)i * zl], (size_t)zl * sizeof *d);
	uint64_t sum[APP_MAXEV];
	double t0 = MPI_Wtime();
	MPI_Alltoall(s, xl * yl * zl * 2, MPI_DOUBLE, d, xl * yl * zl * 2, MPI_DOUBLE, col);
	double t1 = MPI_Wtime() - t0;
	app_phase(&a, sum);
	if (a.me == 0) {
		printf("phase,nw_chunks_sent_total,nw_packets_recv_total,seconds\n");
		printf("alltoall-columns,%llu,%llu,%.6f\n", (unsigned long long)sum[0],
		       (unsigned long long)(a.nev > 1 ? sum[1] : 0), t1);
	}
	for (int i = 0; i < (int)pr; i++) /* block from member i: y in its range */
		for (int x = 0; x < xl; x++)
			for (int y = 0; y < yl; y++)
				memcpy(&s[((size_t)x * N + (size_t)i * yl + y) * zl],
				       &d[(((size_t)i * xl + x) * yl + y) * zl], (size_t)zl * sizeof *d);
	for (int x = 0; x < xl; x++)
		ffts(s + (size_t)x * N * zl, N, zl, zl, 1);
	/* to member j of the row: y in its range; back: [N][yl2][zl] */
	for (int j = 0; j < (int)pc; j++)
		for (int x = 0; x < xl; x++)
			for (int y = 0; y < yl2; y++)
				memcpy(&d[(((size_t)j * xl + x) * yl2 + y) * zl],
				       &s[((size_t)x * N + (size_t)j * yl2 + y) * zl], (size_t)zl * sizeof *d);
	t0 = MPI_Wtime();
	MPI_Alltoall(d, xl * yl2 * zl * 2, MPI_DOUBLE, s, xl * yl2 * zl * 2, MPI_DOUBLE, row);
	t1 = MPI_Wtime() - t0;
	app_phase(&a, sum);
	if (a.me == 0)
		printf("alltoall-rows,%llu,%llu,%.6f\n", (unsigned long long)sum[0],
		       (unsigned long long)(a.nev > 1 ? sum[1] : 0), t1);
	/* the block from member j holds x in j's range: already [N][yl2][zl] */
	ffts(s, N, yl2 * zl, yl2 * zl, 1);

	if (verify) { /* every rank checks its part against the serial transform */
		fftw_complex *full = fftw_alloc_complex((size_t)N * N * N);
		if (!full)
			app_fail(&a, "%s", "no memory");
		for (int x = 0; x < N; x++)
			for (int y = 0; y < N; y++)
				for (int z = 0; z < N; z++)
					full[((size_t)x * N + y) * N + z] = input((uint64_t)x, (uint64_t)y,
										  (uint64_t)z);
		fftw_plan p = fftw_plan_dft_3d(N, N, N, full, full, FFTW_FORWARD, FFTW_ESTIMATE);
		fftw_execute(p);
		fftw_destroy_plan(p);
		double err = 0, big = 0;
		for (int x = 0; x < N; x++)
			for (int y = 0; y < yl2; y++)
				for (int z = 0; z < zl; z++) {
					double complex want = full[((size_t)x * N + c * yl2 + y) * N + r * zl + z];
					double e = cabs(s[((size_t)x * yl2 + y) * zl + z] - want);
					err = e > err ? e : err;
					big = cabs(want) > big ? cabs(want) : big;
				}
		double rel = err / (big > 0 ? big : 1), worst;
		MPI_Allreduce(&rel, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		fftw_free(full);
		if (a.me == 0)
			fprintf(stderr, "counterlab-fft3d: largest error against the serial FFT %.3g (relative)\n",
				worst);
		if (!(worst < 1e-10))
			app_die(&a, "%s", "the distributed FFT differs from the serial one");
	}
	MPI_Comm_free(&col);
	MPI_Comm_free(&row);
	fftw_free(d);
	fftw_free(s);
	app_finish(&a);
	return 0;
}
