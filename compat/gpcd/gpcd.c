/* libgpcd: Cray's GPCD API over counterlab's simulated Gemini (see
 * gpcd_lib.h). Where Cray's library asked the kernel (an ioctl on
 * /dev/gpcd0) for register values, this one reads the Gemini model of the
 * process-wide machine: its router's tile counters (48-bit) and its
 * node's NIC counters. Lists, limits and return codes follow Cray's
 * library: a context's list is newest first and values fill in list order,
 * at most 1024 registers a context, errors are negative errno values. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpcd_lib.h"
#include "counterlab/counterlab.h"
#include "counterlab/gemini.h"

#define NAME_CMP 40              /* Cray's library compares names this far */
#define TILE_REGS (CLAB_GEMINI_TILES * CLAB_GEM_TILE_CTRS)
#define NREGS (TILE_REGS + CLAB_GEM_NIC_CTRS)
/* a tile's static counters: base + row, column and counter strides */
#define TILE_ADDR(r, c, x) (0x2000000ull + (r) * 0x20000ull + (c) * 0x2000ull + 0x1000ull + 0x380ull + (x) * 8ull)

/* NIC register addresses (Cray's gpcd_lib_gem_mmrs.h), in
 * enum clab_gemini_nicctr order */
static const uint64_t nic_addr_of[CLAB_GEM_NIC_CTRS] = {
	0x5000000ull + 0x18040, 0x5000000ull + 0x18038,  /* ORB VC0 flits, packets */
	0x5000000ull + 0x18020, 0x5000000ull + 0x18018,  /* ORB VC1 */
	0x5e00000ull + 0x180, 0x5e00000ull + 0x188,      /* NPT */
	0x5980000ull + 0x110, 0x5980000ull + 0x118, 0x5980000ull + 0x120, /* RAT */
	0x5800000ull + 0x200, 0x5800000ull + 0x208,      /* TARB out */
	0x5800000ull + 0x240, 0x5800000ull + 0x248,      /* TARB FMA */
	0x5800000ull + 0x220, 0x5800000ull + 0x228,      /* TARB BTE */
};

/* Registers: the 288 tile counters (row, column, counter), then the NIC's. */
static gpcd_mmr_desc_t regs[NREGS + 1];
static char tile_names[TILE_REGS][80]; /* room for any int, so no compiler warns */
static pthread_once_t regs_once = PTHREAD_ONCE_INIT;

static void regs_build(void)
{
	for (int r = 0; r < CLAB_GEMINI_ROWS; r++)
		for (int c = 0; c < CLAB_GEMINI_COLS; c++)
			for (int x = 0; x < CLAB_GEM_TILE_CTRS; x++) {
				int i = (r * CLAB_GEMINI_COLS + c) * CLAB_GEM_TILE_CTRS + x;
				snprintf(tile_names[i], sizeof tile_names[i],
					 "GM_%d_%d_TILE_PERFORMANCE_COUNTERS_%d", r, c, x);
				regs[i] = (gpcd_mmr_desc_t){TILE_ADDR(r, c, x), tile_names[i]};
			}
	for (int k = 0; k < CLAB_GEM_NIC_CTRS; k++)
		regs[TILE_REGS + k] = (gpcd_mmr_desc_t){nic_addr_of[k], (char *)clab_gemini_nic_name(k)};
}

static const gpcd_mmr_desc_t *table(void)
{
	pthread_once(&regs_once, regs_build);
	return regs;
}

/* Index of a register in regs, from its address (a program may hand us
 * a copy of a descriptor): -1 if unknown. */
static int reg_index(const gpcd_mmr_desc_t *d)
{
	/* a descriptor of ours (lookups built the table) */
	if (d >= regs && d < regs + NREGS)
		return (int)(d - regs);
	uint64_t a = d->addr;
	if (a >= TILE_ADDR(0, 0, 0) && a <= TILE_ADDR(5, 7, 5)) {
		uint64_t off = a - 0x2000000ull;
		uint64_t r = off / 0x20000ull, c = off % 0x20000ull / 0x2000ull, in = off % 0x2000ull;
		if (r < CLAB_GEMINI_ROWS && in >= 0x1380 && in < 0x1380 + 8 * CLAB_GEM_TILE_CTRS && in % 8 == 0)
			return (int)((r * CLAB_GEMINI_COLS + c) * CLAB_GEM_TILE_CTRS + (in - 0x1380) / 8);
	}
	for (int k = 0; k < CLAB_GEM_NIC_CTRS; k++)
		if (nic_addr_of[k] == a)
			return TILE_REGS + k;
	return -1;
}

