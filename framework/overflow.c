/* Overflow delivery. A unit notes an interrupt with clab_overflow_raise
 * (under its locks); the framework sends the overflow signal to the thread
 * that owns the set, at once when that is another thread (as a node-wide
 * counter's interrupt reaches its thread whatever the others do), at the
 * end of the library call when it is this one; in that thread
 * clab_overflow_dispatch runs the set's handler with the unit stopped
 * (fast units froze it at the interrupt already, slow units count until
 * here), then lets the unit count again and re-arm.
 *
 * A signal arriving inside a library call (guard.c) is deferred to the
 * call's end, so a handler never runs under a library lock; the handler
 * runs where the guard knows the thread holds none (open_handler), and
 * its own calls take locks as usual.
 *
 * Host clock: while a thread runs an armed set, a timer on its CPU clock
 * sends it the same signal every `timer_us` microseconds of CPU time; the
 * dispatch brings its simulated time up to date first, so overflows
 * interrupt a running program as the hardware's would. Under emulation
 * (activity = emulated) the emulator sends it instead, every `timer_us`
 * of the thread's simulated time: where the program is interrupted then
 * follows from what it executes, run after run. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "internal.h"
#include "../sim_backends/activity/emulated.h"

#define ARMED_MAX 256  /* armed event sets in the process */

struct clab_ovf {
	uint64_t period[CLAB_EVSET_MAX]; /* per event; 0: not armed */
	clab_overflow_handler fn; /* open_handler, which calls user_fn */
	clab_overflow_handler user_fn;
	void *arg;
	uint64_t pending;   /* requests raised, not yet delivered (atomic) */
	int registered;     /* in the process's table of armed sets */
	int timed;          /* holds its thread's host-clock timer */
	pid_t timer_tid;    /* the OS thread whose timer it holds */
};

/* The signal is process-wide, so is the table of sets it may concern. */
static struct {
	pthread_mutex_t lock;
	clab_evset *set[ARMED_MAX];
	int n;
} armed = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

/* Shared with the signal handler of the same thread: volatile, or the
 * compiler may drop stores it cannot see a reader for. */
static __thread volatile int deferred;    /* a signal came inside a call */
static __thread void (*volatile later)(void *pc); /* clab_signal_defer */
static __thread int raised_self; /* a set of this thread raised within this call */
static __thread volatile int dispatching; /* inside clab_overflow_dispatch */
static __thread volatile int self_signal; /* the signal was sent by this thread */
static __thread void *signal_uc;  /* the context of the signal being dispatched */
/* what sends this thread its ticks */
enum { TICK_NONE, TICK_CPU, TICK_EMULATOR };
static __thread struct {
	timer_t id;
	int users;
	int source;
} timer;

int clab_overflow_signal(void) { return SIGRTMIN + 3; }

static void *pc_of(void *uc)
{
	if (!uc)
		return NULL;
	const ucontext_t *u = uc;
#if defined(__x86_64__)
	return (void *)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (void *)u->uc_mcontext.pc;
#else
	(void)u;
	return NULL;
#endif
}

/* (not cached: a forked child's thread has the parent's thread-locals) */
static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Sends this thread the signal for its own sets raised within the call. */
static void signal_self(void)
{
	if (!raised_self)
		return;
	raised_self = 0;
	self_signal++;
	syscall(SYS_tgkill, getpid(), my_tid(), clab_overflow_signal());
	self_signal--;
}

/* The armed sets this thread owns that have interrupts pending, or that
 * hold its host-clock timer. */
static int my_sets(clab_evset **mine, int timed)
{
	int n = 0;
	pthread_t self = pthread_self();
	pthread_mutex_lock(&armed.lock);
	for (int i = 0; i < armed.n; i++) {
		clab_evset *s = armed.set[i];
		if (s->t->attached && pthread_equal(s->t->owner, self) &&
		    (timed ? s->ovf->timed
			   : __atomic_load_n(&s->ovf->pending, __ATOMIC_ACQUIRE) != 0))
			mine[n++] = s;
	}
	pthread_mutex_unlock(&armed.lock);
	return n;
}

