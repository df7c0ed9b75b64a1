/* Heat-map PNGs of one value per torus node (see heatmap.h). The layout is a
 * pure function of the torus shape, so clab_heatmap_cell() can say exactly
 * where clab_heatmap_write() drew a node. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
};

struct layout {
	struct axis ax[2];	/* x, y */
	int cell, gap;		/* cell side; gap between innermost blocks */
	int plotw, ploth, x0, y0;
	int ts;			/* text scale */
	int title_y, axis_y, tick_y, legend_y, barw;
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

static int layout_make(struct layout *L, int ndims, const int *size,
		       char *err, size_t errlen)
{
	char sh[96];
	if (ndims < 1 || ndims > CLAB_HEATMAP_MAX_DIMS)
		return fail(err, errlen, "a torus for a heat map has 1 to %d "
			    "dimensions, not %d", CLAB_HEATMAP_MAX_DIMS, ndims);
	if (!size)
		return fail(err, errlen, "no torus sizes given");
	for (int d = 0; d < ndims; d++)
		if (size[d] < 1)
			return fail(err, errlen, "torus dimension %d has size %d; "
				    "sizes must be at least 1", d, size[d]);
	shape(sh, sizeof sh, ndims, size);
	memset(L, 0, sizeof *L);
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
	/* Largest cell that keeps the plot within the target; at least 1 px. */
	int64_t pw, ph;
	for (L->cell = MAX_CELL;; L->cell--) {
		L->gap = 1 + L->cell / 16;
		pw = axis_pos(&L->ax[0], L->ax[0].cells, L->cell, L->gap);
		ph = axis_pos(&L->ax[1], L->ax[1].cells, L->cell, L->gap);
		if (L->cell == 1 || (pw <= TARGET_W && ph <= TARGET_H))
			break;
	}
	if (pw > CLAB_HEATMAP_MAX_PIXELS || ph > CLAB_HEATMAP_MAX_PIXELS)
		goto too_big;
	L->plotw = (int)pw;
	L->ploth = (int)ph;
	int s = L->ts = L->plotw >= 900 ? 2 : 1;
	L->x0 = MARGIN;
	if (L->ax[1].n) {	/* room for y tick labels such as "B11" */
		char t[16];
		snprintf(t, sizeof t, "B%d", L->ax[1].size[0] - 1);
		L->x0 += text_w(strlen(t), s) + 4 * s;
	}
	L->title_y = MARGIN;
	L->axis_y = L->title_y + GH * (s + 1) + 4 * s;
	L->tick_y = L->axis_y + GH * s + 4 * s;
	L->y0 = L->tick_y + GH * s + 2 * s;
	L->legend_y = L->y0 + L->ploth + 8 * s;
	L->barw = 256 * s;
	int legend = L->barw + 32 * s + text_w(3, s);	/* bar, NaN swatch */
	int64_t w = (int64_t)L->x0 + MARGIN + (L->plotw > legend ? L->plotw : legend);
	int64_t h = L->legend_y + 15 * s + GH * s + MARGIN;
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

static void node_xy(const struct layout *L, int ndims, const int *size,
		    int node, int *x, int *y)
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
	*x = L->x0 + (int)p[0];
	*y = L->y0 + (int)p[1];
}

int clab_heatmap_cell(int ndims, const int *size, int node,
		      int *x, int *y, int *w, int *h)
{
	struct layout L;
	if (layout_make(&L, ndims, size, NULL, 0) || !x || !y || !w || !h ||
	    node < 0 || node >= L.ax[0].cells * L.ax[1].cells)
		return -1;
	node_xy(&L, ndims, size, node, x, y);
	*w = *h = L.cell;
	return 0;
}

