/* Where the calling thread runs on the simulated BG/Q node (libbgpm). */
#ifndef COUNTERLAB_BGQ_LOCATION_H
#define COUNTERLAB_BGQ_LOCATION_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
uint32_t Kernel_ProcessorID(void);       /* hardware thread, 0..67 */
uint32_t Kernel_ProcessorCoreID(void);   /* core, 0..16 */
uint32_t Kernel_ProcessorThreadID(void); /* thread on its core, 0..3 */
#ifdef __cplusplus
}
#endif
#endif
