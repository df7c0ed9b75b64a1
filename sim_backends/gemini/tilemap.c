/* Which direction and link type each of a Gemini router's 48 tiles serves:
 * the published Cielo map (Cray's Gemini counter documentation) and a reader for the
 * `rtr --interconnect` dump that Cray's system management workstation
 * prints for a whole machine. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counterlab/backend.h"
#include "counterlab/gemini.h"

static const char *const dir_names[CLAB_GEM_NDIRS] = {"X+", "X-", "Y+", "Y-", "Z+", "Z-", "HOST"};
static const char *const link_names[CLAB_GEM_NLINKTYPES] = {"mezzanine", "backplane", "cable", "host"};
/* the Cielo map: per tile, one direction */
static const double tile_bw[CLAB_GEM_NLINKTYPES] = {2.34e9, 1.88e9, 1.17e9, 1.33e9};
/* The 8 tiles that connect the router to its two NICs, on every router. */
static const uint8_t host_tiles[8] = {19, 20, 27, 28, 35, 36, 43, 44};

const char *clab_gemini_dir_name(int dir)
{
	return dir >= 0 && dir < CLAB_GEM_NDIRS ? dir_names[dir] : "?";
}

const char *clab_gemini_link_name(int type)
{
	return type >= 0 && type < CLAB_GEM_NLINKTYPES ? link_names[type] : "?";
}

double clab_gemini_tile_bytes_s(int type)
{
	return type >= 0 && type < CLAB_GEM_NLINKTYPES ? tile_bw[type] : 0;
}

static void set_hosts(clab_gemini_tilemap *m)
{
	for (int i = 0; i < 8; i++) {
		m->dir[host_tiles[i]] = CLAB_GEM_HOST;
		m->type[host_tiles[i]] = CLAB_GEM_NIC;
	}
}

void clab_gemini_tilemap_cielo(clab_gemini_tilemap *m)
{
	/* first tile, last tile, direction, type, as the published map lists them */
	static const struct { uint8_t a, b, dir, type; } runs[] = {
		{0, 1, CLAB_GEM_ZP, CLAB_GEM_BACKPLANE}, {2, 3, CLAB_GEM_XP, CLAB_GEM_CABLE},
		{4, 5, CLAB_GEM_XM, CLAB_GEM_CABLE}, {6, 7, CLAB_GEM_ZM, CLAB_GEM_CABLE},
		{8, 9, CLAB_GEM_ZP, CLAB_GEM_BACKPLANE}, {10, 11, CLAB_GEM_XP, CLAB_GEM_CABLE},
		{12, 13, CLAB_GEM_XM, CLAB_GEM_CABLE}, {14, 15, CLAB_GEM_ZM, CLAB_GEM_CABLE},
		{16, 18, CLAB_GEM_ZM, CLAB_GEM_CABLE}, {21, 23, CLAB_GEM_ZP, CLAB_GEM_BACKPLANE},
		{24, 25, CLAB_GEM_XP, CLAB_GEM_CABLE}, {26, 26, CLAB_GEM_ZM, CLAB_GEM_CABLE},
		{29, 29, CLAB_GEM_ZP, CLAB_GEM_BACKPLANE}, {30, 31, CLAB_GEM_XM, CLAB_GEM_CABLE},
		{32, 33, CLAB_GEM_XP, CLAB_GEM_CABLE}, {34, 34, CLAB_GEM_YM, CLAB_GEM_CABLE},
		{37, 37, CLAB_GEM_YP, CLAB_GEM_MEZZANINE}, {38, 39, CLAB_GEM_XM, CLAB_GEM_CABLE},
		{40, 42, CLAB_GEM_YM, CLAB_GEM_CABLE}, {45, 47, CLAB_GEM_YP, CLAB_GEM_MEZZANINE},
	};
	memset(m, 0, sizeof *m);
	for (size_t r = 0; r < sizeof runs / sizeof *runs; r++)
		for (int t = runs[r].a; t <= runs[r].b; t++) {
			m->dir[t] = runs[r].dir;
			m->type[t] = runs[r].type;
		}
	set_hosts(m);
	m->by_position = 1;
	snprintf(m->source, sizeof m->source, "Cielo (published map)");
}

int clab_gemini_tiles_of(const clab_gemini_tilemap *m, int dir, uint8_t *out)
{
	int n = 0;
	for (int t = 0; t < CLAB_GEMINI_TILES; t++)
		if (m->dir[t] == dir)
			out[n++] = (uint8_t)t;
	return n;
}

double clab_gemini_dir_bytes_s(const clab_gemini_tilemap *m, int dir)
{
	double bw = 0;
	for (int t = 0; t < CLAB_GEMINI_TILES; t++)
		if (m->dir[t] == dir)
			bw += tile_bw[m->type[t]];
	return bw;
}

/* ---- rtr --interconnect ---------------------------------------------------- */

static int bad(const char *what, int line, const char *fmt, const char *arg)
{
	char why[200];
	snprintf(why, sizeof why, fmt, arg);
	return clab_seterr(CLAB_E_MAP, "tile map %s, line %d: %s", what, line, why);
}

/* "c0-0c0s0g0l23" (then anything from '['): the router's cname (up to the
 * 'l') into gem, tile row and column. 0, or -1 if it is not such a name. */
static int tile_cname(const char *tok, char *gem, size_t cap, int *row, int *col)
{
	const char *p = tok;
	int n = 0;
	/* c<num>-<num>c<num>s<num>g<num> */
	static const char shape[] = "c-csg";
	if (*p != 'c')
		return -1;
	for (int k = 0; shape[k]; k++) {
		if (*p != shape[k])
			return -1;
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	n = (int)(p - tok);
	if (*p != 'l' || !isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]) ||
	    (p[3] && p[3] != '['))
		return -1;
	if ((size_t)n >= cap)
		return -1;
	memcpy(gem, tok, (size_t)n);
	gem[n] = 0;
	*row = p[1] - '0';
	*col = p[2] - '0';
	return 0;
}