/* Runs the handlers of this thread's sets with pending interrupts. */
static void deliver(void *uc)
{
	clab_evset *mine[ARMED_MAX];
	int n = my_sets(mine, 0);
	void *pc = uc && !self_signal ? pc_of(uc) : clab_call.caller_pc, *at = NULL;
	for (int i = 0; i < n; i++) {
		clab_evset *s = mine[i];
		uint64_t reqs = __atomic_exchange_n(&s->ovf->pending, 0, __ATOMIC_ACQ_REL);
		uint64_t vector = 0;
		for (int e = 0; e < s->n; e++)
			if (s->ovf->period[e] && (reqs >> s->ev[e].req[0] & 1))
				vector |= 1ull << e;
		if (!vector || !s->running)
			continue; /* stopped since: nothing to say */
		const clab_unit_ops *ops = s->c->ops;
		ops->handler(s->c->unit, s->bset, 1);
		if (!at) /* the program's PC, walked to when first needed */
			at = clab_callsite(pc);
		s->ovf->fn(s, vector, at, uc, s->ovf->arg);
		ops->handler(s->c->unit, s->bset, 0);
		/* the unit raised again as it restarted (an interrupt already
		 * due): the handler's next call is now */
		if (__atomic_load_n(&s->ovf->pending, __ATOMIC_ACQUIRE) && s->running)
			i--;
	}
}

/* Host clock: the thread's running armed sets catch up with its CPU time.
 * Their units raise what overflowed on the way (and flush, which delivers
 * at once since we are dispatching). */
static void sync_host(void)
{
	clab_evset *mine[ARMED_MAX];
	int n = my_sets(mine, 1);
	for (int i = 0; i < n; i++) {
		clab_machine *m = mine[i]->t->machine;
		if (m->sim_ops && m->sim_ops->sync)
			m->sim_ops->sync(m->sim, mine[i]->t->hwthread);
		clab_evset_poll(mine[i]); /* a multiplexed set's turn may be over */
		const clab_unit_ops *ops = mine[i]->c->ops;
		if (ops->poll && !mine[i]->drv && mine[i]->running)
			ops->poll(mine[i]->c->unit, mine[i]->bset); /* real counters */
	}
}

void clab_overflow_dispatch(void *uc)
{
	if (clab_guard_depth()) {
		deferred = 1;
		clab_guard_due();
		return;
	}
	int saved = errno;
	clab_guard_hold();
	dispatching++;
	void *outer_uc = signal_uc;
	signal_uc = uc;
	if (!self_signal)
		sync_host();
	do { /* and the sets a handler's own calls raised */
		raised_self = 0;
		deliver(uc);
	} while (raised_self);
	signal_uc = outer_uc;
	dispatching--;
	clab_guard_unhold();
	errno = saved;
}

/* The outermost library call's end (guard.c): what waited for it. */
static void end_of_call(void *pc)
{
	int again = deferred;
	deferred = 0;
	signal_self();
	if (again)
		clab_overflow_dispatch(NULL);
	void (*fn)(void *) = later;
	later = NULL;
	if (fn)
		fn(pc);
}

int clab_signal_defer(void (*fn)(void *pc))
{
	if (!clab_guard_depth())
		return 0;
	later = fn;
	clab_guard_due();
	return 1;
}

void clab_overflow_raise(void *cookie, uint64_t reqs)
{
	clab_evset *s = cookie;
	uint64_t was = __atomic_fetch_or(&s->ovf->pending, reqs, __ATOMIC_ACQ_REL);
	if (s->t->tid == my_tid()) {
		raised_self = 1;
		clab_guard_due();
	} else if (!was) { /* (else a signal is on its way: it takes these too) */
		syscall(SYS_tgkill, getpid(), s->t->tid, clab_overflow_signal());
	}
}

void clab_overflow_flush(void)
{
	if (!raised_self)
		return;
	if (dispatching) { /* we are the handler's thread, in its signal */
		raised_self = 0;
		deliver(signal_uc);
		return;
	}
	clab_guard_state st = clab_guard_suspend();
	signal_self();
	clab_guard_resume(st);
}

static void default_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	clab_overflow_dispatch(uc);
}

/* Our handler, unless the program (or PAPI) installed its own. */
static int install_handler(void)
{
	struct sigaction old, sa;
	int sig = clab_overflow_signal();
	if (sigaction(sig, NULL, &old) < 0)
		return clab_seterr(CLAB_E_SYS, "sigaction(%d): %s", sig, strerror(errno));
	if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
		return CLAB_OK;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = default_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0)
		return clab_seterr(CLAB_E_SYS, "sigaction(%d): %s", sig, strerror(errno));
	return CLAB_OK;
}

/* The signal finds armed sets in this table only: one it cannot hold
 * would never be delivered, so arming it is refused. */
