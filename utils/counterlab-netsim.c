/* counterlab-netsim: runs a traffic pattern over a whole Blue Gene torus
 * and prints the network counters every node would have shown, and the
 * modelled time. See --help. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include "counterlab/backend.h"
#include "counterlab/torus.h"
#include "counterlab/gemini.h"
#include "heatmap.h"

#define MAX_PATTERNS 16
#define MAX_SETS 32

enum format { TABLE, CSV, JSON };

typedef struct opts {
	const char *machine, *torus, *map, *order, *heatmap, *heat_event, *counters;
	const char *tilemap, *gemini;
	const char *payload; /* gemini: the messages' data, random or zero */
	long tiles;
	const char *pattern[MAX_PATTERNS];
	const char *set[MAX_SETS];
	const char *heat_with[CLAB_HEATMAP_MAX_PANELS - 1];
	int npattern, nset, nwith, ppn, per_node, quiet, list_params, heat_range;
	long ranks;
	double heat_lo, heat_hi;
	enum clab_net_engine engine;
	enum clab_net_routing routing;
	unsigned long long seed;
	enum format format;
	double load[64];         /* --open-loop */
	int nload, window_given;
	unsigned long long warmup, measure, period;
} opts;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: counterlab-netsim [options] --pattern NAME[:key=value,...] ...\n"
		"Runs traffic over a simulated torus and prints the network counters of\n"
		"every node (summed over its torus links) and the modelled time.\n\n"
		"  --machine bgq|bgl|torus|gemini  the machine (default bgq); torus: a generic\n"
		"                        k-ary n-cube of any shape, BG/Q-like links and\n"
		"                        packets (--set link_bytes_s=, header=, chunk=, ...);\n"
		"                        gemini: Cray XE6 routers XYZ (a node of the torus is\n"
		"                        a router with 2 nodes), counted per router tile\n"
		"  --tilemap FILE        gemini: which tile serves which direction, from an\n"
		"                        `rtr --interconnect` dump (default the Cielo map)\n"
		"  --gemini CNAME        gemini: the router of the dump to read (default first)\n"
		"  --tiles ROUTER        gemini: also the 48 tiles x 6 counters of a router\n"
		"  --payload random|zero gemini: the messages' data: incompressible (default)\n"
		"                        or zero-filled, which Gemini compresses on the wire\n"
		"  --torus AxBxCxDxE     torus shape; a size with a trailing m is a mesh\n"
		"                        dimension (default bgq 4x4x4x4x2, bgl 8x4x4,\n"
		"                        torus 8x8x8; torus takes 1..6 dimensions A, B, ...)\n"
		"  --ppn N               ranks per node (default bgq 16, bgl 1)\n"
		"  --map PERM|FILE       rank map: a permutation of the machine's letters,\n"
		"                        ABCDET (bgq), XYZT (bgl, gemini) or AB..T (torus),\n"
		"                        rightmost letter fastest but on bgl (leftmost, so\n"
		"                        XYZT puts rank 1 at (1,0,0)), or a map file of lines\n"
		"                        \"a b c d e t\" (default ABCDET / XYZT)\n"
		"  --ranks N             use only ranks 0..N-1 of the map (fewer ranks than slots)\n"
		"  --order LETTERS       deterministic routing order (default longest first)\n"
		"  --engine flow|packet  flow (default): link loads priced in one step;\n"
		"                        packet: every packet simulated through VC buffers\n"
		"                        with tokens (slower, sees contention and waiting)\n"
		"  --routing mpi|deterministic|adaptive  which messages route adaptively\n"
		"                        (default mpi: large multi-dimension ones)\n"
		"  --seed N              packet engine: seed of adaptive routing's ties (1)\n"
		"  --set KEY=VALUE       change a parameter of the machine's network profile\n"
		"                        (repeatable; see --list-params)\n"
		"  --list-params         the machine's network parameters and their values\n"
		"  --pattern SPEC        traffic; repeat for phases in sequence\n"
		"  --open-loop L1,L2,... packet engine, one pattern: each sender makes\n"
		"                        packets at random (load: chunks per chunk time, 1 a\n"
		"                        link's worth) to destinations drawn by the pattern's\n"
		"                        bytes; prints accepted load, mean and 99th-percentile\n"
		"                        latency per load, and where it saturates\n"
		"  --open-loop-window W,M  chunk times of warm-up and measurement (1000,10000)\n"
		"  --open-loop-period P  instead, BookSim2's steady state: sample periods of P\n"
		"                        chunk times, 3 of warm-up, a window until latency\n"
		"                        and throughput settle (at most 10 in all), a drain;\n"
		"                        saturated: given up as unstable (mean latency with\n"
		"                        the packets in flight over 500 chunk times)\n"
		"  --format table|csv|json   output (default table)\n"
		"  --per-node            one row (or JSON object) per node\n"
		"  --counters A,B,...    events in per-node tables (default the main ones)\n"
		"  --heatmap FILE.png    picture of one counter per node by torus coordinates\n"
		"  --heatmap-event NAME  its counter (default the first main event)\n"
		"  --heatmap-range LO:HI fixed colour scale, so that heat maps compare\n"
		"  --heatmap-with [LABEL=]FILE.csv  beside this run's map, on one scale, the\n"
		"                        same counter from another run's --per-node --format\n"
		"                        csv output (repeatable, up to 3; LABEL: the file's)\n"
		"  --list-events         the machine's network events\n"
		"  --quiet               no progress bar\n"
		"  -h, --help            this text\n\n"
		"Output: the counters, and the modelled time of every labelled step and of\n"
		"the whole run, split into network (bytes over links and node drain, per-\n"
		"message overheads, latency), on-node (copies between ranks of a node) and\n"
		"compute (the pattern's FLOPs and memory traffic) - docs/torus.md,\n"
		"\"Time\".\n\n"
		"Patterns:\n%s", clab_net_pattern_help());
}

