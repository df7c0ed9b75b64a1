/* What libbgpm's two halves share: the calling thread's place on the node. */
#ifndef COUNTERLAB_BGPM_SPI_H
#define COUNTERLAB_BGPM_SPI_H
#include "counterlab/counterlab.h"

/* The calling OS thread's simulated hardware thread: placed at the first
 * call, among this process's hardware threads, and kept until the thread
 * exits. NULL (counterlab's error set) when the machine cannot be had. */
clab_thread *bgpm_self(void);
/* This process's hardware threads: the first and how many. */
void bgpm_process_hw(int *first, int *count);
/* Called (by bgpm_self) once a thread has its place; bgpm.c counts it for
 * the hardware-distributed sets that target it. */
void bgpm_on_placed(clab_thread *t);
/* Called as a placed thread exits: no thread runs at its place now. */
void bgpm_on_left(clab_thread *t);
#endif
