/* Heat-map PNGs of one value per torus node (see heatmap.h). The layout is a
 * pure function of the torus shape, so clab_heatmap_cell() can say exactly
 * where clab_heatmap_write() drew a node. */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "heatmap.h"

#define MARGIN 12
#define MAX_CELL 48	/* tiny tori stay readable without becoming posters */
#define TARGET_W 1400	/* plot area; labels and margins bring it near 1500 */
#define TARGET_H 1000
#define MIN_W 480	/* room for the legend next to a tiny torus */
#define GW 5		/* glyph columns */
#define GH 8		/* glyph rows; row 7 is the descender */

/* Our own 5x8 font for printable ASCII 32..126; row bit 4 is the left column. */
static const uint8_t font[95][GH] = {
	{0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00}, /*   */
	{0x04,0x04,0x04,0x04,0x04,0x00,0x04,0x00}, /* ! */
	{0x0a,0x0a,0x0a,0x00,0x00,0x00,0x00,0x00}, /* " */
	{0x0a,0x0a,0x1f,0x0a,0x1f,0x0a,0x0a,0x00}, /* # */
	{0x04,0x0f,0x14,0x0e,0x05,0x1e,0x04,0x00}, /* $ */
	{0x18,0x19,0x02,0x04,0x08,0x13,0x03,0x00}, /* % */
	{0x0c,0x12,0x14,0x08,0x15,0x12,0x0d,0x00}, /* & */
	{0x04,0x04,0x08,0x00,0x00,0x00,0x00,0x00}, /* ' */
	{0x02,0x04,0x08,0x08,0x08,0x04,0x02,0x00}, /* ( */
	{0x08,0x04,0x02,0x02,0x02,0x04,0x08,0x00}, /* ) */
	{0x00,0x04,0x15,0x0e,0x15,0x04,0x00,0x00}, /* star */
	{0x00,0x04,0x04,0x1f,0x04,0x04,0x00,0x00}, /* + */
	{0x00,0x00,0x00,0x00,0x00,0x0c,0x04,0x08}, /* , */
	{0x00,0x00,0x00,0x1f,0x00,0x00,0x00,0x00}, /* - */
	{0x00,0x00,0x00,0x00,0x00,0x0c,0x0c,0x00}, /* . */
	{0x00,0x01,0x02,0x04,0x08,0x10,0x00,0x00}, /* slash */
	{0x0e,0x11,0x13,0x15,0x19,0x11,0x0e,0x00}, /* 0 */
	{0x04,0x0c,0x04,0x04,0x04,0x04,0x0e,0x00}, /* 1 */
	{0x0e,0x11,0x01,0x02,0x04,0x08,0x1f,0x00}, /* 2 */
	{0x1f,0x02,0x04,0x02,0x01,0x11,0x0e,0x00}, /* 3 */
	{0x02,0x06,0x0a,0x12,0x1f,0x02,0x02,0x00}, /* 4 */
	{0x1f,0x10,0x1e,0x01,0x01,0x11,0x0e,0x00}, /* 5 */
	{0x06,0x08,0x10,0x1e,0x11,0x11,0x0e,0x00}, /* 6 */
	{0x1f,0x01,0x02,0x04,0x08,0x08,0x08,0x00}, /* 7 */
	{0x0e,0x11,0x11,0x0e,0x11,0x11,0x0e,0x00}, /* 8 */
	{0x0e,0x11,0x11,0x0f,0x01,0x02,0x0c,0x00}, /* 9 */
	{0x00,0x0c,0x0c,0x00,0x0c,0x0c,0x00,0x00}, /* : */
	{0x00,0x0c,0x0c,0x00,0x0c,0x04,0x08,0x00}, /* ; */
	{0x02,0x04,0x08,0x10,0x08,0x04,0x02,0x00}, /* < */
	{0x00,0x00,0x1f,0x00,0x1f,0x00,0x00,0x00}, /* = */
	{0x08,0x04,0x02,0x01,0x02,0x04,0x08,0x00}, /* > */
	{0x0e,0x11,0x01,0x02,0x04,0x00,0x04,0x00}, /* ? */
	{0x0e,0x11,0x01,0x0d,0x15,0x15,0x0e,0x00}, /* @ */
	{0x0e,0x11,0x11,0x1f,0x11,0x11,0x11,0x00}, /* A */
	{0x1e,0x11,0x11,0x1e,0x11,0x11,0x1e,0x00}, /* B */
	{0x0e,0x11,0x10,0x10,0x10,0x11,0x0e,0x00}, /* C */
	{0x1c,0x12,0x11,0x11,0x11,0x12,0x1c,0x00}, /* D */
	{0x1f,0x10,0x10,0x1e,0x10,0x10,0x1f,0x00}, /* E */
	{0x1f,0x10,0x10,0x1e,0x10,0x10,0x10,0x00}, /* F */
	{0x0e,0x11,0x10,0x17,0x11,0x11,0x0f,0x00}, /* G */
	{0x11,0x11,0x11,0x1f,0x11,0x11,0x11,0x00}, /* H */
	{0x0e,0x04,0x04,0x04,0x04,0x04,0x0e,0x00}, /* I */
	{0x07,0x02,0x02,0x02,0x02,0x12,0x0c,0x00}, /* J */
	{0x11,0x12,0x14,0x18,0x14,0x12,0x11,0x00}, /* K */
	{0x10,0x10,0x10,0x10,0x10,0x10,0x1f,0x00}, /* L */
	{0x11,0x1b,0x15,0x15,0x11,0x11,0x11,0x00}, /* M */
	{0x11,0x11,0x19,0x15,0x13,0x11,0x11,0x00}, /* N */
	{0x0e,0x11,0x11,0x11,0x11,0x11,0x0e,0x00}, /* O */
	{0x1e,0x11,0x11,0x1e,0x10,0x10,0x10,0x00}, /* P */
	{0x0e,0x11,0x11,0x11,0x15,0x12,0x0d,0x00}, /* Q */
	{0x1e,0x11,0x11,0x1e,0x14,0x12,0x11,0x00}, /* R */
	{0x0f,0x10,0x10,0x0e,0x01,0x01,0x1e,0x00}, /* S */
	{0x1f,0x04,0x04,0x04,0x04,0x04,0x04,0x00}, /* T */
	{0x11,0x11,0x11,0x11,0x11,0x11,0x0e,0x00}, /* U */
	{0x11,0x11,0x11,0x11,0x11,0x0a,0x04,0x00}, /* V */
	{0x11,0x11,0x11,0x15,0x15,0x15,0x0a,0x00}, /* W */
	{0x11,0x11,0x0a,0x04,0x0a,0x11,0x11,0x00}, /* X */
	{0x11,0x11,0x0a,0x04,0x04,0x04,0x04,0x00}, /* Y */
	{0x1f,0x01,0x02,0x04,0x08,0x10,0x1f,0x00}, /* Z */
	{0x0e,0x08,0x08,0x08,0x08,0x08,0x0e,0x00}, /* [ */
	{0x00,0x10,0x08,0x04,0x02,0x01,0x00,0x00}, /* backslash */
	{0x0e,0x02,0x02,0x02,0x02,0x02,0x0e,0x00}, /* ] */
	{0x04,0x0a,0x11,0x00,0x00,0x00,0x00,0x00}, /* ^ */
	{0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x1f}, /* _ */
	{0x08,0x04,0x00,0x00,0x00,0x00,0x00,0x00}, /* ` */
	{0x00,0x00,0x0e,0x01,0x0f,0x11,0x0f,0x00}, /* a */
	{0x10,0x10,0x16,0x19,0x11,0x11,0x1e,0x00}, /* b */
	{0x00,0x00,0x0e,0x10,0x10,0x11,0x0e,0x00}, /* c */
	{0x01,0x01,0x0d,0x13,0x11,0x11,0x0f,0x00}, /* d */
	{0x00,0x00,0x0e,0x11,0x1f,0x10,0x0e,0x00}, /* e */
	{0x06,0x09,0x08,0x1c,0x08,0x08,0x08,0x00}, /* f */
	{0x00,0x00,0x0f,0x11,0x11,0x0f,0x01,0x0e}, /* g */
	{0x10,0x10,0x16,0x19,0x11,0x11,0x11,0x00}, /* h */
	{0x04,0x00,0x0c,0x04,0x04,0x04,0x0e,0x00}, /* i */
	{0x02,0x00,0x06,0x02,0x02,0x02,0x12,0x0c}, /* j */
	{0x10,0x10,0x12,0x14,0x18,0x14,0x12,0x00}, /* k */
	{0x0c,0x04,0x04,0x04,0x04,0x04,0x0e,0x00}, /* l */
	{0x00,0x00,0x1a,0x15,0x15,0x11,0x11,0x00}, /* m */
	{0x00,0x00,0x16,0x19,0x11,0x11,0x11,0x00}, /* n */
	{0x00,0x00,0x0e,0x11,0x11,0x11,0x0e,0x00}, /* o */
	{0x00,0x00,0x1e,0x11,0x11,0x1e,0x10,0x10}, /* p */
	{0x00,0x00,0x0f,0x11,0x11,0x0f,0x01,0x01}, /* q */
	{0x00,0x00,0x16,0x19,0x10,0x10,0x10,0x00}, /* r */
	{0x00,0x00,0x0e,0x10,0x0e,0x01,0x1e,0x00}, /* s */
	{0x08,0x08,0x1c,0x08,0x08,0x09,0x06,0x00}, /* t */
	{0x00,0x00,0x11,0x11,0x11,0x13,0x0d,0x00}, /* u */
	{0x00,0x00,0x11,0x11,0x11,0x0a,0x04,0x00}, /* v */
	{0x00,0x00,0x11,0x11,0x15,0x15,0x0a,0x00}, /* w */
	{0x00,0x00,0x11,0x0a,0x04,0x0a,0x11,0x00}, /* x */
	{0x00,0x00,0x11,0x11,0x11,0x0f,0x01,0x0e}, /* y */
	{0x00,0x00,0x1f,0x02,0x04,0x08,0x1f,0x00}, /* z */
	{0x03,0x04,0x04,0x08,0x04,0x04,0x03,0x00}, /* { */
	{0x04,0x04,0x04,0x04,0x04,0x04,0x04,0x00}, /* | */
	{0x18,0x04,0x04,0x02,0x04,0x04,0x18,0x00}, /* } */
	{0x00,0x00,0x08,0x15,0x02,0x00,0x00,0x00}, /* ~ */
};

