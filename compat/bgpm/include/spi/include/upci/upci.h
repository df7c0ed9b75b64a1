/* The UPC layer's calls BGPM programs use (libbgpm). */
#ifndef COUNTERLAB_BGQ_UPCI_H
#define COUNTERLAB_BGQ_UPCI_H
#include <stdint.h>
#include "spi/include/upci/upc_common.h"
#ifdef __cplusplus
extern "C" {
#endif
/* The calling thread runs on for clks cycles of its simulated clock. */
void Upci_Delay(uint64_t clks);
#ifdef __cplusplus
}
#endif
#endif
