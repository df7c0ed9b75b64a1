/* Heat maps of one value per torus node: the PNGs are read back with libpng
 * and checked for size, limits, the color of given nodes' cells, the torus
 * structure of the layout, and clean failures. */
#include <dirent.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "../../utils/heatmap.h"

static char dir[64];

struct pic {
	int w, h;
	uint8_t *px;
};

static const char *in_dir(const char *name)
{
	static char buf[256];
	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static int entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;
	assert_non_null(dp);
	while ((e = readdir(dp)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dp);
	return n;
}

static struct pic load(const char *path)
{
	png_image im;
	memset(&im, 0, sizeof im);
	im.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&im, path))
		fail_msg("read %s: %s", path, im.message);
	assert_int_equal(im.format, PNG_FORMAT_RGB);	/* 8-bit RGB, no alpha */
	struct pic p = {(int)im.width, (int)im.height, malloc(PNG_IMAGE_SIZE(im))};
	assert_non_null(p.px);
	if (!png_image_finish_read(&im, NULL, p.px, 0, NULL))
		fail_msg("decode %s: %s", path, im.message);
	return p;
}

static const uint8_t *at(const struct pic *p, int x, int y)
{
	assert_true(x >= 0 && x < p->w && y >= 0 && y < p->h);
	return p->px + ((size_t)y * p->w + x) * 3;
}

