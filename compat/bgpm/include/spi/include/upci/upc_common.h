/* Definitions BGPM programs get through bgpm.h from the UPC layer (libbgpm). */
#ifndef COUNTERLAB_BGQ_UPC_COMMON_H
#define COUNTERLAB_BGQ_UPC_COMMON_H
#include "spi/include/kernel/location.h"

/* "file:line" of the place it is written, as a string constant. */
#ifndef _AT_
#define UPCI_STR_(x) #x
#define UPCI_STR(x) UPCI_STR_(x)
#define _AT_ __FILE__ ":" UPCI_STR(__LINE__)
#endif

#ifndef UPCI_MIN
#define UPCI_MIN(a, b) ((a) < (b) ? (a) : (b))
#define UPCI_MAX(a, b) ((a) < (b) ? (b) : (a))
#endif
#endif
