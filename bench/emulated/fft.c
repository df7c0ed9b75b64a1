/* bench: FFTW's complex 1-D transforms of size N, R times (FFTW_ESTIMATE:
 * a plan that does not depend on timing) */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 65536, r = argc > 2 ? atoi(argv[2]) : 10;
	fftw_complex *x = fftw_malloc(sizeof *x * (size_t)n);
	fftw_plan p = fftw_plan_dft_1d(n, x, x, FFTW_FORWARD, FFTW_ESTIMATE);
	for (int k = 0; k < r; k++) {
		for (int i = 0; i < n; i++) {
			x[i][0] = (double)(i % 17);
			x[i][1] = 0.0;
		}
		fftw_execute(p);
	}
	printf("%g\n", x[1][0]);
	fftw_destroy_plan(p);
	fftw_free(x);
	return 0;
}
