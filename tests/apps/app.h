/* What the instrumented MPI programs share: PAPI on the simulated node's
 * network unit, per-phase counter deltas, sums over the simulated nodes
 * (each counted once) and the per-node table the live-versus-offline tests
 * compare with counterlab-netsim --per-node. Counters are read through
 * the PAPI API only; libcounterlab-mpi (linked) counts the messages and
 * says which node this rank is on. The programs' own bookkeeping (the
 * barriers around the reads, the sums of counters) calls PMPI_ directly,
 * so the layer never counts it, and no rank's bookkeeping message can race
 * another rank's read. Only the barrier that ends a phase is the
 * program's own MPI_Barrier: it ends the layer's timing phase (waiting
 * counters), and its messages (on BG/Q's collective network) are counted
 * before any rank reads. */
#ifndef CLAB_APP_H
#define CLAB_APP_H

#include <mpi.h>
#include <papi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <counterlab/live_mpi.h>

#define APP_MAXEV 8

typedef struct app {
	const char *prog;
	int me, size, first;
	uint32_t node, nodes;
	int es, nev;
	char names[APP_MAXEV][128];
	long long base[APP_MAXEV], last[APP_MAXEV];
	uint64_t *total;        /* [node][nev] since app_start, rank 0 */
	const char *per_node;   /* --per-node FILE */
	const char *usage;      /* the program's --help text */
} app;

/* Errors. Each rank parses the same command line and meets the same
 * start-up conditions, so for those every rank stops at the same point:
 * rank 0 alone says why, every rank finalizes MPI and exits 2 (app_die);
 * a start-up step whose outcome may differ (its memory) goes through
 * app_check. A failure later, of one rank alone (a read, a file, rank
 * 0's own memory), prints once from that rank and aborts the job
 * (app_fail): the others may wait in a collective that rank will never
 * join. */
static void app_exit(int status)
{
	MPI_Finalize();
	exit(status);
}

static void app_die(const app *a, const char *fmt, const char *what)
{
	if (a->me == 0) {
		fprintf(stderr, "%s: ", a->prog);
		fprintf(stderr, fmt, what);
		fputc('\n', stderr);
	}
	app_exit(2);
}

static void app_fail(const app *a, const char *fmt, const char *what)
{
	fprintf(stderr, "%s (rank %d): ", a->prog, a->me);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 2);
	exit(2);
}

/* A start-up step every rank takes, whose outcome could still differ
 * between ranks: `msg` is this rank's error (NULL: none). When any rank
 * failed, the lowest such rank says why and every rank exits 2. */
static void app_check(const app *a, const char *msg)
{
	int mine = msg ? a->me : a->size, first;
	PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == a->size)
		return;
	if (a->me == first && first)
		fprintf(stderr, "%s (rank %d): %s\n", a->prog, first, msg);
	else if (a->me == first)
		fprintf(stderr, "%s: %s\n", a->prog, msg);
	app_exit(2);
}

/* A bad command line: the word, then the usage, from rank 0. */
static void app_bad_arg(const app *a, const char *arg)
{
	if (a->me == 0)
		fprintf(stderr, "%s: bad argument %s (see --help)\n%s", a->prog, arg, a->usage);
	app_exit(2);
}

/* The options every program takes, the end of each one's --help. */
#define COMMON_USAGE \
	"  --events LIST    comma-separated PAPI event names to count instead of the\n" \
	"                   defaults (at most 8)\n" \
	"  --per-node FILE  rank 0 writes each simulated node's totals there as CSV\n" \
	"  -h, --help       this text\n" \
	"Run it under mpirun with libcounterlab-mpi active (COUNTERLAB_MACHINE names\n" \
	"the simulated machine); errors are printed once, by rank 0, and exit 2.\n"

/* Default network events: BG/Q's point-to-point chunks sent and packets
 * received on all links. */
#define APP_EVENTS "network:::PEVT_NW_USER_PP_SENT,network:::PEVT_NW_USER_PP_RECV"

/* MPI and PAPI. --help (or -h) anywhere prints `usage` from rank 0 and
 * exits 0 before anything else is set up. */
static void app_init(app *a, const char *prog, const char *usage, int *argc, char ***argv)
{
	memset(a, 0, sizeof *a);
	a->prog = prog;
	a->usage = usage;
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &a->me);
	MPI_Comm_size(MPI_COMM_WORLD, &a->size);
	for (int i = 1; i < *argc; i++)
		if (!strcmp((*argv)[i], "--help") || !strcmp((*argv)[i], "-h")) {
			if (a->me == 0)
				fputs(usage, stdout);
			app_exit(0);
		}
	char msg[300];
	int rc = clab_mpi_node(&a->node, &a->first, &a->nodes);
	app_check(a, rc ? "libcounterlab-mpi is not active (see its message above)" : NULL);
	rc = PAPI_library_init(PAPI_VER_CURRENT);
	snprintf(msg, sizeof msg, "PAPI_library_init: %s", PAPI_strerror(rc));
	app_check(a, rc != PAPI_VER_CURRENT ? msg : NULL);
}

