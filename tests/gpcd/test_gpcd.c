/* libgpcd (compat/gpcd) through Cray's API: lookups, list order (newest
 * first, values in list order), the 1024-register limit, return codes,
 * single-register reads and writes, and values that agree with the Gemini
 * model's counters for traffic given to it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpcd_lib.h"
#include "counterlab/counterlab.h"
#include "counterlab/gemini.h"

static clab_gemini_net *model(void)
{
	clab_machine *m;
	int rc;
	assert_int_equal(clab_machine_default(&m), CLAB_OK);
	clab_gemini_net *gn = clab_machine_gemini(m, &rc);
	assert_non_null(gn);
	return gn;
}

static gpcd_mmr_desc_t *reg(const char *name)
{
	gpcd_mmr_desc_t *d = (gpcd_mmr_desc_t *)gpcd_lookup_mmr_byname((char *)name);
	if (!d)
		fail_msg("no register %s", name);
	return d;
}

static void lookups(void **state)
{
	(void)state;
	const gpcd_mmr_desc_t *d = reg("GM_2_3_TILE_PERFORMANCE_COUNTERS_5");
	assert_string_equal(d->name, "GM_2_3_TILE_PERFORMANCE_COUNTERS_5");
	/* Cray's address of a tile's static counter */
	assert_int_equal(d->addr, 0x2000000 + 2 * 0x20000 + 3 * 0x2000 + 0x1000 + 0x380 + 5 * 8);
	assert_int_equal(reg("GM_ORB_PERF_VC0_FLITS")->addr, 0x5018040);
	assert_non_null(reg("GM_TARB_PERF_FMA_PKTS"));
	assert_null(gpcd_lookup_mmr_byname("GM_6_0_TILE_PERFORMANCE_COUNTERS_0"));
	assert_null(gpcd_lookup_mmr_byname("GM_0_0_TILE_PERFORMANCE_COUNTERS_6"));
	assert_null(gpcd_lookup_mmr_byname("XX_ORB_PERF_VC0_FLITS"));
	assert_null(gpcd_lookup_mmr_byname(NULL));
}

/* Added A, B, C: the list holds C, B, A and a read fills it in that order
 * with each register's own value. */
static void list_order(void **state)
{
	(void)state;
	clab_gemini_net *gn = model();
	static const char *const names[] = {
		"GM_0_0_TILE_PERFORMANCE_COUNTERS_0", "GM_2_3_TILE_PERFORMANCE_COUNTERS_0",
		"GM_3_4_TILE_PERFORMANCE_COUNTERS_0",
	};
	/* tiles 0, 19, 28 hold 100, 200, 300 */
	static const int tiles[] = {0, 19, 28};
	for (int i = 0; i < 3; i++)
		clab_gemini_tile_set(gn->g, gn->router, tiles[i], 0, 100 * (i + 1));
	gpcd_context_t *c = gpcd_create_context();
	assert_non_null(c);
	for (int i = 0; i < 3; i++)
		assert_int_equal(gpcd_context_add_mmr(c, reg(names[i])), 0);
	assert_int_equal(c->count, 3);
	assert_int_equal(gpcd_context_read_mmr_vals(c), 0);
	gpcd_mmr_list_t *l = c->list;
	for (int i = 2; i >= 0; i--, l = l->next) {
		assert_string_equal(l->item->name, names[i]);
		assert_int_equal(l->value, 100 * (i + 1));
	}
	assert_null(l);
	assert_ptr_equal(gpcd_context_find_list_byname(c, (char *)names[1])->item, reg(names[1]));
	assert_null(gpcd_context_find_list_byname(c, "GM_5_5_TILE_PERFORMANCE_COUNTERS_0"));
	/* removing the middle one keeps the order of the others */
	assert_int_equal(gpcd_context_remove_mmr(c, reg(names[1])), 0);
	assert_int_equal(gpcd_context_remove_mmr(c, reg(names[1])), -ENOENT);
	assert_int_equal(c->count, 2);
	assert_string_equal(c->list->item->name, names[2]);
	assert_string_equal(c->list->next->item->name, names[0]);
	assert_int_equal(gpcd_remove_context(c), 0);
	for (int i = 0; i < 3; i++)
		clab_gemini_tile_set(gn->g, gn->router, tiles[i], 0, 0);
}

