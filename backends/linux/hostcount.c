/* The host's counts of the calling thread, for activity = host (see
 * sim_backends/activity/hostmap.h): libpfm4's generic perf events, each
 * opened on its own (not as a group: seven events need not fit the PMU
 * together) and scaled by its own time enabled / running, with the
 * thread's CPU time. Or, when COUNTERLAB_HOST_REPLAY names a file,
 * recorded samples in its place: machines without a hardware PMU (CI,
 * most VMs) can run the same path on counts recorded elsewhere.
 *
 * Replay file: '#' comments, then a header naming the columns (cpu_ns and
 * any of the quantity names: instructions, branches, ...), then one line
 * of cumulative counts per sample, never decreasing. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "counterlab/backend.h"
#include "lx.h"
#include "perf.h"
#include "../../sim_backends/activity/emulated.h"

struct clab_host_sampler {
	int fd[CLAB_HQ_N];           /* -1: not counted */
	clab_host_sample *replay;    /* recorded samples, or NULL */
	int nreplay, next;
	const volatile clab_emu_slot *emu; /* activity = emulated: the thread's slot */
};

/* ---- replay files ----------------------------------------------------------- */

static int column_of(const char *name, size_t len)
{
	if (len == 6 && strncmp(name, "cpu_ns", 6) == 0)
		return CLAB_HQ_N;
	for (int q = 0; q < CLAB_HQ_N; q++)
		if (strlen(clab_hq_name[q]) == len && strncmp(clab_hq_name[q], name, len) == 0)
			return q;
	return -1;
}

int clab_host_replay_parse(const char *text, const char *what,
			   clab_host_sample **out, int *nout)
{
	int col[CLAB_HQ_N + 1], ncol = 0, line = 0, n = 0, cap = 0, rc = CLAB_OK;
	uint64_t have = 0;
	clab_host_sample *v = NULL;
	const char *p = text;
	while (*p && !rc) {
		line++;
		size_t len = strcspn(p, "\n");
		const char *end = p + len, *s = p;
		p = *end ? end + 1 : end;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end || *s == '#')
			continue;
		if (!ncol) { /* the header */
			int seen_cpu = 0;
			while (s < end && !rc) {
				size_t l = strcspn(s, " \t\n");
				if (l > (size_t)(end - s))
					l = (size_t)(end - s);
				int c = column_of(s, l);
				if (c < 0 || ncol == CLAB_HQ_N + 1 ||
				    (c == CLAB_HQ_N ? seen_cpu : (int)(have >> c & 1)))
					rc = clab_seterr(CLAB_E_PARSE,
							 "%s:%d: column '%.*s' is %s (columns: cpu_ns, instructions, "
							 "branches, branch_misses, loads, stores, l1d_load_misses, "
							 "llc_misses, fp, each once)", what, line, (int)l, s,
							 c < 0 ? "unknown" : "repeated");
				else if (c == CLAB_HQ_N)
					seen_cpu = 1;
				else
					have |= UINT64_C(1) << c;
				col[ncol++] = c;
				s += l;
				while (s < end && (*s == ' ' || *s == '\t'))
					s++;
			}
			if (!rc && !seen_cpu)
				rc = clab_seterr(CLAB_E_PARSE, "%s:%d: the header has no cpu_ns column",
						 what, line);
			continue;
		}
		if (n == cap) {
			clab_host_sample *w = realloc(v, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *v);
			if (!w) {
				rc = CLAB_E_NOMEM;
				break;
			}
			v = w;
		}
		clab_host_sample *smp = &v[n];
		memset(smp, 0, sizeof *smp);
		smp->have = have;
		for (int c = 0; c < ncol && !rc; c++) {
			char *e;
			errno = 0;
			unsigned long long x = strtoull(s, &e, 10);
			if (e == s || errno || *s == '-' || (e < end && *e != ' ' && *e != '\t'))
				rc = clab_seterr(CLAB_E_PARSE,
						 "%s:%d: field %d is not a whole number below 2^64",
						 what, line, c + 1);
			else if (col[c] == CLAB_HQ_N)
				smp->cpu_ns = x;
			else
				smp->q[col[c]] = x;
			s = e;
			while (s < end && (*s == ' ' || *s == '\t'))
				s++;
		}
		if (!rc && s != end)
			rc = clab_seterr(CLAB_E_PARSE, "%s:%d: more fields than the header's %d",
					 what, line, ncol);
		if (!rc && n) { /* cumulative: never back */
			const clab_host_sample *prev = &v[n - 1];
			int back = smp->cpu_ns < prev->cpu_ns;
			for (int q = 0; q < CLAB_HQ_N; q++)
				back |= smp->q[q] < prev->q[q];
			if (back)
				rc = clab_seterr(CLAB_E_PARSE,
						 "%s:%d: a count went back (samples are cumulative)",
						 what, line);
		}
		n += !rc;
	}
	if (!rc && !n)
		rc = clab_seterr(CLAB_E_PARSE, "%s: no samples (a header, then one line per sample)",
				 what);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*nout = n;
	return CLAB_OK;
}