/* ---- the simulated Gemini --------------------------------------------------- */

static clab_gemini_net *gn;
static pthread_once_t gn_once = PTHREAD_ONCE_INIT;

static void gn_open(void)
{
	clab_machine *m;
	int rc;
	/* Cray's library needs no setting: without one, the gemini profile */
	if (!getenv("COUNTERLAB_MACHINE"))
		setenv("COUNTERLAB_MACHINE", "gemini", 0);
	rc = clab_machine_default(&m);
	if (!rc && !(gn = clab_machine_gemini(m, &rc)))
		rc = rc ? rc : -1;
	if (rc)
		fprintf(stderr, "libgpcd (counterlab): no simulated Gemini router: %s\n", clab_errmsg());
}

static clab_gemini_net *gemini(void)
{
	pthread_once(&gn_once, gn_open);
	return gn;
}

/* Every register's value now, in regs order. */
static void snapshot(const clab_gemini_net *g, uint64_t v[NREGS])
{
	clab_gemini_router_read(g->g, g->router, g->node, v, v + TILE_REGS);
}

/* ---- registers --------------------------------------------------------------- */

const gpcd_mmr_desc_t *gpcd_lookup_mmr_byname(char *mmr_name)
{
	if (!mmr_name || strncmp(mmr_name, "GM_", 3))
		return NULL;
	const gpcd_mmr_desc_t *t = table();
	for (int i = 0; i < NREGS; i++)
		if (!strncmp(mmr_name, t[i].name, NAME_CMP))
			return &t[i];
	return NULL;
}

int gpcd_read_mmr_val(const gpcd_mmr_desc_t *mmrd, uint64_t *val, uint32_t nic_addr)
{
	if (!mmrd || !val || nic_addr)
		return -EINVAL;
	int i = reg_index(mmrd);
	if (i < 0)
		return -EINVAL;
	clab_gemini_net *g = gemini();
	if (!g)
		return -ENOENT;
	uint64_t v[NREGS];
	snapshot(g, v);
	*val = v[i];
	return 0;
}

int gpcd_write_mmr_val(const gpcd_mmr_desc_t *mmrd, uint64_t *val, uint32_t nic_addr)
{
	if (!mmrd || !val || nic_addr)
		return -EINVAL;
	int i = reg_index(mmrd);
	if (i < 0 || i >= TILE_REGS) /* NIC counters are not written here */
		return -EINVAL;
	clab_gemini_net *g = gemini();
	if (!g)
		return -ENOENT;
	clab_gemini_tile_set(g->g, g->router, i / CLAB_GEM_TILE_CTRS, i % CLAB_GEM_TILE_CTRS, *val);
	return 0;
}

/* Cray's by-name calls search the NIC registers only. */
static const gpcd_mmr_desc_t *nic_byname(const char *name, int *err)
{
	*err = 0;
	if (!name || strncmp(name, "GM_", 3)) {
		*err = -EINVAL;
		return NULL;
	}
	const gpcd_mmr_desc_t *t = table();
	for (int k = TILE_REGS; k < NREGS; k++)
		if (!strncmp(name, t[k].name, NAME_CMP))
			return &t[k];
	*err = -ENOENT;
	return NULL;
}

int gpcd_read_mmr_val_byname(char *mmr_name, uint64_t *val, uint32_t nic_addr)
{
	int err;
	const gpcd_mmr_desc_t *d = val ? nic_byname(mmr_name, &err) : NULL;
	return d ? gpcd_read_mmr_val(d, val, nic_addr) : val ? err : -EINVAL;
}

int gpcd_write_mmr_val_byname(char *mmr_name, uint64_t *val, uint32_t nic_addr)
{
	int err;
	const gpcd_mmr_desc_t *d = val ? nic_byname(mmr_name, &err) : NULL;
	return d ? gpcd_write_mmr_val(d, val, nic_addr) : val ? err : -EINVAL;
}

static int print_range(int from, int to)
{
	const gpcd_mmr_desc_t *t = table();
	for (int i = from; i < to; i++)
		printf("%-49s 0x%" PRIx64 "\n", t[i].name, t[i].addr);
	return 0;
}