static int die(const char *what)
{
	fprintf(stderr, "counterlab-netsim: %s%s%s\n", what, *clab_errmsg() ? ": " : "",
		clab_errmsg());
	return 2;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The progress bar: shown once a run has taken a second. */
typedef struct progress {
	double start, last;
	const char *pattern;
	int shown, quiet;
} progress;

static void progress_draw(void *arg, double frac)
{
	progress *p = arg;
	double t = now_s();
	if (p->quiet || t - p->start < 1.0 || t - p->last < (isatty(2) ? 0.1 : 5.0))
		return;
	p->last = t;
	p->shown = 1;
	int w = 40, fill = (int)(frac * w);
	fprintf(stderr, "\r%-24.24s [%.*s%*s] %3d%%  %.0fs", p->pattern,
		fill, "########################################", w - fill, "",
		(int)(frac * 100), t - p->start);
	if (!isatty(2))
		fputc('\n', stderr);
	fflush(stderr);
}

static int parse(int argc, char **argv, opts *o)
{
	enum { OPT_WINDOW = 256, OPT_PAYLOAD, OPT_PERIOD }; /* long options without a letter */
	static const struct option longopts[] = {
		{"machine", 1, 0, 'm'}, {"torus", 1, 0, 't'}, {"ppn", 1, 0, 'n'},
		{"map", 1, 0, 'M'}, {"order", 1, 0, 'o'}, {"pattern", 1, 0, 'p'},
		{"format", 1, 0, 'f'}, {"per-node", 0, 0, 'N'}, {"counters", 1, 0, 'c'},
		{"heatmap", 1, 0, 'H'}, {"heatmap-event", 1, 0, 'E'},
		{"list-events", 0, 0, 'L'}, {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},
		{"ranks", 1, 0, 'R'}, {"set", 1, 0, 'S'}, {"list-params", 0, 0, 'P'},
		{"heatmap-range", 1, 0, 'Y'}, {"heatmap-with", 1, 0, 'W'}, {"engine", 1, 0, 'G'}, {"routing", 1, 0, 'r'},
		{"seed", 1, 0, 's'}, {"tilemap", 1, 0, 'T'}, {"gemini", 1, 0, 'g'},
		{"tiles", 1, 0, 'x'}, {"payload", 1, 0, OPT_PAYLOAD}, {"open-loop", 1, 0, 'O'}, {"open-loop-window", 1, 0, OPT_WINDOW},
		{"open-loop-period", 1, 0, OPT_PERIOD},
		{0, 0, 0, 0},
	};
	int c, list = 0;
	*o = (opts){.machine = "bgq", .ppn = -1, .seed = 1, .tiles = -1, .warmup = 1000, .measure = 10000};
	int li = -1;
	while ((c = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
		if (optarg && !*optarg && li >= 0) { /* no option means nothing by '' */
			fprintf(stderr, "counterlab-netsim: --%s '': give a value (see --help)\n",
				longopts[li].name);
			return 2;
		}
		li = -1;
		switch (c) {
		case 'm': o->machine = optarg; break;
		case 't': o->torus = optarg; break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 1024) {
				fprintf(stderr, "counterlab-netsim: --ppn %s: want a whole number of ranks per node, 1..1024\n", optarg);
				return 2;
			}
			o->ppn = (int)v;
			break;
		}
		case 'M': o->map = optarg; break;
		case 'o': o->order = optarg; break;
		case 'p':
			if (o->npattern == MAX_PATTERNS) {
				fprintf(stderr, "counterlab-netsim: at most %d patterns\n", MAX_PATTERNS);
				return 2;
			}
			o->pattern[o->npattern++] = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "table")) o->format = TABLE;
			else if (!strcmp(optarg, "csv")) o->format = CSV;
			else if (!strcmp(optarg, "json")) o->format = JSON;
			else {
				fprintf(stderr, "counterlab-netsim: --format %s: want table, csv or json\n", optarg);
				return 2;
			}
			break;
		case 'N': o->per_node = 1; break;
		case 'c': o->counters = optarg; break;
		case 'H': o->heatmap = optarg; break;
		case 'E': o->heat_event = optarg; break;
		case 'W':
			if (o->nwith == CLAB_HEATMAP_MAX_PANELS - 1) {
				fprintf(stderr, "counterlab-netsim: at most %d --heatmap-with\n",
					CLAB_HEATMAP_MAX_PANELS - 1);
				return 2;
			}
			o->heat_with[o->nwith++] = optarg;
			break;
		case 'L': list = 1; break;
		case 'P': o->list_params = 1; break;
		case 'R': {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || v < 1 || v > 1L << 30) {
				fprintf(stderr, "counterlab-netsim: --ranks %s: want a whole number of ranks, 1..%ld\n", optarg, 1L << 30);
				return 2;
			}
			o->ranks = v;
			break;
		}
		case 'S':
			if (o->nset == MAX_SETS) {
				fprintf(stderr, "counterlab-netsim: at most %d --set\n", MAX_SETS);
				return 2;
			}
			if (!strchr(optarg, '=')) {
				fprintf(stderr, "counterlab-netsim: --set %s: want KEY=VALUE (see --list-params)\n", optarg);
				return 2;
			}
			o->set[o->nset++] = optarg;
			break;
		case 'Y': {
			char *mid, *end = NULL;
			errno = 0;
			o->heat_lo = strtod(optarg, &mid);
			if (mid != optarg && *mid == ':')
				o->heat_hi = strtod(mid + 1, &end);
			if (mid == optarg || *mid != ':' || end == mid + 1 || *end || errno ||
			    !isfinite(o->heat_lo) || !isfinite(o->heat_hi) || o->heat_lo >= o->heat_hi) {
				fprintf(stderr, "counterlab-netsim: --heatmap-range %s: want LO:HI, two numbers with LO < HI\n", optarg);
				return 2;
			}
			o->heat_range = 1;
			break;
		}
		case 'G':
			if (!strcmp(optarg, "flow")) o->engine = CLAB_NET_FLOW;
			else if (!strcmp(optarg, "packet")) o->engine = CLAB_NET_PACKET;
			else {
				fprintf(stderr, "counterlab-netsim: --engine %s: want flow or packet\n", optarg);
				return 2;
			}
			break;
		case 'r':
			if (!strcmp(optarg, "mpi")) o->routing = CLAB_ROUTE_MPI;
			else if (!strcmp(optarg, "deterministic")) o->routing = CLAB_ROUTE_DETERMINISTIC;
			else if (!strcmp(optarg, "adaptive")) o->routing = CLAB_ROUTE_ADAPTIVE;
			else {
				fprintf(stderr, "counterlab-netsim: --routing %s: want mpi, deterministic or adaptive\n", optarg);
				return 2;
			}
			break;
		case 's': {
			const char *end;
			uint64_t seed;
			if (!clab_read_u64(optarg, 0, &seed, &end) || *end) {
				fprintf(stderr, "counterlab-netsim: --seed %s: want a whole number\n", optarg);
				return 2;
			}
			o->seed = seed;
			break;
		}
		case 'O': {
			const char *at = optarg;
			for (char *end; *at; at = *end == ',' ? end + 1 : end) {
				errno = 0;
				double v = strtod(at, &end);
				if (end == at || errno || !(v > 0 && v <= 64) || (*end && *end != ',') ||
				    o->nload == (int)(sizeof o->load / sizeof *o->load)) {
					fprintf(stderr, "counterlab-netsim: --open-loop %s: want up to 64 loads 0 < L <= 64, comma-separated\n", optarg);
					return 2;
				}
				o->load[o->nload++] = v;
			}
			break;
		}
		case OPT_WINDOW: {
			const char *end;
			uint64_t w, m;
			if (!clab_read_u64(optarg, 0, &w, &end) || *end != ',' ||
			    !clab_read_u64(end + 1, 0, &m, &end) || *end || !m ||
			    w > 100000000ull || w + m > 100000000ull) {
				fprintf(stderr, "counterlab-netsim: --open-loop-window %s: want W,M chunk times (M >= 1, W + M <= 1e8)\n", optarg);
				return 2;
			}
			o->warmup = w;
			o->measure = m;
			o->window_given = 1;
			break;
		}
		case OPT_PERIOD: {
			char *end;
			errno = 0;
			o->period = strtoull(optarg, &end, 10);
			if (*end || errno || !o->period || o->period > 100000000ull || *optarg == '-') {
				fprintf(stderr, "counterlab-netsim: --open-loop-period %s: want chunk times 1..1e8\n", optarg);
				return 2;
			}
			break;
		}
		case 'T': o->tilemap = optarg; break;
		case 'g': o->gemini = optarg; break;
		case OPT_PAYLOAD:
			if (strcmp(optarg, "random") && strcmp(optarg, "zero")) {
				fprintf(stderr, "counterlab-netsim: --payload %s: want random or zero\n", optarg);
				return 2;
			}
			o->payload = optarg;
			break;
		case 'x': {
			char *end;
			errno = 0;
			o->tiles = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || o->tiles < 0) {
				fprintf(stderr, "counterlab-netsim: --tiles %s: want a router number\n", optarg);
				return 2;
			}
			break;
		}
		case 'q': o->quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "counterlab-netsim: unexpected argument %s (see --help)\n", argv[optind]);
		return 2;
	}
	if (!clab_netspec_find(o->machine)) {
		fprintf(stderr, "counterlab-netsim: --machine %s: known machines are", o->machine);
		for (const char *const *m = clab_netspec_names(); *m; m++)
			fprintf(stderr, " %s", *m);
		fputc('\n', stderr);
		return 2;
	}
	if ((o->tilemap || o->gemini || o->tiles >= 0 || o->payload) && strcmp(o->machine, "gemini")) {
		fprintf(stderr, "counterlab-netsim: --tilemap, --gemini, --tiles and --payload are for --machine gemini\n");
		return 2;
	}
	if (o->gemini && !o->tilemap) {
		fprintf(stderr, "counterlab-netsim: --gemini %s names a router of a --tilemap dump; give the dump\n",
			o->gemini);
		return 2;
	}
	if (!strcmp(o->machine, "gemini") && o->order && strcmp(o->order, "XYZ")) {
		fprintf(stderr, "counterlab-netsim: --order %s: Gemini routes X, then Y, then Z\n", o->order);
		return 2;
	}
	if ((o->heat_range || o->nwith) && !o->heatmap) {
		fprintf(stderr, "counterlab-netsim: --heatmap-%s needs --heatmap FILE.png\n",
			o->heat_range ? "range" : "with");
		return 2;
	}
	clab_outfile probe; /* a heat map that cannot be written is said before the run */
	if (o->heatmap && clab_outfile_open(&probe, o->heatmap, CLAB_E_SYS, "--heatmap")) {
		fprintf(stderr, "counterlab-netsim: %s\n", clab_errmsg());
		return 2;
	}
	if (o->heatmap)
		clab_outfile_discard(&probe);
	for (int i = 0; i < o->nwith; i++) {
		const char *eq = strchr(o->heat_with[i], '=');
		FILE *f = clab_data_open(eq ? eq + 1 : o->heat_with[i], CLAB_E_SYS, "--heatmap-with");
		if (!f) {
			fprintf(stderr, "counterlab-netsim: %s\n", clab_errmsg());
			return 2;
		}
		fclose(f);
	}
	if (list)
		return -1;
	if (o->list_params)
		return -3;
	if (!o->npattern) {
		fprintf(stderr, "counterlab-netsim: no --pattern given (see --help)\n");
		return 2;
	}
	if (!o->nload && (o->window_given || o->period)) {
		fprintf(stderr, "counterlab-netsim: --open-loop-%s needs --open-loop L1,L2,...\n",
			o->period ? "period" : "window");
		return 2;
	}
	if (o->nload && (o->engine != CLAB_NET_PACKET || o->npattern != 1 || !strcmp(o->machine, "gemini"))) {
		fprintf(stderr, "counterlab-netsim: --open-loop needs --engine packet and one --pattern (not gemini)\n");
		return 2;
	}
	return 0;
}