static void app_events(app *a, const char *events)
{
	char buf[1024], msg[400];
	snprintf(buf, sizeof buf, "%s", events);
	a->es = PAPI_NULL;
	int rc = PAPI_create_eventset(&a->es);
	snprintf(msg, sizeof msg, "PAPI_create_eventset: %s", PAPI_strerror(rc));
	app_check(a, rc != PAPI_OK ? msg : NULL);
	for (char *save, *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		if (a->nev == APP_MAXEV)
			app_die(a, "more than 8 events: %s", events);
		rc = PAPI_add_named_event(a->es, e);
		snprintf(msg, sizeof msg, "cannot count event %s: %s%s", e, PAPI_strerror(rc),
			 getenv("COUNTERLAB_VERBOSE") ? "" : " (COUNTERLAB_VERBOSE=1 says why)");
		app_check(a, rc != PAPI_OK ? msg : NULL);
		snprintf(a->names[a->nev++], sizeof a->names[0], "%s", e);
	}
	a->total = calloc((size_t)a->nodes * (size_t)a->nev + 1, sizeof *a->total);
	app_check(a, !a->total ? "no memory" : NULL);
	PMPI_Barrier(MPI_COMM_WORLD);
	rc = PAPI_start(a->es);
	snprintf(msg, sizeof msg, "PAPI_start: %s", PAPI_strerror(rc));
	app_check(a, rc != PAPI_OK ? msg : NULL);
	PAPI_read(a->es, a->base);
	memcpy(a->last, a->base, sizeof a->last);
	PMPI_Barrier(MPI_COMM_WORLD); /* every node read before anyone sends */
}

/* Ends a phase: once every rank is past it, the counts of every node
 * since the last phase end, summed (each node once) into sum[] on rank 0
 * and added to the per-node totals. */
static void app_phase(app *a, uint64_t *sum)
{
	long long now[APP_MAXEV];
	uint64_t *mine = calloc((size_t)a->nodes * (size_t)a->nev + 1, sizeof *mine);
	uint64_t *all = calloc((size_t)a->nodes * (size_t)a->nev + 1, sizeof *all);
	if (!mine || !all)
		app_fail(a, "%s", "no memory");
	MPI_Barrier(MPI_COMM_WORLD); /* all traffic of the phase is out */
	int rc = PAPI_read(a->es, now);
	if (rc != PAPI_OK)
		app_fail(a, "PAPI_read: %s", PAPI_strerror(rc));
	PMPI_Barrier(MPI_COMM_WORLD); /* every node read before the next phase sends */
	if (a->first == a->me)
		for (int i = 0; i < a->nev; i++)
			mine[(size_t)a->node * a->nev + i] = (uint64_t)(now[i] - a->last[i]);
	memcpy(a->last, now, sizeof a->last);
	PMPI_Reduce(mine, all, (int)(a->nodes * (uint32_t)a->nev), MPI_UINT64_T, MPI_SUM, 0,
		    MPI_COMM_WORLD);
	for (int i = 0; i < a->nev; i++)
		sum[i] = 0;
	for (uint32_t x = 0; a->me == 0 && x < a->nodes; x++)
		for (int i = 0; i < a->nev; i++) {
			sum[i] += all[(size_t)x * a->nev + i];
			a->total[(size_t)x * a->nev + i] += all[(size_t)x * a->nev + i];
		}
	free(mine);
	free(all);
}

/* Rank 0 writes the per-node totals (--per-node FILE): "node,EVENT,..." */
static void app_finish(app *a)
{
	if (a->me == 0 && a->per_node) {
		FILE *f = fopen(a->per_node, "w");
		if (!f)
			app_fail(a, "cannot write %s", a->per_node);
		fprintf(f, "node");
		for (int i = 0; i < a->nev; i++)
			fprintf(f, ",%s", strrchr(a->names[i], ':') ? strrchr(a->names[i], ':') + 1
				: a->names[i]);
		fputc('\n', f);
		for (uint32_t x = 0; x < a->nodes; x++) {
			fprintf(f, "%u", x);
			for (int i = 0; i < a->nev; i++)
				fprintf(f, ",%llu", (unsigned long long)a->total[(size_t)x * a->nev + i]);
			fputc('\n', f);
		}
		fclose(f);
	}
	long long v[APP_MAXEV];
	PAPI_stop(a->es, v);
	PAPI_cleanup_eventset(a->es);
	PAPI_destroy_eventset(&a->es);
	free(a->total);
	PAPI_shutdown();
	MPI_Finalize();
}

/* Common options: --events LIST, --per-node FILE; returns 1 when argv[*i]
 * was one of them (and steps past its value). */
static int app_common_opt(app *a, int argc, char **argv, int *i, const char **events)
{
	if (*i + 1 >= argc)
		return 0;
	if (!strcmp(argv[*i], "--events"))
		*events = argv[++*i];
	else if (!strcmp(argv[*i], "--per-node"))
		a->per_node = argv[++*i];
	else
		return 0;
	return 1;
}

static uint64_t app_u64(app *a, const char *opt, const char *v, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long x = strtoull(v, &end, 10);
	if (!*v || *end || *v == '-' || x < lo || x > hi) {
		char msg[200];
		snprintf(msg, sizeof msg, "%s %s: want a whole number %llu..%llu", opt, v,
			 (unsigned long long)lo, (unsigned long long)hi);
		app_die(a, "%s", msg);
	}
	return x;
}

#endif