static int registry_add(clab_evset *s)
{
	int rc = CLAB_OK;
	pthread_mutex_lock(&armed.lock);
	if (!s->ovf->registered && armed.n < ARMED_MAX) {
		armed.set[armed.n++] = s;
		s->ovf->registered = 1;
	} else if (!s->ovf->registered) {
		rc = clab_seterr(CLAB_E_CONFLICT,
				 "%d event sets are armed for overflow or multiplexed on the host clock in this process, the most it can deliver to; disarm or destroy one first",
				 ARMED_MAX);
	}
	pthread_mutex_unlock(&armed.lock);
	return rc;
}

static void registry_remove(clab_evset *s)
{
	pthread_mutex_lock(&armed.lock);
	for (int i = 0; i < armed.n; i++)
		if (armed.set[i] == s) {
			armed.set[i] = armed.set[--armed.n];
			break;
		}
	s->ovf->registered = 0;
	pthread_mutex_unlock(&armed.lock);
}

static int any_armed(const clab_evset *s)
{
	for (int e = 0; e < s->n; e++)
		if (s->ovf->period[e])
			return 1;
	return 0;
}

int clab_ovf_armed(const clab_evset *s)
{
	return s->ovf && any_armed(s);
}

static int check_event(clab_evset *s, int i)
{
	clab_component *c = s->c;
	if (i < 0 || i >= s->n)
		return clab_seterr(CLAB_E_INVAL, "event set of %s has no event %d", c->name, i);
	if (s->mpx)
		return clab_seterr(CLAB_E_NOSUPP,
				   "the %s set is multiplexed: its groups take turns, so an event cannot interrupt on time; turn multiplexing off to arm overflow",
				   c->name);
	if (c->desc.overflow == CLAB_OVF_NONE || !c->ops->overflow)
		return clab_seterr(CLAB_E_NOSUPP,
				   "%s counters cannot interrupt on overflow (%s); count them and read instead",
				   c->name, c->desc.description);
	if (s->ev[i].nterms != 1 || s->ev[i].derived != CLAB_NOT_DERIVED)
		return clab_seterr(CLAB_E_NOSUPP,
				   "event %d of the %s set is derived from %d counters; only an event counted by one counter can overflow",
				   i, c->name, s->ev[i].nterms);
	return CLAB_OK;
}

/* The program's handler runs with none of the thread's locks held (a
 * delivery waits for the end of the library call it came in, or the unit
 * let go of its locks first): calls it makes may take them. */
static void open_handler(clab_evset *s, uint64_t vector, void *pc, void *uc, void *arg)
{
	int was = clab_guard_open();
	s->ovf->user_fn(s, vector, pc, uc, arg);
	clab_guard_close(was);
}

#define PERIOD_MAX (1ull << 63)

static int overflow_locked(clab_evset *s, int i, uint64_t period,
			   clab_overflow_handler h, void *arg)
{
	if (!s || (period && !h))
		return clab_seterr(CLAB_E_INVAL, "evset_overflow: NULL %s", s ? "handler" : "set");
	if (s->running)
		return clab_seterr(CLAB_E_STATE, "cannot arm overflow on a running event set");
	int rc = check_event(s, i);
	if (rc)
		return rc;
	if (period > PERIOD_MAX)
		return clab_seterr(CLAB_E_INVAL,
				   "overflow period %llu is out of range: 1 .. 2^63 (0 disarms)",
				   (unsigned long long)period);
	if (!s->ovf && !(s->ovf = calloc(1, sizeof *s->ovf)))
		return CLAB_E_NOMEM;
	if (period && s->ovf->user_fn && s->ovf->user_fn != h && any_armed(s))
		return clab_seterr(CLAB_E_INVAL,
				   "the armed events of a set share one handler; disarm them first to change it");
	if (period && (rc = install_handler()))
		return rc;
	if (period && (rc = registry_add(s)))
		return rc;
	rc = s->c->ops->overflow(s->c->unit, s->bset, s->ev[i].req[0], period, s);
	if (rc) {
		if (!any_armed(s))
			registry_remove(s);
		return rc;
	}
	s->ovf->period[i] = period;
	if (period) {
		s->ovf->fn = open_handler;
		s->ovf->user_fn = h;
		s->ovf->arg = arg;
	} else if (!any_armed(s)) {
		registry_remove(s);
	}
	return CLAB_OK;
}

int clab_evset_overflow(clab_evset *s, int i, uint64_t period,
			clab_overflow_handler h, void *arg)
{
	if (CLAB_ENTER())
		return clab_leave(clab_guard_refuse("arming overflow"));
	return clab_leave(overflow_locked(s, i, period, h, arg));
}

uint64_t clab_evset_overflow_period(const clab_evset *s, int i)
{
	return s && s->ovf && i >= 0 && i < s->n ? s->ovf->period[i] : 0;
}

