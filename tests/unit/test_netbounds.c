/* Bounds of what the torus model reports: every netsim pattern on every
 * machine (bgq, bgl, torus, gemini) under every routing, with both
 * engines, leaves every counter the model and the machines' network
 * events report, and every sum counterlab-netsim prints, below 2^62, and
 * no link waiting without a token (no Gemini tile stalled) longer than
 * its phase lasted; the network units read through the framework stay
 * within the same bounds. A negative time cast to a counter shows up as
 * a count near 2^64; waiting counted past its phase's end as more cycles
 * than the phase has. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "counterlab/torus.h"
#include "counterlab/gemini.h"

#define LIMIT (1ull << 62)
#define ALLVC 0x7fu

/* One pattern of each kind, sized for 2^(2k) ranks (a square number, as
 * BT needs, and a power of two with an even exponent, as CG, MG and
 * perm:transpose do). %d: the incast senders the torus has room for;
 * %s: the permutation file. */
static const char *const specs[] = {
	"pingpong:bytes=64k,iters=3",
	"oneway:bytes=1M,iters=2",
	"alltoall:bytes=2k",
	"alltoall:bytes=4k,group=8,stride=2,iters=2",
	"fft3d:n=64",
	"halo3d:n=16",
	"halo3d:n=16,stencil=27,periodic=1,steps=5",
	"bcast:bytes=64k",
	"incast:senders=1..%d",
	"incast:senders=1..%d,send=1",
	"perm:bitcomp,bytes=64k",
	"perm:transpose,bytes=64k",
	"perm:shuffle,bytes=64k",
	"perm:tornado,bytes=64k",
	"perm:neighbor,bytes=64k",
	"perm:shift,k=3,bytes=64k",
	"perm:random,seed=2,bytes=64k",
	"perm:file=%s,bytes=16k",
	"uniform:bytes=2k,msgs=8",
	"bt:class=A",
	"cg:class=A",
	"mg:class=A",
};
#define NSPECS (int)(sizeof specs / sizeof *specs)

/* Every pattern clab_net_pattern_help lists has a spec above: a new
 * pattern cannot go untested here. */