/* ---- heat maps ----------------------------------------------------------- */

/* A path's last component: a picture's title never shows where a file was. */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b && b[1] ? b + 1 : path;
}

/* What one count of an event is, for the title and the colour bar. */
static const char *event_unit(const clab_netevent *e, int gem, const clab_netspec *spec,
			      char *buf, size_t len)
{
	if (gem) {	/* Gemini's names say it */
		size_t n = strlen(e->name);
		return n > 3 && !strcmp(e->name + n - 3, "_NS") ? "ns"
		       : strstr(e->name, "FLITS") ? "16-byte flits"
		       : strstr(e->name, "PKT") || strstr(e->name, "PACKETS") ? "packets"
		       : strstr(e->name, "TRAFFIC") ? "bytes"
		       : strstr(e->name, "TRANSLATIONS") ? "translations" : "counts";
	}
	if (e->unit)
		return e->unit;
	switch (e->what) {
	case CLAB_NET_SENT_CHUNKS:
	case CLAB_NET_RECV_CHUNKS:
		snprintf(buf, len, "%u-byte chunks", spec->chunk);
		return buf;
	case CLAB_NET_RECV_FIFO:
		return "packets x cycles";
	case CLAB_NET_NO_TOKEN:
	case CLAB_NET_CYCLES:
		return "network cycles";
	case CLAB_NET_MU_MSG_INJ:
		return "messages";
	default:
		return "packets";
	}
}