void clab_heatmap_color(double t, unsigned char rgb[3])
{
	/* dark blue, blue, cyan, yellow, red */
	static const uint8_t stop[5][3] = {
		{20, 20, 110}, {20, 90, 230}, {0, 210, 220}, {250, 230, 40},
		{200, 20, 20},
	};
	if (isnan(t)) {
		memcpy(rgb, GRAY, 3);
		return;
	}
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	int i = t >= 1 ? 3 : (int)(t * 4);
	double f = t * 4 - i;
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

/* Labels the outermost dimension of an axis ("A0", "A1", ...) along the
 * plot, skipping labels evenly when its blocks are too small for them. */
static void ticks(struct image *im, const struct layout *L, int k, const char *letters)
{
	const struct axis *a = &L->ax[k];
	if (!a->n)
		return;
	int s = L->ts, n = a->size[0], block = a->cells / n;
	int span = (int)(axis_pos(a, block - 1, L->cell, L->gap) + L->cell);
	char t[16];
	snprintf(t, sizeof t, "%c%d", letters[a->dim[0]], n - 1);
	int need = k ? (GH + 1) * s : text_w(strlen(t), s) + 4 * s;
	int step = 1;
	for (int m = 0; step * span < need; m++)	/* 1, 2, 5, 10, 20, 50, ... */
		step = m % 3 == 1 ? step * 5 / 2 : step * 2;
	for (int i = 0; i < n; i += step) {
		int p = (int)axis_pos(a, (int64_t)i * block, L->cell, L->gap);
		snprintf(t, sizeof t, "%c%d", letters[a->dim[0]], i);
		int tw = text_w(strlen(t), s);
		if (k == 0)
			text(im, L->x0 + p + (span - tw) / 2, L->tick_y, s, t);
		else
			text(im, L->x0 - 4 * s - tw, L->y0 + p + (span - 7 * s) / 2, s, t);
	}
}

static void draw_title(struct image *im, const struct layout *L, const char *title)
{
	char buf[512];
	size_t n = 0;
	for (; title && title[n] && n < sizeof buf - 1; n++)
		buf[n] = title[n];
	buf[n] = 0;
	/* large if it fits, else normal size and cut */
	int s = L->ts + 1, room = im->w - 2 * MARGIN;
	if (text_w(n, s) > room)
		s = L->ts;
	size_t fit = (size_t)((room + s) / ((GW + 1) * s));
	if (n > fit)
		buf[fit] = 0;
	text(im, MARGIN, L->title_y, s, buf);
}

static void draw_axes(struct image *im, const struct layout *L, const char *letters)
{
	char buf[96];
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
	snprintf(buf + o, sizeof buf - o, "   %d nodes",
		 L->ax[0].cells * L->ax[1].cells);
	text(im, MARGIN, L->axis_y, L->ts, buf);
	ticks(im, L, 0, letters);
	ticks(im, L, 1, letters);
}

static void draw_legend(struct image *im, const struct layout *L, double lo,
			double hi, int finite, int missing)
{
	int s = L->ts, y = L->legend_y, bh = 12 * s;
	uint8_t rgb[3];
	char t[64];
	for (int i = 0; i < L->barw; i++) {
		clab_heatmap_color((double)i / (L->barw - 1), rgb);
		fill(im, L->x0 + i, y, 1, bh, rgb);
	}
	if (finite) {
		snprintf(t, sizeof t, "min %g", lo);
		text(im, L->x0, y + bh + 3 * s, s, t);
		snprintf(t, sizeof t, "max %g", hi);
		text(im, L->x0 + L->barw - text_w(strlen(t), s), y + bh + 3 * s, s, t);
	} else {
		text(im, L->x0, y + bh + 3 * s, s, "no finite values");
	}
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

/* Writes beside path under a unique name, then renames: readers never see
 * a half-written picture and a failure leaves nothing behind. */
static int write_png(const char *path, const struct image *im, const char *title,
		     char *err, size_t errlen)
{
	size_t n = strlen(path) + 40;
	char *tmp = malloc(n);
	int fd = -1, rc = -1;
	if (!tmp)
		return fail(err, errlen, "out of memory writing %s", path);
	for (int i = 0; i < 100; i++) {
		snprintf(tmp, n, "%s.%ld.%d.tmp", path, (long)getpid(), i);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		fail(err, errlen, "cannot create %s: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		goto out;
	}
	struct pngerr pe = {.errnum = 0};
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &pe,
						  png_fail, png_quiet);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	errno = 0;
	if (!info)
		fail(err, errlen, "cannot write %s: libpng out of memory", path);
	else if (png_body(png, info, f, im, title))
		fail(err, errlen, "cannot write %s: %s", path,
		     pe.errnum ? strerror(pe.errnum) : pe.msg);
	else if (fflush(f) || ferror(f))
		fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
	else
		rc = 0;
	png_destroy_write_struct(&png, &info);
	if (fclose(f) && rc == 0)
		rc = fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
	if (rc == 0 && rename(tmp, path))
		rc = fail(err, errlen, "cannot rename %s to %s: %s", tmp, path,
			  strerror(errno));
out:
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
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
	struct layout L;
	if (err && errlen)
		err[0] = 0;
	if (!path || !*path)
		return fail(err, errlen, "no output path given for the heat map");
	if (layout_make(&L, ndims, size, err, errlen))
		return -1;
	if (!value)
		return fail(err, errlen, "no node values given for the heat map");
	if (!letters)
		letters = "ABCDEF";
	if (strlen(letters) < (size_t)ndims)
		return fail(err, errlen, "dimension letters \"%s\" name fewer than "
			    "the torus's %d dimensions", letters, ndims);

	int nodes = L.ax[0].cells * L.ax[1].cells, finite = 0;
	double lo = 0, hi = 0;
	for (int i = 0; i < nodes; i++) {
		if (!isfinite(value[i]))
			continue;
		if (!finite++ || value[i] < lo)
			lo = value[i];
		if (finite == 1 || value[i] > hi)
			hi = value[i];
	}
	if (range) {
		if (!isfinite(range[0]) || !isfinite(range[1]) || range[0] >= range[1])
			return fail(err, errlen, "colour range %g..%g: want two finite numbers, "
				    "the first below the second", range[0], range[1]);
		lo = range[0];
		hi = range[1];
	}
	struct image im = {malloc((size_t)L.w * L.h * 3), L.w, L.h};
	if (!im.px)
		return fail(err, errlen, "out of memory for a %dx%d heat map", L.w, L.h);
	memset(im.px, BG[0], (size_t)L.w * L.h * 3);	/* BG is white */

	uint8_t rgb[3];
	for (int i = 0; i < nodes; i++) {
		int x, y;
		double v = value[i], t = NAN;
		if (isfinite(v))	/* halves keep hi - lo finite near DBL_MAX */
			t = hi > lo ? (v / 2 - lo / 2) / (hi / 2 - lo / 2) : 0;
		if (t < 0)		/* outside a given range: its end colour */
			t = 0;
		else if (t > 1)
			t = 1;
		clab_heatmap_color(t, rgb);
		node_xy(&L, ndims, size, i, &x, &y);
		fill(&im, x, y, L.cell, L.cell, rgb);
	}
	draw_title(&im, &L, title);
	draw_axes(&im, &L, letters);
	draw_legend(&im, &L, lo, hi, finite, finite < nodes);
	int rc = write_png(path, &im, title, err, errlen);
	free(im.px);
	return rc;
}
