/* The Gemini model (sim_backends/gemini): the tile map and its reader,
 * which tile counts a packet (the one it enters by), request and response
 * paths, PUT and GET phits, compression, 48-bit wrap, stalls, and the
 * gemini-nw unit read through the framework. Expected values are worked
 * out by hand from the published Cielo map in the comments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "counterlab/gemini.h"

static const uint8_t host0[4] = {19, 20, 27, 28}, host1[4] = {35, 36, 43, 44};

/* A 4x4x4 torus of routers, one rank per node (ppn 2: slot 0 on node 0,
 * slot 1 on node 1), ranks in XYZT order: rank 2r + n on router r. */
typedef struct fixture {
	clab_torus t;
	clab_map map;
	clab_gemini_tilemap tm;
	clab_gemini *g;
} fixture;

static fixture *fx_new(const char *shape)
{
	fixture *f = calloc(1, sizeof *f);
	int rc;
	assert_int_equal(clab_torus_init(&f->t, clab_netspec_find("gemini"), shape, 2, "XYZ"), CLAB_OK);
	assert_int_equal(clab_map_init(&f->map, &f->t, "XYZT"), CLAB_OK);
	clab_gemini_tilemap_cielo(&f->tm);
	f->g = clab_gemini_new(&f->t, &f->map, &f->tm, &rc);
	assert_non_null(f->g);
	return f;
}

static void fx_free(fixture *f)
{
	clab_gemini_free(f->g);
	clab_map_free(&f->map);
	free(f);
}

static uint32_t router(fixture *f, int x, int y, int z)
{
	int c[3] = {x, y, z};
	return clab_torus_node(&f->t, c);
}

static uint32_t rank_at(fixture *f, int x, int y, int z, int node)
{
	uint32_t r = router(f, x, y, z);
	for (uint32_t k = 0; k < f->map.nranks; k++) {
		uint32_t rr;
		int n;
		clab_gemini_place(f->g, k, &rr, &n);
		if (rr == r && n == node)
			return k;
	}
	fail_msg("no rank on router %u node %d", r, node);
	return 0;
}

/* counter ctr summed over the tiles of direction dir of router r */
static uint64_t dir_sum(fixture *f, uint32_t r, int dir, int ctr)
{
	uint64_t v = 0;
	for (int t = 0; t < CLAB_GEMINI_TILES; t++)
		if (f->tm.dir[t] == dir)
			v += clab_gemini_tile(f->g, r, t, ctr);
	return v;
}

static uint64_t tiles_sum(fixture *f, uint32_t r, const uint8_t *tiles, int ctr)
{
	uint64_t v = 0;
	for (int i = 0; i < 4; i++)
		v += clab_gemini_tile(f->g, r, tiles[i], ctr);
	return v;
}

static void cielo_map(void **state)
{
	(void)state;
	clab_gemini_tilemap m;
	uint8_t tiles[CLAB_GEMINI_TILES];
	clab_gemini_tilemap_cielo(&m);
	/* the Cielo map: X+ 2,3,10,11,24,25,32,33; Y- 34,40,41,42; Y+ 37,45-47 */
	static const int want[CLAB_GEM_NDIRS] = {8, 8, 4, 4, 8, 8, 8};
	for (int d = 0; d < CLAB_GEM_NDIRS; d++)
		assert_int_equal(clab_gemini_tiles_of(&m, d, tiles), want[d]);
	assert_int_equal(clab_gemini_tiles_of(&m, CLAB_GEM_XP, tiles), 8);
	static const uint8_t xp[8] = {2, 3, 10, 11, 24, 25, 32, 33};
	assert_memory_equal(tiles, xp, 8);
	/* 8 cable tiles = 9.36 GB/s; Z+: 8 backplane = 15.04; Y+: 4 mezzanine = 9.36 */
	assert_float_equal(clab_gemini_dir_bytes_s(&m, CLAB_GEM_XP), 9.36e9, 1e3);
	assert_float_equal(clab_gemini_dir_bytes_s(&m, CLAB_GEM_ZP), 15.04e9, 1e3);
	assert_float_equal(clab_gemini_dir_bytes_s(&m, CLAB_GEM_YP), 9.36e9, 1e3);
	assert_float_equal(clab_gemini_dir_bytes_s(&m, CLAB_GEM_YM), 4.68e9, 1e3);
	assert_int_equal(m.dir[19], CLAB_GEM_HOST);
	assert_int_equal(m.type[37], CLAB_GEM_MEZZANINE);
}

/* The Cielo map written as `rtr --interconnect` prints it, for router
 * c0-0c0s0g<g>, its tiles rotated by `shift` directions (another map). */
static size_t rtr_text(char *buf, size_t cap, int gem, int shift)
{
	clab_gemini_tilemap m;
	clab_gemini_tilemap_cielo(&m);
	size_t n = 0;
	for (int t = 0; t < CLAB_GEMINI_TILES; t++) {
		if (m.dir[t] == CLAB_GEM_HOST)
			continue;
		int d = (m.dir[t] + shift) % CLAB_GEM_HOST;
		n += (size_t)snprintf(buf + n, cap - n,
				      "c0-0c0s0g%dl%d%d[(0,0,%d)] %s -> c0-0c0s1g0l%d%d[(0,0,1)] LinkType: %s%s\n",
				      gem, t / 8, t % 8, gem, clab_gemini_dir_name(d), t / 8, t % 8,
				      clab_gemini_link_name(m.type[t]),
				      m.type[t] == CLAB_GEM_CABLE ? "11x" : "");
	}
	return n;
}