/* Reads event's per-node column from another run's --per-node --format csv
 * output into v[0..t->nodes), checking it is of the same torus. */
static int read_panel(const char *path, const char *event, const clab_torus *t, double *v)
{
	FILE *f = clab_data_open(path, CLAB_E_SYS, "--heatmap-with");
	char *line = NULL, *save;
	size_t cap = 0;
	int col = -1, rows = 0, rc = -1, head = 0;
	if (!f) {
		fprintf(stderr, "counterlab-netsim: %s\n", clab_errmsg());
		return -1;
	}
	for (uint32_t x = 0; x < t->nodes; x++)
		v[x] = NAN;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\r\n")] = 0;
		if (!head) {	/* the steps' table comes first; then "node,A,B,...,EVENT,..." */
			if (strncmp(line, "node,", 5))
				continue;
			head = 1;
			int i = 0, dims = 0;
			for (char *c = strtok_r(line, ",", &save); c; c = strtok_r(NULL, ",", &save), i++)
				if (i >= 1 && i <= t->ndims)
					dims += !strncmp(c, t->letters + i - 1, 1) && !c[1];
				else if (i > t->ndims && !strcmp(c, event))
					col = i;
			if (dims < t->ndims || col < 0) {
				fprintf(stderr, "counterlab-netsim: --heatmap-with %s: %s\n", path,
					dims < t->ndims ? "its coordinates are not this torus's dimensions"
					: "has no column of the heat map's event (give it with --counters)");
				goto out;
			}
			continue;
		}
		if (!*line)
			break;
		char *end;
		unsigned long x = strtoul(line, &end, 10);
		int c[CLAB_TORUS_MAXD], i = 1, ok = end != line && *end == ',' && x < t->nodes;
		double val = NAN;
		if (ok)
			clab_torus_coords(t, (uint32_t)x, c);
		for (char *p = end; ok && *p == ',' && i <= col; i++) {
			char *q;
			double d = strtod(p + 1, &q);
			ok = q != p + 1 && (*q == ',' || !*q);
			if (i <= t->ndims)
				ok = ok && d == c[i - 1];	/* the same node */
			else if (i == col)
				val = d;
			p = q;
		}
		if (!ok || i <= col || !isnan(v[x])) {
			fprintf(stderr, "counterlab-netsim: --heatmap-with %s: line \"%.60s\" is not a "
				"node of this torus, listed once with its coordinates (as --per-node "
				"--format csv writes them)\n", path, line);
			goto out;
		}
		v[x] = val;
		rows++;
	}
	if (!head || rows != (int)t->nodes)
		fprintf(stderr, "counterlab-netsim: --heatmap-with %s: %s %u nodes (write it "
			"with --per-node --format csv on the same torus)\n", path,
			head ? "has not all" : "no per-node table of", t->nodes);
	else
		rc = 0;
out:
	free(line);
	fclose(f);
	return rc;
}

