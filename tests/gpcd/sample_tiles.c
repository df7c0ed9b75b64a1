/* The published tile-sampling loop as a program for Cray's
 * GPCD library: it includes gpcd_lib.h only and knows nothing of
 * counterlab. Create a context, add all 288 tile counters by name, read,
 * print. tests/run.sh builds it unchanged against libgpcd and checks what
 * it prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpcd_lib.h"

int main(void)
{
	gpcd_context_t *ctx = gpcd_create_context();
	char name[128];
	int row, col, n, rc;
	if (!ctx) {
		fprintf(stderr, "gpcd_create_context failed\n");
		return 1;
	}
	for (row = 0; row < GPC_TILE_MAX_ROW; row++)
		for (col = 0; col < GPC_TILE_MAX_COL; col++)
			for (n = 0; n < 6; n++) {
				const gpcd_mmr_desc_t *desc;
				snprintf(name, sizeof name, "GM_%d_%d_TILE_PERFORMANCE_COUNTERS_%d",
					 row, col, n);
				desc = gpcd_lookup_mmr_byname(name);
				if (!desc) {
					fprintf(stderr, "no register %s\n", name);
					return 1;
				}
				rc = gpcd_context_add_mmr(ctx, (gpcd_mmr_desc_t *)desc);
				if (rc) {
					fprintf(stderr, "gpcd_context_add_mmr %s: %d\n", name, rc);
					return 1;
				}
			}
	rc = gpcd_context_read_mmr_vals(ctx);
	if (rc) {
		fprintf(stderr, "gpcd_context_read_mmr_vals: %d\n", rc);
		return 1;
	}
	gpcd_context_print(ctx);
	gpcd_remove_context(ctx);
	return 0;
}