static void rtr_maps(void **state)
{
	(void)state;
	char text[16384];
	clab_gemini_tilemap cielo, m;
	clab_gemini_tilemap_cielo(&cielo);
	/* two routers in one dump: the first is read unless one is named */
	size_t n = rtr_text(text, sizeof text, 0, 0);
	n += rtr_text(text + n, sizeof text - n, 1, 1);
	assert_int_equal(clab_gemini_tilemap_parse(&m, text, n, "dump", NULL), CLAB_OK);
	assert_memory_equal(m.dir, cielo.dir, CLAB_GEMINI_TILES);
	assert_memory_equal(m.type, cielo.type, CLAB_GEMINI_TILES);
	assert_int_equal(clab_gemini_tilemap_parse(&m, text, n, "dump", "c0-0c0s0g1"), CLAB_OK);
	assert_int_equal(m.dir[2], CLAB_GEM_XM); /* X+ shifted by one */
	assert_int_equal(m.dir[19], CLAB_GEM_HOST);
	/* a file, with comments and blank lines */
	char path[] = "/tmp/clab-tilemap-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	fprintf(fp, "# rtr --interconnect\n\n%.*s", (int)n, text);
	fclose(fp);
	assert_int_equal(clab_gemini_tilemap_load(&m, path, NULL), CLAB_OK);
	assert_memory_equal(m.dir, cielo.dir, CLAB_GEMINI_TILES);
	unlink(path);
	assert_int_equal(clab_gemini_tilemap_load(&m, path, NULL), CLAB_E_MAP);
	assert_non_null(strstr(clab_errmsg(), "No such file"));
}

