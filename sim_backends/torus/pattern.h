/* Private to sim_backends/torus/: the pieces traffic patterns share. */
#ifndef CLAB_PATTERN_H
#define CLAB_PATTERN_H

#include "counterlab/backend.h"
#include "counterlab/torus.h"

#define PATTERN_MAX_ARGS 12 /* at least the keys of any pattern */

/* A pattern's key=value arguments, as given (values of any length). */
typedef struct pattern_args {
	const char *pattern;       /* the spec (cut short when long), for messages */
	int n;
	const char *key[PATTERN_MAX_ARGS], *val[PATTERN_MAX_ARGS];
} pattern_args;

/* The value of key, NULL when not given. */
const char *pattern_find(pattern_args *a, const char *key);
/* Whole number with an optional k, M or G (powers of 1024) in [min, max],
 * def when not given; CLAB_E_PATTERN naming the key otherwise. */
int pattern_u64(pattern_args *a, const char *key, uint64_t def, uint64_t min,
		uint64_t max, uint64_t *out);
/* "AxB" or "AxBxC": k sizes whose product is nranks; absent: the most
 * even factorization, larger sizes first. */
int pattern_grid(pattern_args *a, const char *key, int k, uint32_t nranks,
		 uint32_t *g);

/* NAS parallel benchmarks (nas.c). */
int pattern_nas_bt(clab_net *n, pattern_args *a);
int pattern_nas_cg(clab_net *n, pattern_args *a);
int pattern_nas_mg(clab_net *n, pattern_args *a);

#endif