/* This run's map of the heat event, beside those of --heatmap-with. */
static int draw_heatmap(const opts *o, const clab_net *net, const clab_torus *t,
			const clab_netspec *spec, const clab_netevent *e, int gem,
			const uint64_t *val, int nev, int heat, const char *mapname)
{
	uint32_t N = t->nodes;
	int np = 1 + o->nwith, rc = 2, nrec;
	double *v = calloc((size_t)N * np, sizeof *v);
	const double *panel[CLAB_HEATMAP_MAX_PANELS];
	const char *label[CLAB_HEATMAP_MAX_PANELS];
	char lab[CLAB_HEATMAP_MAX_PANELS][96];
	char title[512], step[96] = "", unit[64], ubuf[32], shape[64], err[256];
	if (!v)
		return die("no memory for the heat map");
	for (uint32_t x = 0; x < N; x++)
		v[x] = (double)val[(size_t)x * nev + heat];
	snprintf(lab[0], sizeof lab[0], "map %s", base_name(mapname));
	for (int i = 0; i < np; i++) {
		panel[i] = v + (size_t)N * i;
		label[i] = lab[i];
		if (!i)
			continue;
		const char *arg = o->heat_with[i - 1], *eq = strchr(arg, '=');
		const char *file = eq ? eq + 1 : arg;
		snprintf(lab[i], sizeof lab[i], "%.*s", eq ? (int)(eq - arg) : (int)strlen(file),
			 eq ? arg : base_name(file));
		if (read_panel(file, e->name, t, v + (size_t)N * i))
			goto out;
	}
	const clab_net_record *rec = clab_net_records(net, &nrec);
	if (nrec == 1)
		snprintf(step, sizeof step, ", %s", rec[0].label);
	else if (nrec > 1)
		snprintf(step, sizeof step, ", whole run (%d steps)", nrec);
	clab_torus_shape(t, shape, sizeof shape);
	snprintf(unit, sizeof unit, "%s per %s", event_unit(e, gem, spec, ubuf, sizeof ubuf),
		 gem ? "router" : "node");
	snprintf(title, sizeof title, "%s (%s)%s, %s %s%s%s", e->name, unit, step, spec->name,
		 shape, np == 1 ? ", " : "", np == 1 ? lab[0] : "");
	double range[2] = {o->heat_lo, o->heat_hi};
	struct clab_heatmap hm = {.ndims = t->ndims, .size = t->size, .letters = t->letters,
				  .npanel = np, .value = panel, .label = label,
				  .range = o->heat_range ? range : NULL, .title = title,
				  .unit = unit};
	if (clab_heatmap_draw(o->heatmap, &hm, err, sizeof err))
		fprintf(stderr, "counterlab-netsim: --heatmap: %s\n", err);
	else
		rc = 0;
out:
	free(v);
	return rc;
}

/* The events to show: a comma list, or the main ones. */
static int pick_events(const clab_netevent *ev, int nev, const char *list, int *pick)
{
	int k = 0;
	if (!list) {
		for (int i = 0; i < nev; i++)
			if (ev[i].main)
				pick[k++] = i;
		return k;
	}
	char *copy = strdup(list), *save, *tok;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = 0;
		while (i < nev && strcmp(ev[i].name, tok))
			i++;
		if (i == nev) {
			fprintf(stderr, "counterlab-netsim: no network event %s (see --list-events)\n", tok);
			free(copy);
			return -1;
		}
		pick[k++] = i;
	}
	free(copy);
	return k;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The modelled times: one row per labelled step, then the whole run. */
static void print_times(const clab_net *net, enum format f)
{
	int nrec;
	const clab_net_record *rec = clab_net_records(net, &nrec);
	clab_net_times all = clab_net_totals(net);
	if (f == TABLE)
		printf("%-44s %8s %12s %12s %12s %12s %14s\n", "modelled time (s)", "phases",
		       "network", "on-node", "compute", "total", "no-token cyc");
	else if (f == CSV)
		printf("step,phases,network_s,onnode_s,compute_s,total_s,no_token\n");
	else
		printf(",\n \"steps\": [");
	uint64_t phases = 0, notoken = 0;
	for (int i = 0; i <= nrec; i++) {
		int last = i == nrec;
		const char *label = last ? "whole run" : rec[i].label;
		clab_net_times tm = last ? all : rec[i].t;
		uint64_t ph = last ? phases : rec[i].phases, nt = last ? notoken : rec[i].no_token;
		phases += last ? 0 : ph;
		notoken += last ? 0 : nt;
		if (f == TABLE) {
			printf("%-44.44s %8llu %12.6g %12.6g %12.6g %12.6g %14llu\n", label,
			       (unsigned long long)ph, tm.network, tm.onnode, tm.compute, tm.total,
			       (unsigned long long)nt);
		} else if (f == CSV) {
			printf("\"%s\",%llu,%.9g,%.9g,%.9g,%.9g,%llu\n", label, (unsigned long long)ph,
			       tm.network, tm.onnode, tm.compute, tm.total, (unsigned long long)nt);
		} else {
			printf(last ? "],\n \"times\": " : "%s\n  {\"step\": ", i ? "," : "");
			if (!last)
				json_string(label);
			printf("%s{\"phases\": %llu, \"network_s\": %.9g, \"onnode_s\": %.9g, "
			       "\"compute_s\": %.9g, \"total_s\": %.9g, \"no_token\": %llu}%s",
			       last ? "" : ", \"times\": ", (unsigned long long)ph, tm.network,
			       tm.onnode, tm.compute, tm.total, (unsigned long long)nt, last ? "" : "}");
		}
	}
	if (f != JSON)
		printf("\n");
}