/* Each malformed map gives CLAB_E_MAP with the line and the fault. */
static void rtr_errors(void **state)
{
	(void)state;
	char good[8192], buf[9000];
	size_t n = rtr_text(good, sizeof good, 0, 0);
	char *second = strchr(good, '\n') + 1; /* line 2 onwards */
	static const struct { const char *line1; const char *msg; } bad[] = {
		{"c0-0c0s0g0x00 X+ -> c0 LinkType: cable", "line 1: \"c0-0c0s0g0x00\" is not a tile name"},
		{"c0-0c0s0g0l68 X+ -> c0 LinkType: cable", "line 1: tile c0-0c0s0g0l68: rows are 0-5"},
		{"c0-0c0s0g0l00 W+ -> c0 LinkType: cable", "line 1: direction \"W+\""},
		{"c0-0c0s0g0l00 Z+ -> c0 LinkType: optical", "line 1: link type \"optical\""},
		{"c0-0c0s0g0l00 Z+ => c0 LinkType: cable", "line 1: third field"},
		{"c0-0c0s0g0l00 Z+ -> c0 Type: cable", "line 1: fifth field"},
		{"c0-0c0s0g0l00 Z+ -> c0 LinkType:", "line 1: want 6 fields"},
		{"c0-0c0s0g0l23 Z+ -> c0 LinkType: cable", "line 1: tile c0-0c0s0g0l23 is a host tile"},
		{"c0-0c0s0g0l01 Z+ -> c0 LinkType: backplane", "line 2: tile c0-0c0s0g0l01"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		clab_gemini_tilemap m;
		int k = snprintf(buf, sizeof buf, "%s\n%s", bad[i].line1, second);
		assert_int_equal(clab_gemini_tilemap_parse(&m, buf, (size_t)k, "t", NULL), CLAB_E_MAP);
		if (!strstr(clab_errmsg(), bad[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, clab_errmsg(), bad[i].msg);
	}
	clab_gemini_tilemap m;
	/* a tile short (the first line dropped), a router absent, nothing */
	assert_int_equal(clab_gemini_tilemap_parse(&m, second, strlen(second), "t", NULL), CLAB_E_MAP);
	assert_non_null(strstr(clab_errmsg(), "has 39 network tiles, a Gemini has 40"));
	assert_int_equal(clab_gemini_tilemap_parse(&m, good, n, "t", "c9-9c0s0g0"), CLAB_E_MAP);
	assert_non_null(strstr(clab_errmsg(), "router c9-9c0s0g0 is not in it"));
	assert_int_equal(clab_gemini_tilemap_parse(&m, "# only\n\n", 8, "t", NULL), CLAB_E_MAP);
	assert_non_null(strstr(clab_errmsg(), "no tile lines"));
	/* a direction without tiles (its lines turned into another's), each
	 * of the six: X+ too, which the host tiles must not stand in for */
	static const char *const dirs[6] = {" X+ ", " X- ", " Y+ ", " Y- ", " Z+ ", " Z- "};
	for (int d = 0; d < 6; d++) {
		const char *other = dirs[(d + 2) % 6];
		char msg[32];
		strcpy(buf, good);
		for (char *p = buf; (p = strstr(p, dirs[d])); p++)
			memcpy(p, other, 4);
		assert_int_equal(clab_gemini_tilemap_parse(&m, buf, strlen(buf), "t", NULL), CLAB_E_MAP);
		snprintf(msg, sizeof msg, "has no%.3s tile", dirs[d]);
		if (!strstr(clab_errmsg(), msg))
			fail_msg("%s: \"%s\" lacks \"%s\"", dirs[d], clab_errmsg(), msg);
	}
	/* a NUL byte, a line too long */
	memcpy(buf, good, n);
	buf[5] = 0;
	assert_int_equal(clab_gemini_tilemap_parse(&m, buf, n, "t", NULL), CLAB_E_MAP);
	assert_non_null(strstr(clab_errmsg(), "line 1: a NUL byte"));
	memset(buf, 'c', 600);
	assert_int_equal(clab_gemini_tilemap_parse(&m, buf, 600, "t", NULL), CLAB_E_MAP);
	assert_non_null(strstr(clab_errmsg(), "line 1: line longer than 511"));
}

/* One 64-byte PUT from (0,0,0) node 0 to (1,0,0) node 0: the request (32
 * phits, VC0) enters router (0,0,0) by NIC 0's host tiles and router
 * (1,0,0) by its X- tiles; the ACK (3 phits, VC1) enters (1,0,0) by its
 * host tiles and (0,0,0) by its X+ tiles. Nothing else counts: the
 * sender's X+ tiles do not see the request leave. */
static void input_counting(void **state)
{
	(void)state;
	fixture *f = fx_new("4x4x4");
	uint32_t a = router(f, 0, 0, 0), b = router(f, 1, 0, 0);
	assert_int_equal(clab_gemini_message(f->g, rank_at(f, 0, 0, 0, 0), rank_at(f, 1, 0, 0, 0),
					     64, NULL, CLAB_GEM_PUT, 1), CLAB_OK);
	assert_int_equal(clab_gemini_phase_end(f->g, 1, NULL), CLAB_OK);
	assert_int_equal(tiles_sum(f, a, host0, CLAB_GEM_VC0_PHITS), 32);
	assert_int_equal(tiles_sum(f, a, host0, CLAB_GEM_VC0_PKTS), 1);
	assert_int_equal(tiles_sum(f, a, host1, CLAB_GEM_VC0_PKTS), 0);
	assert_int_equal(dir_sum(f, a, CLAB_GEM_XP, CLAB_GEM_VC0_PHITS), 0);
	assert_int_equal(dir_sum(f, a, CLAB_GEM_XP, CLAB_GEM_VC1_PHITS), 3);
	assert_int_equal(dir_sum(f, a, CLAB_GEM_XP, CLAB_GEM_VC1_PKTS), 1);
	assert_int_equal(dir_sum(f, b, CLAB_GEM_XM, CLAB_GEM_VC0_PHITS), 32);
	assert_int_equal(dir_sum(f, b, CLAB_GEM_XM, CLAB_GEM_VC1_PHITS), 0);
	assert_int_equal(dir_sum(f, b, CLAB_GEM_XP, CLAB_GEM_VC0_PHITS), 0);
	assert_int_equal(tiles_sum(f, b, host0, CLAB_GEM_VC1_PHITS), 3);
	/* the link metrics: traffic = 3 x phits */
	assert_int_equal(clab_gemini_link(f->g, b, CLAB_GEM_XM, CLAB_GEM_TRAFFIC), 96);
	assert_int_equal(clab_gemini_link(f->g, a, CLAB_GEM_XP, CLAB_GEM_TRAFFIC), 9);
	assert_int_equal(clab_gemini_link(f->g, a, CLAB_GEM_HOST, CLAB_GEM_PACKETS), 1);
	/* every tile of the other 62 routers is still zero */
	uint64_t rest = 0;
	for (uint32_t r = 0; r < f->t.nodes; r++)
		for (int t = 0; t < CLAB_GEMINI_TILES && r != a && r != b; t++)
			for (int c = 0; c < CLAB_GEM_TILE_CTRS; c++)
				rest += clab_gemini_tile(f->g, r, t, c);
	assert_int_equal(rest, 0);
	/* ranks of one node never reach the router; node 0 to node 1 of one
	 * router enters by NIC 0's host tiles only */
	assert_int_equal(clab_gemini_message(f->g, 0, 0, 4096, NULL, CLAB_GEM_PUT, 1), CLAB_OK);
	assert_int_equal(clab_gemini_message(f->g, rank_at(f, 2, 0, 0, 0), rank_at(f, 2, 0, 0, 1),
					     64, NULL, CLAB_GEM_PUT, 1), CLAB_OK);
	clab_gemini_phase_end(f->g, 1, NULL);
	uint32_t c = router(f, 2, 0, 0);
	assert_int_equal(tiles_sum(f, c, host0, CLAB_GEM_VC0_PHITS), 32);
	assert_int_equal(tiles_sum(f, c, host1, CLAB_GEM_VC1_PHITS), 3);
	assert_int_equal(tiles_sum(f, a, host0, CLAB_GEM_VC0_PHITS), 32);
	fx_free(f);
}

/* (0,0,0) to (1,1,0): the request goes X then Y, through (1,0,0); the ACK
 * from (1,1,0) goes X then Y too, through (0,1,0): different routers. */
static void request_response_paths(void **state)
{
	(void)state;
	fixture *f = fx_new("4x4x4");
	assert_int_equal(clab_gemini_message(f->g, rank_at(f, 0, 0, 0, 0), rank_at(f, 1, 1, 0, 0),
					     640, NULL, CLAB_GEM_PUT, 1), CLAB_OK);
	clab_gemini_phase_end(f->g, 1, NULL);
	uint32_t via_req = router(f, 1, 0, 0), via_ack = router(f, 0, 1, 0);
	/* 10 packets of 32 phits on the way there, 10 ACKs of 3 back */
	assert_int_equal(dir_sum(f, via_req, CLAB_GEM_XM, CLAB_GEM_VC0_PHITS), 320);
	assert_int_equal(dir_sum(f, router(f, 1, 1, 0), CLAB_GEM_YM, CLAB_GEM_VC0_PKTS), 10);
	assert_int_equal(dir_sum(f, via_req, CLAB_GEM_XM, CLAB_GEM_VC1_PKTS), 0);
	assert_int_equal(dir_sum(f, via_ack, CLAB_GEM_XP, CLAB_GEM_VC1_PHITS), 30);
	assert_int_equal(dir_sum(f, router(f, 0, 0, 0), CLAB_GEM_YP, CLAB_GEM_VC1_PKTS), 10);
	assert_int_equal(dir_sum(f, via_ack, CLAB_GEM_XP, CLAB_GEM_VC0_PKTS), 0);
	/* a direction's tiles share the packets in turns: 10 over 8 X- tiles */
	uint8_t xm[8];
	clab_gemini_tiles_of(&f->tm, CLAB_GEM_XM, xm);
	uint64_t lo = 99, hi = 0;
	for (int i = 0; i < 8; i++) {
		uint64_t p = clab_gemini_tile(f->g, via_req, xm[i], CLAB_GEM_VC0_PKTS);
		lo = p < lo ? p : lo;
		hi = p > hi ? p : hi;
	}
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 2);
	fx_free(f);
}

/* 64 KB = 1024 packets. PUT: 1024 x 32 phits on VC0 there, 1024 x 3 on
 * VC1 back. GET: 1024 x 8-phit requests on VC0 from the receiver, 1024 x
 * 27-phit replies on VC1 to it. MPI: PUT up to 8 KB, GET above. */
static void put_get_phits(void **state)
{
	(void)state;
	static const struct { int proto; uint64_t bytes, vc0_there, vc1_there, vc0_back, vc1_back; } c[] = {
		{CLAB_GEM_PUT, 65536, 1024 * 32, 0, 0, 1024 * 3},
		{CLAB_GEM_GET, 65536, 0, 1024 * 27, 1024 * 8, 0},
		/* MPI rendezvous by GET: the sender's 64-byte header (32 phits,
		 * ACKed), the GET, the receiver's header back (ACKed) */
		{CLAB_GEM_MPI, 65536, 32, 1024 * 27 + 3, 1024 * 8 + 32, 3},
		/* MPI eager: the 64-byte header and the data pushed, 129 packets */
		{CLAB_GEM_MPI, 8192, 129 * 32, 0, 0, 129 * 3},
		/* 8 bytes: a header packet and one of 8 bytes (3 payload phits) */
		{CLAB_GEM_MPI, 8, 32 + 13, 0, 0, 6},
		{CLAB_GEM_MPI, 0, 32, 0, 0, 3},
		/* 100 bytes: a full packet and one of 36 bytes (13 payload phits) */
		{CLAB_GEM_PUT, 100, 32 + 10 + 13, 0, 0, 6},
		{CLAB_GEM_GET, 0, 0, 5, 8, 0},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		fixture *f = fx_new("4x4x4");
		uint32_t a = router(f, 0, 0, 0), b = router(f, 1, 0, 0);
		assert_int_equal(clab_gemini_message(f->g, rank_at(f, 0, 0, 0, 0), rank_at(f, 1, 0, 0, 0),
						     c[i].bytes, NULL, c[i].proto, 1), CLAB_OK);
		clab_gemini_phase_end(f->g, 1, NULL);
		assert_int_equal(dir_sum(f, b, CLAB_GEM_XM, CLAB_GEM_VC0_PHITS), c[i].vc0_there);
		assert_int_equal(dir_sum(f, b, CLAB_GEM_XM, CLAB_GEM_VC1_PHITS), c[i].vc1_there);
		assert_int_equal(dir_sum(f, a, CLAB_GEM_XP, CLAB_GEM_VC0_PHITS), c[i].vc0_back);
		assert_int_equal(dir_sum(f, a, CLAB_GEM_XP, CLAB_GEM_VC1_PHITS), c[i].vc1_back);
		/* the NICs: PUT's initiator is the sender, GET's the receiver */
		int put = c[i].vc0_there > 0;
		if (c[i].proto == CLAB_GEM_MPI) {
			fx_free(f);
			continue;
		}
		uint64_t pk = c[i].bytes ? (c[i].bytes + 63) / 64 : 1, df = (c[i].bytes + 15) / 16;
		assert_int_equal(clab_gemini_nic(f->g, put ? a : b, 0, CLAB_GEM_ORB_VC0_PKTS), pk);
		assert_int_equal(clab_gemini_nic(f->g, put ? b : a, 0, CLAB_GEM_ORB_VC0_PKTS), 0);
		assert_int_equal(clab_gemini_nic(f->g, b, 0, CLAB_GEM_RAT_DATA_FLITS_VC0) +
				 clab_gemini_nic(f->g, b, 0, CLAB_GEM_ORB_VC1_FLITS) -
				 clab_gemini_nic(f->g, b, 0, CLAB_GEM_ORB_VC1_PKTS), df);
		assert_int_equal(clab_gemini_nic(f->g, put ? a : b, 0,
						 put ? CLAB_GEM_TARB_FMA_PKTS : CLAB_GEM_TARB_BTE_PKTS), pk);
		fx_free(f);
	}
}

/* Compression from the bytes: a zero (or all-ones) payload word takes 2
 * bytes, a random one its 8, behind a 1-byte mask. */
static void compression(void **state)
{
	(void)state;
	uint8_t z[64] = {0}, ones[64], rnd[64];
	memset(ones, 0xff, sizeof ones);
	srand(7);
	for (int i = 0; i < 64; i++)
		rnd[i] = (uint8_t)(rand() | 1); /* no word all 0 or all 1 */
	assert_int_equal(clab_gemini_payload_phits(z, 64), 6);     /* (1 + 16) / 3 */
	assert_int_equal(clab_gemini_payload_phits(ones, 64), 6);
	assert_int_equal(clab_gemini_payload_phits(rnd, 64), 22);  /* (1 + 64) / 3 */
	assert_int_equal(clab_gemini_payload_phits(NULL, 64), 22);
	assert_int_equal(clab_gemini_packet_phits(CLAB_GEM_PUT_REQ, z, 64), 16);
	assert_int_equal(clab_gemini_packet_phits(CLAB_GEM_PUT_REQ, rnd, 64), 32);
	assert_int_equal(clab_gemini_packet_phits(CLAB_GEM_GET_REPLY, rnd, 64), 27);
	/* half zero words: 1 + 4 x 2 + 4 x 8 = 41 bytes, 14 phits */
	uint8_t half[64];
	memcpy(half, rnd, 64);
	memset(half, 0, 32);
	assert_int_equal(clab_gemini_payload_phits(half, 64), 14);
	/* the Sonar test: 1 MB from one node to its neighbour, zero against
	 * random, both pushed (PUT) and pulled (GET, the MPI default) */
	size_t mb = 1 << 20;
	uint8_t *zero = calloc(1, mb), *random = malloc(mb);
	for (size_t i = 0; i < mb; i++)
		random[i] = (uint8_t)(rand() >> 3);
	for (int proto = CLAB_GEM_PUT; proto <= CLAB_GEM_GET; proto++) {
		uint64_t phits[2];
		for (int k = 0; k < 2; k++) {
			fixture *f = fx_new("4x4x4");
			clab_gemini_message(f->g, rank_at(f, 0, 0, 0, 0), rank_at(f, 1, 0, 0, 0), mb,
					    k ? random : zero, proto, 1);
			clab_gemini_phase_end(f->g, 1, NULL);
			phits[k] = clab_gemini_link(f->g, router(f, 1, 0, 0), CLAB_GEM_XM, CLAB_GEM_TRAFFIC) / 3;
			fx_free(f);
		}
		/* PUT: 16384 x 16 against 16384 x 32 (a random word is all 0 or
		 * all 1 about once in 2^63: none here) */
		if (proto == CLAB_GEM_PUT) {
			assert_int_equal(phits[0], 16384 * 16);
			assert_int_equal(phits[1], 16384 * 32);
		} else {
			assert_int_equal(phits[0], 16384 * 11);
			assert_int_equal(phits[1], 16384 * 27);
		}
	}
	free(zero);
	free(random);
}

/* The sonar test published in "Using the Cray Gemini Performance
 * Counters" (Pedretti et al., CUG 2013): one 1 MB MPI message from a node
 * to its neighbour, read at the sender's router: TX (packets and phits
 * entering from its NICs) 16407 packets, 524709 phits of random data and
 * 262565 of zeros; RX (from the network) 16407 packets, 49221 phits. The
 * model: rendezvous by PUT, the sender's 64-byte header (32 phits) before
 * the data and after each 512 KB chunk: 16384 + 3 PUTs, each ACKed by 3
 * phits; data packets of 32 phits (random) or 16 (zeros). Within 1% of
 * every published figure, and like the published counts nothing but ACKs
 * comes back (RX phits = 3 x RX packets). */
static void sonar(void **state)
{
	(void)state;
	size_t mb = 1 << 20;
	uint8_t *zero = calloc(1, mb), *random = malloc(mb);
	srand(11);
	for (size_t i = 0; i < mb; i++)
		random[i] = (uint8_t)(rand() | 1); /* no word all 0 or all 1 */
	static const double pub_tx_phits[2] = {262565, 524709};
	for (int k = 0; k < 2; k++) {
		fixture *f = fx_new("4x4x4");
		uint32_t a = router(f, 0, 0, 0);
		assert_int_equal(clab_gemini_message(f->g, rank_at(f, 0, 0, 0, 0), rank_at(f, 1, 0, 0, 0), mb,
						     k ? random : zero, CLAB_GEM_MPI, 1), CLAB_OK);
		clab_gemini_phase_end(f->g, 1, NULL);
		uint64_t txp = clab_gemini_link(f->g, a, CLAB_GEM_HOST, CLAB_GEM_PACKETS);
		uint64_t txf = clab_gemini_link(f->g, a, CLAB_GEM_HOST, CLAB_GEM_TRAFFIC) / 3;
		uint64_t rxp = clab_gemini_link(f->g, a, CLAB_GEM_NET, CLAB_GEM_PACKETS);
		uint64_t rxf = clab_gemini_link(f->g, a, CLAB_GEM_NET, CLAB_GEM_TRAFFIC) / 3;
		assert_int_equal(txp, 16387);
		assert_int_equal(txf, 16384 * (k ? 32 : 16) + 3 * 32);
		assert_int_equal(rxp, 16387);
		assert_int_equal(rxf, 3 * rxp);
		assert_true(fabs(txp / 16407.0 - 1) < 0.01);
		assert_true(fabs(txf / pub_tx_phits[k] - 1) < 0.01);
		assert_true(fabs(rxp / 16407.0 - 1) < 0.01);
		assert_true(fabs(rxf / 49221.0 - 1) < 0.01);
		fx_free(f);
	}
	/* CLAB_GEM_ZERO_DATA: zero-filled data of any length, as a buffer of zeros */
	fixture *f = fx_new("4x4x4");
	assert_int_equal(clab_gemini_message(f->g, rank_at(f, 0, 0, 0, 0), rank_at(f, 1, 0, 0, 0), mb,
					     CLAB_GEM_ZERO_DATA, CLAB_GEM_MPI, 1), CLAB_OK);
	clab_gemini_phase_end(f->g, 1, NULL);
	assert_int_equal(clab_gemini_link(f->g, router(f, 0, 0, 0), CLAB_GEM_HOST, CLAB_GEM_TRAFFIC) / 3,
			 16384 * 16 + 3 * 32);
	fx_free(f);
	free(zero);
	free(random);
}

/* Link types by the router's position: the router at (0,0,0) has the
 * Cielo map's (Y+ mezzanine, Y- cable at the wrap, Z+ backplane, Z- cable
 * at the wrap); at y = 1 Y+ is a cable to the next blade and Y- the
 * mezzanine; Z crosses chassis between z = 7 and 8. A message from y = 1
 * to y = 2 is held to the cable's 4 tiles (4.68 GB/s), and its NIC's host
 * tiles wait; one from y = 0 to y = 1 only by its NIC (5.32 GB/s). */
static void link_types(void **state)
{
	(void)state;
	fixture *f = fx_new("4x4x16");
	uint8_t tiles[CLAB_GEMINI_TILES];
	static const struct { int x, y, z, dir, type; } c[] = {
		{0, 0, 0, CLAB_GEM_YP, CLAB_GEM_MEZZANINE}, {0, 0, 0, CLAB_GEM_YM, CLAB_GEM_CABLE},
		{0, 0, 0, CLAB_GEM_ZP, CLAB_GEM_BACKPLANE}, {0, 0, 0, CLAB_GEM_ZM, CLAB_GEM_CABLE},
		{0, 1, 0, CLAB_GEM_YP, CLAB_GEM_CABLE}, {0, 1, 0, CLAB_GEM_YM, CLAB_GEM_MEZZANINE},
		{0, 2, 0, CLAB_GEM_YM, CLAB_GEM_CABLE}, {0, 3, 0, CLAB_GEM_YP, CLAB_GEM_CABLE},
		{0, 0, 3, CLAB_GEM_ZM, CLAB_GEM_BACKPLANE}, {0, 0, 7, CLAB_GEM_ZP, CLAB_GEM_CABLE},
		{0, 0, 8, CLAB_GEM_ZM, CLAB_GEM_CABLE}, {0, 0, 8, CLAB_GEM_ZP, CLAB_GEM_BACKPLANE},
		{0, 0, 15, CLAB_GEM_ZP, CLAB_GEM_CABLE}, {2, 1, 5, CLAB_GEM_XP, CLAB_GEM_CABLE},
		{3, 1, 5, CLAB_GEM_XP, CLAB_GEM_CABLE},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		int n = clab_gemini_tiles_of(&f->tm, c[i].dir, tiles);
		for (int j = 0; j < n; j++)
			assert_int_equal(clab_gemini_tile_type(f->g, router(f, c[i].x, c[i].y, c[i].z), tiles[j]),
					 c[i].type);
	}
	/* every tile of (0,0,0) as in the published map */
	for (int t = 0; t < CLAB_GEMINI_TILES; t++)
		assert_int_equal(clab_gemini_tile_type(f->g, router(f, 0, 0, 0), t), f->tm.type[t]);
	for (int y = 0; y < 2; y++) {
		double s;
		clab_gemini_message(f->g, rank_at(f, 0, y, 0, 0), rank_at(f, 0, y + 1, 0, 0), 1 << 20, NULL,
				    CLAB_GEM_PUT, 1);
		clab_gemini_phase_end(f->g, 1, &s);
		double bytes = 16384 * 96.0, want = bytes / (y ? 4 * 1.17e9 : 4 * 1.33e9);
		assert_float_equal(s, want, 1e-9);
		/* the NIC's stream narrows into the cable: its host tiles wait */
		uint64_t inq = clab_gemini_link(f->g, router(f, 0, y, 0), CLAB_GEM_HOST, CLAB_GEM_INQ_STALLS);
		assert_true(y ? inq > 0 : inq == 0);
	}
	fx_free(f);
}

/* Both nodes of every router send 64 KB to node 0 of both Y neighbours:
 * with the same cables and mezzanines both ways round, Y+ and Y- inputs
 * wait alike over the machine (one map for all routers would make Y-
 * always cable, Y+ always mezzanine, and their waits differ). */
static void y_symmetry(void **state)
{
	(void)state;
	fixture *f = fx_new("4x4x4");
	for (int x = 0; x < 4; x++)
		for (int y = 0; y < 4; y++)
			for (int z = 0; z < 4; z++)
				for (int k = 0; k < 4; k++) /* node k / 2 to y + 1 and y - 1 */
					clab_gemini_message(f->g, rank_at(f, x, y, z, k / 2),
							    rank_at(f, x, (y + 1 + 2 * (k % 2)) % 4, z, 0), 65536,
							    NULL, CLAB_GEM_PUT, 1);
	clab_gemini_phase_end(f->g, 1, NULL);
	uint64_t wait[2] = {0, 0};
	for (uint32_t r = 0; r < f->t.nodes; r++)
		for (int k = 0; k < 2; k++)
			wait[k] += clab_gemini_link(f->g, r, CLAB_GEM_YP + k, CLAB_GEM_INQ_STALLS);
	assert_true(wait[0] > 0);
	assert_int_equal(wait[0], wait[1]);
	fx_free(f);
}

/* Tile counters are 48 bits wide: they wrap, and deltas survive it. */
static void wrap48(void **state)
{
	(void)state;
	fixture *f = fx_new("4x4x4");
	uint32_t a = router(f, 0, 0, 0);
	uint64_t near = (1ull << 48) - 10;
	for (int i = 0; i < 4; i++)
		clab_gemini_tile_set(f->g, a, host0[i], CLAB_GEM_VC0_PHITS, near);
	assert_int_equal(clab_gemini_tile(f->g, a, 19, CLAB_GEM_VC0_PHITS), near);
	clab_gemini_message(f->g, rank_at(f, 0, 0, 0, 0), rank_at(f, 1, 0, 0, 0), 64, NULL,
			    CLAB_GEM_PUT, 1);
	clab_gemini_phase_end(f->g, 1, NULL);
	int wrapped = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t v = clab_gemini_tile(f->g, a, host0[i], CLAB_GEM_VC0_PHITS);
		if (v != near) {
			assert_int_equal(v, 22); /* 2^48 - 10 + 32 */
			assert_int_equal(clab_gemini_delta(v, near), 32);
			wrapped++;
		}
	}
	assert_int_equal(wrapped, 1);
	clab_gemini_tile_set(f->g, a, 0, 0, ~0ull);
	assert_int_equal(clab_gemini_tile(f->g, a, 0, 0), (1ull << 48) - 1);
	fx_free(f);
}

/* Both nodes of (0,0,0) send 1 MB to node 0 of (1,0,0) at once: 2 x 5.32
 * GB/s of NIC injection into one 9.36 GB/s X+ link, and 9.36 GB/s of X-
 * input into a 5.32 GB/s NIC. The host tiles of (0,0,0) and the X- tiles
 * of (1,0,0) wait in their input queues; the X+ tiles of (0,0,0) wait for
 * credits as long as the X- tiles of (1,0,0) wait. One sender alone:
 * nobody waits (each stage no faster than its source). */
static void stalls(void **state)
{
	(void)state;
	for (int senders = 1; senders <= 2; senders++) {
		fixture *f = fx_new("4x4x4");
		uint32_t a = router(f, 0, 0, 0), b = router(f, 1, 0, 0);
		for (int n = 0; n < senders; n++)
			clab_gemini_message(f->g, rank_at(f, 0, 0, 0, n), rank_at(f, 1, 0, 0, 0),
					    1 << 20, NULL, CLAB_GEM_PUT, 1);
		double s;
		clab_gemini_phase_end(f->g, 1, &s);
		uint64_t inq_a = clab_gemini_link(f->g, a, CLAB_GEM_HOST, CLAB_GEM_INQ_STALLS);
		uint64_t inq_b = clab_gemini_link(f->g, b, CLAB_GEM_XM, CLAB_GEM_INQ_STALLS);
		uint64_t cred_a = clab_gemini_link(f->g, a, CLAB_GEM_XP, CLAB_GEM_CREDIT_STALLS);
		/* the busiest port: node 0's NIC of b takes 2 x 16384 x 96 bytes */
		assert_float_equal(s, senders * 16384 * 96 / 5.32e9 + (senders == 1 ? 0 : 16384 * 9 / 5.32e9 * 0), 1e-6);
		if (senders == 1) {
			assert_int_equal(inq_a + inq_b + cred_a, 0);
		} else {
			assert_true(inq_a > 0);
			assert_true(inq_b > 0);
			assert_int_equal(cred_a, inq_b);
			/* b's X- input: 3.15 MB over max(3.15 MB / 9.36, 3.15 MB / 5.32
			 * (each source's pace)) = 0.591 ms; its NIC 0 output drains
			 * it in 3.15 MB / 5.32 GB/s = 0.591 ms for each sender's
			 * share... all of it waits (busy_out - busy_in) at 800 MHz */
			double in_b = 2.0 * 16384 * 96, pace = (16384 * 96 + 16384 * 3) / 5.32e9;
			double out_b = in_b / 5.32e9, wait = out_b - (in_b / 9.36e9 > pace ? in_b / 9.36e9 : pace);
			assert_true(llabs((long long)inq_b - (long long)(wait * 800e6)) <= 16);
		}
		fx_free(f);
	}
}

/* The gemini-nw unit through the framework: tile events by tile or
 * row/col, link metrics, NIC counters, wrap-safe reads. */
static void unit_reads(void **state)
{
	(void)state;
	clab_machine *m = open_machine("gemini:torus=4x4x4,ppn=2,clock=virtual");
	clab_component *c = clab_machine_component(m, "network");
	assert_non_null(c);
	clab_thread *t = attach_hw(m, 0);
	clab_evset *s = NULL;
	static const char *const names[] = {
		"TILE_VC0_PHITS:tile=19", "TILE_VC0_PHITS:row=2:col=4", "TILE_VC0_PHITS",
		"LINK_XP_TRAFFIC", "LINK_HOST_PACKETS", "GM_ORB_PERF_VC0_PKTS", "TILE_VC1_PKTS",
	};
	assert_int_equal(program(c, t, &s, names, 7), CLAB_OK);
	/* single tile counters only: the unit reads just those registers */
	clab_evset *one = NULL;
	static const char *const single[] = {"TILE_VC0_PHITS:tile=19", "TILE_VC0_PHITS:row=2:col=4",
					     "TILE_VC0_PKTS:tile=19"};
	assert_int_equal(program(c, t, &one, single, 3), CLAB_OK);
	int rc;
	clab_gemini_net *gn = clab_machine_gemini(m, &rc);
	assert_non_null(gn);
	assert_int_equal(gn->router, 0);
	/* tile 19's VC0 phit counter just below the wrap */
	clab_gemini_tile_set(gn->g, 0, 19, CLAB_GEM_VC0_PHITS, (1ull << 48) - 5);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	assert_int_equal(clab_evset_start(one), CLAB_OK);
	/* rank 0 (router 0, node 0) sends 640 bytes to rank 2 (router (0,0,1)):
	 * 10 PUT packets over NIC 0's 4 host tiles (3, 3, 2, 2), ACKs back
	 * by Z+ */
	assert_int_equal(clab_gemini_message(gn->g, 0, 2, 640, NULL, CLAB_GEM_PUT, 1), CLAB_OK);
	clab_gemini_phase_end(gn->g, 1, NULL);
	int64_t v[7];
	assert_int_equal(clab_evset_read(s, v), CLAB_OK);
	uint64_t t19 = clab_gemini_delta(clab_gemini_tile(gn->g, 0, 19, 0), (1ull << 48) - 5);
	assert_true(t19 == 64 || t19 == 96);
	assert_int_equal(v[0], t19);
	assert_int_equal(v[1], clab_gemini_tile(gn->g, 0, 20, 0)); /* row 2 col 4 = tile 20 */
	assert_int_equal(v[2], 320);
	assert_int_equal(v[3], 0);
	assert_int_equal(v[4], 10);
	assert_int_equal(v[5], 10);
	assert_int_equal(v[6], 10);
	int64_t w[3];
	assert_int_equal(clab_evset_read(one, w), CLAB_OK);
	assert_int_equal(w[0], v[0]); /* across the wrap */
	assert_int_equal(w[1], v[1]);
	assert_int_equal(w[2], clab_gemini_tile(gn->g, 0, 19, CLAB_GEM_VC0_PKTS));
	assert_true(w[2] == 2 || w[2] == 3); /* host tile 19's share of the 10 packets */
	assert_int_equal(clab_evset_stop(one, w), CLAB_OK);
	clab_evset_destroy(one);
	/* a row or a column alone: the sum over its tiles (as a walk of the
	 * qualifiers offers them one at a time) */
	clab_evset *lines = NULL;
	static const char *const line_names[] = {"TILE_VC0_PKTS:row=2", "TILE_VC0_PKTS:col=3",
						 "TILE_VC0_PKTS:row=0", "TILE_VC0_PKTS"};
	assert_int_equal(program(c, t, &lines, line_names, 4), CLAB_OK);
	uint64_t was[CLAB_GEMINI_TILES];
	for (int k = 0; k < CLAB_GEMINI_TILES; k++)
		was[k] = clab_gemini_tile(gn->g, 0, k, CLAB_GEM_VC0_PKTS);
	assert_int_equal(clab_evset_start(lines), CLAB_OK);
	assert_int_equal(clab_gemini_message(gn->g, 0, 2, 640, NULL, CLAB_GEM_PUT, 1), CLAB_OK);
	clab_gemini_phase_end(gn->g, 1, NULL);
	int64_t l[4], want[4] = {0, 0, 0, 0};
	assert_int_equal(clab_evset_stop(lines, l), CLAB_OK);
	for (int k = 0; k < CLAB_GEMINI_TILES; k++) {
		int64_t d = (int64_t)(clab_gemini_tile(gn->g, 0, k, CLAB_GEM_VC0_PKTS) - was[k]);
		want[0] += k / CLAB_GEMINI_COLS == 2 ? d : 0;
		want[1] += k % CLAB_GEMINI_COLS == 3 ? d : 0;
		want[2] += k / CLAB_GEMINI_COLS == 0 ? d : 0;
		want[3] += d;
	}
	for (int k = 0; k < 4; k++)
		assert_int_equal(l[k], want[k]);
	assert_int_equal(l[3], 10);
	assert_true(l[0] > 0 && l[0] < 10); /* tile 19, of row 2, carries some */
	clab_evset_destroy(lines);
	/* a bad qualifier mix is refused with a reason */
	clab_evset *s2 = NULL;
	static const char *const bad[] = {"TILE_VC0_PHITS:tile=3:row=1:col=1"};
	assert_int_equal(program(c, t, &s2, bad, 1), CLAB_E_QUALIFIER);
	assert_non_null(strstr(clab_errmsg(), "not both"));
	clab_evset_destroy(s2);
	clab_evset_destroy(s);
	clab_machine_close(m);
}

/* Traffic patterns of the torus model reach the tiles (clab_sim_traffic). */
static void sim_traffic(void **state)
{
	(void)state;
	clab_machine *m = open_machine("gemini:torus=2x2x2,ppn=2,clock=virtual");
	clab_component *c = clab_machine_component(m, "network");
	clab_thread *t = attach_hw(m, 0);
	clab_evset *s = NULL;
	static const char *const names[] = {"LINK_HOST_PACKETS", "GM_ORB_PERF_VC0_PKTS"};
	assert_int_equal(program(c, t, &s, names, 2), CLAB_OK);
	assert_int_equal(clab_evset_start(s), CLAB_OK);
	double secs = 0;
	/* pingpong between ranks 0 and 1 (the two nodes of router 0): 64 KB
	 * by GET each way: per message the sender's header and its ACK, 1024
	 * requests and 1024 replies, the receiver's header and its ACK, all on
	 * router 0's host tiles (2 x 2052); rank 0's node initiates its header
	 * of the first, the GET and the closing header of the second (1026) */
	assert_int_equal(clab_thread_traffic(t, "pingpong:bytes=65536", &secs), CLAB_OK);
	int64_t v[2];
	assert_int_equal(clab_evset_read(s, v), CLAB_OK);
	assert_int_equal(v[0], 4104);
	assert_int_equal(v[1], 1026);
	assert_true(secs > 0);
	clab_evset_destroy(s);
	clab_machine_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cielo_map),
		cmocka_unit_test(rtr_maps),
		cmocka_unit_test(rtr_errors),
		cmocka_unit_test(input_counting),
		cmocka_unit_test(request_response_paths),
		cmocka_unit_test(put_get_phits),
		cmocka_unit_test(compression),
		cmocka_unit_test(sonar),
		cmocka_unit_test(link_types),
		cmocka_unit_test(y_symmetry),
		cmocka_unit_test(wrap48),
		cmocka_unit_test(stalls),
		cmocka_unit_test(unit_reads),
		cmocka_unit_test(sim_traffic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