int gpcd_print_valid_nic_mmrs(void)
{
	printf("Valid NIC MMRS for GPCD:\n");
	return print_range(TILE_REGS, NREGS);
}

int gpcd_print_valid_tile_static_mmrs(void) { return print_range(0, TILE_REGS); }
int gpcd_print_valid_tile_mmrs(void) { return print_range(0, TILE_REGS); }

/* ---- contexts ---------------------------------------------------------------- */

gpcd_context_t *gpcd_create_context(void)
{
	return calloc(1, sizeof(gpcd_context_t));
}

void gpcd_context_set_nic_addr(gpcd_context_t *cp, uint32_t nic_addr)
{
	if (cp) /* (void: nothing to say to a NULL context) */
		cp->nic_addr = nic_addr;
}

int gpcd_remove_context(gpcd_context_t *context)
{
	if (!context)
		return -EINVAL;
	while (context->list) {
		gpcd_mmr_list_t *l = context->list;
		context->list = l->next;
		free(l);
	}
	free(context);
	return 0;
}

int gpcd_context_add_mmr(gpcd_context_t *context, gpcd_mmr_desc_t *item)
{
	if (!context || !item)
		return -EINVAL;
	if (context->count >= GPCD_CONTEXT_MAX)
		return -E2BIG;
	gpcd_mmr_list_t *l = malloc(sizeof *l);
	if (!l)
		return -ENOMEM;
	*l = (gpcd_mmr_list_t){item, context->list, 0};
	context->list = l;
	context->count++;
	return 0;
}

int gpcd_context_remove_mmr(gpcd_context_t *context, gpcd_mmr_desc_t *item)
{
	if (!context || !item)
		return -EINVAL;
	for (gpcd_mmr_list_t **p = &context->list; *p; p = &(*p)->next)
		if ((*p)->item == item) {
			gpcd_mmr_list_t *l = *p;
			*p = l->next;
			free(l);
			context->count--;
			return 0;
		}
	return -ENOENT;
}

gpcd_mmr_list_t *gpcd_context_find_list_byname(gpcd_context_t *context, char *mmr_name)
{
	for (gpcd_mmr_list_t *l = context ? context->list : NULL; l && mmr_name; l = l->next)
		if (!strncmp(mmr_name, l->item->name, NAME_CMP))
			return l;
	return NULL;
}

int gpcd_context_read_mmr_vals(gpcd_context_t *context)
{
	if (!context || context->nic_addr)
		return -EINVAL;
	clab_gemini_net *g = gemini();
	if (!g)
		return -ENOENT;
	/* all registers at one instant, as one ioctl read them; the whole
	 * list is checked before any value changes */
	uint64_t v[NREGS];
	uint16_t idx[GPCD_CONTEXT_MAX];
	int n = 0;
	for (gpcd_mmr_list_t *l = context->list; l && n < GPCD_CONTEXT_MAX; l = l->next, n++) {
		int i = reg_index(l->item);
		if (i < 0)
			return -EINVAL;
		idx[n] = (uint16_t)i;
	}
	snapshot(g, v);
	n = 0;
	for (gpcd_mmr_list_t *l = context->list; l && n < GPCD_CONTEXT_MAX; l = l->next)
		l->value = v[idx[n++]];
	return 0;
}

int gpcd_context_write_mmr_vals(gpcd_context_t *context)
{
	if (!context)
		return -EINVAL;
	for (gpcd_mmr_list_t *l = context->list; l; l = l->next) {
		int i = reg_index(l->item);
		if (i < 0 || i >= TILE_REGS)
			return -EINVAL;
	}
	for (gpcd_mmr_list_t *l = context->list; l; l = l->next) {
		int rc = gpcd_write_mmr_val(l->item, &l->value, context->nic_addr);
		if (rc)
			return rc;
	}
	return 0;
}

int gpcd_context_print(gpcd_context_t *context)
{
	if (!context)
		return -EINVAL;
	if (!context->list)
		return -ENOENT;
	int i = 0;
	for (gpcd_mmr_list_t *l = context->list; l; l = l->next)
		printf("GPCD Context print %3d : %s : %" PRIu64 "\n", i++, l->item->name, l->value);
	return 0;
}
