/* Heat maps of one value per torus node, in the spirit of BG/L's BGLnodes:
 * every node is one colored cell, dimensions nested alternately on the x and
 * y axes with gaps that widen at outer levels so the torus structure shows. */
#ifndef CLAB_HEATMAP_H
#define CLAB_HEATMAP_H

#include <stddef.h>

#define CLAB_HEATMAP_MAX_DIMS 6
#define CLAB_HEATMAP_MAX_PIXELS 16384 /* per image side */

/* Writes a PNG heat map of one value per node of a torus of ndims dimensions
 * of sizes size[0..ndims) (node index = ((c0*size1 + c1)*size2 + c2)..., i.e. the
 * last dimension varies fastest). letters names the dimensions (e.g. "ABCDE"),
 * title is drawn at the top (ASCII). Returns 0, or -1 with a message in err.
 * letters == NULL means "ABCDEF", title == NULL means no title; non-finite
 * values are drawn gray and ignored for the color scale. The file is written
 * under a temporary name and renamed, so a failure leaves no partial file. */
int clab_heatmap_write(const char *path, int ndims, const int *size,
		       const char *letters, const double *value,
		       const char *title, char *err, size_t errlen);

/* The same with a colour scale fixed to range[0]..range[1] (range NULL:
 * the values' own minimum and maximum), so that maps meant to be compared
 * share one scale; values outside take the end colours. A range that is
 * not two finite numbers, the first below the second, is an error. */
int clab_heatmap_write_range(const char *path, int ndims, const int *size,
			     const char *letters, const double *value,
			     const double *range, const char *title,
			     char *err, size_t errlen);

/* Several maps of one torus side by side in one picture, on one colour
 * scale, with one title: what clab_heatmap_draw() takes. */
#define CLAB_HEATMAP_MAX_PANELS 4
struct clab_heatmap {
	int ndims;
	const int *size;
	const char *letters;		/* NULL: "ABCDEF" */
	int npanel;			/* 1..CLAB_HEATMAP_MAX_PANELS */
	const double *const *value;	/* value[panel][node] */
	const char *const *label;	/* a line above each panel, NULL: none */
	const double *range;		/* NULL: the values' own extremes */
	const char *title;		/* NULL: none */
	const char *unit;		/* under the colour bar, NULL: none */
};

/* Writes the PNG of h (see clab_heatmap_write_range for the scale, the
 * colours and the file). When every finite value is the same and no range
 * is given, the cells take the middle colour and the legend says
 * "all values = X". Returns 0, or -1 with a message in err. */
int clab_heatmap_draw(const char *path, const struct clab_heatmap *h,
		      char *err, size_t errlen);

/* The rectangle of node's cell in the image clab_heatmap_write draws for the
 * same torus (the layout depends on ndims and size only). Returns 0, or -1
 * when the torus or node is invalid or the image would be too large. */
int clab_heatmap_cell(int ndims, const int *size, int node,
		      int *x, int *y, int *w, int *h);

/* The same in panel panel (0 = leftmost) of a picture of npanel panels. */
int clab_heatmap_panel_cell(int ndims, const int *size, int npanel, int panel,
			    int node, int *x, int *y, int *w, int *h);

/* The colormap, viridis: t in [0,1] from low (dark purple) through blue and
 * green to high (yellow), lightness rising evenly; NaN gives the gray used
 * for missing values. */
void clab_heatmap_color(double t, unsigned char rgb[3]);

#endif