static int dir_of(const char *s)
{
	for (int d = 0; d < CLAB_GEM_HOST; d++)
		if (!strcmp(s, dir_names[d]))
			return d;
	return -1;
}

static int type_of(const char *s)
{
	if (!strcmp(s, "mezzanine"))
		return CLAB_GEM_MEZZANINE;
	if (!strcmp(s, "backplane"))
		return CLAB_GEM_BACKPLANE;
	if (!strncmp(s, "cable", 5)) /* cable, cable11x, ... */
		return CLAB_GEM_CABLE;
	return -1;
}

int clab_gemini_tilemap_parse(clab_gemini_tilemap *m, const char *text, size_t len,
			      const char *what, const char *gemini)
{
	char want[64] = "", line[512];
	uint8_t seen[CLAB_GEMINI_TILES] = {0};
	int lineno = 0, found = 0;
	size_t at = 0;
	if (!text)
		return clab_seterr(CLAB_E_INVAL, "tile map %s: no text", what);
	if (gemini)
		snprintf(want, sizeof want, "%s", gemini);
	memset(m, 0, sizeof *m);
	while (at < len) {
		size_t e = at;
		while (e < len && text[e] != '\n')
			e++;
		lineno++;
		size_t ll = e - at;
		if (ll >= sizeof line)
			return bad(what, lineno, "line longer than %s characters", "511");
		if (memchr(text + at, 0, ll))
			return bad(what, lineno, "%s", "a NUL byte in the line");
		memcpy(line, text + at, ll);
		line[ll] = 0;
		at = e + 1;
		char *tok[8];
		int nt = 0;
		for (char *sv, *s = strtok_r(line, " \t\r", &sv); s && nt < 8; s = strtok_r(NULL, " \t\r", &sv))
			tok[nt++] = s;
		if (!nt || tok[0][0] == '#')
			continue;
		if (nt != 6)
			return bad(what, lineno, "%s", "want 6 fields: TILE DIR -> PEER LinkType: TYPE");
		char gem[64];
		int row, col;
		if (tile_cname(tok[0], gem, sizeof gem, &row, &col))
			return bad(what, lineno, "\"%s\" is not a tile name like c0-0c0s0g0l23", tok[0]);
		if (row >= CLAB_GEMINI_ROWS || col >= CLAB_GEMINI_COLS)
			return bad(what, lineno, "tile %s: rows are 0-5 and columns 0-7", tok[0]);
		if (!want[0])
			snprintf(want, sizeof want, "%s", gem);
		if (strcmp(gem, want))
			continue; /* another router's tile */
		int d = dir_of(tok[1]);
		if (d < 0)
			return bad(what, lineno, "direction \"%s\": want X+, X-, Y+, Y-, Z+ or Z-", tok[1]);
		if (strcmp(tok[2], "->"))
			return bad(what, lineno, "third field \"%s\": want ->", tok[2]);
		if (strcmp(tok[4], "LinkType:"))
			return bad(what, lineno, "fifth field \"%s\": want LinkType:", tok[4]);
		int ty = type_of(tok[5]);
		if (ty < 0)
			return bad(what, lineno, "link type \"%s\": want mezzanine, backplane or cable", tok[5]);
		int t = row * CLAB_GEMINI_COLS + col;
		for (int h = 0; h < 8; h++)
			if (host_tiles[h] == t)
				return bad(what, lineno, "tile %s is a host tile (19, 20, 27, 28, 35, 36, 43, 44)", tok[0]);
		if (seen[t]++)
			return bad(what, lineno, "tile %s listed twice", tok[0]);
		m->dir[t] = (uint8_t)d;
		m->type[t] = (uint8_t)ty;
		found++;
	}
	if (!want[0])
		return clab_seterr(CLAB_E_MAP, "tile map %s: no tile lines", what);
	if (found == 0)
		return clab_seterr(CLAB_E_MAP, "tile map %s: router %s is not in it", what, want);
	if (found != CLAB_GEMINI_NET_TILES)
		return clab_seterr(CLAB_E_MAP, "tile map %s: router %s has %d network tiles, a Gemini has %d",
				   what, want, found, CLAB_GEMINI_NET_TILES);
	set_hosts(m); /* first: a host tile left at 0 would pass for X+ */
	for (int d = 0; d < CLAB_GEM_HOST; d++) {
		uint8_t tiles[CLAB_GEMINI_TILES];
		if (!clab_gemini_tiles_of(m, d, tiles))
			return clab_seterr(CLAB_E_MAP, "tile map %s: router %s has no %s tile",
					   what, want, dir_names[d]);
	}
	snprintf(m->source, sizeof m->source, "%.40s %.20s", what, want);
	return CLAB_OK;
}

int clab_gemini_tilemap_load(clab_gemini_tilemap *m, const char *path, const char *gemini)
{
	FILE *f = clab_data_open(path, CLAB_E_MAP, "tile map");
	if (!f)
		return CLAB_E_MAP;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			char *b = cap < ((size_t)64 << 20) ? realloc(buf, cap *= 2) : NULL;
			if (!b) {
				free(buf);
				fclose(f);
				return clab_seterr(CLAB_E_MAP, "tile map %s: larger than 64 MB", path);
			}
			buf = b;
		}
	}
	fclose(f);
	if (!buf)
		return clab_seterr(CLAB_E_NOMEM, "tile map %s: no memory", path);
	int rc = clab_gemini_tilemap_parse(m, buf, len, path, gemini);
	free(buf);
	return rc;
}