static int same(const uint8_t *a, const unsigned char *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* The colour bar: the lowest row holding both ends of the scale; returns
 * the number of tick marks (runs of black) right under it, and in *mid
 * (when not NULL) the x of the first one against the bar's middle. */
static int bar_ticks(const struct pic *p, int *mid)
{
	unsigned char lo[3], hi[3];
	clab_heatmap_color(0, lo);
	clab_heatmap_color(1, hi);
	int bar = -1, bx0 = 0, bx1 = 0;
	for (int y = p->h - 1; y >= 0 && bar < 0; y--) {
		int a = -1, b = -1;
		for (int x = 0; x < p->w; x++) {
			if (a < 0 && same(at(p, x, y), lo))
				a = x;
			if (same(at(p, x, y), hi))
				b = x;
		}
		if (a >= 0 && b > a + 100) {
			bar = y;
			bx0 = a;
			bx1 = b;
		}
	}
	assert_true(bar >= 0 && bar + 1 < p->h);
	int runs = 0, in = 0;
	for (int x = bx0; x <= bx1; x++) {
		int k = same(at(p, x, bar + 1), (const uint8_t[]){0, 0, 0});
		if (k && !in) {
			runs++;
			if (mid && runs == 1)
				*mid = x - (bx0 + bx1) / 2;
		}
		in = k;
	}
	return runs;
}

static int nodes_of(int nd, const int *size)
{
	int n = 1;
	for (int d = 0; d < nd; d++)
		n *= size[d];
	return n;
}

static int node_at(int nd, const int *size, const int *c)
{
	int n = 0;
	for (int d = 0; d < nd; d++)
		n = n * size[d] + c[d];
	return n;
}

/* Writes a ramp heat map of the torus, reads it back, checks every cell is
 * inside the picture, and removes the file. */
static struct pic render(int nd, const int *size)
{
	int n = nodes_of(nd, size);
	double *v = malloc(sizeof *v * n);
	char err[256];
	assert_non_null(v);
	for (int i = 0; i < n; i++)
		v[i] = i;
	const char *path = in_dir("ramp.png");
	int rc = clab_heatmap_write(path, nd, size, "ABCDEF", v, "ramp", err, sizeof err);
	if (rc)
		fail_msg("write: %s", err);
	struct pic p = load(path);
	unlink(path);
	for (int i = 0; i < n; i++) {
		int x, y, w, h;
		assert_int_equal(clab_heatmap_cell(nd, size, i, &x, &y, &w, &h), 0);
		assert_true(w >= 1 && w == h);
		assert_true(x >= 0 && y >= 0 && x + w <= p.w && y + h <= p.h);
	}
	free(v);
	return p;
}

static void refused(int nd, const int *size)
{
	double v[4] = {0};
	char err[256] = "";
	assert_int_equal(clab_heatmap_write(in_dir("big.png"), nd, size, NULL, v,
					    NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "16384"));
	assert_int_equal(access(in_dir("big.png"), F_OK), -1);
}

static void size_grows_and_limits(void **state)
{
	(void)state;
	/* everyday machines: a readable picture of moderate size */
	static const int shapes[][7] = {	/* ndims, sizes */
		{1, 8}, {2, 8, 8}, {3, 8, 8, 8}, {5, 4, 4, 4, 4, 2},
		{5, 16, 12, 16, 16, 2}, {6, 2, 3, 4, 3, 2, 2},
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		struct pic p = render(shapes[i][0], shapes[i] + 1);
		assert_in_range(p.w, 480, 1600);
		assert_in_range(p.h, 100, 1600);
		free(p.px);
	}
	/* once cells are 1 px, a longer torus gives a wider picture */
	int prev = 0;
	for (int n = 4000; n <= 16000; n += 6000) {
		struct pic p = render(1, &n);
		assert_true(p.w > prev && p.w > n && p.w <= 16384);
		prev = p.w;
		free(p.px);
	}
	struct pic a = render(3, (const int[]){32, 32, 32});
	struct pic b = render(3, (const int[]){64, 32, 32});	/* BG/L */
	assert_true(b.w > a.w + 1000);
	assert_int_equal(b.h, a.h);
	free(a.px);
	free(b.px);
	/* beyond 16384 px on either side: refused, not truncated */
	refused(1, (const int[]){16384});	/* cells fit, margins do not */
	refused(1, (const int[]){20000});
	refused(2, (const int[]){2, 20000});
	refused(6, (const int[]){32, 32, 32, 32, 32, 32});
	refused(6, (const int[]){1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20});
}

/* BG/Q 4x4x4x4x2 with one hot node: its cell alone has the max color. */
static void hot_node_colors(void **state)
{
	(void)state;
	static const int size[5] = {4, 4, 4, 4, 2};
	int n = nodes_of(5, size), hot = node_at(5, size, (const int[]){2, 1, 3, 0, 1});
	double v[512] = {0};
	unsigned char lo[3], hi[3];
	char err[256];
	v[hot] = 1234.5;
	clab_heatmap_color(0, lo);
	clab_heatmap_color(1, hi);
	assert_false(same(lo, hi));
	const char *path = in_dir("hot.png");
	assert_int_equal(clab_heatmap_write(path, 5, size, "ABCDE", v,
					    "PEVT_NW_USER_PP_SENT", err, sizeof err), 0);
	struct pic p = load(path);
	int x, y, w, h, hot_cells = 0;
	for (int i = 0; i < n; i++) {
		assert_int_equal(clab_heatmap_cell(5, size, i, &x, &y, &w, &h), 0);
		const uint8_t *c = at(&p, x + w / 2, y + h / 2);
		assert_true(same(c, i == hot ? hi : lo));
		hot_cells += same(c, hi);
	}
	assert_int_equal(hot_cells, 1);
	/* the whole hot rectangle, corners included */
	assert_int_equal(clab_heatmap_cell(5, size, hot, &x, &y, &w, &h), 0);
	assert_true(w >= 2);
	for (int dy = 0; dy < h; dy++)
		for (int dx = 0; dx < w; dx++)
			assert_true(same(at(&p, x + dx, y + dy), hi));
	/* the max color appears outside the cell too: the legend bar's end */
	int hi_px = 0;
	for (int yy = 0; yy < p.h; yy++)
		for (int xx = 0; xx < p.w; xx++)
			hi_px += same(at(&p, xx, yy), hi);
	assert_true(hi_px > w * h);
	/* round ticks 0, 500, 1000 under the bar, not just its two ends */
	assert_int_equal(bar_ticks(&p, NULL), 3);
	free(p.px);
	unlink(path);
}

/* A shared colour range: the same value gets the same colour in two maps
 * whatever their own extremes, values beyond the range take its ends, and a
 * range that is not LO < HI is refused. */
static void shared_range(void **state)
{
	(void)state;
	static const int size[3] = {4, 2, 2};
	double a[16] = {0}, b[16], range[2] = {0, 100};
	char err[256];
	for (int i = 0; i < 16; i++)
		b[i] = 50;
	a[3] = 50;
	a[5] = 100;
	b[7] = 200;   /* above the range: the top colour */
	unsigned char mid[3], top[3], low[3];
	clab_heatmap_color(0.5, mid);
	clab_heatmap_color(1, top);
	clab_heatmap_color(0, low);
	char pa[256], pb[256];   /* in_dir's buffer is reused */
	snprintf(pa, sizeof pa, "%s", in_dir("a.png"));
	snprintf(pb, sizeof pb, "%s", in_dir("b.png"));
	assert_int_equal(clab_heatmap_write_range(pa, 3, size, "XYZ", a, range, "a", err, sizeof err), 0);
	struct pic p = load(pa);
	int x, y, w, h;
	for (int i = 0; i < 16; i++) {
		assert_int_equal(clab_heatmap_cell(3, size, i, &x, &y, &w, &h), 0);
		const uint8_t *c = at(&p, x + w / 2, y + h / 2);
		assert_true(same(c, i == 3 ? mid : i == 5 ? top : low));
	}
	free(p.px);
	assert_int_equal(clab_heatmap_write_range(pb, 3, size, "XYZ", b, range, "b", err, sizeof err), 0);
	p = load(pb);
	for (int i = 0; i < 16; i++) {
		assert_int_equal(clab_heatmap_cell(3, size, i, &x, &y, &w, &h), 0);
		assert_true(same(at(&p, x + w / 2, y + h / 2), i == 7 ? top : mid));
	}
	free(p.px);
	unlink(pa);
	unlink(pb);
	double bad[2] = {5, 5};
	assert_int_equal(clab_heatmap_write_range(pa, 3, size, "XYZ", a, bad, "a", err, sizeof err), -1);
	assert_non_null(strstr(err, "colour range 5..5"));
	bad[1] = NAN;
	assert_int_equal(clab_heatmap_write_range(pa, 3, size, "XYZ", a, bad, "a", err, sizeof err), -1);
	assert_false(access(pa, F_OK) == 0);
}

/* Equal values use the middle colour (the legend says "all values = X");
 * NaN and infinities are gray. */
static void flat_and_missing(void **state)
{
	(void)state;
	static const int size[2] = {2, 3};
	double v[6] = {5, 5, 5, 5, 5, 5};
	unsigned char mid[3], lo[3], gray[3];
	char err[256];
	clab_heatmap_color(0.5, mid);
	clab_heatmap_color(0, lo);
	clab_heatmap_color(NAN, gray);
	/* gray means a neutral gray, unlike any color of the scale's ends */
	assert_true(gray[0] == gray[1] && gray[1] == gray[2] && !same(gray, lo));
	assert_in_range(gray[0], 64, 224);
	const char *path = in_dir("flat.png");
	for (int round = 0; round < 2; round++) {
		if (round) {
			v[1] = NAN;
			v[4] = INFINITY;
		}
		assert_int_equal(clab_heatmap_write(path, 2, size, "XY", v, "", err,
						    sizeof err), 0);
		struct pic p = load(path);
		for (int i = 0; i < 6; i++) {
			int x, y, w, h;
			clab_heatmap_cell(2, size, i, &x, &y, &w, &h);
			int missing = round && (i == 1 || i == 4);
			assert_true(same(at(&p, x + w / 2, y + h / 2), missing ? gray : mid));
		}
		/* one tick, under the middle of the bar */
		assert_int_equal(bar_ticks(&p, NULL), 1);
		free(p.px);
	}
	for (int i = 0; i < 6; i++)
		v[i] = NAN;
	assert_int_equal(clab_heatmap_write(path, 2, size, "XY", v, NULL, err,
					    sizeof err), 0);
	unlink(path);
}

/* The scale is viridis: its published ends, and lightness (Rec. 709 luma)
 * rising all the way, which a rainbow's yellow-to-red end does not. */
static void viridis_scale(void **state)
{
	(void)state;
	unsigned char c[3];
	clab_heatmap_color(0, c);
	assert_true(same((const uint8_t[]){68, 1, 84}, c));
	clab_heatmap_color(1, c);
	assert_true(same((const uint8_t[]){253, 231, 37}, c));
	clab_heatmap_color(0.5, c);	/* its teal middle */
	assert_true(c[0] < 60 && c[1] > 120 && c[2] > 120);
	double prev = -1;
	for (int i = 0; i <= 64; i++) {	/* finer steps may round equal */
		clab_heatmap_color(i / 64.0, c);
		double luma = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
		assert_true(luma > prev);
		prev = luma;
	}
}

/* Ink (black) pixels in a rectangle. */
static int ink(const struct pic *p, int x, int y, int w, int h)
{
	int n = 0;
	for (int r = y < 0 ? 0 : y; r < y + h && r < p->h; r++)
		for (int c = x < 0 ? 0 : x; c < x + w && c < p->w; c++)
			n += same(at(p, c, r), (const uint8_t[]){0, 0, 0});
	return n;
}

/* Every cell column has a label just above the plot and every cell row one
 * just left of it, whatever level of the torus that column or row is: the
 * coordinates inside the blocks are labelled, not only the outer ones. */
static void every_coordinate_labelled(void **state)
{
	(void)state;
	static const int shapes[][7] = {
		{5, 4, 4, 4, 4, 2}, {3, 8, 4, 4}, {2, 3, 5}, {6, 2, 3, 2, 3, 2, 2},
	};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		int nd = shapes[k][0];
		const int *size = shapes[k] + 1;
		struct pic p = render(nd, size);
		int x0, y0, w, h;
		clab_heatmap_cell(nd, size, 0, &x0, &y0, &w, &h);
		for (int i = 0; i < nodes_of(nd, size); i++) {
			int x, y;
			clab_heatmap_cell(nd, size, i, &x, &y, &w, &h);
			if (y == y0 && !ink(&p, x, y0 - 12, w, 12))
				fail_msg("shape %zu: no label above the column of node %d", k, i);
			if (x == x0 && !ink(&p, x0 - 12, y, 12, h))
				fail_msg("shape %zu: no label left of the row of node %d", k, i);
		}
		free(p.px);
	}
}