/* The 48 tiles x 6 counters of one Gemini router. */
static void print_tiles(const clab_gemini *g, uint32_t r, enum format f)
{
	static const char *const ctr[CLAB_GEM_TILE_CTRS] = {
		"vc0_phits", "vc1_phits", "vc0_pkts", "vc1_pkts", "inq_stall", "credit_stall",
	};
	const clab_gemini_tilemap *tm = clab_gemini_map(g);
	if (f == TABLE)
		printf("\ntiles of router %u (tile map %s; counts of traffic entering each tile)\n"
		       "%-5s %-4s %-4s %-5s %-10s", r, tm->source, "tile", "row", "col", "dir", "type");
	else if (f == CSV)
		printf("tile,row,col,dir,type");
	else
		printf("{\"tiles_of_router\": %u, \"tile_map\": \"%s\", \"tiles\": [", r, tm->source);
	for (int c = 0; c < CLAB_GEM_TILE_CTRS && f != JSON; c++)
		printf(f == TABLE ? " %14s" : ",%s", ctr[c]);
	if (f != JSON)
		printf("\n");
	for (int t = 0; t < CLAB_GEMINI_TILES; t++) {
		const char *d = clab_gemini_dir_name(tm->dir[t]),
			   *ty = clab_gemini_link_name(clab_gemini_tile_type(g, r, t));
		if (f == TABLE)
			printf("%-5d %-4d %-4d %-5s %-10s", t, t / 8, t % 8, d, ty);
		else if (f == CSV)
			printf("%d,%d,%d,%s,%s", t, t / 8, t % 8, d, ty);
		else
			printf("%s\n  {\"tile\": %d, \"dir\": \"%s\", \"type\": \"%s\"", t ? "," : "", t, d, ty);
		for (int c = 0; c < CLAB_GEM_TILE_CTRS; c++) {
			unsigned long long v = (unsigned long long)clab_gemini_tile(g, r, t, c);
			if (f == JSON)
				printf(", \"%s\": %llu", ctr[c], v);
			else
				printf(f == TABLE ? " %14llu" : ",%llu", v);
		}
		printf(f == JSON ? "}" : "\n");
	}
	if (f == JSON)
		printf("]}\n");
}

/* Allocations beyond what the machine can hold (memory and swap) fail,
 * and the model says "no memory", instead of the kernel killing the
 * process (with overcommit, a torus too large would run until then). */
static void limit_memory(void)
{
	struct sysinfo si;
	struct rlimit rl;
	if (sysinfo(&si) || getrlimit(RLIMIT_AS, &rl))
		return;
	unsigned long long cap = ((unsigned long long)si.totalram + si.totalswap) * si.mem_unit;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > cap) {
		rl.rlim_cur = cap;
		setrlimit(RLIMIT_AS, &rl);
	}
}

