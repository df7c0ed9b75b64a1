/* The process on the simulated BG/Q node (libbgpm). */
#ifndef COUNTERLAB_BGQ_PROCESS_H
#define COUNTERLAB_BGQ_PROCESS_H
#include <stddef.h>
#include <stdint.h>
#include "firmware/include/personality.h"
#include "hwi/include/bqc/A2_inlines.h" /* GetTimeBase, as CNK's headers bring it */
#ifdef __cplusplus
extern "C" {
#endif
uint32_t Kernel_ProcessCount(void);    /* processes per node: the machine's ppn */
uint32_t Kernel_ProcessorCount(void);  /* hardware threads of this process: 64 / ppn */
/* The hardware threads of the node's process t: hardware thread h is bit
 * 63-h; 0 when t is not below Kernel_ProcessCount(). */
uint64_t Kernel_ThreadMask(uint32_t t);
/* 0, or -1 when size is smaller than the structure or the machine fails to open. */
int Kernel_GetPersonality(Personality_t *personality, size_t size);
#ifdef __cplusplus
}
#endif
#endif