static void limits_and_errors(void **state)
{
	(void)state;
	gpcd_context_t *c = gpcd_create_context();
	gpcd_mmr_desc_t *d = reg("GM_1_1_TILE_PERFORMANCE_COUNTERS_1");
	for (int i = 0; i < 1024; i++)
		assert_int_equal(gpcd_context_add_mmr(c, d), 0);
	assert_int_equal(gpcd_context_add_mmr(c, d), -E2BIG);
	assert_int_equal(c->count, 1024);
	assert_int_equal(gpcd_context_read_mmr_vals(c), 0);
	assert_int_equal(gpcd_context_add_mmr(NULL, d), -EINVAL);
	assert_int_equal(gpcd_context_add_mmr(c, NULL), -EINVAL);
	assert_int_equal(gpcd_context_remove_mmr(c, NULL), -EINVAL);
	assert_int_equal(gpcd_remove_context(c), 0);
	assert_int_equal(gpcd_remove_context(NULL), -EINVAL);
	gpcd_context_set_nic_addr(NULL, 0); /* void: nothing to say, nothing done */
	c = gpcd_create_context();
	assert_int_equal(gpcd_context_print(c), -ENOENT);
	assert_int_equal(gpcd_context_print(NULL), -EINVAL);
	assert_int_equal(gpcd_context_remove_mmr(c, d), -ENOENT);
	/* a descriptor of a register nobody has: the read refuses, values untouched */
	gpcd_mmr_desc_t bogus = {0x1234, "GM_NOTHING"};
	assert_int_equal(gpcd_context_add_mmr(c, d), 0);
	c->list->value = 77;
	assert_int_equal(gpcd_context_add_mmr(c, &bogus), 0);
	assert_int_equal(gpcd_context_read_mmr_vals(c), -EINVAL);
	assert_int_equal(c->list->next->value, 77);
	/* another NIC's registers are not simulated */
	assert_int_equal(gpcd_context_remove_mmr(c, &bogus), 0);
	gpcd_context_set_nic_addr(c, 5);
	assert_int_equal(gpcd_context_read_mmr_vals(c), -EINVAL);
	gpcd_remove_context(c);
	/* single registers; by name, NIC registers only (as Cray's) */
	uint64_t v;
	assert_int_equal(gpcd_read_mmr_val(d, &v, 0), 0);
	assert_int_equal(gpcd_read_mmr_val(d, NULL, 0), -EINVAL);
	assert_int_equal(gpcd_read_mmr_val(d, &v, 3), -EINVAL);
	assert_int_equal(gpcd_read_mmr_val_byname("GM_ORB_PERF_VC0_PKTS", &v, 0), 0);
	assert_int_equal(gpcd_read_mmr_val_byname("GM_1_1_TILE_PERFORMANCE_COUNTERS_1", &v, 0), -ENOENT);
	assert_int_equal(gpcd_read_mmr_val_byname("XM_ORB_PERF_VC0_PKTS", &v, 0), -EINVAL);
	assert_int_equal(gpcd_read_mmr_val_byname(NULL, &v, 0), -EINVAL);
	assert_int_equal(gpcd_write_mmr_val_byname("GM_ORB_PERF_VC0_PKTS", &v, 0), -EINVAL);
}

/* Traffic given to the model shows in the registers; a tile counter
 * written near 2^48 wraps. */
static void values_and_wrap(void **state)
{
	(void)state;
	clab_gemini_net *gn = model();
	uint64_t near = (1ull << 48) - 2, v;
	static const char *const host0[] = {
		"GM_2_3_TILE_PERFORMANCE_COUNTERS_2", "GM_2_4_TILE_PERFORMANCE_COUNTERS_2",
		"GM_3_3_TILE_PERFORMANCE_COUNTERS_2", "GM_3_4_TILE_PERFORMANCE_COUNTERS_2",
	};
	gpcd_context_t *c = gpcd_create_context();
	for (int i = 0; i < 4; i++) {
		assert_int_equal(gpcd_write_mmr_val(reg(host0[i]), &near, 0), 0);
		assert_int_equal(gpcd_context_add_mmr(c, reg(host0[i])), 0);
	}
	assert_int_equal(gpcd_context_add_mmr(c, reg("GM_ORB_PERF_VC0_PKTS")), 0);
	assert_int_equal(gpcd_context_read_mmr_vals(c), 0);
	uint64_t orb0 = c->list->value;
	/* rank 0 (this process's node) sends 10 PUT packets to another router:
	 * they enter router 0 by NIC 0's four host tiles (19, 20, 27, 28) */
	uint32_t other = gn->tn.map.nranks - 1;
	assert_int_equal(clab_gemini_message(gn->g, 0, other, 640, NULL, CLAB_GEM_PUT, 1), CLAB_OK);
	clab_gemini_phase_end(gn->g, 1, NULL);
	assert_int_equal(gpcd_context_read_mmr_vals(c), 0);
	assert_int_equal(c->list->value - orb0, 10);
	uint64_t sum = 0;
	for (gpcd_mmr_list_t *l = c->list->next; l; l = l->next) {
		assert_true(l->value < 4); /* each took 2 or 3 packets: wrapped */
		sum += (l->value - near) & ((1ull << 48) - 1);
	}
	assert_int_equal(sum, 10);
	assert_int_equal(gpcd_read_mmr_val(reg(host0[0]), &v, 0), 0);
	assert_int_equal(v, clab_gemini_tile(gn->g, gn->router, 19, CLAB_GEM_VC0_PKTS));
	gpcd_remove_context(c);
}

int main(void)
{
	/* the machine libgpcd would pick by itself, chosen before this test
	 * opens it first */
	setenv("COUNTERLAB_MACHINE", "gemini", 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lookups),
		cmocka_unit_test(list_order),
		cmocka_unit_test(limits_and_errors),
		cmocka_unit_test(values_and_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
