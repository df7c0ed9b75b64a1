/* Rate profiles: per-thread event rates over simulated cycles, in phases
 * that repeat. Data in machines/activity/NAME.ini. */
#ifndef CLAB_ACTIVITY_H
#define CLAB_ACTIVITY_H

#include <stdint.h>

#define CLAB_PPM 1000000ull /* rates are kept in millionths of an event per cycle */

typedef struct clab_rate {
	char *event;
	uint64_t ppm;
} clab_rate;

typedef struct clab_phase {
	char *name;
	uint64_t cycles; /* 0: the single phase runs forever */
	int nrate;
	clab_rate *rate;
} clab_phase;

typedef struct clab_activity {
	char *name;
	int nphase;
	clab_phase *phase;
	uint64_t period; /* sum of phase cycles, 0 when one endless phase */
} clab_activity;

/* Loads path; CLAB_E_ACTIVITY with a message naming file and key on error. */
int clab_activity_load(const char *path, clab_activity **out);
void clab_activity_free(clab_activity *a);
/* floor(ppm * cycles / 1e6), exact whenever the result fits 64 bits
 * (ppm <= 1e9): split cycles at a million to stay in 64-bit arithmetic. */
static inline uint64_t clab_rate_count(uint64_t ppm, uint64_t cycles)
{
	return ppm * (cycles / CLAB_PPM) + ppm * (cycles % CLAB_PPM) / CLAB_PPM;
}

#endif