static int cell_x(const int *size, const int *c)
{
	int x, y, w, h;
	assert_int_equal(clab_heatmap_cell(5, size, node_at(5, size, c), &x, &y, &w, &h), 0);
	return x;
}

/* Cells never overlap, coordinates advance along their axis, and gaps widen
 * from the innermost blocks outward. */
static void layout_structure(void **state)
{
	(void)state;
	static const int shapes[][7] = {
		{1, 7}, {2, 3, 5}, {3, 4, 3, 2}, {5, 4, 4, 4, 4, 2},
		{6, 2, 3, 2, 3, 2, 2},
	};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		int nd = shapes[s][0], n = nodes_of(nd, shapes[s] + 1);
		enum { SIDE = 2000 };
		uint8_t *used = calloc((size_t)SIDE * SIDE, 1);
		assert_non_null(used);
		for (int i = 0; i < n; i++) {
			int x, y, w, h;
			assert_int_equal(clab_heatmap_cell(nd, shapes[s] + 1, i, &x, &y,
							   &w, &h), 0);
			assert_true(x + w <= SIDE && y + h <= SIDE);
			for (int dy = 0; dy < h; dy++)
				for (int dx = 0; dx < w; dx++)
					assert_int_equal(used[(size_t)(y + dy) * SIDE + x + dx]++, 0);
		}
		free(used);
	}
	static const int size[5] = {4, 4, 4, 4, 2};
	int x, y, w, h, y2;
	clab_heatmap_cell(5, size, 0, &x, &y, &w, &h);
	/* E pairs touch; E blocks are apart; C blocks further; A blocks further */
	assert_int_equal(cell_x(size, (const int[]){0, 0, 0, 0, 1}), x + w);
	int gap_e = cell_x(size, (const int[]){0, 0, 1, 0, 0}) - (x + 2 * w);
	int gap_c = cell_x(size, (const int[]){1, 0, 0, 0, 0}) -
		    (cell_x(size, (const int[]){0, 0, 3, 0, 1}) + w);
	assert_true(gap_e >= 1 && gap_c > gap_e);
	/* B and D lie on y: moving in D moves down, not across */
	clab_heatmap_cell(5, size, node_at(5, size, (const int[]){0, 0, 0, 1, 0}),
			  &x, &y2, &w, &h);
	assert_int_equal(x, cell_x(size, (const int[]){0, 0, 0, 0, 0}));
	assert_true(y2 >= y + h);
	/* bad queries */
	assert_int_equal(clab_heatmap_cell(5, size, -1, &x, &y, &w, &h), -1);
	assert_int_equal(clab_heatmap_cell(5, size, 512, &x, &y, &w, &h), -1);
	assert_int_equal(clab_heatmap_cell(0, size, 0, &x, &y, &w, &h), -1);
	assert_int_equal(clab_heatmap_cell(5, NULL, 0, &x, &y, &w, &h), -1);
	assert_int_equal(clab_heatmap_cell(5, size, 0, NULL, &y, &w, &h), -1);
}