static void test_every_pattern(void **state)
{
	(void)state;
	char *h = strdup(clab_net_pattern_help()), *save = NULL;
	assert_non_null(h);
	int patterns = 0;
	for (char *line = strtok_r(h, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[32], keys[8];
		if (sscanf(line, "  %31s %7s", name, keys) != 2 || strcmp(keys, "keys:"))
			continue;
		patterns++;
		size_t len = strlen(name);
		int found = 0;
		for (int i = 0; i < NSPECS && !found; i++)
			found = !strncmp(specs[i], name, len) && specs[i][len] == ':';
		if (!found)
			fail_msg("pattern %s has no spec in test_netbounds.c", name);
	}
	free(h);
	assert_true(patterns >= 11);
}

typedef struct machine {
	const char *name, *shape;
	int ppn;
} machine;

/* How many of node 0's links, in order, reach distinct other nodes
 * (the incast senders its pattern can take, at most 6). */
static int incast_room(const clab_torus *t)
{
	int k = 0;
	uint32_t nb[2 * CLAB_TORUS_MAXD];
	for (; k < 2 * t->ndims && k < 6; k++) {
		uint32_t y = clab_torus_neighbor(t, 0, k);
		int dup = y == 0;
		for (int j = 0; j < k; j++)
			dup |= nb[j] == y;
		if (dup)
			break;
		nb[k] = y;
	}
	return k;
}

/* A permutation of P ranks (P a power of two): r -> 5r + 3 mod P. */
static void write_perm(char *path, uint32_t P)
{
	strcpy(path, "/tmp/clab_netbounds.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	for (uint32_t r = 0; r < P; r++)
		fprintf(f, "%u\n", (5 * r + 3) & (P - 1));
	fclose(f);
}

/* Values out of bounds: all are counted, the first of each run is
 * shown, and the test fails at the end of its sweep (a defect shows in
 * how many runs it reaches). */
static int bad, bad_runs, shown;

static void oob(const char *run, const char *fmt, ...)
{
	bad++;
	if (shown++)
		return;
	bad_runs++;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	print_message("out of bounds: %s: %s\n", run, msg);
}

static void below(uint64_t v, const char *what, const char *run, uint32_t x, int l)
{
	if (v >= LIMIT)
		oob(run, "%s of node %u link %d is %llu (>= 2^62: wrapped)", what, x, l,
		    (unsigned long long)v);
}

/* a + b, out of bounds past 2^62 (as netsim's totals over nodes) */
static uint64_t add(uint64_t a, uint64_t b, const char *what, const char *run)
{
	if (a >= LIMIT || b >= LIMIT || a + b >= LIMIT) {
		oob(run, "the sum of %s over nodes passes 2^62", what);
		return 0;
	}
	return a + b;
}

static const char *const ctr_name[] = {
	"sent chunks", "sent packets", "received chunks", "received packets", "receive FIFO",
	"no-token cycles", "network cycles", "MU packets injected", "MU messages injected",
	"MU packets received", "on-node packets",
};
_Static_assert(sizeof ctr_name / sizeof *ctr_name == CLAB_NET_LOCAL_PACKETS + 1,
	       "a name for every counter of enum clab_netctr");

/* Everything the model and netsim report after one run, within bounds. */
static void check(const clab_net *n, const clab_gemini *g, const char *run)
{
	const clab_torus *t = clab_net_torus(n);
	const clab_netspec *s = t->spec;
	uint64_t cycles = clab_net_count(n, 0, 0, CLAB_NET_CYCLES, 0);
	below(cycles, "network cycles", run, 0, 0);
	/* the counters per node, link and VC, and per node over all links */
	for (uint32_t x = 0; x < t->nodes; x++)
		for (int l = -1; l < t->nlinks; l++)
			for (int w = CLAB_NET_SENT_CHUNKS; w <= CLAB_NET_LOCAL_PACKETS; w++) {
				if (w == CLAB_NET_CYCLES)
					continue;
				for (int vc = 0; vc <= CLAB_NVC; vc++) {
					unsigned mask = vc < CLAB_NVC ? CLAB_VC_BIT(vc) : ALLVC;
					uint64_t v = clab_net_count(n, x, l, (enum clab_netctr)w, mask);
					below(v, ctr_name[w], run, x, l);
				}
			}
	/* the machine's network events (netsim's table), their sums over
	 * nodes; a no-token event is one link's */
	int nev = 0;
	const clab_netevent *ev = clab_netevents(s->name, &nev);
	for (int e = 0; e < nev; e++) {
		uint64_t total = 0;
		for (uint32_t x = 0; x < t->nodes; x++) {
			uint64_t v = clab_netevent_count(n, &ev[e], x);
			below(v, ev[e].name, run, x, ev[e].link);
			if (ev[e].what == CLAB_NET_NO_TOKEN && ev[e].link >= 0 && v > cycles)
				oob(run, "%s of node %u: %llu in a run of %llu cycles", ev[e].name, x,
				    (unsigned long long)v, (unsigned long long)cycles);
			total = add(total, v, ev[e].name, run);
		}
	}
	/* the time table: each step's no-token cycles (all links of all
	 * nodes) at most its links times its cycles; the whole run's sum */
	int nrec;
	const clab_net_record *rec = clab_net_records(n, &nrec);
	uint64_t all = 0;
	double links = (double)t->nodes * 2 * t->ndims;
	for (int i = 0; i < nrec; i++) {
		double most = links * (rec[i].t.total * s->net_hz + (double)rec[i].phases);
		if (rec[i].no_token >= LIMIT || (double)rec[i].no_token > most)
			oob(run, "step \"%s\": %llu no-token cycles, at most %.0f (%g s on %.0f links)",
			    rec[i].label, (unsigned long long)rec[i].no_token, most, rec[i].t.total, links);
		all = add(all, rec[i].no_token, "no-token cycles", run);
		below(rec[i].phases, "phases", run, 0, -1);
	}
	below(clab_net_phases(n), "phases", run, 0, -1);
	below(clab_net_local_bytes(n), "on-node bytes", run, 0, -1);
	if (!g)
		return;
	/* Gemini: the tiles (48-bit) and the per-router events netsim prints */
	for (uint32_t r = 0; r < t->nodes; r++)
		for (int tile = 0; tile < CLAB_GEMINI_TILES; tile++)
			for (int c = 0; c < CLAB_GEM_TILE_CTRS; c++)
				below(clab_gemini_tile(g, r, tile, c), "a tile counter", run, r, tile);
	for (int e = 0; e < CLAB_GEM_NEVENTS; e++) {
		uint64_t total = 0;
		const char *name = clab_gemini_event(e, NULL);
		for (uint32_t r = 0; r < t->nodes; r++) {
			uint64_t v = clab_gemini_event_count(g, r, -1, e);
			below(v, name, run, r, -1);
			total = add(total, v, name, run);
		}
	}
}

/* Each phase, per link and per tile: the no-token and stall cycles the
 * phase added, at most the cycles it lasted. clab_net calls phase_end as
 * a phase ends, before adding its counts: what changed since the last
 * call is the phase before (repeated as often as it was), the last phase
 * is compared after the run. Gemini's tiles see the messages as netsim's
 * (clab_gemini_observe) do. */
typedef struct watch {
	clab_net *n;
	clab_gemini *g;
	const char *run;
	uint64_t cycles, *nt, *stall; /* at the last look: per node link, per router tile */
	double time;
} watch;

static void look(watch *w)
{
	const clab_torus *t = clab_net_torus(w->n);
	uint64_t cycles = clab_net_count(w->n, 0, 0, CLAB_NET_CYCLES, 0), dc = cycles - w->cycles;
	double time = clab_net_time(w->n), gc = (time - w->time) * CLAB_GEMINI_HZ;
	for (uint32_t x = 0; x < t->nodes; x++) {
		for (int l = 0; l < t->nlinks; l++) {
			uint64_t v = clab_net_count(w->n, x, l, CLAB_NET_NO_TOKEN, 0), *was = &w->nt[x * t->nlinks + l];
			if (v - *was > dc)
				oob(w->run, "node %u link %d: %llu no-token cycles in a phase of %llu cycles", x, l,
				    (unsigned long long)(v - *was), (unsigned long long)dc);
			*was = v;
		}
		for (int k = 0; w->g && k < 2 * CLAB_GEMINI_TILES; k++) {
			uint64_t v = clab_gemini_tile(w->g, x, k / 2, k & 1 ? CLAB_GEM_CREDIT_STALL : CLAB_GEM_INQ_STALL);
			uint64_t *was = &w->stall[x * 2 * CLAB_GEMINI_TILES + k], d = clab_gemini_delta(v, *was);
			if ((double)d > gc + 1)
				oob(w->run, "router %u tile %d: %llu stall cycles in a phase of %.0f", x, k / 2,
				    (unsigned long long)d, gc);
			*was = v;
		}
	}
	w->cycles = cycles;
	w->time = time;
}

static void watch_message(void *arg, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t count)
{
	watch *w = arg;
	if (w->g)
		clab_gemini_message(w->g, src, dst, bytes, NULL, CLAB_GEM_MPI, count);
}

static void watch_phase(void *arg, uint64_t times)
{
	watch *w = arg;
	look(w);
	if (w->g)
		clab_gemini_phase_end(w->g, times, NULL);
}

/* Every pattern under every routing with one engine on machine m. */
static void sweep(const machine *m, enum clab_net_engine engine)
{
	static const enum clab_net_routing routing[] = {
		CLAB_ROUTE_MPI, CLAB_ROUTE_DETERMINISTIC, CLAB_ROUTE_ADAPTIVE,
	};
	static const char *const rname[] = {"mpi", "deterministic", "adaptive"};
	int gem = !strcmp(m->name, "gemini");
	clab_torus t;
	clab_map map;
	/* Gemini routes X, Y, Z, as netsim sets it */
	if (clab_torus_init(&t, clab_netspec_find(m->name), m->shape, m->ppn, gem ? "XYZ" : NULL) ||
	    clab_map_init(&map, &t, NULL))
		fail_msg("%s %s: %s", m->name, m->shape, clab_errmsg());
	char file[64];
	write_perm(file, map.nranks);
	for (int i = 0; i < NSPECS; i++)
		for (int r = 0; r < 3; r++) {
			char spec[128], run[256];
			if (strstr(specs[i], "%d"))
				snprintf(spec, sizeof spec, specs[i], incast_room(&t));
			else
				snprintf(spec, sizeof spec, specs[i], file);
			snprintf(run, sizeof run, "%s %s ppn %d, %s engine, %s routing, %s", m->name,
				 m->shape, m->ppn, engine == CLAB_NET_FLOW ? "flow" : "packet", rname[r], spec);
			int err;
			clab_net *n = clab_net_new(&t, &map, &err);
			assert_non_null(n);
			assert_int_equal(clab_net_configure(n, engine, routing[r], 1), CLAB_OK);
			watch w = {n, NULL, run, 0, calloc((size_t)t.nodes * t.nlinks, sizeof *w.nt),
				   calloc((size_t)t.nodes * 2 * CLAB_GEMINI_TILES, sizeof *w.stall), 0};
			assert_true(w.nt && w.stall);
			if (gem) {
				clab_gemini_tilemap tm;
				clab_gemini_tilemap_cielo(&tm);
				assert_non_null(w.g = clab_gemini_new(&t, &map, &tm, &err));
			}
			clab_net_observe(n, watch_message, watch_phase, &w);
			shown = 0;
			if (clab_net_pattern(n, spec))
				fail_msg("%s: %s", run, clab_errmsg());
			look(&w);
			check(n, w.g, run);
			clab_gemini_free(w.g);
			clab_net_free(n);
			free(w.nt);
			free(w.stall);
		}
	unlink(file);
	clab_map_free(&map);
}

/* Each machine of m[0..k) with one engine; the test fails after all ran. */
static void sweep_all(const machine *m, size_t k, enum clab_net_engine engine)
{
	bad = bad_runs = 0;
	for (size_t i = 0; i < k; i++)
		sweep(&m[i], engine);
	if (bad)
		fail_msg("%d values out of bounds in %d runs", bad, bad_runs);
}

/* The flow engine on 256 ranks of each machine (its dynamic routes once
 * counted more bytes on a link than the phase's time let it carry, and
 * the difference came out as no-token cycles near 2^64). */
static void test_flow(void **state)
{
	(void)state;
	static const machine m[] = {
		{"bgq", "4x4x2x2x2", 2}, {"bgl", "8x8x4", 1}, {"torus", "8x8x4", 1}, {"gemini", "4x4x4", 4},
	};
	sweep_all(m, sizeof m / sizeof *m, CLAB_NET_FLOW);
}

/* The packet engine on 16 ranks of each (rings of 4 and less). */
static void test_packet(void **state)
{
	(void)state;
	static const machine m[] = {
		{"bgq", "4x2x1x1x2", 1}, {"bgl", "4x2x2", 1}, {"torus", "4x2x2", 1}, {"gemini", "4x2x1", 2},
	};
	sweep_all(m, sizeof m / sizeof *m, CLAB_NET_PACKET);
}

/* The machines' network units (BG/Q, BG/L, Gemini) read through the
 * framework after NAS CG's traffic: every event, as many to a set as the
 * unit takes, reads a count in 0..2^62; BG/L's no-token events (one link
 * each) at most the traffic's network cycles. */
static void test_units(void **state)
{
	(void)state;
	static const struct { const char *spec; double net_hz; } u[] = {
		{"bgq:torus=2x2x2x2x2,ppn=2,clock=virtual", 500e6},
		{"bgl:torus=8x4x4", 700e6},
		{"gemini:torus=2x2x2,ppn=2,clock=virtual", 800e6},
	};
	for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
		clab_machine *m = open_machine(u[i].spec);
		clab_component *c = clab_machine_component(m, "network");
		assert_non_null(c);
		clab_thread *t = attach_hw(m, 0);
		clab_component_info info;
		clab_component_get_info(c, &info);
		uint32_t code = 0;
		while (code < (uint32_t)info.nnative) {
			clab_evset *s = NULL;
			assert_int_equal(clab_evset_create(c, t, &s), CLAB_OK);
			uint32_t first = code;
			while (code < (uint32_t)info.nnative && clab_evset_add(s, code) == CLAB_OK)
				code++;
			assert_true(code > first);
			int64_t v[CLAB_EVSET_MAX_EVENTS];
			double secs;
			assert_int_equal(clab_evset_start(s), CLAB_OK);
			if (clab_thread_traffic(t, "cg:class=A", &secs))
				fail_msg("%s: %s", u[i].spec, clab_errmsg());
			assert_int_equal(clab_evset_stop(s, v), CLAB_OK);
			for (uint32_t k = first; k < code; k++) {
				clab_event_info e;
				assert_int_equal(clab_event_get_info(c, k, &e), CLAB_OK);
				int64_t x = v[k - first];
				if (x < 0 || (uint64_t)x >= LIMIT ||
				    (strstr(e.name, "LINK_AVAIL_NO_") && (double)x > secs * u[i].net_hz + 1))
					fail_msg("%s: %s reads %lld after %g s of traffic", u[i].spec, e.name,
						 (long long)x, secs);
			}
			clab_evset_destroy(s);
		}
		clab_machine_close(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_pattern),
		cmocka_unit_test(test_flow),
		cmocka_unit_test(test_packet),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