static const uint8_t BG[3] = {255, 255, 255}, INK[3] = {0, 0, 0};
static const uint8_t GRAY[3] = {150, 150, 150};

/* Dimensions placed on one image axis, outer first (x: 0,2,4; y: 1,3,5). */
struct axis {
	int n, dim[3], size[3];
	int cells;		/* product of size[] */
	/* labels of level i (0 = outer): every step[i]-th coordinate, with
	 * its letter ("C2") unless short[i] (just "2", the letter at the
	 * row's head); y labels stand in columns colw[i] wide */
	int step[3], brief[3], colw[3];
};

struct layout {
	struct axis ax[2];	/* x, y */
	int npanel;
	int cell, gap;		/* cell side; gap between innermost blocks */
	int plotw, ploth, pgap;	/* one panel's plot; space between panels */
	int x0, y0;		/* the first panel's plot */
	int ts;			/* text scale */
	int title_y, axis_y, label_y, xlab_y, legend_y, barw;
	int w, h;
};

struct image {
	uint8_t *px;
	int w, h;
};

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void shape(char *buf, size_t len, int ndims, const int *size)
{
	size_t o = 0;
	buf[0] = 0;
	for (int d = 0; d < ndims && o < len; d++)
		o += snprintf(buf + o, len - o, d ? "x%d" : "%d", size[d]);
}