/* evset.c reprogrammed s: events keep their arming by position when the
 * same event is still there, else it goes. */
static int ovf_programmed(clab_evset *s)
{
	if (!s->ovf)
		return CLAB_OK;
	for (int e = 0; e < s->n; e++) {
		uint64_t p = s->ovf->period[e];
		if (!p)
			continue;
		int rc = check_event(s, e);
		if (!rc)
			rc = s->c->ops->overflow(s->c->unit, s->bset, s->ev[e].req[0], p, s);
		if (rc)
			s->ovf->period[e] = 0;
	}
	for (int e = s->n; e < CLAB_EVSET_MAX; e++)
		s->ovf->period[e] = 0;
	if (!any_armed(s))
		registry_remove(s);
	return CLAB_OK;
}

static void ovf_stopped(clab_evset *s);

static void ovf_destroyed(clab_evset *s)
{
	if (!s->ovf)
		return;
	ovf_stopped(s);
	registry_remove(s);
	free(s->ovf);
	s->ovf = NULL;
}

/* The ticks s needs: the thread's CPU clock on the host clock or the host
 * itself (its counters are real), the emulator's under emulation; the
 * virtual clock moves only when the program calls. */
static int tick_source(const clab_evset *s)
{
	const char *act = clab_machine_setting(s->t->machine, "activity");
	if (act && strcmp(act, "emulated") == 0)
		return TICK_EMULATOR;
	const char *clock = clab_machine_setting(s->t->machine, "clock");
	return s->t->machine->host || (clock && strcmp(clock, "host") == 0) ? TICK_CPU : TICK_NONE;
}

/* A timer on the calling thread's CPU clock, every us microseconds */
static int start_cpu_timer(uint64_t us)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = clab_overflow_signal();
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer.id) < 0)
		return -1;
	struct itimerspec it = {
		.it_interval = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000},
		.it_value = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000},
	};
	timer_settime(timer.id, 0, &it, NULL);
	return 0;
}

/* Armed and multiplexed sets need ticks while the program runs: the one
 * to interrupt on time, the other to take turns. */
static void ovf_started(clab_evset *s)
{
	int source = tick_source(s);
	if (!(clab_ovf_armed(s) || s->mpx) || !source)
		return;
	if (!s->ovf && !(s->ovf = calloc(1, sizeof *s->ovf)))
		return; /* then turns and overflows show at reads only */
	if (s->ovf->timed || install_handler() || registry_add(s))
		return; /* (a full table: turns at reads only) */
	if (timer.users == 0) {
		uint64_t us = CLAB_TIMER_US; /* checked when the machine opened */
		clab_machine_setting_u64(s->t->machine, "timer_us", CLAB_TIMER_US, 10,
					 1000000, &us);
		if (source == TICK_EMULATOR) {
			uint64_t mhz = s->c->desc.clock_mhz ? s->c->desc.clock_mhz : 1000;
			clab_emu_timer(us * mhz, clab_overflow_signal());
		} else if (start_cpu_timer(us)) {
			return; /* overflows then show at reads only */
		}
		timer.source = source;
	}
	timer.users++;
	s->ovf->timed = 1;
	s->ovf->timer_tid = (pid_t)syscall(SYS_gettid);
}

static void ovf_stopped(clab_evset *s)
{
	if (!s->ovf || !s->ovf->timed)
		return;
	s->ovf->timed = 0;
	if (!any_armed(s))
		registry_remove(s);
	/* the timer is its thread's: another thread (cleaning up after one
	 * that exited) leaves it alone */
	if (s->ovf->timer_tid != (pid_t)syscall(SYS_gettid) || --timer.users)
		return;
	if (timer.source == TICK_EMULATOR)
		clab_emu_timer(0, 0);
	else
		timer_delete(timer.id);
}

static const clab_evset_hooks ovf_hooks = {
	.programmed = ovf_programmed,
	.started = ovf_started,
	.stopped = ovf_stopped,
	.destroyed = ovf_destroyed,
};

/* A forked child has no POSIX timers of its parent: its thread starts
 * with none (the inherited sets' holds on them are dropped as they stop). */
static void ovf_fork_child(void)
{
	timer.users = 0;
	pthread_mutex_init(&armed.lock, NULL);
}

/* evset.c calls what overflow needs to hear through these, and the
 * guard what waits for a call's end */
__attribute__((constructor)) static void ovf_register(void)
{
	clab_evset_hook(&ovf_hooks);
	clab_guard_at_leave(end_of_call);
	pthread_atfork(NULL, NULL, ovf_fork_child);
}
