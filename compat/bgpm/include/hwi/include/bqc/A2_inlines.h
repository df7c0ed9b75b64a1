/* The A2 core's time base and a busy delay, on the simulated clock (libbgpm). */
#ifndef COUNTERLAB_BGQ_A2_INLINES_H
#define COUNTERLAB_BGQ_A2_INLINES_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
uint64_t GetTimeBase(void);   /* the calling thread's simulated cycles (1.6 GHz) */
void Delay(uint64_t pclks);   /* the thread runs its activity for pclks cycles */
#ifdef __cplusplus
}
#endif
#endif
