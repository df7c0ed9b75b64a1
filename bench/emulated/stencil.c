/* bench: a 5-point Jacobi stencil on an N x N grid of doubles, T sweeps */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 512, t = argc > 2 ? atol(argv[2]) : 10;
	double *a = calloc((size_t)(n * n), sizeof *a), *b = calloc((size_t)(n * n), sizeof *b);
	for (long i = 0; i < n; i++)
		a[i] = 1.0;
	for (long k = 0; k < t; k++) {
		for (long i = 1; i < n - 1; i++)
			for (long j = 1; j < n - 1; j++)
				b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] +
						       a[i * n + j - 1] + a[i * n + j + 1]);
		double *c = a; a = b; b = c;
	}
	printf("%g\n", a[(n / 2) * n + n / 2]);
	free(a);
	free(b);
	return 0;
}
