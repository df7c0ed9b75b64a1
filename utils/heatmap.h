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

/* The rectangle of node's cell in the image clab_heatmap_write draws for the
 * same torus (the layout depends on ndims and size only). Returns 0, or -1
 * when the torus or node is invalid or the image would be too large. */
int clab_heatmap_cell(int ndims, const int *size, int node,
		      int *x, int *y, int *w, int *h);

/* The colormap: t in [0,1] from low (dark blue) through cyan and yellow to
 * high (red); NaN gives the gray used for missing values. */
void clab_heatmap_color(double t, unsigned char rgb[3]);

#endif
