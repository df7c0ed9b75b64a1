/* The call guard. Library calls that take locks run between clab_enter and
 * clab_leave, which keep the calling thread's depth of library calls.
 *
 * A signal may interrupt a call anywhere, and its handler may call us
 * again: a sampling profiler reads its counters from SIGPROF. The call it
 * interrupted may hold any of our locks and cannot go on before the
 * handler returns, so the nested call must not wait for one. clab_enter
 * says when a call interrupted another of its own thread; reads then
 * answer from the set's last completed values and calls that need locks
 * are refused (evset.c). Other threads' calls are no concern: their locks
 * are let go of. Blocking signals around every call instead would cost
 * about 280 ns a call, several reads' worth.
 *
 * The library never calls its own guarded entry points from inside a
 * guarded call, so any other nesting came from a signal, except where the
 * thread is known to hold no lock: the overflow engine runs the program's
 * handler at such a depth (clab_guard_open), and calls from there take
 * locks as usual.
 *
 * Work that must wait for the outermost call's end (overflow delivery)
 * registers with clab_guard_at_leave and asks for its turn with
 * clab_guard_due.
 *
 * Under emulation (clab_guard_set_pause, per thread) the thread's
 * instructions stop counting from its outermost call's start to its end,
 * and while the overflow engine works in a signal; the program's handler,
 * which the library runs from inside (open, suspend), counts. */
#include "internal.h"

/* What every call touches is initial-exec TLS (internal.h, where enter and
 * leave are inline): no __tls_get_addr on the read path (a few bytes, within
 * the static TLS that glibc keeps for libraries loaded with dlopen). Shared
 * with signal handlers of the same thread: volatile. */
CLAB_CALL_TLS clab_call_state clab_call;

void clab_guard_set_pause(void (*pause)(int on))
{
	clab_call.pause = pause;
	clab_call.due |= CLAB_DUE_PAUSE;
}

void clab_guard_pause(int on)
{
	if (clab_call.due & CLAB_DUE_PAUSE)
		clab_call.pause(on);
}

static void (*at_leave)(void *pc);

void clab_leave_due(void)
{
	int due = clab_call.due;
	clab_call.due = due & CLAB_DUE_PAUSE;
	clab_guard_pause(0); /* (first: a signal the end's work sends counts as the program's) */
	if ((due & CLAB_DUE_WORK) && at_leave)
		at_leave(clab_call.caller_pc);
}

int clab_guard_depth(void) { return clab_call.depth; }

/* The overflow engine's own work in a signal: a call deep, without the
 * outermost call's end. */
void clab_guard_hold(void)
{
	clab_call.depth++;
	clab_guard_pause(1);
}

/* (out of the call first: a signal that comes as counting resumes is
 * handled now, not deferred to the thread's next call) */
void clab_guard_unhold(void)
{
	clab_call.depth--;
	clab_guard_pause(0);
}

/* A signal sent to this thread from inside a call (the overflow engine
 * delivering at once where a unit let go of its locks) is handled as if
 * outside any call; resume puts the call back. */
clab_guard_state clab_guard_suspend(void)
{
	clab_guard_state st = {clab_call.depth, clab_call.open_at};
	clab_call.depth = 0;
	clab_call.open_at = 0;
	clab_guard_pause(0); /* the program's handler runs: its work counts */
	return st;
}

void clab_guard_resume(clab_guard_state st)
{
	clab_guard_pause(1);
	clab_call.depth = st.depth;
	clab_call.open_at = st.open_at;
}

void clab_guard_due(void) { clab_call.due |= CLAB_DUE_WORK; }

void clab_guard_at_leave(void (*fn)(void *pc)) { at_leave = fn; }

/* (the program's handler runs from here: its work counts) */
int clab_guard_open(void)
{
	int was = clab_call.open_at;
	clab_call.open_at = clab_call.depth;
	clab_guard_pause(0);
	return was;
}

void clab_guard_close(int was)
{
	clab_guard_pause(1);
	clab_call.open_at = was;
}

int clab_guard_refuse(const char *what)
{
	return clab_seterr(CLAB_E_STATE,
			   "%s from a signal handler that interrupted a counterlab call of the same thread: that call may hold the locks it needs (only reads, accum and reset are answered there)",
			   what);
}