int main(int argc, char **argv)
{
	opts o;
	limit_memory();
	int rc = parse(argc, argv, &o);
	const clab_netspec *base = clab_netspec_find(o.machine);
	int nev = 0, gem = base && !strcmp(base->name, "gemini");
	const clab_netevent *ev = base ? clab_netevents(o.machine, &nev) : NULL;
	/* Gemini: the link metrics of its tiles and its NICs' counters, per router */
	clab_netevent gev[CLAB_GEM_NEVENTS];
	if (gem) {
		for (int i = 0; i < CLAB_GEM_NEVENTS; i++) {
			gev[i] = (clab_netevent){.link = -1, .main = i < CLAB_GEM_LINK_EVENTS &&
						 i % CLAB_GEM_NMETRICS == CLAB_GEM_TRAFFIC};
			gev[i].name = clab_gemini_event(i, &gev[i].descr);
		}
		ev = gev;
		nev = CLAB_GEM_NEVENTS;
	}
	if (rc == -1) {
		for (int i = 0; i < nev; i++)
			printf("%-48s %s\n", ev[i].name, ev[i].descr);
		return 0;
	}
	if (rc > 0)
		return rc;
	/* the machine's profile, with what --set changes */
	clab_netspec sp = *base;
	const clab_netspec *spec = &sp;
	for (int i = 0; i < o.nset; i++) {
		const char *eq = strchr(o.set[i], '=');
		char *key = strndup(o.set[i], (size_t)(eq - o.set[i])); /* any length */
		int bad = !key || clab_netspec_set(&sp, key, eq + 1);
		free(key);
		if (bad)
			return die("--set");
	}
	if (rc == -3) {
		const char *meaning;
		double v;
		printf("network parameters of %s (sources: sim_backends/torus/netspec.c, docs/torus.md):\n",
		       spec->name);
		for (int i = 0; clab_netspec_param(spec, i, &meaning, &v); i++)
			printf("  %-14s %-12g %s\n", clab_netspec_param(spec, i, NULL, NULL), v, meaning);
		printf("  map strings: %s\n", clab_netspec_convention(spec));
		return 0;
	}
	clab_torus t;
	clab_map map;
	if (clab_torus_init(&t, spec, o.torus, o.ppn > 0 ? o.ppn : spec->ppn, gem ? "XYZ" : o.order))
		return die("--torus/--ppn/--order");
	if (clab_map_init(&map, &t, o.map))
		return die("--map");
	if (o.ranks > 0) {
		if ((uint64_t)o.ranks > map.nranks) {
			fprintf(stderr, "counterlab-netsim: --ranks %ld: the map places only %u ranks\n",
				o.ranks, map.nranks);
			return 2;
		}
		map.nranks = (uint32_t)o.ranks;
	}
	/* a --counters list names at most one event per two characters */
	int *pick = malloc(((size_t)nev + (o.counters ? strlen(o.counters) : 0)) * sizeof *pick);
	int npick = pick ? pick_events(ev, nev, o.counters, pick) : -1;
	int heat = 0;
	if (npick < 0)
		return 2;
	if (o.heatmap) {
		heat = -1;
		for (int i = 0; i < nev; i++)
			if (o.heat_event ? !strcmp(ev[i].name, o.heat_event) : ev[i].main && heat < 0)
				heat = i;
		if (heat < 0) {
			fprintf(stderr, "counterlab-netsim: --heatmap-event %s: not an event of %s\n",
				o.heat_event, o.machine);
			return 2;
		}
	}
	clab_net *net = clab_net_new(&t, &map, &rc);
	if (!net)
		return die("model");
	if (clab_net_configure(net, o.engine, o.routing, o.seed))
		return die("--engine");
	if (o.nload) { /* open loop: a row per load, then the saturation */
		/* every load is run before anything is printed: a pattern
		 * refused leaves no half-written table or JSON */
		clab_openloop ol[sizeof o.load / sizeof *o.load];
		double sat_lo = 0, sat_hi = 0;
		int st = o.period > 0, measured = 0; /* steady state: a column more, its verdict */
		for (int i = 0; i < o.nload; i++) {
			ol[i] = (clab_openloop){.load = o.load[i], .warmup = o.warmup,
						.measure = o.measure, .period = o.period};
			if (clab_net_openloop(net, o.pattern[0], &ol[i]))
				return die("--open-loop");
			if (!ol[i].packets && !(st && ol[i].unstable)) { /* no verdict from no sample */
				fprintf(stderr, "counterlab-netsim: --open-loop: load %g: no packet was measured; lengthen %s\n",
					ol[i].load, st ? "--open-loop-period" : "the window (--open-loop-window)");
				continue;
			}
			measured++;
			/* saturated: given up as unstable (steady state), or
			 * accepting less than 95% of what is offered */
			if (st ? !ol[i].unstable : ol[i].accepted >= 0.95 * ol[i].load)
				sat_lo = ol[i].load > sat_lo ? ol[i].load : sat_lo;
			else if (!sat_hi || ol[i].load < sat_hi)
				sat_hi = ol[i].load;
		}
		if (o.format == JSON) {
			printf("{\"pattern\": ");
			json_string(o.pattern[0]);
			if (st)
				printf(", \"period\": %llu, \"loads\": [", o.period);
			else
				printf(", \"warmup\": %llu, \"measure\": %llu, \"loads\": [", o.warmup, o.measure);
		} else if (o.format == CSV)
			printf("offered,accepted,latency_mean,latency_p99,packets%s\n", st ? ",unstable" : "");
		else if (st)
			printf("open loop, %s: steady state, periods of %llu chunk times (%.4g ns)\n%10s %10s %14s %14s %10s %9s\n",
			       o.pattern[0], o.period, 1e9 * spec->chunk / spec->link_bytes_s,
			       "offered", "accepted", "latency mean", "latency p99", "packets", "unstable");
		else
			printf("open loop, %s: warm-up %llu, window %llu chunk times (%.4g ns)\n%10s %10s %14s %14s %10s\n",
			       o.pattern[0], o.warmup, o.measure, 1e9 * spec->chunk / spec->link_bytes_s,
			       "offered", "accepted", "latency mean", "latency p99", "packets");
		for (int i = 0; i < o.nload; i++) {
			char col[32] = ""; /* steady state: the verdict */
			if (st)
				snprintf(col, sizeof col, o.format == JSON ? ", \"unstable\": %s" : o.format == CSV ? ",%s" : " %9s",
					 o.format == JSON ? (ol[i].unstable ? "true" : "false") : o.format == CSV ? (ol[i].unstable ? "1" : "0")
					 : ol[i].unstable ? "yes" : "no");
			if (o.format == JSON)
				printf("%s{\"offered\": %.4g, \"accepted\": %.4g, \"latency_mean\": %.4g, \"latency_p99\": %.4g, \"packets\": %llu%s}",
				       i ? ", " : "", ol[i].load, ol[i].accepted, ol[i].latency_mean, ol[i].latency_p99,
				       (unsigned long long)ol[i].packets, col);
			else
				printf(o.format == CSV ? "%.4g,%.4g,%.4g,%.4g,%llu%s\n" : "%10.4g %10.4g %14.4g %14.4g %10llu%s\n",
				       ol[i].load, ol[i].accepted, ol[i].latency_mean, ol[i].latency_p99,
				       (unsigned long long)ol[i].packets, col);
		}
		if (o.format == JSON && measured)
			printf("], \"saturation_above\": %.4g, \"saturation_below\": %.4g}\n", sat_lo, sat_hi);
		else if (o.format == JSON)
			printf("], \"saturation_above\": null, \"saturation_below\": null}\n");
		else if (o.format == TABLE && !measured)
			printf("saturation: not measured (no load measured a packet)\n");
		else if (o.format == TABLE)
			printf(sat_hi ? "saturation: above %.4g, by %.4g\n" : "saturation: above %.4g, not reached\n",
			       sat_lo, sat_hi);
		clab_net_free(net);
		return measured == o.nload ? 0 : 2;
	}
	clab_gemini *g = NULL;
	if (gem) {
		clab_gemini_tilemap tm;
		if (o.tilemap ? clab_gemini_tilemap_load(&tm, o.tilemap, o.gemini)
			      : (clab_gemini_tilemap_cielo(&tm), 0))
			return die("--tilemap");
		if (!(g = clab_gemini_new(&t, &map, &tm, &rc)))
			return die("model");
		if (o.tiles >= (long)t.nodes) {
			fprintf(stderr, "counterlab-netsim: --tiles %ld: routers are 0..%u\n", o.tiles, t.nodes - 1);
			return 2;
		}
		clab_gemini_observe(net, g, o.payload && !strcmp(o.payload, "zero") ? CLAB_GEM_ZERO_DATA : NULL);
	}
	progress pr = {.start = now_s(), .quiet = o.quiet};
	clab_net_progress(net, progress_draw, &pr);
	for (int i = 0; i < o.npattern; i++) {
		pr.pattern = o.pattern[i];
		if (clab_net_pattern(net, o.pattern[i])) {
			if (pr.shown)
				fputc('\n', stderr);
			return die("--pattern");
		}
	}
	if (pr.shown) {
		progress_draw(&pr, 1.0);
		fputc('\n', stderr);
	}

	/* per-node values of every event, then the summary over nodes */
	uint32_t N = t.nodes;
	uint64_t *val = malloc((size_t)N * nev * sizeof *val);
	if (!val)
		return die("no memory for the per-node table");
	for (uint32_t x = 0; x < N; x++)
		for (int e = 0; e < nev; e++)
			val[(size_t)x * nev + e] = g ? clab_gemini_event_count(g, x, -1, e)
						     : clab_netevent_count(net, &ev[e], x);
	double time_s = clab_net_time(net);
	char shape[64];
	clab_torus_shape(&t, shape, sizeof shape);
	const char *mapname = o.map ? o.map : t.letters;

	if (o.format == JSON) {
		printf("{\"machine\": \"%s\", \"torus\": \"%s\", \"nodes\": %u, \"ppn\": %d, \"ranks\": %u, \"map\": ",
		       spec->name, shape, N, t.ppn, map.nranks);
		json_string(mapname);
		printf(", \"patterns\": [");
		for (int i = 0; i < o.npattern; i++) {
			printf(i ? ", " : "");
			json_string(o.pattern[i]);
		}
		printf("], \"engine\": \"%s\", \"map_convention\": \"%s\", \"phases\": %llu, \"time_s\": %.9g, \"local_bytes\": %llu",
		       clab_net_engine_name(net), clab_netspec_convention(spec),
		       (unsigned long long)clab_net_phases(net), time_s,
		       (unsigned long long)clab_net_local_bytes(net));
		print_times(net, o.format);
		printf(",\n \"summary\": {\"counters\": {");
	} else if (o.format == TABLE) {
		printf("machine %s, torus %s (%u nodes), %d ranks per node (%u ranks), map %s (%s)\n",
		       spec->name, shape, N, t.ppn, map.nranks, mapname, clab_netspec_convention(spec));
		for (int i = 0; i < o.npattern; i++)
			printf("pattern %s\n", o.pattern[i]);
		printf("modelled time %.6g s (%s engine) over %llu phases; %llu bytes stayed on their node\n\n",
		       time_s, clab_net_engine_name(net), (unsigned long long)clab_net_phases(net),
		       (unsigned long long)clab_net_local_bytes(net));
		print_times(net, o.format);
		if (!o.per_node)
			printf("%-44s %14s %16s %14s %18s\n", g ? "event (per router, its tiles and NICs)"
			       : "event (per node, all torus links)",
			       "min", "mean", "max", "total");
	} else {
		print_times(net, o.format);
		if (!o.per_node)
			printf("event,min,mean,max,total\n");
	}
	for (int e = 0; e < nev && !o.per_node; e++) {
		uint64_t mn = UINT64_MAX, mx = 0, total = 0;
		for (uint32_t x = 0; x < N; x++) {
			uint64_t v = val[(size_t)x * nev + e];
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
			total += v;
		}
		double mean = (double)total / N;
		if (o.format == JSON)
			printf("%s\n  \"%s\": {\"min\": %llu, \"mean\": %.6f, \"max\": %llu, \"total\": %llu}",
			       e ? "," : "", ev[e].name, (unsigned long long)mn, mean,
			       (unsigned long long)mx, (unsigned long long)total);
		else if (o.format == CSV)
			printf("%s,%llu,%.6f,%llu,%llu\n", ev[e].name, (unsigned long long)mn, mean,
			       (unsigned long long)mx, (unsigned long long)total);
		else
			printf("%-44s %14llu %16.1f %14llu %18llu\n", ev[e].name, (unsigned long long)mn,
			       mean, (unsigned long long)mx, (unsigned long long)total);
	}
	if (o.format == JSON)
		printf("}}%s", o.per_node ? ",\n \"per_node\": [" : "}\n");
	if (o.per_node) {
		if (o.format == TABLE) {
			char head[2 * CLAB_TORUS_MAXD] = "";
			for (int d = 0; d < t.ndims; d++) {
				head[2 * d] = t.letters[d];
				head[2 * d + 1] = d + 1 < t.ndims ? ' ' : '\0';
			}
			printf("%-8s %-14s", "node", head);
			for (int k = 0; k < npick; k++)
				printf(" %*s", (int)strlen(ev[pick[k]].name) > 14 ? (int)strlen(ev[pick[k]].name) : 14,
				       ev[pick[k]].name);
			printf("\n");
		} else if (o.format == CSV) {
			printf("node");
			for (int d = 0; d < t.ndims; d++)
				printf(",%c", t.letters[d]);
			for (int k = 0; k < npick; k++)
				printf(",%s", ev[pick[k]].name);
			printf("\n");
		}
		for (uint32_t x = 0; x < N; x++) {
			int c[CLAB_TORUS_MAXD];
			char coords[64] = "";
			clab_torus_coords(&t, x, c);
			for (int d = 0; d < t.ndims; d++)
				snprintf(coords + strlen(coords), sizeof coords - strlen(coords), "%s%d",
					 d ? (o.format == TABLE ? " " : ",") : "", c[d]);
			if (o.format == JSON)
				printf("%s\n  {\"node\": %u, \"coords\": [%s], \"counters\": {", x ? "," : "", x, coords);
			else if (o.format == CSV)
				printf("%u,%s", x, coords);
			else
				printf("%-8u %-14s", x, coords);
			for (int k = 0; k < npick; k++) {
				unsigned long long v = (unsigned long long)val[(size_t)x * nev + pick[k]];
				const char *name = ev[pick[k]].name;
				if (o.format == JSON)
					printf("%s\"%s\": %llu", k ? ", " : "", name, v);
				else if (o.format == CSV)
					printf(",%llu", v);
				else
					printf(" %*llu", (int)strlen(name) > 14 ? (int)strlen(name) : 14, v);
			}
			printf(o.format == JSON ? "}}" : "\n");
		}
		if (o.format == JSON)
			printf("]}\n");
	}
	if (g && o.tiles >= 0)
		print_tiles(g, (uint32_t)o.tiles, o.format);
	if (o.heatmap && (rc = draw_heatmap(&o, net, &t, spec, &ev[heat], gem, val, nev, heat,
					    mapname)))
		return rc;
	free(val);
	free(pick);
	clab_gemini_free(g);
	clab_net_free(net);
	clab_map_free(&map);
	return 0;
}
