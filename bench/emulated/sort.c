/* bench: qsort of N pseudo-random ints (a fixed seed) */
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int *v = malloc((size_t)n * sizeof *v);
	unsigned s = 12345;
	for (long i = 0; i < n; i++)
		v[i] = (int)(s = s * 1103515245u + 12345u);
	qsort(v, (size_t)n, sizeof *v, cmp);
	printf("%d %d\n", v[0], v[n - 1]);
	free(v);
	return 0;
}