/* Two maps of one torus side by side on one scale: the same value has the
 * same colour in both, the extremes of either take the scale's ends, the
 * panels do not overlap, and all-equal panels take the middle colour. */
static void side_by_side(void **state)
{
	(void)state;
	static const int size[3] = {4, 2, 2};
	double a[16], b[16];
	const double *v[2] = {a, b};
	const char *label[2] = {"map ABC", "map other"};
	unsigned char c[3];
	char err[256];
	for (int i = 0; i < 16; i++) {
		a[i] = i;		/* 0..15 */
		b[i] = 2 * i;		/* 0..30: the scale is 0..30 */
	}
	struct clab_heatmap hm = {.ndims = 3, .size = size, .letters = "ABC",
				  .npanel = 2, .value = v, .label = label,
				  .title = "chunks", .unit = "chunks per node"};
	char path[256];	/* in_dir's buffer is reused by render */
	snprintf(path, sizeof path, "%s", in_dir("two.png"));
	if (clab_heatmap_draw(path, &hm, err, sizeof err))
		fail_msg("draw: %s", err);
	struct pic p = load(path);
	struct pic one = render(3, size);
	assert_true(p.h > one.h);	/* the panels' labels */
	assert_true(p.w > one.w);
	int right0 = 0;
	for (int i = 0; i < 16; i++) {
		int x, y, w, h;
		assert_int_equal(clab_heatmap_panel_cell(3, size, 2, 0, i, &x, &y, &w, &h), 0);
		right0 = x + w > right0 ? x + w : right0;
		clab_heatmap_color(a[i] / 30, c);
		assert_true(same(at(&p, x + w / 2, y + h / 2), c));
	}
	for (int i = 0; i < 16; i++) {
		int x, y, w, h;
		assert_int_equal(clab_heatmap_panel_cell(3, size, 2, 1, i, &x, &y, &w, &h), 0);
		assert_true(x > right0 && x + w <= p.w);
		clab_heatmap_color(b[i] / 30, c);
		assert_true(same(at(&p, x + w / 2, y + h / 2), c));
	}
	assert_true(bar_ticks(&p, NULL) >= 3);
	free(p.px);
	free(one.px);
	/* both panels one value: the middle colour in both */
	for (int i = 0; i < 16; i++)
		a[i] = b[i] = 7;
	assert_int_equal(clab_heatmap_draw(path, &hm, err, sizeof err), 0);
	p = load(path);
	clab_heatmap_color(0.5, c);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 16; i++) {
			int x, y, w, h;
			clab_heatmap_panel_cell(3, size, 2, k, i, &x, &y, &w, &h);
			assert_true(same(at(&p, x + w / 2, y + h / 2), c));
		}
	free(p.px);
	unlink(path);
	/* a shared range still rules */
	double range[2] = {0, 70};
	hm.range = range;
	assert_int_equal(clab_heatmap_draw(path, &hm, err, sizeof err), 0);
	p = load(path);
	clab_heatmap_color(0.1, c);
	int x, y, w, h;
	clab_heatmap_panel_cell(3, size, 2, 1, 5, &x, &y, &w, &h);
	assert_true(same(at(&p, x + w / 2, y + h / 2), c));
	free(p.px);
	unlink(path);
	/* refused: no panels, too many, a missing panel, a panel out of range */
	int before = entries(dir);
	for (int n = 0; n <= CLAB_HEATMAP_MAX_PANELS + 1; n += CLAB_HEATMAP_MAX_PANELS + 1) {
		hm.npanel = n;
		assert_int_equal(clab_heatmap_draw(path, &hm, err, sizeof err), -1);
		assert_non_null(strstr(err, "panels"));
	}
	const double *gap[2] = {a, NULL};
	hm.npanel = 2;
	hm.value = gap;
	assert_int_equal(clab_heatmap_draw(path, &hm, err, sizeof err), -1);
	assert_non_null(strstr(err, "panel 2"));
	assert_int_equal(entries(dir), before);
	assert_int_equal(clab_heatmap_panel_cell(3, size, 2, 2, 0, &x, &y, &w, &h), -1);
	assert_int_equal(clab_heatmap_panel_cell(3, size, 2, -1, 0, &x, &y, &w, &h), -1);
}

