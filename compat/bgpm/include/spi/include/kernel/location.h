/* Where the calling thread runs on the simulated BG/Q node (libbgpm).
 * A thread's hardware thread is chosen at its first call into libbgpm
 * (any of these or Bgpm_Init) among its process's hardware threads, and
 * stays its own until it exits. */
#ifndef COUNTERLAB_BGQ_LOCATION_H
#define COUNTERLAB_BGQ_LOCATION_H
#include <stdint.h>
#include "spi/include/kernel/process.h"
#ifdef __cplusplus
extern "C" {
#endif
uint32_t Kernel_ProcessorID(void);       /* hardware thread, 0..67 */
uint32_t Kernel_ProcessorCoreID(void);   /* core, 0..16 */
uint32_t Kernel_ProcessorThreadID(void); /* thread on its core, 0..3 */
uint32_t Kernel_MyTcoord(void);          /* this process's T coordinate on the node */
#ifdef __cplusplus
}
#endif
#endif
