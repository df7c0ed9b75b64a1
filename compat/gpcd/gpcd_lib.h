/* Cray's Gemini Performance Counter library (GPCD), as counterlab offers
 * it over its simulated Gemini router (compat/gpcd, docs/bgpm-gpcd.md). Programs written for Cray's gpcd_lib.h compile against
 * this header unchanged: the same types (whose fields programs walk), the
 * same functions, return codes (0 or a negative errno) and register
 * names. Registers are the 288 tile counters
 * GM_<row>_<col>_TILE_PERFORMANCE_COUNTERS_<n> (n 0-5) and a subset of the
 * NIC's (ORB, NPT, RAT, TARB); the machine is $COUNTERLAB_MACHINE, or the
 * `gemini` profile when that is unset. */
#ifndef GPCD_LIB_H
#define GPCD_LIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPC_TILE_MAX_ROW 6
#define GPC_TILE_MAX_COL 8
/* registers a context holds at most */
#define GPCD_CONTEXT_MAX 1024

/* A register: its address and name. */
typedef struct gpcd_mmr_desc {
	uint64_t addr;
	char *name;
} gpcd_mmr_desc_t;

/* A context's registers, newest first; value is filled by a read. */
typedef struct gpcd_mmr_list {
	struct gpcd_mmr_desc *item;
	struct gpcd_mmr_list *next;
	uint64_t value;
} gpcd_mmr_list_t;

typedef struct gpcd_context {
	gpcd_mmr_list_t *list;
	int count;
	uint32_t nic_addr;     /* 0: this process's node (others are refused) */
} gpcd_context_t;

/* Registers by name (NULL if the name is unknown or not "GM_..."). */
const gpcd_mmr_desc_t *gpcd_lookup_mmr_byname(char *mmr_name);

gpcd_context_t *gpcd_create_context(void);
/* Frees the context and its list: 0, -EINVAL for NULL. */
int gpcd_remove_context(gpcd_context_t *context);
/* Puts item at the head of the list: 0, -EINVAL, -E2BIG (1024 held), -ENOMEM. */
int gpcd_context_add_mmr(gpcd_context_t *context, gpcd_mmr_desc_t *item);
/* 0, -EINVAL, -ENOENT (not in the list). */
int gpcd_context_remove_mmr(gpcd_context_t *context, gpcd_mmr_desc_t *item);
/* Reads every register of the list into its value, in list order: 0,
 * -EINVAL (a register it does not know), -ENOENT (no simulated Gemini). */
int gpcd_context_read_mmr_vals(gpcd_context_t *context);
/* Tile counters only (a value of the list is written back): as read. */
int gpcd_context_write_mmr_vals(gpcd_context_t *context);
/* "GPCD Context print %3d : NAME : VALUE" per register: 0, -EINVAL, -ENOENT (empty). */
int gpcd_context_print(gpcd_context_t *context);
gpcd_mmr_list_t *gpcd_context_find_list_byname(gpcd_context_t *context, char *mmr_name);
void gpcd_context_set_nic_addr(gpcd_context_t *cp, uint32_t nic_addr);

/* One register: 0, -EINVAL, -ENOENT. By name, NIC registers only (as
 * Cray's library searches). Writes: tile counters only. */
int gpcd_read_mmr_val(const gpcd_mmr_desc_t *mmrd, uint64_t *val, uint32_t nic_addr);
int gpcd_read_mmr_val_byname(char *mmr_name, uint64_t *val, uint32_t nic_addr);
int gpcd_write_mmr_val(const gpcd_mmr_desc_t *mmrd, uint64_t *val, uint32_t nic_addr);
int gpcd_write_mmr_val_byname(char *mmr_name, uint64_t *val, uint32_t nic_addr);

/* The registers it knows, "%-49s 0x%lx" per line. */
int gpcd_print_valid_tile_mmrs(void);
int gpcd_print_valid_nic_mmrs(void);
int gpcd_print_valid_tile_static_mmrs(void);

#ifdef __cplusplus
}
#endif
#endif