/* Bad input: -1, a message, no file, and an existing file left alone. */
static void bad_inputs(void **state)
{
	(void)state;
	static const int ok[3] = {2, 2, 2}, zero[3] = {2, 0, 2}, neg[3] = {2, 2, -3};
	double v[8] = {0};
	char err[256];
	const char *path = in_dir("keep.png");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("keep", f);
	fclose(f);
	int before = entries(dir);
	struct {
		const char *path;
		int nd;
		const int *size;
		const char *letters;
		const double *v;
	} bad[] = {
		{path, 0, ok, "ABC", v}, {path, 7, ok, "ABCDEFG", v},
		{path, -1, ok, "ABC", v}, {path, 3, NULL, "ABC", v},
		{path, 3, zero, "ABC", v}, {path, 3, neg, "ABC", v},
		{path, 3, ok, "ABC", NULL}, {NULL, 3, ok, "ABC", v},
		{"", 3, ok, "ABC", v}, {path, 3, ok, "AB", v},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		assert_int_equal(clab_heatmap_write(bad[i].path, bad[i].nd, bad[i].size,
						    bad[i].letters, bad[i].v, "t",
						    err, sizeof err), -1);
		assert_true(strlen(err) > 10);
		/* and without anywhere to put the message */
		assert_int_equal(clab_heatmap_write(bad[i].path, bad[i].nd, bad[i].size,
						    bad[i].letters, bad[i].v, "t",
						    NULL, 0), -1);
	}
	assert_int_equal(entries(dir), before);
	f = fopen(path, "r");
	assert_non_null(f);
	char buf[16] = "";
	assert_non_null(fgets(buf, sizeof buf, f));
	fclose(f);
	assert_string_equal(buf, "keep");
	unlink(path);
}