/* Pixel offset of cell number lin along an axis. A block boundary at level
 * l (0 = innermost) is where lin is a multiple of that level's block but
 * not of the next level's; gaps grow gap, 3*gap, 7*gap outward. */
static int64_t axis_pos(const struct axis *a, int64_t lin, int cell, int gap)
{
	int64_t pos = lin * cell, block = 1, g = gap;
	for (int l = 0; l < a->n - 1; l++) {
		block *= a->size[a->n - 1 - l];
		int64_t outer = block * a->size[a->n - 2 - l];
		pos += (lin / block - lin / outer) * g;
		g = 2 * g + gap;
	}
	return pos;
}

static int text_w(size_t len, int s)
{
	return len ? (int)(len * (GW + 1) - 1) * s : 0;
}

static int digits(int n)
{
	int d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* Cells in one block of level i of an axis, and that block's pixel span. */
static int64_t block_cells(const struct axis *a, int i)
{
	int64_t c = 1;
	for (int j = i + 1; j < a->n; j++)
		c *= a->size[j];
	return c;
}

static int block_span(const struct axis *a, int i, int cell, int gap)
{
	return (int)(axis_pos(a, block_cells(a, i) - 1, cell, gap) + cell);
}

/* 1, 2, 5, 10, 20, 50, ...: the first step whose blocks have room */
static int label_step(int span, int need)
{
	int step = 1;
	for (int m = 0; (int64_t)step * span < need && step < (1 << 28); m++)
		step = m % 3 == 1 ? step * 5 / 2 : step * 2;
	return step;
}

/* How every level of both axes is labelled, once the cell size is known. */
static void labels_fit(struct layout *L)
{
	int s = L->ts;
	for (int k = 0; k < 2; k++) {
		struct axis *a = &L->ax[k];
		for (int i = 0; i < a->n; i++) {
			int span = block_span(a, i, L->cell, L->gap);
			int full = text_w(1 + digits(a->size[i] - 1), s), need = (GH + 1) * s;
			if (k) {	/* stacked down the left: the height decides */
				a->colw[i] = full + 4 * s;
			} else {
				a->brief[i] = full + 2 * s > span;
				need = (a->brief[i] ? text_w(digits(a->size[i] - 1), s) : full) + 2 * s;
			}
			a->step[i] = label_step(span, need);
			/* a level whose blocks are too small to label even once per
			 * block of the level above is left to the axis line */
			if (i && a->step[i] >= a->size[i] &&
			    block_span(a, i - 1, L->cell, L->gap) < need)
				a->step[i] = 0;
			if (!a->step[i])
				a->colw[i] = 0;
		}
	}
}

static int layout_make(struct layout *L, int ndims, const int *size, int npanel,
		       char *err, size_t errlen)
{
	char sh[96];
	if (ndims < 1 || ndims > CLAB_HEATMAP_MAX_DIMS)
		return fail(err, errlen, "a torus for a heat map has 1 to %d "
			    "dimensions, not %d", CLAB_HEATMAP_MAX_DIMS, ndims);
	if (!size)
		return fail(err, errlen, "no torus sizes given");
	if (npanel < 1 || npanel > CLAB_HEATMAP_MAX_PANELS)
		return fail(err, errlen, "a heat map has 1 to %d panels, not %d",
			    CLAB_HEATMAP_MAX_PANELS, npanel);
	for (int d = 0; d < ndims; d++)
		if (size[d] < 1)
			return fail(err, errlen, "torus dimension %d has size %d; "
				    "sizes must be at least 1", d, size[d]);
	shape(sh, sizeof sh, ndims, size);
	memset(L, 0, sizeof *L);
	L->npanel = npanel;
	for (int d = 0; d < ndims; d++) {
		struct axis *a = &L->ax[d & 1];
		a->dim[a->n] = d;
		a->size[a->n++] = size[d];
	}
	for (int k = 0; k < 2; k++) {
		int64_t cells = 1;
		for (int i = 0; i < L->ax[k].n; i++) {
			cells *= L->ax[k].size[i];
			if (cells > CLAB_HEATMAP_MAX_PIXELS)	/* also stops overflow */
				return fail(err, errlen, "a %s torus has more than %d "
					    "nodes along %c; the heat map would exceed "
					    "%d pixels", sh, CLAB_HEATMAP_MAX_PIXELS,
					    "xy"[k], CLAB_HEATMAP_MAX_PIXELS);
		}
		L->ax[k].cells = (int)cells;
	}
	/* Largest cell that keeps the panels within the target; at least 1 px. */
	int64_t pw, ph, all;
	L->pgap = 32;
	for (L->cell = MAX_CELL;; L->cell--) {
		L->gap = 1 + L->cell / 16;
		pw = axis_pos(&L->ax[0], L->ax[0].cells, L->cell, L->gap);
		ph = axis_pos(&L->ax[1], L->ax[1].cells, L->cell, L->gap);
		all = pw * npanel + (int64_t)L->pgap * (npanel - 1);
		if (L->cell == 1 || (all <= TARGET_W && ph <= TARGET_H))
			break;
	}
	if (all > CLAB_HEATMAP_MAX_PIXELS || ph > CLAB_HEATMAP_MAX_PIXELS)
		goto too_big;
	L->plotw = (int)pw;
	L->ploth = (int)ph;
	int s = L->ts = all >= 900 ? 2 : 1;
	labels_fit(L);
	/* y labels in columns left of the plot, outer first; room for the
	 * letter heading a row of x labels that are only numbers */
	L->x0 = MARGIN + text_w(1, s) + 4 * s;
	if (L->ax[1].n) {
		L->x0 = MARGIN;
		for (int i = 0; i < L->ax[1].n; i++)
			L->x0 += L->ax[1].colw[i];
	}
	L->title_y = MARGIN;
	L->axis_y = L->title_y + GH * (s + 1) + 4 * s;
	L->label_y = L->axis_y + GH * s + 4 * s;
	L->xlab_y = L->label_y + (npanel > 1 ? GH * s + 4 * s : 0);
	L->y0 = L->xlab_y + L->ax[0].n * (GH + 3) * s + s;
	L->legend_y = L->y0 + L->ploth + 8 * s;
	L->barw = 320 * s;
	int legend = L->barw + 32 * s + text_w(3, s);	/* bar, NaN swatch */
	int64_t plots = all > legend ? all : legend;
	int64_t w = (int64_t)L->x0 + MARGIN + plots;
	int64_t h = L->legend_y + 12 * s + 6 * s + 2 * (GH + 3) * s + MARGIN;
	if (w < MIN_W)
		w = MIN_W;
	if (w > CLAB_HEATMAP_MAX_PIXELS || h > CLAB_HEATMAP_MAX_PIXELS)
		goto too_big;
	L->w = (int)w;
	L->h = (int)h;
	return 0;
too_big:
	return fail(err, errlen, "a heat map of a %s torus would be more than "
		    "%d pixels wide or tall", sh, CLAB_HEATMAP_MAX_PIXELS);
}

static int panel_x(const struct layout *L, int panel)
{
	return L->x0 + panel * (L->plotw + L->pgap);
}

static void node_xy(const struct layout *L, int ndims, const int *size,
		    int panel, int node, int *x, int *y)
{
	int c[CLAB_HEATMAP_MAX_DIMS];
	for (int d = ndims - 1; d >= 0; d--) {
		c[d] = node % size[d];
		node /= size[d];
	}
	int64_t p[2];
	for (int k = 0; k < 2; k++) {
		int64_t lin = 0;
		for (int i = 0; i < L->ax[k].n; i++)
			lin = lin * L->ax[k].size[i] + c[L->ax[k].dim[i]];
		p[k] = axis_pos(&L->ax[k], lin, L->cell, L->gap);
	}
	*x = panel_x(L, panel) + (int)p[0];
	*y = L->y0 + (int)p[1];
}

int clab_heatmap_panel_cell(int ndims, const int *size, int npanel, int panel,
			    int node, int *x, int *y, int *w, int *h)
{
	struct layout L;
	if (layout_make(&L, ndims, size, npanel, NULL, 0) || !x || !y || !w || !h ||
	    node < 0 || node >= L.ax[0].cells * L.ax[1].cells ||
	    panel < 0 || panel >= npanel)
		return -1;
	node_xy(&L, ndims, size, panel, node, x, y);
	*w = *h = L.cell;
	return 0;
}

int clab_heatmap_cell(int ndims, const int *size, int node,
		      int *x, int *y, int *w, int *h)
{
	return clab_heatmap_panel_cell(ndims, size, 1, 0, node, x, y, w, h);
}

void clab_heatmap_color(double t, unsigned char rgb[3])
{
	/* viridis at t = 0, 1/8, ..., 1 (its published endpoints #440154 and
	 * #fde725 and its path through blue and green), interpolated */
	static const uint8_t stop[9][3] = {
		{68, 1, 84}, {71, 45, 123}, {59, 82, 139}, {44, 114, 142},
		{33, 144, 140}, {39, 173, 129}, {93, 200, 99}, {170, 220, 50},
		{253, 231, 37},
	};
	if (isnan(t)) {
		memcpy(rgb, GRAY, 3);
		return;
	}
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	int i = t >= 1 ? 7 : (int)(t * 8);
	double f = t * 8 - i;
	for (int k = 0; k < 3; k++)
		rgb[k] = (unsigned char)(stop[i][k] + 0.5 +
					  f * (stop[i + 1][k] - stop[i][k]));
}

static void fill(struct image *im, int x, int y, int w, int h, const uint8_t rgb[3])
{
	int x1 = x + w > im->w ? im->w : x + w, y1 = y + h > im->h ? im->h : y + h;
	for (int r = y < 0 ? 0 : y; r < y1; r++)
		for (int c = x < 0 ? 0 : x; c < x1; c++)
			memcpy(im->px + ((size_t)r * im->w + c) * 3, rgb, 3);
}

static void text(struct image *im, int x, int y, int s, const char *str)
{
	for (; *str; str++, x += (GW + 1) * s) {
		unsigned ch = (unsigned char)*str;
		const uint8_t *g = font[(ch < 32 || ch > 126 ? '?' : ch) - 32];
		for (int r = 0; r < GH; r++)
			for (int c = 0; c < GW; c++)
				if (g[r] & (0x10 >> c))
					fill(im, x + c * s, y + r * s, s, s, INK);
	}
}

/* str at x, y in scale s, cut to room pixels */
static void text_cut(struct image *im, int x, int y, int s, const char *str, int room)
{
	char buf[512];
	size_t fit = room > 0 ? (size_t)((room + s) / ((GW + 1) * s)) : 0;
	snprintf(buf, sizeof buf, "%s", str);
	if (fit < sizeof buf)
		buf[fit] = 0;
	text(im, x, y, s, buf);
}

/* Every coordinate of every level of axis k, in panel panel: x labels in a
 * row per level above the plot (outer first), y labels in a column per
 * level to the left of the first panel. */
static void ticks(struct image *im, const struct layout *L, int k, int panel,
		  const char *letters)
{
	const struct axis *a = &L->ax[k];
	int s = L->ts, px = panel_x(L, panel), right = MARGIN;
	char t[16];
	for (int i = 0; i < a->n; i++) {
		int64_t bc = block_cells(a, i), nb = a->cells / bc;
		int span = block_span(a, i, L->cell, L->gap), y = L->xlab_y + i * (GH + 3) * s;
		char letter = letters[a->dim[i]];
		right += a->colw[i];
		if (!a->step[i])
			continue;
		if (k == 0 && a->brief[i] && panel == 0) {	/* the row's letter */
			snprintf(t, sizeof t, "%c", letter);
			text(im, px - 4 * s - text_w(1, s), y, s, t);
		}
		int64_t free_from = INT64_MIN;	/* where the last label ended */
		for (int64_t b = 0; b < nb; b++) {
			int c = (int)(b % a->size[i]);
			if (c % a->step[i])
				continue;
			int p = (int)axis_pos(a, b * bc, L->cell, L->gap);
			if (k == 0 && a->brief[i])
				snprintf(t, sizeof t, "%d", c);
			else
				snprintf(t, sizeof t, "%c%d", letter, c);
			int tw = text_w(strlen(t), s);
			int from = k ? p + (span - 7 * s) / 2 : p + (span - tw) / 2;
			if (from < free_from)	/* the last block's label is still there */
				continue;
			free_from = from + (k ? GH * s : tw + 2 * s);
			if (k == 0)
				text(im, px + from, y, s, t);
			else
				text(im, right - 4 * s - tw, L->y0 + from, s, t);
		}
	}
}

static void draw_title(struct image *im, const struct layout *L, const char *title)
{
	size_t n = title ? strlen(title) : 0;
	/* large if it fits, else normal size and cut */
	int s = L->ts + 1, room = im->w - 2 * MARGIN;
	if (text_w(n, s) > room)
		s = L->ts;
	text_cut(im, MARGIN, L->title_y, s, title ? title : "", room);
}

static void draw_axes(struct image *im, const struct layout *L, const char *letters,
		      const char *const *label)
{
	char buf[128];
	size_t o = 0;
	for (int k = 0; k < 2 && L->ax[k].n; k++) {
		const struct axis *a = &L->ax[k];
		o += snprintf(buf + o, sizeof buf - o, "%s%c:", k ? "   " : "", "xy"[k]);
		for (int i = 0; i < a->n; i++)
			o += snprintf(buf + o, sizeof buf - o, " %c", letters[a->dim[i]]);
		for (int i = 0; i < a->n; i++)
			o += snprintf(buf + o, sizeof buf - o, "%s%d", i ? "x" : " (", a->size[i]);
		o += snprintf(buf + o, sizeof buf - o, ")");
	}
	snprintf(buf + o, sizeof buf - o, "   %d nodes%s", L->ax[0].cells * L->ax[1].cells,
		 L->npanel > 1 ? " a panel" : "");
	text(im, MARGIN, L->axis_y, L->ts, buf);
	for (int p = 0; p < L->npanel; p++) {
		if (label && label[p] && L->npanel > 1)
			text_cut(im, panel_x(L, p), L->label_y, L->ts, label[p],
				 L->plotw + L->pgap - 4 * L->ts);
		ticks(im, L, 0, p, letters);
	}
	ticks(im, L, 1, 0, letters);
}

/* A round step (1, 2 or 5 times a power of ten) near span / want. */
static double nice_step(double span, double want)
{
	double raw = span / want, p = pow(10, floor(log10(raw))), f = raw / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* v as a tick label: step's precision, with k, M, G... for large steps */
static void tick_label(char *buf, size_t n, double v, double step)
{
	static const char sfx[] = " kMGTPE";
	double sc = 1;
	int k = 0;
	if (step >= 1e21 || step < 1e-6) {
		snprintf(buf, n, "%g", v);
		return;
	}
	while (k < 6 && step >= 1000 * sc) {
		sc *= 1000;
		k++;
	}
	int dec = step / sc >= 1 ? 0 : (int)ceil(-log10(step / sc) - 1e-9);
	if (fabs(v) < step / 2)	/* "0", never "-0" or "0k" */
		snprintf(buf, n, "0");
	else
		snprintf(buf, n, "%.*f%.*s", dec, v / sc, k > 0, sfx + k);
}

/* The colour bar with tick marks at round values; under it the unit, the
 * data's extremes, or "all values = X" when they are one value. */
static void draw_legend(struct image *im, const struct layout *L, double lo,
			double hi, double dlo, double dhi, int finite, int missing,
			int flat, const char *unit)
{
	int s = L->ts, y = L->legend_y, bh = 12 * s, ly = y + bh + 6 * s;
	uint8_t rgb[3];
	char t[160], a[40], b[40];
	for (int i = 0; i < L->barw; i++) {
		clab_heatmap_color((double)i / (L->barw - 1), rgb);
		fill(im, L->x0 + i, y, 1, bh, rgb);
	}
	if (flat) {	/* one value: one tick, mid-bar, where its cells' colour is */
		snprintf(t, sizeof t, "%.15g", lo);
		int x = L->x0 + (L->barw - 1) / 2;
		fill(im, x, y + bh, s, 4 * s, INK);
		text(im, x - text_w(strlen(t), s) / 2, ly, s, t);
	} else if (hi > lo) {
		double span = hi / 2 - lo / 2, step = nice_step(span, 3);
		double first = ceil(lo / step) * step;
		for (int n = 0; n < 20; n++) {
			double v = first + n * step;
			if (v > hi)
				break;
			int x = L->x0 + (int)((v / 2 - lo / 2) / span * (L->barw - 1) + 0.5);
			tick_label(t, sizeof t, v, step);
			int tw = text_w(strlen(t), s), tx = x - tw / 2;
			if (tx + tw > im->w - MARGIN)
				tx = im->w - MARGIN - tw;
			fill(im, x, y + bh, s, 4 * s, INK);
			text(im, tx < MARGIN ? MARGIN : tx, ly, s, t);
		}
	}
	size_t o = snprintf(t, sizeof t, "%s", unit ? unit : "");
	if (!finite)
		snprintf(t + o, sizeof t - o, "%sno finite values", o ? "   " : "");
	else if (flat || dlo == dhi)
		snprintf(t + o, sizeof t - o, "%sall values = %.15g", o ? "   " : "", dlo);
	else {
		snprintf(a, sizeof a, "%.15g", dlo);
		snprintf(b, sizeof b, "%.15g", dhi);
		snprintf(t + o, sizeof t - o, "%svalues %s to %s", o ? "   " : "", a, b);
	}
	text_cut(im, L->x0, ly + (GH + 3) * s, s, t, im->w - L->x0 - MARGIN);
	if (missing) {
		fill(im, L->x0 + L->barw + 16 * s, y, bh, bh, GRAY);
		text(im, L->x0 + L->barw + 16 * s + bh + 4 * s, y + 2 * s, s, "NaN");
	}
}

struct pngerr {
	char msg[160];
	int errnum;
};

static void png_fail(png_structp png, png_const_charp msg)
{
	struct pngerr *e = png_get_error_ptr(png);
	e->errnum = errno;	/* a failed fwrite left the reason here */
	snprintf(e->msg, sizeof e->msg, "%s", msg);
	png_longjmp(png, 1);
}

static void png_quiet(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

/* Kept apart so nothing the longjmp could clobber lives in this frame. */
static int png_body(png_structp png, png_infop info, FILE *f,
		    const struct image *im, const char *title)
{
	if (setjmp(png_jmpbuf(png)))
		return -1;
	png_init_io(png, f);
	png_set_IHDR(png, info, (png_uint_32)im->w, (png_uint_32)im->h, 8,
		     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	if (title && *title) {
		png_text tx = {.compression = PNG_TEXT_COMPRESSION_NONE,
			       .key = (char *)"Title", .text = (char *)title};
		png_set_text(png, info, &tx, 1);
	}
	png_write_info(png, info);
	for (int r = 0; r < im->h; r++)
		png_write_row(png, im->px + (size_t)r * im->w * 3);
	png_write_end(png, info);
	return 0;
}

/* Written whole or not at all (clab_outfile): readers never see a
 * half-written picture and a failure leaves nothing behind. */
static int write_png(const char *path, const struct image *im, const char *title,
		     char *err, size_t errlen)
{
	clab_outfile o;
	if (clab_outfile_open(&o, path, CLAB_E_SYS, "heat map"))
		return fail(err, errlen, "%s", clab_errmsg());
	struct pngerr pe = {.errnum = 0};
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &pe,
						  png_fail, png_quiet);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	int rc = -1;
	if (!info)
		fail(err, errlen, "cannot write %s: libpng out of memory", path);
	else if (png_body(png, info, o.f, im, title))
		fail(err, errlen, "cannot write %s: %s", path,
		     pe.errnum ? strerror(pe.errnum) : pe.msg);
	else
		rc = 0;
	png_destroy_write_struct(&png, &info);
	if (rc) {
		clab_outfile_discard(&o);
		return rc;
	}
	return clab_outfile_commit(&o, CLAB_E_SYS, "heat map")
		? fail(err, errlen, "%s", clab_errmsg()) : 0;
}

int clab_heatmap_write(const char *path, int ndims, const int *size,
		       const char *letters, const double *value,
		       const char *title, char *err, size_t errlen)
{
	return clab_heatmap_write_range(path, ndims, size, letters, value, NULL, title,
					err, errlen);
}

int clab_heatmap_write_range(const char *path, int ndims, const int *size,
			     const char *letters, const double *value,
			     const double *range, const char *title,
			     char *err, size_t errlen)
{
	struct clab_heatmap h = {.ndims = ndims, .size = size, .letters = letters,
				 .npanel = 1, .value = &value, .range = range,
				 .title = title};
	return clab_heatmap_draw(path, &h, err, errlen);
}

int clab_heatmap_draw(const char *path, const struct clab_heatmap *hm,
		      char *err, size_t errlen)
{
	struct layout L;
	if (err && errlen)
		err[0] = 0;
	if (!path || !*path)
		return fail(err, errlen, "no output path given for the heat map");
	if (!hm)
		return fail(err, errlen, "no heat map given");
	int ndims = hm->ndims, np = hm->npanel;
	const int *size = hm->size;
	const char *letters = hm->letters ? hm->letters : "ABCDEF";
	if (layout_make(&L, ndims, size, np, err, errlen))
		return -1;
	if (!hm->value)
		return fail(err, errlen, "no node values given for the heat map");
	for (int p = 0; p < np; p++)
		if (!hm->value[p])
			return fail(err, errlen, "no node values given for panel %d "
				    "of the heat map", p + 1);
	if (strlen(letters) < (size_t)ndims)
		return fail(err, errlen, "dimension letters \"%s\" name fewer than "
			    "the torus's %d dimensions", letters, ndims);

	int nodes = L.ax[0].cells * L.ax[1].cells, finite = 0, missing = 0;
	double lo = 0, hi = 0;
	for (int p = 0; p < np; p++)
		for (int i = 0; i < nodes; i++) {
			double v = hm->value[p][i];
			if (!isfinite(v)) {
				missing = 1;
				continue;
			}
			if (!finite++ || v < lo)
				lo = v;
			if (finite == 1 || v > hi)
				hi = v;
		}
	double dlo = lo, dhi = hi;
	const double *range = hm->range;
	if (range) {
		if (!isfinite(range[0]) || !isfinite(range[1]) || range[0] >= range[1])
			return fail(err, errlen, "colour range %g..%g: want two finite numbers, "
				    "the first below the second", range[0], range[1]);
		lo = range[0];
		hi = range[1];
	}
	/* one value and no scale given: the middle colour, as the legend says */
	int flat = finite && !range && lo == hi;
	struct image im = {malloc((size_t)L.w * L.h * 3), L.w, L.h};
	if (!im.px)
		return fail(err, errlen, "out of memory for a %dx%d heat map", L.w, L.h);
	memset(im.px, BG[0], (size_t)L.w * L.h * 3);	/* BG is white */

	uint8_t rgb[3];
	for (int p = 0; p < np; p++)
		for (int i = 0; i < nodes; i++) {
			int x, y;
			double v = hm->value[p][i], t = NAN;
			if (isfinite(v))	/* halves keep hi - lo finite near DBL_MAX */
				t = flat ? 0.5 : (v / 2 - lo / 2) / (hi / 2 - lo / 2);
			if (t < 0)		/* outside a given range: its end colour */
				t = 0;
			else if (t > 1)
				t = 1;
			clab_heatmap_color(t, rgb);
			node_xy(&L, ndims, size, p, i, &x, &y);
			fill(&im, x, y, L.cell, L.cell, rgb);
		}
	draw_title(&im, &L, hm->title);
	draw_axes(&im, &L, letters, hm->label);
	draw_legend(&im, &L, lo, hi, dlo, dhi, finite, missing, flat, hm->unit);
	int rc = write_png(path, &im, hm->title, err, errlen);
	free(im.px);
	return rc;
}