/* ---- the sampler ------------------------------------------------------------ */

static int open_counter(const char *event)
{
	struct perf_event_attr a;
	if (clab_perf_encode(event, "user", &a))
		return -1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int clab_host_sampler_open(int emulated, const char *fp_event, clab_host_sampler **out)
{
	clab_host_sampler *s = calloc(1, sizeof *s);
	if (!s)
		return CLAB_E_NOMEM;
	for (int q = 0; q < CLAB_HQ_N; q++)
		s->fd[q] = -1;
	if (emulated) {
		int rc = clab_emu_attach(&s->emu);
		if (rc) {
			free(s);
			return rc;
		}
		*out = s;
		return CLAB_OK;
	}
	const char *replay = getenv("COUNTERLAB_HOST_REPLAY");
	if (replay && *replay) {
		char *text;
		int rc = clab_lx_slurp(replay, &text, NULL);
		if (!rc) {
			rc = clab_host_replay_parse(text, replay, &s->replay, &s->nreplay);
			free(text);
		}
		if (rc) {
			free(s);
			return rc;
		}
		*out = s;
		return CLAB_OK;
	}
	for (int q = 0; q < CLAB_HQ_N; q++) {
		const char *ev = q == CLAB_HQ_FP ? fp_event : clab_hq_event[q];
		int err = 0;
		if (ev && (s->fd[q] = open_counter(ev)) < 0)
			err = errno;
		if (q == CLAB_HQ_INSTRUCTIONS && s->fd[q] < 0) {
			clab_host_sampler_close(s);
			const char *e = strerrorname_np(err);
			return clab_seterr(CLAB_E_NODEV,
					   "activity = host needs the host's hardware PMU, and the kernel "
					   "counts no %s here (%s: no hardware PMU, a VM?); "
					   "COUNTERLAB_HOST_REPLAY=FILE replays recorded counts instead",
					   clab_hq_event[q], e ? e : "refused");
		}
	}
	*out = s;
	return CLAB_OK;
}

int clab_host_sampler_read(clab_host_sampler *s, clab_host_sample *out)
{
	if (s->emu) {
		clab_emu_read(s->emu, out);
		return CLAB_OK;
	}
	if (s->replay) {
		*out = s->replay[s->next];
		if (s->next < s->nreplay - 1)
			s->next++;
		return CLAB_OK;
	}
	memset(out, 0, sizeof *out);
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	out->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (int q = 0; q < CLAB_HQ_N; q++) {
		uint64_t b[3]; /* value, time enabled, time running */
		if (s->fd[q] < 0)
			continue;
		if (read(s->fd[q], b, sizeof b) != (ssize_t)sizeof b)
			return clab_seterr(CLAB_E_SYS, "activity = host: read of %s: %s",
					   clab_hq_event[q] ? clab_hq_event[q] : "the FP event",
					   strerror(errno));
		out->q[q] = b[2] == 0 ? 0 : b[2] == b[1] ? b[0]
			  : (uint64_t)((unsigned __int128)b[0] * b[1] / b[2]);
		out->have |= UINT64_C(1) << q;
	}
	return CLAB_OK;
}

void clab_host_sampler_resume(clab_host_sampler *s)
{
	if (s && s->emu)
		clab_emu_pause(0);
}

void clab_host_sampler_close(clab_host_sampler *s)
{
	if (!s)
		return;
	for (int q = 0; q < CLAB_HQ_N; q++)
		if (s->fd[q] >= 0)
			close(s->fd[q]);
	free(s->replay);
	free(s);
}