/* Unwritable destinations: -1 naming the path, nothing left behind. */
static void unwritable_path(void **state)
{
	(void)state;
	static const int size[2] = {2, 2};
	double v[4] = {1, 2, 3, 4};
	char err[512], path[256];
	FILE *f = fopen(in_dir("plain"), "w");
	assert_non_null(f);
	fclose(f);
	int before = entries(dir);
	const char *names[] = {"plain/x.png", "missing/x.png", "adir"};
	assert_int_equal(mkdir(in_dir("adir"), 0755), 0);
	before++;
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s", in_dir(names[i]));
		err[0] = 0;
		assert_int_equal(clab_heatmap_write(path, 2, size, "AB", v, "t", err,
						    sizeof err), -1);
		if (!strstr(err, path))
			fail_msg("message does not name %s: %s", path, err);
		assert_int_equal(entries(dir), before);
	}
	assert_non_null(strstr(err, "directory"));	/* rename onto a directory */
	assert_int_equal(entries(in_dir("adir")), 0);
	rmdir(in_dir("adir"));
	unlink(in_dir("plain"));
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/clab_heatmap.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);	/* fails if a test left a file behind */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(size_grows_and_limits),
		cmocka_unit_test(hot_node_colors),
		cmocka_unit_test(shared_range),
		cmocka_unit_test(flat_and_missing),
		cmocka_unit_test(viridis_scale),
		cmocka_unit_test(every_coordinate_labelled),
		cmocka_unit_test(layout_structure),
		cmocka_unit_test(bad_inputs),
		cmocka_unit_test(unwritable_path),
		cmocka_unit_test(side_by_side),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
