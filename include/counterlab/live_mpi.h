/* libcounterlab-mpi: a PMPI layer that routes a live MPI program's
 * messages over the simulated torus of the machine COUNTERLAB_MACHINE
 * names (docs/mpi.md). A program needs none of this to be
 * counted (linked or LD_PRELOADed, the library sees its MPI calls); these
 * calls only tell where the layer placed the calling rank. */
#ifndef COUNTERLAB_LIVE_MPI_H
#define COUNTERLAB_LIVE_MPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The simulated node of the calling rank (MPI_COMM_WORLD), the lowest
 * world rank on that node (*first), so that a program can count each node
 * once, and the machine's number of nodes. CLAB_E_STATE when the layer is not active (before MPI_Init, or
 * the machine has no torus network). */
int clab_mpi_node(uint32_t *node, int *first, uint32_t *nodes);
/* The lowest world rank on the node across torus link `link` (2d: minus,
 * 2d+1: plus of dimension d) of world rank `rank`'s node, or -1 when that
 * node holds no rank or is the node itself (a mesh edge); CLAB_E_STATE as
 * above, CLAB_E_INVAL for a rank or link that does not exist. */
int clab_mpi_neighbor(int rank, int link, int *neighbor);

#ifdef __cplusplus
}
#endif
#endif
