/* libbgpm: IBM's BGPM API as a thin layer over libcounterlab. A BGPM event
 * set is a list of event ids with their attributes until Bgpm_Apply (or
 * Bgpm_Attach for the network unit) turns it into one counterlab event set
 * on the caller's simulated hardware thread; from then on every count
 * comes from that set, as for the PAPI components. Network events are
 * counted once per attached link (so single links can be read), L2 _SLICE
 * events once per slice. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "counterlab/counterlab.h"
#include "counterlab/sim.h"
#include "bgpm/include/bgpm.h"
#include "spi.h"

struct bgpm_idfact {
	const char *label;
	int unit;  /* BgpmUnitTypes */
	int scope; /* UPC_EventScope_t */
	int edge;  /* counts edges (1) or cycles (0) */
	uint32_t sel;
};
#include "bgpm_table.h"

#define MAX_SETS 1024
#define APP_HW 64              /* application hardware threads */
#define MAX_EVENTS 64          /* BGPM events in one set */
#define NW_LINKS UPC_NW_NUM_LINKS
#define L2_SLICES UPC_L2_NUM_SLICES

static const char *const unit_comp[] = {NULL, "core", "l2", "io", "network", "kernel"};
static const char *const unit_name[] = {"undefined", "Punit", "L2", "I/O", "network", "CNK"};

typedef struct bgpm_event {
	unsigned id;
	uint64_t user1, user2;
	uint64_t mask;       /* XU or QFPU opcode-group mask (mask events) */
	unsigned vc;         /* network VC mask of a generic event, 0: all */
	uint64_t period;     /* overflow period, 0: none */
	int invert;          /* counts where the signal is low (A2 unit events) */
	int count_fp;        /* QFPU events: floating-point operations, not instructions */
	int first, nreq;     /* its counterlab events: first, how many */
	int64_t offset[L2_SLICES]; /* Bgpm_WriteEvent / L2_WriteEvent, per counterlab event */
} bgpm_event;

typedef struct bgpm_set {
	unsigned handle;
	pthread_t owner;
	clab_thread *thread;
	int unit;
	int n;
	bgpm_event ev[MAX_EVENTS];
	uint64_t user1, user2;
	int ctx;             /* Bgpm_Context, resolved */
	int frozen, running; /* applied (or attached) */
	int started;         /* counterlab's set has counts to read */
	unsigned links;      /* network: attached links, BGPM's mask bits */
	int l2_slice;        /* L2: -1 undecided, 0 combined, 1 per slice */
	int mux, normalize;
	uint64_t mux_period;
	unsigned mux_max;
	uint64_t lone_switches; /* Bgpm_SwitchMux on a one-group set */
	int hwmode;          /* hardware-distributed Punit set: counts its targets */
	uint64_t targets;    /* of a hwmode set: hardware threads, bit 63-h */
	clab_evset *hwcs[APP_HW]; /* of a hwmode set: one per target, once placed */
	clab_thread *hwthr[APP_HW]; /* the thread each of hwcs counts */
	int64_t (*banked)[CLAB_EVSET_MAX_EVENTS]; /* [APP_HW]: of threads that left a target */
	uint64_t idle[APP_HW];    /* cycles counted for a target no thread ran on */
	uint64_t run_since;       /* the controller's clock at the start */
	int cyc_req;         /* hidden cycles of inverted events, -1: none */
	int l2_ref;          /* holds a reference on the node's L2 mode */
	unsigned link_ctl;   /* network: attached links this set controls */
	uint16_t xu_match, xu_mask, qfpu_match, qfpu_mask;
	ushort qfpu_scale, sqrt_scale, div_scale;
	unsigned rsv;        /* RSV_* the set reserves on its core */
	char *feedback;      /* Bgpm_SetThreadFeedbackBuffer */
	int feedback_size;
	Bgpm_OverflowHandler_t handler;
	clab_evset *cs;
	int nreq;
	uint32_t codes[CLAB_EVSET_MAX_EVENTS]; /* its counterlab events, as planned */
} bgpm_set;

typedef struct bgpm_tls {
	int inited, mode;
	clab_thread *thread;
	int print, exitflag, flags_set, dump;
	int last_err;
	char last_msg[512];
} bgpm_tls;

static __thread bgpm_tls me;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bgpm_set *sets[MAX_SETS];
static clab_machine *machine;
static int proc_mode, proc_inits;     /* the process's mode, threads in it */
static int l2_refs, l2_combined;      /* L2 sets, and the mode the first fixed */
static bgpm_set *link_ctl[UPC_NW_NUM_LINKS]; /* the set that controls each link */
static int link_refs[UPC_NW_NUM_LINKS];
static clab_thread *placed_at[APP_HW]; /* threads libbgpm placed, by hardware thread */

/* ---- errors ------------------------------------------------------------- */

const char *Bgpm_ErrorString(int rc)
{
	switch (rc) {
	case BGPM_EOK: return "success";
	case BGPM_EINTERNAL: return "internal error";
	case BGPM_ENOTIMPL: return "operation or mode not implemented";
	case BGPM_EINV_EVENT: return "invalid event";
	case BGPM_EINV_PARM: return "invalid parameter";
	case BGPM_ENOT_INIT: return "thread has not called Bgpm_Init";
	case BGPM_ERESERVED: return "resource reserved by another user";
	case BGPM_ESIGRESERVED: return "the event's core signal is taken";
	case BGPM_ECTRRESERVED: return "counters needed by the event are taken";
	case BGPM_EL1PMODERESERVED: return "the core's L1p mode is set otherwise";
	case BGPM_ETHRDCORE_MISMATCH: return "thread and core do not agree";
	case BGPM_ESYSCALL_DATASIZE: return "system call data size mismatch";
	case BGPM_ESYSCALL_NOTIMPL: return "system call not implemented";
	case BGPM_ESYSCALL_INVALID: return "invalid system call";
	case BGPM_ESYSCALL_RETRY: return "system call must be retried";
	case BGPM_EMODE_MISMATCH: return "counting mode does not match the node's";
	case BGPM_EMODE_MISMATCH_UNIT: return "counting mode does not match the unit's";
	case BGPM_EINV_EVT_IDX: return "no event at this index of the set";
	case BGPM_EINV_OVF: return "overflow period must be below 2^63";
	case BGPM_ERESERVED1: return "reserved code";
	case BGPM_EINV_OPCTRMODE: return "invalid opcode counting mode";
	case BGPM_EINV_UKVER_MISMATCH: return "library and kernel versions differ";
	case BGPM_ETHD_CTRS_RSV: return "the thread's counters are taken";
	case BGPM_ECSEVT_REQALLTHDS: return "core-shared event needs all four thread counter groups";
	case BGPM_EINITED: return "thread already initialized";
	case BGPM_EHWINITED: return "hardware-distributed mode already initialized";
	case BGPM_ECONF_MODE: return "mode differs from the one the process uses";
	case BGPM_ENOMEM: return "out of memory";
	case BGPM_EINV_SET_HANDLE: return "invalid event set handle";
	case BGPM_EEVT_SET_UNASSIGNED: return "event set has no unit yet (no events)";
	case BGPM_ECONF_UNIT: return "event belongs to another unit than the set's";
	case BGPM_EXHAUSTED: return "no resources left to add the event";
	case BGPM_EINV_ATTRIB: return "invalid attribute";
	case BGPM_EINV_ATTRIB_VAL: return "invalid attribute value";
	case BGPM_EUNSUP_ATTRIB: return "attribute not supported by this event";
	case BGPM_EUNSUP_OVERFLOW: return "overflow not supported for this event";
	case BGPM_ENO_OVERFLOW: return "no overflow set";
	case BGPM_EARRAY_TOO_SMALL: return "array too small";
	case BGPM_ENOT_MUXED: return "event set is not multiplexed";
	case BGPM_ECONF_L2_COMBINE: return "L2 combined and per-slice events cannot be mixed on the node";
	case BGPM_ENO_CONFIG: return "no events configured";
	case BGPM_ENOT_MASK_EVENT: return "event is not an opcode group mask event";
	case BGPM_ENOT_QFPU_INST_EVENT: return "event is not a QFPU instruction event";
	case BGPM_ENOT_EMPTY: return "event set not empty";
	case BGPM_EUNREC_EVTID: return "unrecognized event id";
	case BGPM_EINV_OP: return "operation invalid for this event set";
	case BGPM_ESHM_OPEN_ERR: return "shared memory could not be opened";
	case BGPM_ESWTHD_MOVED: return "software thread moved to another hardware thread";
	case BGPM_ENOT_APPLIED: return "event set is not applied or attached";
	case BGPM_EINV_L2_SLICE: return "invalid L2 slice";
	case BGPM_ETHD_COUNTS_RSV: return "the thread's counts are reserved";
	case BGPM_EINV_SUBNODE: return "invalid sub-node job configuration";
	case BGPM_EPRERSV_EXISTS: return "a pre-reservation exists already";
	case BGPM_ECTX_MISMATCH: return "context differs from the core's";
	case BGPM_EEVT_CTX_MISMATCH: return "event context differs from the set's";
	case BGPM_EES_FROZEN: return "event set frozen by apply or attach";
	case BGPM_EQFPU_RSV_MISMATCH: return "QFPU match differs from the core's";
	case BGPM_EXU_RSV_MISMATCH: return "XU match differs from the core's";
	case BGPM_ESQRT_SCALE_MISMATCH: return "square-root scale differs from the core's";
	case BGPM_EDIV_SCALE_MISMATCH: return "divide scale differs from the core's";
	case BGPM_ETHRES_MISMATCH: return "overflow threshold differs from the node's for this counter";
	case BGPM_ENOT_CONTROL_THREAD: return "only the thread that created the set controls it";
	case BGPM_EUPDATE_DISALLOWED: return "update not allowed while the set runs";
	case BGPM_EMAX_EVTSETS: return "too many event sets";
	case BGPM_ECTRS_IN_USE: return "counters held by another event set";
	case BGPM_ELINK_CTRS_INCOMPAT: return "link attached by another event set counting other events";
	case BGPM_ELONGDESC_CORRUPT: return "event description corrupt";
	case BGPM_EINV_WRT2OVF: return "cannot write an event armed for overflow";
	case BGPM_WALREADY_ATTACHED: return "warning: already attached";
	case BGPM_WNOT_ATTACHED: return "warning: not attached";
	case BGPM_WALREADY_STARTED: return "warning: already started";
	case BGPM_WALREADY_STOPPED: return "warning: already stopped";
	case BGPM_WEVTSET_STILL_USED: return "warning: event set still used";
	case BGPM_WNOT_LINK_CTL: return "warning: set controls no links";
	}
	return "unknown BGPM code";
}

/* IBM's name for it. */
const char *Bgpm_ErrStrg(int errnum) { return Bgpm_ErrorString(errnum); }

static void flags_init(void)
{
	if (me.flags_set)
		return;
	me.print = getenv("BGPM_NO_PRINT_ON_ERR") == NULL;
	me.exitflag = getenv("BGPM_NO_EXIT_ON_ERR") == NULL;
	me.flags_set = 1;
}

ushort Bgpm_PrintOnError(ushort val)
{
	flags_init();
	ushort old = (ushort)me.print;
	me.print = val != 0;
	return old;
}

ushort Bgpm_ExitOnError(ushort val)
{
	flags_init();
	ushort old = (ushort)me.exitflag;
	me.exitflag = val != 0;
	return old;
}

/* Every error leaves through here: printed and fatal unless switched off
 * (Bgpm_PrintOnError, Bgpm_ExitOnError, $BGPM_NO_PRINT_ON_ERR,
 * $BGPM_NO_EXIT_ON_ERR), as BGPM does. */
static int fail(int rc, const char *fn, const char *fmt, ...)
{
	flags_init();
	char why[sizeof me.last_msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	me.last_err = rc;
	snprintf(me.last_msg, sizeof me.last_msg, "%s", why);
	if (me.print)
		fprintf(stderr, "BGPM error %d (%s) in %s: %s\n", rc, Bgpm_ErrorString(rc), fn, why);
	if (me.dump)
		Bgpm_DumpEvtSetList(1);
	if (me.exitflag) {
		if (me.print)
			fprintf(stderr, "BGPM: exiting on error (Bgpm_ExitOnError, $BGPM_NO_EXIT_ON_ERR)\n");
		exit(EXIT_FAILURE);
	}
	return rc;
}

/* The thread's last error, kept until the next one (successes leave it). */
int Bgpm_LastErr(void) { return me.last_err; }

const char *Bgpm_LastErrStrg(void) { return me.last_err ? me.last_msg : Bgpm_ErrorString(BGPM_EOK); }

/* A counterlab error as the BGPM code that means the same. */
static int from_clab(int rc, int unit, const char *fn)
{
	int b = rc == CLAB_E_NOMEM ? BGPM_ENOMEM
		: rc == CLAB_E_CONFLICT ? (unit == BGPMUnitType_PUNIT ? BGPM_ECTRRESERVED
					   : unit == BGPMUnitType_L2 ? BGPM_ECONF_L2_COMBINE
					   : BGPM_ECTRS_IN_USE)
		: rc == CLAB_E_RATE ? BGPM_EXHAUSTED
		: rc == CLAB_E_NOSUPP ? BGPM_EINV_OP
		: rc == CLAB_E_STATE ? BGPM_EINV_OP
		: rc == CLAB_E_NOEVENT || rc == CLAB_E_QUALIFIER ? BGPM_EINV_EVENT
		: rc == CLAB_E_INVAL ? BGPM_EINV_PARM : BGPM_EINTERNAL;
	return fail(b, fn, "%s", clab_errmsg());
}

/* ---- init and event ids -------------------------------------------------- */

static int open_machine(void)
{
	pthread_mutex_lock(&lock);
	int rc = CLAB_OK;
	if (!machine && !(rc = clab_machine_default(&machine)))
		clab_callsite_library((const void *)open_machine); /* PCs: the program's */
	pthread_mutex_unlock(&lock);
	return rc;
}

static int mode_from_env(void)
{
	const char *v = getenv("BGPM_MODE");
	if (!v || !*v)
		return BGPM_MODE_SWDISTRIB;
	if (strstr(v, "LL") || !strcmp(v, "1"))
		return BGPM_MODE_LLDISTRIB;
	if (strstr(v, "HW") || !strcmp(v, "3"))
		return BGPM_MODE_HWDISTRIB;
	if (strstr(v, "SW") || !strcmp(v, "2"))
		return BGPM_MODE_SWDISTRIB;
	return -1;
}

int Bgpm_Init(Bgpm_Modes mode)
{
	if (me.inited)
		return fail(BGPM_EINITED, __func__, "this thread called Bgpm_Init already");
	int m = (int)mode;
	if (m == BGPM_MODE_DEFAULT && (m = mode_from_env()) < 0)
		return fail(BGPM_EINV_PARM, __func__, "$BGPM_MODE=%s is none of SWDISTRIB, LLDISTRIB, HWDISTRIB", getenv("BGPM_MODE"));
	if (m < 0 || m >= BGPM_MAX_MODES)
		return fail(BGPM_EINV_PARM, __func__, "mode %d is not a Bgpm_Modes value", (int)mode);
	int rc = open_machine();
	if (!rc && !bgpm_self()) /* the thread's place, kept from its first call */
		rc = CLAB_E_NOTHREAD;
	if (rc)
		return from_clab(rc, 0, __func__);
	/* one mode per process: the first thread's */
	pthread_mutex_lock(&lock);
	int other = proc_inits && proc_mode != m;
	if (!other) {
		proc_mode = m;
		proc_inits++;
	}
	pthread_mutex_unlock(&lock);
	if (other)
		return fail(BGPM_ECONF_MODE, __func__, "mode %d differs from mode %d, which the process's other threads use",
			    m, proc_mode);
	if ((rc = clab_thread_attach(machine, &me.thread))) {
		pthread_mutex_lock(&lock);
		proc_inits--;
		pthread_mutex_unlock(&lock);
		return from_clab(rc, 0, __func__);
	}
	me.inited = 1;
	me.mode = m;
	return BGPM_EOK;
}

int Bgpm_LibLinked(void) { return BGPM_TRUE; }

/* What a call needs of the set it names. */
enum { ANY_THREAD = 0, OWNER = 1, UNFROZEN = 3 /* the owner, before apply */ };

/* Set h and, when e is given, its event idx, if this thread may have them
 * as need says; otherwise NULL with *rc the (printed) error. */
static bgpm_set *find(unsigned h, unsigned idx, bgpm_event **e, int need, const char *fn, int *rc)
{
	if (!me.inited) {
		*rc = fail(BGPM_ENOT_INIT, fn, "call Bgpm_Init in this thread first");
		return NULL;
	}
	/* without the lock: an overflow handler calls here (IBM's examples
	 * ask which events overflowed), and its signal may have come while
	 * this thread held the lock */
	bgpm_set *s = h < MAX_SETS ? __atomic_load_n(&sets[h], __ATOMIC_ACQUIRE) : NULL;
	if (!s)
		*rc = fail(BGPM_EINV_SET_HANDLE, fn, "no event set has handle %u", h);
	else if (e && idx >= (unsigned)s->n)
		*rc = fail(BGPM_EINV_EVT_IDX, fn, "event set %u has %d events, no index %u", h, s->n, idx);
	else if ((need & OWNER) && !pthread_equal(s->owner, pthread_self()))
		*rc = fail(BGPM_ENOT_CONTROL_THREAD, fn, "event set %u belongs to another thread", h);
	else if ((need & UNFROZEN) == UNFROZEN && s->frozen)
		*rc = fail(BGPM_EES_FROZEN, fn, "event set %u is applied: its events and attributes are fixed", h);
	else {
		if (e)
			*e = &s->ev[idx];
		return s;
	}
	return NULL;
}

/* A call's first line: s (and e) for its set h (and event idx), or
 * return the error. */
#define FIND_SET(need)                                          \
	int rc;                                                 \
	bgpm_set *s = find(h, 0, NULL, (need), __func__, &rc);  \
	if (!s)                                                 \
		return rc
#define FIND_EVENT(need)                                        \
	int rc;                                                 \
	bgpm_event *e;                                          \
	bgpm_set *s = find(h, idx, &e, (need), __func__, &rc);  \
	if (!s)                                                 \
		return rc

static int null_arg(const char *fn) { return fail(BGPM_EINV_PARM, fn, "NULL pointer argument"); }

static int valid_id(unsigned id) { return id < BGPM_NIDS && bgpm_ids[id].label; }
static int is_reserved(unsigned id) { return id == PEVT_CNKPROC_RSV; }
static int is_slice_event(unsigned id) { return id >= PEVT_L2_HITS_SLICE && id <= PEVT_L2UNIT_LAST_EVENT; }
static int is_nw_generic(unsigned id) { return id >= PEVT_NW_SENT && id <= PEVT_NW_RECV_FIFO; }

/* As IBM's: every id up to PEVT_LAST_EVENT has a label, the reserved
 * PEVT_CNKPROC_RSV and PEVT_UNDEF (0) included; beyond it an error. */
const char *Bgpm_GetEventIdLabel(unsigned evtId)
{
	if (evtId == PEVT_UNDEF)
		return "PEVT_UNDEF";
	if (valid_id(evtId))
		return bgpm_ids[evtId].label;
	fail(BGPM_EINV_EVENT, __func__, "no event has id %u (ids end at %d)", evtId, PEVT_LAST_EVENT);
	return NULL;
}

/* As IBM's: labels match without regard to case, and an unknown label is
 * PEVT_UNDEF (0), not an error; a NULL label is. */
int Bgpm_GetEventIdFromLabel(const char *evtLabel)
{
	if (!evtLabel)
		return fail(BGPM_EINV_PARM, __func__, "NULL label");
	for (unsigned id = 1; id < BGPM_NIDS; id++)
		if (bgpm_ids[id].label && !strcasecmp(bgpm_ids[id].label, evtLabel))
			return (int)id;
	return PEVT_UNDEF;
}

/* The catalog's description of event id (the simulator's own words). */
static const char *descr_of(unsigned id)
{
	if (is_reserved(id))
		return "Reserved: no CNK process events are defined";
	if (open_machine())
		return NULL;
	clab_component *c = clab_machine_component(machine, unit_comp[bgpm_ids[id].unit]);
	uint32_t code;
	clab_event_info info;
	if (!c || clab_event_lookup(c, bgpm_ids[id].label, &code) ||
	    clab_event_get_info(c, code, &info))
		return NULL;
	return info.descr;
}

int Bgpm_GetLongDesc(unsigned evtId, char *pBuff, int *pLen)
{
	if (!valid_id(evtId)) /* IBM's code for an id beyond the table */
		return fail(BGPM_EUNREC_EVTID, __func__, "no event has id %u", evtId);
	if (!pBuff || !pLen || *pLen <= 0)
		return fail(BGPM_EINV_PARM, __func__, "need a buffer and its length");
	const char *d = descr_of(evtId);
	if (!d)
		return fail(BGPM_EINTERNAL, __func__, "no description: %s", clab_errmsg());
	int need = (int)strlen(d) + 1;
	snprintf(pBuff, (size_t)*pLen, "%s", d);
	if (need > *pLen) {
		*pLen = need;
		return fail(BGPM_EARRAY_TOO_SMALL, __func__, "the description needs %d bytes", need);
	}
	*pLen = need;
	return BGPM_EOK;
}

int Bgpm_GetEventIdInfo(unsigned evtId, Bgpm_EventInfo_t *p)
{
	if (!valid_id(evtId))
		return fail(BGPM_EINV_EVENT, __func__, "no event has id %u", evtId);
	if (!p)
		return fail(BGPM_EINV_PARM, __func__, "NULL info");
	const struct bgpm_idfact *f = &bgpm_ids[evtId];
	*p = (Bgpm_EventInfo_t){
		.evtId = evtId, .label = f->label, .desc = descr_of(evtId),
		.unitType = (BgpmUnitTypes)f->unit, .scope = (UPC_EventScope_t)f->scope,
		.metric = f->edge ? UPC_METRIC_COUNT : UPC_METRIC_CYCLE,
		.edge = (ushort)f->edge, .selVal = f->sel,
	};
	return BGPM_EOK;
}

/* ---- event sets ----------------------------------------------------------- */

static int context_from_env(void)
{
	const char *v = getenv("BGPM_CONTEXT");
	if (!v)
		return BGPM_CTX_BOTH;
	if (strstr(v, "KERNEL") || !strcmp(v, "1"))
		return BGPM_CTX_KERNEL;
	if (strstr(v, "USER") || !strcmp(v, "2"))
		return BGPM_CTX_USER;
	return BGPM_CTX_BOTH;
}

int Bgpm_CreateEventSet(void)
{
	if (!me.inited)
		return fail(BGPM_ENOT_INIT, __func__, "call Bgpm_Init in this thread first");
	bgpm_set *s = calloc(1, sizeof *s);
	if (!s)
		return fail(BGPM_ENOMEM, __func__, "no memory for an event set");
	s->owner = pthread_self();
	s->thread = me.thread;
	s->l2_slice = -1;
	s->cyc_req = -1;
	s->hwmode = me.mode == BGPM_MODE_HWDISTRIB;
	s->ctx = context_from_env();
	pthread_mutex_lock(&lock);
	unsigned h = 0;
	while (h < MAX_SETS && sets[h])
		h++;
	if (h < MAX_SETS) {
		s->handle = h;
		__atomic_store_n(&sets[h], s, __ATOMIC_RELEASE); /* (find reads it unlocked) */
	}
	pthread_mutex_unlock(&lock);
	if (h == MAX_SETS) {
		free(s);
		return fail(BGPM_EMAX_EVTSETS, __func__, "all %d event set handles are in use", MAX_SETS);
	}
	return (int)h;
}

static void unlink_links(bgpm_set *s);
static pthread_mutex_t hw_lock = PTHREAD_MUTEX_INITIALIZER; /* hwcs and placed_at */

int Bgpm_DeleteEventSet(unsigned h)
{
	FIND_SET(OWNER);
	if (s->cs)
		clab_evset_destroy(s->cs);
	unlink_links(s);
	pthread_mutex_lock(&lock);
	__atomic_store_n(&sets[h], NULL, __ATOMIC_RELEASE);
	l2_refs -= s->l2_ref;
	pthread_mutex_unlock(&lock);
	if (s->hwmode) { /* (another mode's set has no targets' sets) */
		pthread_mutex_lock(&hw_lock);
		for (int t = 0; t < APP_HW; t++)
			if (s->hwcs[t])
				clab_evset_destroy(s->hwcs[t]);
		pthread_mutex_unlock(&hw_lock);
	}
	free(s->banked);
	free(s);
	return BGPM_EOK;
}

int Bgpm_Disable(void)
{
	if (!me.inited)
		return fail(BGPM_ENOT_INIT, __func__, "call Bgpm_Init in this thread first");
	for (unsigned h = 0; h < MAX_SETS; h++) {
		pthread_mutex_lock(&lock);
		bgpm_set *s = sets[h];
		int mine = s && pthread_equal(s->owner, pthread_self());
		pthread_mutex_unlock(&lock);
		if (mine)
			Bgpm_DeleteEventSet(h);
	}
	clab_thread_detach(me.thread);
	me.inited = 0;
	me.thread = NULL;
	pthread_mutex_lock(&lock);
	proc_inits--;
	pthread_mutex_unlock(&lock);
	return BGPM_EOK;
}

/* The L1p mode an event needs (BGPMl1pMode_UNDEF: none). */
static int l1p_mode_of(unsigned id)
{
	const char *l = bgpm_ids[id].label;
	return !strncmp(l, "PEVT_L1P_SW_", 12) ? BGPMl1pMode_SWITCH
		: !strncmp(l, "PEVT_L1P_STRM_", 14) ? BGPMl1pMode_STREAM
		: !strncmp(l, "PEVT_L1P_LIST_", 14) ? BGPMl1pMode_LIST : BGPMl1pMode_UNDEF;
}

static int set_l1p_mode(const bgpm_set *s)
{
	for (int i = 0; i < s->n; i++)
		if (l1p_mode_of(s->ev[i].id))
			return l1p_mode_of(s->ev[i].id);
	return BGPMl1pMode_UNDEF;
}

/* The core's L1p counts in one mode: 0, or the handle of a set of the
 * core (this one or an applied one) that uses another than mode. */
static int l1p_conflict(const bgpm_set *s, int mode, unsigned *other)
{
	if (!mode)
		return 0;
	int mine = set_l1p_mode(s);
	if (mine && mine != mode) {
		*other = s->handle;
		return 1;
	}
	int core = clab_thread_hwthread(s->thread) / 4, found = 0;
	pthread_mutex_lock(&lock);
	for (unsigned h = 0; h < MAX_SETS && !found; h++) {
		const bgpm_set *x = sets[h];
		if (x && x != s && x->frozen && x->unit == BGPMUnitType_PUNIT &&
		    clab_thread_hwthread(x->thread) / 4 == core) {
			int m = set_l1p_mode(x);
			if (m && m != mode) {
				*other = x->handle;
				found = 1;
			}
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

int Bgpm_AddEvent(unsigned h, unsigned eventId)
{
	FIND_SET(UNFROZEN);
	if (eventId == 0 || eventId >= BGPM_NIDS)
		return fail(BGPM_EINV_EVENT, __func__, "event id %u is outside 1..%d", eventId, BGPM_NIDS - 1);
	if (is_reserved(eventId))
		return fail(BGPM_EINV_EVENT, __func__, "%s is a reserved id with nothing to count", bgpm_ids[eventId].label);
	int unit = bgpm_ids[eventId].unit;
	if (s->unit && unit != s->unit)
		return fail(BGPM_ECONF_UNIT, __func__, "%s is a %s event; event set %u holds %s events",
			    bgpm_ids[eventId].label, unit_name[unit], h, unit_name[s->unit]);
	if (me.mode == BGPM_MODE_LLDISTRIB && unit != BGPMUnitType_PUNIT)
		return fail(BGPM_EINV_OP, __func__, "low-latency mode counts Punit events only");
	if (unit == BGPMUnitType_L2) {
		/* a _SLICE event is counted on all 16 slices */
		int sl = is_slice_event(eventId);
		if (sl && s->n >= CLAB_EVSET_MAX_EVENTS / L2_SLICES)
			return fail(BGPM_EXHAUSTED, __func__,
				    "libbgpm counts each _SLICE event on all 16 slices: at most %d per set",
				    CLAB_EVSET_MAX_EVENTS / L2_SLICES);
		/* the L2 counts combined or per slice for the whole node: the
		 * first L2 set fixes the mode until no L2 set is left */
		pthread_mutex_lock(&lock);
		int node_sl = l2_refs ? !l2_combined : sl;
		if (sl == node_sl && !s->l2_ref) {
			if (!l2_refs++)
				l2_combined = !sl;
			s->l2_ref = 1;
		}
		pthread_mutex_unlock(&lock);
		if (sl != node_sl)
			return fail(BGPM_ECONF_L2_COMBINE, __func__, "%s is a %s event but the node's L2 counts %s (another L2 event set fixed it)",
				    bgpm_ids[eventId].label, sl ? "per-slice" : "combined",
				    node_sl ? "per slice" : "combined");
		s->l2_slice = sl;
	}
	if (s->n >= MAX_EVENTS)
		return fail(BGPM_EXHAUSTED, __func__, "event set %u holds %d events already", h, MAX_EVENTS);
	unsigned other;
	if (unit == BGPMUnitType_PUNIT && l1p_conflict(s, l1p_mode_of(eventId), &other))
		return fail(BGPM_EL1PMODERESERVED, __func__, "%s needs another L1p mode than event set %u uses on this core",
			    bgpm_ids[eventId].label, other);
	s->unit = unit;
	s->ev[s->n++] = (bgpm_event){.id = eventId};
	return BGPM_EOK;
}

int Bgpm_AddEventList(unsigned h, unsigned *eventIds, unsigned num)
{
	if (!eventIds && num)
		return fail(BGPM_EINV_PARM, __func__, "NULL event list");
	for (unsigned i = 0; i < num; i++) {
		int rc = Bgpm_AddEvent(h, eventIds[i]);
		if (rc < 0)
			return rc;
	}
	return BGPM_EOK;
}

/* A label, or several separated by commas, spaces or colons. */
int Bgpm_AddEventString(unsigned h, char *evtString)
{
	if (!evtString)
		return fail(BGPM_EINV_PARM, __func__, "NULL event string");
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", evtString);
	char *save, *tok = strtok_r(buf, ", :\t\n", &save);
	if (!tok)
		return fail(BGPM_EINV_PARM, __func__, "empty event string");
	for (; tok; tok = strtok_r(NULL, ", :\t\n", &save)) {
		int id = Bgpm_GetEventIdFromLabel(tok);
		if (id == PEVT_UNDEF)
			return fail(BGPM_EINV_EVENT, __func__, "no event is labelled \"%s\"", tok);
		int rc = Bgpm_AddEvent(h, (unsigned)id);
		if (rc < 0)
			return rc;
	}
	return BGPM_EOK;
}

int Bgpm_NumEvents(unsigned h)
{
	FIND_SET(ANY_THREAD);
	return s->n;
}

/* Threads (Punit and CNK) or links (network) the set counts for. */
int Bgpm_NumTargets(unsigned h)
{
	FIND_SET(ANY_THREAD);
	if (s->unit == BGPMUnitType_NW)
		return __builtin_popcount(s->links);
	return 1;
}

const char *Bgpm_GetEventLabel(unsigned h, unsigned idx)
{
	int rc;
	bgpm_event *e;
	return find(h, idx, &e, ANY_THREAD, __func__, &rc) ? bgpm_ids[e->id].label : NULL;
}

int Bgpm_GetEventId(unsigned h, unsigned idx)
{
	FIND_EVENT(ANY_THREAD);
	return (int)e->id;
}

int Bgpm_GetEventIndex(unsigned h, unsigned evtId, unsigned startIdx)
{
	FIND_SET(ANY_THREAD);
	for (int i = (int)startIdx; i < s->n; i++)
		if (s->ev[i].id == evtId)
			return i;
	return fail(BGPM_EINV_EVENT, __func__, "event id %u is not in set %u from index %u", evtId, h, startIdx);
}

int Bgpm_GetUnitType(unsigned h)
{
	FIND_SET(ANY_THREAD);
	return s->unit;
}

/* ---- user data -------------------------------------------------------------- */

#define SET_USER(NAME, FIELD)                                          \
	int Bgpm_SetEventSet##NAME(unsigned h, uint64_t value)         \
	{                                                              \
		FIND_SET(ANY_THREAD);                                  \
		s->FIELD = value;                                      \
		return BGPM_EOK;                                       \
	}                                                              \
	int Bgpm_GetEventSet##NAME(unsigned h, uint64_t *p)            \
	{                                                              \
		FIND_SET(ANY_THREAD);                                  \
		return p ? (*p = s->FIELD, BGPM_EOK) : null_arg(__func__); \
	}                                                              \
	int Bgpm_SetEvent##NAME(unsigned h, unsigned idx, uint64_t value) \
	{                                                              \
		FIND_EVENT(ANY_THREAD);                                \
		e->FIELD = value;                                      \
		return BGPM_EOK;                                       \
	}                                                              \
	int Bgpm_GetEvent##NAME(unsigned h, unsigned idx, uint64_t *p) \
	{                                                              \
		FIND_EVENT(ANY_THREAD);                                \
		return p ? (*p = e->FIELD, BGPM_EOK) : null_arg(__func__); \
	}
SET_USER(User1, user1)
SET_USER(User2, user2)

/* ---- attributes ---------------------------------------------------------------- */

int Bgpm_SetContext(unsigned h, Bgpm_Context context)
{
	FIND_SET(UNFROZEN);
	if ((int)context < BGPM_CTX_DEFAULT || context > BGPM_CTX_BOTH)
		return fail(BGPM_EINV_PARM, __func__, "context %d is not a Bgpm_Context", (int)context);
	if (s->unit && s->unit != BGPMUnitType_PUNIT)
		return fail(BGPM_EINV_OP, __func__, "only Punit event sets filter by context");
	s->ctx = context == BGPM_CTX_DEFAULT ? context_from_env() : (int)context;
	return BGPM_EOK;
}

int Bgpm_GetContext(unsigned h, Bgpm_Context *pContext)
{
	FIND_SET(ANY_THREAD);
	if (!pContext)
		return null_arg(__func__);
	*pContext = (Bgpm_Context)s->ctx;
	return BGPM_EOK;
}

/* Sets (set) or gets (get) the opcode-group mask of event idx, which
 * must be the mask event want. */
static int group_mask(unsigned h, unsigned idx, const uint64_t *set, uint64_t *get, unsigned want, const char *fn)
{
	int rc;
	bgpm_event *e;
	if (!find(h, idx, &e, set ? UNFROZEN : ANY_THREAD, fn, &rc))
		return rc;
	if (e->id != want)
		return fail(BGPM_ENOT_MASK_EVENT, fn, "%s is not %s", bgpm_ids[e->id].label, bgpm_ids[want].label);
	if (set)
		e->mask = *set;
	else if (get)
		*get = e->mask;
	else
		return null_arg(fn);
	return BGPM_EOK;
}

int Bgpm_SetXuGrpMask(unsigned h, unsigned idx, uint64_t mask)
{
	return group_mask(h, idx, &mask, NULL, PEVT_INST_XU_GRP_MASK, __func__);
}
int Bgpm_GetXuGrpMask(unsigned h, unsigned idx, uint64_t *p)
{
	return group_mask(h, idx, NULL, p, PEVT_INST_XU_GRP_MASK, __func__);
}
int Bgpm_SetQfpuGrpMask(unsigned h, unsigned idx, uint64_t mask)
{
	return group_mask(h, idx, &mask, NULL, PEVT_INST_QFPU_GRP_MASK, __func__);
}
int Bgpm_GetQfpuGrpMask(unsigned h, unsigned idx, uint64_t *p)
{
	return group_mask(h, idx, NULL, p, PEVT_INST_QFPU_GRP_MASK, __func__);
}

/* The simulated Punit counts each event in its table's mode (edge or
 * cycle) only; asking for the other mode is refused, not ignored. */
int Bgpm_SetEventEdge(unsigned h, unsigned idx, ushort setEdge)
{
	FIND_EVENT(UNFROZEN);
	if (bgpm_ids[e->id].unit != BGPMUnitType_PUNIT)
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s is not a Punit event", bgpm_ids[e->id].label);
	if ((setEdge != 0) != bgpm_ids[e->id].edge)
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "the simulated Punit counts %s only in %s mode",
			    bgpm_ids[e->id].label, bgpm_ids[e->id].edge ? "edge" : "cycle");
	return BGPM_EOK;
}

int Bgpm_GetEventEdge(unsigned h, unsigned idx, ushort *pEdge)
{
	FIND_EVENT(ANY_THREAD);
	if (!pEdge)
		return null_arg(__func__);
	*pEdge = (ushort)bgpm_ids[e->id].edge;
	return BGPM_EOK;
}

int Bgpm_GetL2Combine(unsigned h, UpciBool_t *pEnable)
{
	FIND_SET(ANY_THREAD);
	if (s->unit != BGPMUnitType_L2)
		return fail(s->unit ? BGPM_EINV_OP : BGPM_EEVT_SET_UNASSIGNED, __func__, "event set %u is not an L2 set", h);
	if (!pEnable)
		return null_arg(__func__);
	*pEnable = s->l2_slice != 1;
	return BGPM_EOK;
}

int Bgpm_SetEventVirtChannels(unsigned h, unsigned idx, UPC_NW_Vchannels vchan)
{
	FIND_EVENT(UNFROZEN);
	if (!is_nw_generic(e->id))
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s has its channels fixed; only PEVT_NW_SENT, _RECV and _RECV_FIFO take them",
			    bgpm_ids[e->id].label);
	if (!vchan || (vchan & ~UPC_NW_VC_ALL))
		return fail(BGPM_EINV_ATTRIB_VAL, __func__, "VC mask 0x%x is not a subset of 0x7f", (unsigned)vchan);
	e->vc = (unsigned)vchan;
	return BGPM_EOK;
}

int Bgpm_GetEventVirtChannels(unsigned h, unsigned idx, UPC_NW_Vchannels *pVchan)
{
	FIND_EVENT(ANY_THREAD);
	if (bgpm_ids[e->id].unit != BGPMUnitType_NW)
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s is not a network event", bgpm_ids[e->id].label);
	if (!pVchan)
		return null_arg(__func__);
	*pVchan = (UPC_NW_Vchannels)(is_nw_generic(e->id) ? (e->vc ? e->vc : UPC_NW_VC_ALL) : bgpm_ids[e->id].sel);
	return BGPM_EOK;
}

/* ---- overflow -------------------------------------------------------------- */

int Bgpm_SetOverflow(unsigned h, unsigned idx, uint64_t period)
{
	FIND_EVENT(UNFROZEN);
	if (period >> 63)
		return fail(BGPM_EINV_OVF, __func__, "period 0x%llx needs 64 bits", (unsigned long long)period);
	if (me.mode == BGPM_MODE_LLDISTRIB || s->hwmode)
		return fail(BGPM_EUNSUP_OVERFLOW, __func__, "%s mode has no overflow interrupts",
			    s->hwmode ? "hardware-distributed" : "low-latency");
	int u = bgpm_ids[e->id].unit;
	if (u == BGPMUnitType_NW || u == BGPMUnitType_CNK || (u == BGPMUnitType_L2 && is_slice_event(e->id)))
		return fail(BGPM_EUNSUP_OVERFLOW, __func__, "%s cannot interrupt on overflow (only Punit, combined L2 and I/O events can)",
			    bgpm_ids[e->id].label);
	if (s->mux && period)
		return fail(BGPM_EUNSUP_OVERFLOW, __func__, "libbgpm's multiplexed sets do not interrupt on overflow");
	/* L2 and I/O counters are the node's: one threshold each */
	unsigned other = 0;
	int clash = 0;
	pthread_mutex_lock(&lock);
	for (unsigned k = 0; k < MAX_SETS && period && u != BGPMUnitType_PUNIT && !clash; k++) {
		const bgpm_set *x = sets[k];
		for (int i = 0; x && x != s && i < x->n && !clash; i++)
			if (x->ev[i].id == e->id && x->ev[i].period && x->ev[i].period != period) {
				clash = 1;
				other = x->handle;
			}
	}
	pthread_mutex_unlock(&lock);
	if (clash)
		return fail(BGPM_ETHRES_MISMATCH, __func__, "event set %u has %s overflow at another period: the node's counter has one threshold",
			    other, bgpm_ids[e->id].label);
	e->period = period;
	return BGPM_EOK;
}

int Bgpm_SetOverflowHandler(unsigned h, Bgpm_OverflowHandler_t handler)
{
	FIND_SET(UNFROZEN);
	s->handler = handler;
	return BGPM_EOK;
}

int Bgpm_GetOverflow(unsigned h, unsigned idx, uint64_t *pPeriod, Bgpm_OverflowHandler_t *pHandler)
{
	FIND_EVENT(ANY_THREAD);
	if (!pPeriod || !pHandler)
		return null_arg(__func__);
	*pPeriod = e->period;
	*pHandler = e->period ? s->handler : NULL;
	return BGPM_EOK;
}

/* The overflow vector names hardware counters, IBM-style: counter c is
 * bit 63-c. */
static uint64_t vector_of(const bgpm_set *s, int i)
{
	uint64_t v = 0, ctrs = s->cs ? clab_evset_counters(s->cs, s->ev[i].first) : 0;
	for (int c = 0; c < 64; c++)
		if (ctrs >> c & 1)
			v |= 1ull << (63 - c);
	return v;
}

int Bgpm_GetOverflowEventIndices(unsigned h, uint64_t ovfVector, unsigned *pIdx, unsigned *pLen)
{
	FIND_SET(ANY_THREAD);
	if (!pIdx || !pLen)
		return null_arg(__func__);
	unsigned n = 0;
	for (int i = 0; i < s->n; i++)
		if (s->ev[i].period && (vector_of(s, i) & ovfVector)) {
			if (n < *pLen)
				pIdx[n] = (unsigned)i;
			n++;
		}
	if (n > *pLen) { /* the length it needs comes back */
		unsigned had = *pLen;
		*pLen = n;
		return fail(BGPM_EARRAY_TOO_SMALL, __func__, "%u events overflowed, the array holds %u", n, had);
	}
	*pLen = n;
	return BGPM_EOK;
}

/* counterlab's handler: bit i of vector is the set's counterlab event i. */
static void on_overflow(clab_evset *cs, uint64_t vector, void *pc, void *uc, void *arg)
{
	(void)cs;
	bgpm_set *s = arg;
	uint64_t v = 0;
	for (int i = 0; i < s->n; i++)
		if (vector >> s->ev[i].first & 1)
			v |= vector_of(s, i);
	if (s->handler)
		s->handler((int)s->handle, (uint64_t)(uintptr_t)pc, v, uc);
}

/* ---- multiplexing ---------------------------------------------------------- */

int Bgpm_SetMultiplex(unsigned h, uint64_t period, int normalize)
{
	return Bgpm_SetMultiplex2(h, period, normalize, BGPMMuxMinEvts);
}

int Bgpm_SetMultiplex2(unsigned h, uint64_t period, int normalize, RsvMuxCtrs max)
{
	FIND_SET(OWNER);
	if (normalize != BGPM_NORMAL && normalize != BGPM_NOTNORMAL)
		return fail(BGPM_EINV_PARM, __func__, "normalize %d is neither BGPM_NORMAL nor BGPM_NOTNORMAL", normalize);
	if (s->n || s->mux)
		return fail(BGPM_ENOT_EMPTY, __func__, "multiplexing is chosen once, before events are added");
	if (me.mode == BGPM_MODE_LLDISTRIB || s->hwmode)
		return fail(BGPM_EINV_OP, __func__, "%s mode does not multiplex",
			    s->hwmode ? "hardware-distributed" : "low-latency");
	if (period && period < CLAB_MPX_MIN_PERIOD)
		return fail(BGPM_EINV_PARM, __func__, "period %llu is below %d cycles", (unsigned long long)period, CLAB_MPX_MIN_PERIOD);
	s->mux = 1;
	s->mux_period = period;
	s->normalize = normalize;
	/* as IBM's: up to 6 asked for is 5 a group, up to 12 is 11, more is 23 */
	s->mux_max = (int)max < 7 ? BGPMMuxMinEvts : (int)max < 13 ? BGPMMuxMedEvts : BGPMMuxMaxEvts;
	s->unit = BGPMUnitType_PUNIT; /* only the Punit multiplexes */
	return BGPM_EOK;
}

static clab_mpx_stats mux_stats(const bgpm_set *s)
{
	clab_mpx_stats st;
	memset(&st, 0, sizeof st);
	if (s->cs)
		clab_evset_mpx_stats(s->cs, &st);
	return st;
}

/* The multiplexing calls on a set that does not multiplex: a Punit set
 * is one group that never switches; other units have no groups. */
static int not_muxed(const bgpm_set *s, const char *fn)
{
	if (!s->unit)
		return fail(BGPM_EEVT_SET_UNASSIGNED, fn, "event set %u has no events", s->handle);
	return fail(BGPM_EINV_OP, fn, "%s event sets do not multiplex", unit_name[s->unit]);
}

/* Groups as IBM forms them: events in the order added, at most mux_max
 * to a group (the counterlab set, once applied, may need more when
 * events conflict). */
static unsigned mux_groups(const bgpm_set *s)
{
	if (s->cs)
		return (unsigned)mux_stats(s).ngroups;
	return s->n ? ((unsigned)s->n + s->mux_max - 1) / s->mux_max : 1;
}

int Bgpm_GetMultiplex(unsigned h, Bgpm_MuxStats_t *p)
{
	FIND_SET(ANY_THREAD);
	if (!p)
		return null_arg(__func__);
	if (!s->mux) {
		if (s->unit != BGPMUnitType_PUNIT)
			return not_muxed(s, __func__);
		*p = (Bgpm_MuxStats_t){.numGrps = 1};
		return BGPM_EOK;
	}
	clab_mpx_stats st = mux_stats(s);
	*p = (Bgpm_MuxStats_t){
		.active = 1, .period = s->mux_period, .normalize = s->normalize,
		.numGrps = mux_groups(s), .maxEvtsPerGrp = s->mux_max,
		.numSwitches = (unsigned)(st.switches + s->lone_switches), .elapsedCycles = st.elapsed,
	};
	return BGPM_EOK;
}

int Bgpm_SwitchMux(unsigned h)
{
	FIND_SET(OWNER);
	if (!s->mux)
		return not_muxed(s, __func__);
	if (!s->cs)
		return fail(BGPM_ENOT_APPLIED, __func__, "apply event set %u first", h);
	if (mux_stats(s).ngroups < 2 && s->running) { /* one group: a switch to itself */
		s->lone_switches++;
		return BGPM_EOK;
	}
	rc = clab_evset_switch(s->cs);
	return rc ? from_clab(rc, s->unit, __func__) : BGPM_EOK;
}

int Bgpm_GetMuxGroups(unsigned h)
{
	FIND_SET(ANY_THREAD);
	if (!s->mux)
		return s->unit == BGPMUnitType_PUNIT ? 1 : 0;
	return (int)mux_groups(s);
}

/* These two return cycles, 0 on any error (printed). */
uint64_t Bgpm_GetMuxElapsedCycles(unsigned h, unsigned grp)
{
	int rc;
	bgpm_set *s = find(h, 0, NULL, ANY_THREAD, __func__, &rc);
	clab_mpx_stats st = s && s->mux ? mux_stats(s) : (clab_mpx_stats){0};
	return grp < (unsigned)st.ngroups ? st.cycles[grp] : 0;
}

uint64_t Bgpm_GetMuxEventElapsedCycles(unsigned h, unsigned idx)
{
	int rc;
	bgpm_event *e;
	bgpm_set *s = find(h, idx, &e, ANY_THREAD, __func__, &rc);
	if (!s || !s->cs || !s->mux)
		return 0;
	clab_mpx_stats st = mux_stats(s);
	return st.cycles[st.group_of[e->first]];
}

/* ---- apply, start, stop ------------------------------------------------------ */

/* Link l of counterlab is BGPM's mask bit 15-l. */
static unsigned clab_links(unsigned bgpm_mask)
{
	unsigned m = 0;
	for (int l = 0; l < NW_LINKS; l++)
		if (bgpm_mask & UPC_NW_LINK_bit(l))
			m |= 1u << l;
	return m;
}

/* Forgets what Bgpm_WriteEvent wrote (and where a restarted set stood). */
static void zero(bgpm_set *s)
{
	for (int i = 0; i < s->n; i++)
		memset(s->ev[i].offset, 0, sizeof s->ev[i].offset);
}

/* Applied (or attached): its counterlab sets exist. */
static int applied(const bgpm_set *s) { return s->hwmode ? s->frozen : s->cs != NULL; }

/* A2 core unit events (the ones whose signal can be inverted). */
static int is_a2_event(unsigned id)
{
	static const char *const pre[] = {"PEVT_AXU_", "PEVT_IU_", "PEVT_XU_", "PEVT_LSU_", "PEVT_MMU_"};
	if (bgpm_ids[id].unit != BGPMUnitType_PUNIT)
		return 0;
	for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
		if (!strncmp(bgpm_ids[id].label, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

/* An inverted signal counted by cycles is high when the signal is low:
 * the set's cycles less the event's. (Counted by edges, the inverted
 * signal rises as often as the signal falls: the same count.) */
static int inverted_cycles(const bgpm_event *e) { return e->invert && !bgpm_ids[e->id].edge; }

/* The counterlab events of s, in s->codes: each BGPM event's first and
 * how many, and the hidden cycles that inverted events need. */
static int plan(bgpm_set *s, clab_component *c, const char *fn)
{
	int nreq = 0, need_cycles = 0;
	for (int i = 0; i < s->n; i++) {
		bgpm_event *e = &s->ev[i];
		const char *label = bgpm_ids[e->id].label;
		char names[L2_SLICES][128];
		int k = 0;
		if (e->id == PEVT_INST_XU_GRP_MASK || e->id == PEVT_INST_QFPU_GRP_MASK)
			snprintf(names[k++], sizeof names[0], "%s:mask=0x%llx", label, (unsigned long long)e->mask);
		else if (s->unit == BGPMUnitType_L2 && is_slice_event(e->id))
			for (; k < L2_SLICES; k++)
				snprintf(names[k], sizeof names[0], "%s:slice=%d", label, k);
		else if (s->unit == BGPMUnitType_NW && e->id != PEVT_NW_CYCLES) {
			unsigned links = clab_links(s->links);
			for (int l = 0; l < NW_LINKS; l++)
				if (links >> l & 1) {
					int n = snprintf(names[k], sizeof names[0], "%s:links=0x%x", label, 1u << l);
					if (e->vc)
						snprintf(names[k] + n, sizeof names[0] - (size_t)n, ":vc=0x%x", e->vc);
					k++;
				}
		} else
			snprintf(names[k++], sizeof names[0], "%s", label);
		need_cycles |= inverted_cycles(e);
		if (nreq + k + need_cycles > CLAB_EVSET_MAX_EVENTS)
			return fail(BGPM_EXHAUSTED, fn, "the set needs more than %d simulator events (network events count once per attached link)",
				    CLAB_EVSET_MAX_EVENTS);
		e->first = nreq;
		e->nreq = k;
		for (int j = 0; j < k; j++) {
			int rc = clab_event_lookup(c, names[j], &s->codes[nreq++]);
			if (rc)
				return from_clab(rc, s->unit, fn);
		}
	}
	s->cyc_req = -1;
	if (need_cycles) {
		int rc = clab_event_lookup(c, bgpm_ids[PEVT_CYCLES].label, &s->codes[nreq]);
		if (rc)
			return from_clab(rc, s->unit, fn);
		s->cyc_req = nreq++;
	}
	s->nreq = nreq;
	return BGPM_EOK;
}

/* A counterlab set of s's planned events on thread t: context,
 * multiplexing (IBM's groups: at most mux_max events each) and overflow.
 * 0 or counterlab's error (not printed). */
static int make_cs(bgpm_set *s, clab_component *c, clab_thread *t, clab_evset **out)
{
	clab_evset *cs;
	int rc = clab_evset_create(c, t, &cs);
	if (rc)
		return rc;
	if (s->unit == BGPMUnitType_PUNIT) {
		int ctx = s->ctx == BGPM_CTX_KERNEL ? CLAB_CTX_KERNEL
			: s->ctx == BGPM_CTX_USER ? CLAB_CTX_USER : CLAB_CTX_ALL;
		rc = clab_evset_set_context(cs, ctx);
	}
	if (!rc && s->mux) { /* period 0: switches only on Bgpm_SwitchMux */
		rc = clab_evset_set_multiplex(cs, s->mux_period ? s->mux_period : UINT64_MAX / 4);
		if (!rc)
			rc = clab_evset_set_mpx_group_max(cs, (int)s->mux_max);
	}
	if (!rc)
		rc = clab_evset_program(cs, s->codes, s->nreq);
	for (int i = 0; !rc && i < s->n; i++)
		if (s->ev[i].period)
			rc = clab_evset_overflow(cs, s->ev[i].first, s->ev[i].period, on_overflow, s);
	if (rc) {
		clab_evset_destroy(cs); /* counterlab's message stays the failure's */
		return rc;
	}
	*out = cs;
	return CLAB_OK;
}

/* A hardware-distributed set counts target hw once a thread is placed
 * there (now, or when one comes: bgpm_on_placed); hw_lock held. Until
 * then the hardware thread is idle: its cycles pass (PEVT_CYCLES counts
 * the controller's), nothing else happens on it. */
static int hw_target(bgpm_set *s, int hw, clab_component *c)
{
	if (!placed_at[hw] || !(s->targets & UPC_APP_HWTID_MASK(hw)) || s->hwthr[hw] == placed_at[hw])
		return CLAB_OK;
	if (s->hwcs[hw]) { /* the thread counted there left: its counts stay */
		int64_t v[CLAB_EVSET_MAX_EVENTS];
		if (!s->banked && !(s->banked = calloc(APP_HW, sizeof *s->banked)))
			return CLAB_E_NOMEM;
		if (!clab_evset_read(s->hwcs[hw], v))
			for (int k = 0; k < s->nreq; k++)
				s->banked[hw][k] += v[k];
		clab_evset_destroy(s->hwcs[hw]);
		s->hwcs[hw] = NULL;
	}	else if (s->running) /* idle until now (a target a thread left: not counted) */
		s->idle[hw] += clab_thread_now(s->thread) - s->run_since;
	s->hwthr[hw] = placed_at[hw];

	int rc = make_cs(s, c, placed_at[hw], &s->hwcs[hw]);
	if (rc)
		s->hwthr[hw] = NULL; /* counted as idle */
	else if (s->running)
		clab_evset_start(s->hwcs[hw]);
	return rc;
}

/* Whether target hw of s counts: its thread is still there (one that
 * left keeps its counts, and its set no longer starts or stops); hw_lock
 * held. */
static int target_counts(const bgpm_set *s, int hw)
{
	return s->hwcs[hw] && placed_at[hw] == s->hwthr[hw];
}

void bgpm_on_left(clab_thread *t)
{
	int hw = clab_thread_hwthread(t);
	pthread_mutex_lock(&hw_lock);
	if (hw >= 0 && hw < APP_HW && placed_at[hw] == t)
		placed_at[hw] = NULL;
	pthread_mutex_unlock(&hw_lock);
}

void bgpm_on_placed(clab_thread *t)
{
	int hw = clab_thread_hwthread(t);
	if (hw < 0 || hw >= APP_HW)
		return;
	pthread_mutex_lock(&hw_lock);
	placed_at[hw] = t;
	for (unsigned h = 0; h < MAX_SETS; h++) {
		pthread_mutex_lock(&lock);
		bgpm_set *s = sets[h];
		pthread_mutex_unlock(&lock);
		if (s && s->hwmode && s->frozen)
			hw_target(s, hw, clab_machine_component(machine, unit_comp[s->unit]));
	}
	pthread_mutex_unlock(&hw_lock);
}

/* A counterlab error of set s as BGPM's code: a Punit set with a
 * core-shared event that cannot have its counters needs the whole core. */
static int set_error(const bgpm_set *s, int rc, const char *fn)
{
	for (int i = 0; rc == CLAB_E_CONFLICT && s->unit == BGPMUnitType_PUNIT && i < s->n; i++)
		if (bgpm_ids[s->ev[i].id].scope == UPC_SCOPE_CORESHARED)
			return fail(BGPM_ECSEVT_REQALLTHDS, fn, "%s counts the whole core and needs all four threads' counters: %s",
				    bgpm_ids[s->ev[i].id].label, clab_errmsg());
	return from_clab(rc, s->unit, fn);
}

/* Builds the counterlab set(s): on the set's thread, or on each target of
 * a hardware-distributed Punit set. */
static int build(bgpm_set *s, const char *fn)
{
	if (!s->n)
		return fail(BGPM_ENO_CONFIG, fn, "event set %u has no events", s->handle);
	clab_component *c = clab_machine_component(machine, unit_comp[s->unit]);
	if (!c)
		return from_clab(CLAB_E_NOCOMP, s->unit, fn);
	int rc = plan(s, c, fn);
	if (rc)
		return rc;
	if (s->hwmode) {
		/* a target whose thread has left is idle; other refusals are the caller's */
		pthread_mutex_lock(&hw_lock);
		for (int hw = 0; hw < APP_HW && (!rc || rc == CLAB_E_NOTHREAD); hw++)
			rc = hw_target(s, hw, c);
		if (rc && rc != CLAB_E_NOTHREAD) {
			for (int hw = 0; hw < APP_HW; hw++)
				if (s->hwcs[hw]) {
					clab_evset_destroy(s->hwcs[hw]);
					s->hwcs[hw] = NULL;
					s->hwthr[hw] = NULL;
				}
		} else {
			s->frozen = 1;
		}
		pthread_mutex_unlock(&hw_lock);
		if (!s->frozen)
			return from_clab(rc, s->unit, fn);
		zero(s);
		return BGPM_EOK;
	}
	clab_evset *cs;
	if ((rc = make_cs(s, c, s->thread, &cs)))
		return set_error(s, rc, fn);
	s->cs = cs;
	zero(s);
	s->frozen = 1;
	return BGPM_EOK;
}

/* build, and what went wrong into the set's feedback buffer. */
static int build_fb(bgpm_set *s, const char *fn)
{
	int rc = build(s, fn);
	if (rc < 0 && s->feedback)
		snprintf(s->feedback, (size_t)s->feedback_size, "event set %u: %s\n", s->handle, me.last_msg);
	return rc;
}

int Bgpm_Apply(unsigned h)
{
	FIND_SET(OWNER);
	if (!s->unit)
		return fail(BGPM_EEVT_SET_UNASSIGNED, __func__, "event set %u has no events", h);
	if (s->unit == BGPMUnitType_NW)
		return fail(BGPM_EINV_OP, __func__, "network event sets attach to links: use Bgpm_Attach");
	if (s->running)
		return fail(BGPM_EUPDATE_DISALLOWED, __func__, "event set %u is running", h);
	if (s->hwmode && !s->frozen) /* applied here: the calling thread's hardware thread */
		s->targets = UPC_APP_HWTID_MASK(clab_thread_hwthread(s->thread));
	if (applied(s)) { /* applied again: counts restart from zero */
		rc = s->hwmode ? BGPM_EOK : clab_evset_reset(s->cs);
		zero(s);
		return rc ? from_clab(rc, s->unit, __func__) : BGPM_EOK;
	}
	return build_fb(s, __func__);
}

/* Two network sets may share a link when they count the same events. */
static int same_link_config(const bgpm_set *a, const bgpm_set *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->ev[i].id != b->ev[i].id || a->ev[i].vc != b->ev[i].vc)
			return 0;
	return 1;
}

/* The first set to attach a link controls it; later ones with the same
 * events share it, others are refused. 0 or the (printed) error. */
static int link_links(bgpm_set *s, unsigned mask, const char *fn)
{
	pthread_mutex_lock(&lock);
	for (int l = 0; l < NW_LINKS; l++)
		if ((mask & UPC_NW_LINK_bit(l)) && link_refs[l] && link_ctl[l] && !same_link_config(s, link_ctl[l])) {
			pthread_mutex_unlock(&lock);
			return fail(BGPM_ELINK_CTRS_INCOMPAT, fn, "link %d is attached by event set %u, which counts other events",
				    l, link_ctl[l]->handle);
		}
	for (int l = 0; l < NW_LINKS; l++)
		if (mask & UPC_NW_LINK_bit(l)) {
			if (!link_refs[l]++) {
				link_ctl[l] = s;
				s->link_ctl |= UPC_NW_LINK_bit(l);
			}
		}
	pthread_mutex_unlock(&lock);
	return BGPM_EOK;
}

static void unlink_links(bgpm_set *s)
{
	pthread_mutex_lock(&lock);
	for (int l = 0; l < NW_LINKS; l++)
		if (s->links & UPC_NW_LINK_bit(l)) {
			link_refs[l]--;
			if (link_ctl[l] == s)
				link_ctl[l] = NULL;
		}
	s->link_ctl = 0;
	pthread_mutex_unlock(&lock);
}

/* Network sets attach to links (targMask, UPC_NW_LinkMasks bits);
 * hardware-distributed Punit sets to hardware threads (targMask, bit 63-h;
 * agent threads are the kernel's, counted as none here). */
int Bgpm_Attach(unsigned h, uint64_t targMask, uint64_t agentMask)
{
	(void)agentMask;
	FIND_SET(OWNER);
	if (!s->unit)
		return fail(BGPM_EEVT_SET_UNASSIGNED, __func__, "event set %u has no events", h);
	if (s->hwmode && s->unit == BGPMUnitType_PUNIT) {
		if (s->frozen)
			return targMask == s->targets ? BGPM_WALREADY_ATTACHED
				: fail(BGPM_EES_FROZEN, __func__, "event set %u is attached to threads 0x%llx already", h,
				       (unsigned long long)s->targets);
		if (!(targMask & ~0ull))
			return fail(BGPM_EINV_PARM, __func__, "empty thread mask");
		s->targets = targMask;
		return build_fb(s, __func__);
	}
	if (s->unit != BGPMUnitType_NW)
		return fail(BGPM_EINV_OP, __func__, "only network sets, and Punit sets in hardware-distributed mode, attach; apply %s sets with Bgpm_Apply",
			    unit_name[s->unit]);
	if (s->cs)
		return targMask == s->links ? BGPM_WALREADY_ATTACHED
			: fail(BGPM_EES_FROZEN, __func__, "event set %u is attached to links 0x%x already", h, s->links);
	if (!targMask || (targMask & ~(uint64_t)UPC_NW_ALL_LINKS))
		return fail(BGPM_EINV_PARM, __func__, "link mask 0x%llx is not a non-empty subset of UPC_NW_ALL_LINKS (0xffe0)",
			    (unsigned long long)targMask);
	if ((rc = link_links(s, (unsigned)targMask, __func__)))
		return rc;
	s->links = (unsigned)targMask;
	rc = build_fb(s, __func__);
	if (rc) {
		unlink_links(s);
		s->links = 0;
	}
	return rc;
}

int Bgpm_Detach(unsigned h)
{
	FIND_SET(OWNER);
	if (s->unit != BGPMUnitType_NW || !s->cs)
		return BGPM_WNOT_ATTACHED;
	clab_evset_destroy(s->cs);
	unlink_links(s);
	s->cs = NULL;
	s->running = 0;
	s->frozen = 0;
	s->links = 0;
	return BGPM_EOK;
}

/* The set's creator controls it once applied; a network set controls
 * only the links it attached first. */
int Bgpm_IsController(unsigned h)
{
	FIND_SET(ANY_THREAD);
	if (s->unit == BGPMUnitType_NW)
		return pthread_equal(s->owner, pthread_self()) && s->link_ctl ? BGPM_TRUE : BGPM_FALSE;
	return pthread_equal(s->owner, pthread_self()) && applied(s) ? BGPM_TRUE : BGPM_FALSE;
}

static int read_all(bgpm_set *s, int64_t *vals, const char *fn);

/* Start needs an applied (Punit, L2 optional) or attached (network) set;
 * node-wide L2, I/O and CNK sets are applied on first start. */
static bgpm_set *startable(unsigned h, const char *fn, int *rc)
{
	bgpm_set *s = find(h, 0, NULL, OWNER, fn, rc);
	if (s && !applied(s)) {
		if (s->unit == BGPMUnitType_PUNIT || s->unit == BGPMUnitType_NW || !s->unit) {
			*rc = fail(BGPM_ENOT_APPLIED, fn, "event set %u: %s first", h,
				   s->unit == BGPMUnitType_NW ? "attach it to links" : "apply it");
			return NULL;
		}
		if ((*rc = build_fb(s, fn)) < 0)
			return NULL;
	}
	return s;
}

/* op on every counterlab set of s (one, or a hardware-distributed set's
 * targets); the first error. */
static int each_cs(bgpm_set *s, int (*op)(clab_evset *))
{
	if (!s->hwmode)
		return op(s->cs);
	int rc = CLAB_OK;
	pthread_mutex_lock(&hw_lock);
	for (int hw = 0; hw < APP_HW; hw++) {
		int r = s->hwcs[hw] ? op(s->hwcs[hw]) : CLAB_OK;
		rc = rc ? rc : r;
	}
	pthread_mutex_unlock(&hw_lock);
	return rc;
}

static int cs_stop(clab_evset *cs) { return clab_evset_stop(cs, NULL); }

/* A hardware-distributed set's counts beside its counterlab sets': reset
 * (a set of another mode has none, and leaves hw_lock alone: a handler
 * that resets its set must not wait for the lock the code it interrupted
 * holds). */
static void forget_hw(bgpm_set *s)
{
	if (!s->hwmode)
		return;
	pthread_mutex_lock(&hw_lock);
	memset(s->idle, 0, sizeof s->idle);
	if (s->banked)
		memset(s->banked, 0, APP_HW * sizeof *s->banked);
	pthread_mutex_unlock(&hw_lock);
}

/* Bgpm_Start and (reset) Bgpm_ResetStart. */
static int start(unsigned h, int reset, const char *fn)
{
	int rc;
	bgpm_set *s = startable(h, fn, &rc);
	if (!s)
		return rc;
	if (s->running)
		return reset ? fail(BGPM_EUPDATE_DISALLOWED, fn, "event set %u is running; stop it first", h)
			     : BGPM_WALREADY_STARTED;
	/* BGPM counts on from where a stopped set stood; counterlab's start
	 * counts from zero, so the counts so far move into the offsets */
	int64_t vals[CLAB_EVSET_MAX_EVENTS];
	rc = BGPM_EOK;
	if (reset) {
		zero(s);
		forget_hw(s);
		rc = each_cs(s, clab_evset_reset);
	} else if (s->started && (rc = read_all(s, vals, fn)) < 0)
		return rc;
	for (int i = 0; !reset && s->started && i < s->n; i++)
		for (int j = 0; j < s->ev[i].nreq; j++)
			s->ev[i].offset[j] = vals[s->ev[i].first + j];
	if (!rc && s->hwmode) {
		/* no thread takes a place while the targets start (hw_target
		 * starts what is placed later); the idle targets' cycles from
		 * the moment the others' start, not the time starting took */
		pthread_mutex_lock(&hw_lock);
		s->running = 1;
		for (int hw = 0; hw < APP_HW; hw++) {
			int r = target_counts(s, hw) ? clab_evset_start(s->hwcs[hw]) : CLAB_OK;
			rc = rc ? rc : r;
		}
		s->run_since = clab_thread_now(s->thread);
		pthread_mutex_unlock(&hw_lock);
	} else if (!rc) {
		s->running = 1;
		rc = clab_evset_start(s->cs);
	}
	if (rc) {
		s->running = 0;
		return set_error(s, rc, fn);
	}
	s->started = 1;
	return BGPM_EOK;
}

int Bgpm_Start(unsigned h) { return start(h, 0, __func__); }
int Bgpm_ResetStart(unsigned h) { return start(h, 1, __func__); }

int Bgpm_Stop(unsigned h)
{
	FIND_SET(OWNER);
	if (!s->running)
		return BGPM_WALREADY_STOPPED;
	rc = CLAB_OK;
	if (s->hwmode) {
		/* as at start, no thread takes a place meanwhile: one placed
		 * between here and the targets' stop would get a target set
		 * that never started (hw_target), and its stop would fail */
		pthread_mutex_lock(&hw_lock);
		uint64_t now = clab_thread_now(s->thread);
		for (int hw = 0; hw < APP_HW; hw++) {
			if ((s->targets & UPC_APP_HWTID_MASK(hw)) && !s->hwcs[hw])
				s->idle[hw] += now - s->run_since;
			int r = target_counts(s, hw) ? cs_stop(s->hwcs[hw]) : CLAB_OK;
			rc = rc ? rc : r;
		}
		s->running = 0;
		pthread_mutex_unlock(&hw_lock);
	} else {
		s->running = 0;
		rc = cs_stop(s->cs);
	}
	return rc ? from_clab(rc, s->unit, __func__) : BGPM_EOK;
}

int Bgpm_Reset(unsigned h)
{
	FIND_SET(OWNER);
	if (!applied(s))
		return fail(BGPM_ENOT_APPLIED, __func__, "event set %u is not applied", h);
	if (s->running)
		return fail(BGPM_EUPDATE_DISALLOWED, __func__, "stop event set %u before resetting it (or use Bgpm_ResetStart)", h);
	rc = each_cs(s, clab_evset_reset);
	zero(s);
	forget_hw(s);
	return rc ? from_clab(rc, s->unit, __func__) : BGPM_EOK;
}

/* ---- reading and writing ------------------------------------------------------ */

/* BGPM_NORMAL: each group's counts scaled to the cycles of the group that
 * counted longest (IBM's example output: normalized counts near the raw
 * ones when the groups took turns evenly), not to the whole elapsed time
 * as PAPI's multiplexing estimates. */
static void scale_to_longest_group(const bgpm_set *s, int64_t *vals)
{
	clab_mpx_stats st = mux_stats(s);
	uint64_t longest = 0;
	for (int g = 0; g < st.ngroups; g++)
		if (st.cycles[g] > longest)
			longest = st.cycles[g];
	for (int k = 0; k < s->nreq; k++) {
		uint64_t own = st.cycles[st.group_of[k]];
		vals[k] = own ? (int64_t)((unsigned __int128)vals[k] * longest / own) : 0;
	}
}

/* The counterlab counts of s (none before its first start): of a
 * hardware-distributed set, summed over its targets in thd (bit 63-h);
 * inverted events as counted. */
static int raw_read(bgpm_set *s, int64_t *vals, uint64_t thd)
{
	memset(vals, 0, sizeof *vals * (size_t)s->nreq);
	if (!s->started)
		return CLAB_OK;
	int rc = CLAB_OK;
	if (s->hwmode) {
		pthread_mutex_lock(&hw_lock);
		for (int hw = 0; hw < APP_HW && !rc; hw++) {
			int64_t v[CLAB_EVSET_MAX_EVENTS];
			if (!s->hwcs[hw] || !(thd & UPC_APP_HWTID_MASK(hw)))
				continue;
			rc = clab_evset_read(s->hwcs[hw], v);
			for (int k = 0; !rc && k < s->nreq; k++)
				vals[k] += v[k] + (s->banked ? s->banked[hw][k] : 0);
		}
		uint64_t now = s->running ? clab_thread_now(s->thread) : 0, idle = 0;
		for (int hw = 0; hw < APP_HW; hw++)
			if ((thd & s->targets & UPC_APP_HWTID_MASK(hw)))
				idle += s->idle[hw] + (s->running && !s->hwcs[hw] ? now - s->run_since : 0);
		for (int i = 0; i < s->n; i++)
			if (s->ev[i].id == PEVT_CYCLES)
				vals[s->ev[i].first] += (int64_t)idle;
		pthread_mutex_unlock(&hw_lock);
	} else {
		rc = s->mux ? clab_evset_read_raw(s->cs, vals) : clab_evset_read(s->cs, vals);
		if (!rc && s->mux && s->normalize)
			scale_to_longest_group(s, vals);
	}
	for (int i = 0; !rc && s->cyc_req >= 0 && i < s->n; i++)
		if (inverted_cycles(&s->ev[i]))
			vals[s->ev[i].first] = vals[s->cyc_req] - vals[s->ev[i].first];
	return rc;
}

/* vals gets the set's counterlab counts (scaled for a normalized
 * multiplexed set), each with its written offset. */
static int read_all(bgpm_set *s, int64_t *vals, const char *fn)
{
	if (!applied(s))
		return fail(BGPM_ENOT_APPLIED, fn, "event set %u is not %s", s->handle,
			    s->unit == BGPMUnitType_NW || s->hwmode ? "attached" : "applied");
	int rc = raw_read(s, vals, ~0ull);
	if (rc)
		return from_clab(rc, s->unit, fn);
	for (int i = 0; i < s->n; i++)
		for (int j = 0; j < s->ev[i].nreq; j++)
			vals[s->ev[i].first + j] += s->ev[i].offset[j];
	return BGPM_EOK;
}

/* read_all for a call that returns its value through out. */
static int read_into(bgpm_set *s, const void *out, int64_t *vals, const char *fn)
{
	return out ? read_all(s, vals, fn) : null_arg(fn);
}

static uint64_t event_value(const bgpm_set *s, int i, const int64_t *vals, unsigned links)
{
	const bgpm_event *e = &s->ev[i];
	uint64_t v = 0;
	if (s->unit == BGPMUnitType_NW && e->id != PEVT_NW_CYCLES) {
		int k = 0;
		for (int l = 0; l < NW_LINKS; l++)
			if (s->links & UPC_NW_LINK_bit(l)) {
				if (links & UPC_NW_LINK_bit(l))
					v += (uint64_t)vals[e->first + k];
				k++;
			}
		return v;
	}
	for (int j = 0; j < e->nreq; j++)
		v += (uint64_t)vals[e->first + j];
	return v;
}

int Bgpm_ReadEvent(unsigned h, unsigned idx, uint64_t *pValue)
{
	FIND_EVENT(ANY_THREAD);
	int64_t vals[CLAB_EVSET_MAX_EVENTS];
	if ((rc = read_into(s, pValue, vals, __func__)))
		return rc;
	*pValue = event_value(s, (int)idx, vals, s->links);
	return BGPM_EOK;
}

int Bgpm_ReadEventList(unsigned h, uint64_t *pValues, unsigned *pLen)
{
	FIND_SET(ANY_THREAD);
	if (!pValues || !pLen)
		return null_arg(__func__);
	if (*pLen < (unsigned)s->n)
		return fail(BGPM_EARRAY_TOO_SMALL, __func__, "event set %u has %d events, the array %u", h, s->n, *pLen);
	int64_t vals[CLAB_EVSET_MAX_EVENTS];
	if ((rc = read_all(s, vals, __func__)) < 0)
		return rc;
	for (int i = 0; i < s->n; i++)
		pValues[i] = event_value(s, i, vals, s->links);
	*pLen = (unsigned)s->n;
	return BGPM_EOK;
}

/* The next read of counterlab event j of e says value. */
static int write_one(bgpm_set *s, bgpm_event *e, int j, uint64_t value, const char *fn)
{
	if (!applied(s))
		return fail(BGPM_ENOT_APPLIED, fn, "event set %u is not applied", s->handle);
	if (s->hwmode)
		return fail(BGPM_EINV_OP, fn, "a hardware-distributed set's counts cannot be written");
	if (e->period)
		return fail(BGPM_EINV_WRT2OVF, fn, "%s is armed for overflow", bgpm_ids[e->id].label);
	if (s->running)
		return fail(BGPM_EUPDATE_DISALLOWED, fn, "stop event set %u before writing it", s->handle);
	if (s->mux)
		return fail(BGPM_EINV_OP, fn, "multiplexed counts cannot be written");
	int64_t vals[CLAB_EVSET_MAX_EVENTS];
	int rc = raw_read(s, vals, ~0ull);
	if (rc)
		return from_clab(rc, s->unit, fn);
	e->offset[j] = (int64_t)value - vals[e->first + j];
	return BGPM_EOK;
}

int Bgpm_WriteEvent(unsigned h, unsigned idx, uint64_t value)
{
	FIND_EVENT(OWNER);
	if (e->nreq > 1)
		return fail(BGPM_EINV_OP, __func__, "%s is counted in several places: write one with Bgpm_L2_WriteEvent",
			    bgpm_ids[e->id].label);
	return write_one(s, e, 0, value, __func__);
}

/* 0, or the error why slice of event e of s cannot be read or written. */
static int slice_refused(const bgpm_set *s, unsigned slice, const char *fn)
{
	if (s->unit != BGPMUnitType_L2)
		return fail(BGPM_EINV_OP, fn, "event set %u is not an L2 set", s->handle);
	if (slice >= L2_SLICES)
		return fail(BGPM_EINV_L2_SLICE, fn, "slice %u is not 0..15", slice);
	if (!s->l2_slice)
		return fail(BGPM_ECONF_L2_COMBINE, fn, "event set %u counts the slices combined; per-slice reads need _SLICE events",
			    s->handle);
	return 0;
}

int Bgpm_L2_ReadEvent(unsigned h, unsigned slice, unsigned idx, uint64_t *pValue)
{
	FIND_EVENT(ANY_THREAD);
	int64_t vals[CLAB_EVSET_MAX_EVENTS];
	if ((rc = slice_refused(s, slice, __func__)) || (rc = read_into(s, pValue, vals, __func__)))
		return rc;
	*pValue = (uint64_t)vals[e->first + (int)slice];
	return BGPM_EOK;
}

int Bgpm_L2_WriteEvent(unsigned h, unsigned slice, unsigned idx, uint64_t value)
{
	FIND_EVENT(OWNER);
	return (rc = slice_refused(s, slice, __func__)) ? rc : write_one(s, e, (int)slice, value, __func__);
}

int Bgpm_NW_ReadLinkEvent(unsigned h, unsigned idx, UPC_NW_LinkMasks mask, uint64_t *pValue)
{
	FIND_EVENT(ANY_THREAD);
	if (s->unit != BGPMUnitType_NW)
		return fail(BGPM_EINV_OP, __func__, "event set %u is not a network set", h);
	if (!mask || ((unsigned)mask & ~(unsigned)UPC_NW_ALL_LINKS))
		return fail(BGPM_EINV_PARM, __func__, "link mask 0x%x is not a non-empty subset of 0xffe0", (unsigned)mask);
	if (s->cs && !((unsigned)mask & s->links))
		return BGPM_WNOT_LINK_CTL;
	int64_t vals[CLAB_EVSET_MAX_EVENTS];
	if ((rc = read_into(s, pValue, vals, __func__)))
		return rc;
	*pValue = event_value(s, (int)idx, vals, (unsigned)mask);
	return BGPM_EOK;
}

/* A CNK counter as it stands: counted since the set was applied (the
 * simulated kernel keeps no counts from before). */
int Bgpm_CNK_SampleEvent(unsigned h, unsigned idx, uint64_t *pValue)
{
	FIND_EVENT(ANY_THREAD);
	if (s->unit != BGPMUnitType_CNK)
		return fail(BGPM_EINV_OP, __func__, "event set %u is not a CNK set", h);
	if (!s->cs)
		return fail(BGPM_ENOT_APPLIED, __func__, "apply event set %u first", h);
	if (!s->running && (rc = Bgpm_Start(h)) < 0)
		return rc;
	return Bgpm_ReadEvent(h, idx, pValue);
}

/* ---- fast and low-latency Punit handles ---------------------------------------- */

/* A handle: set handle + 1 in the high word, event index in the low. */
#define HANDLE(h, i) (((uint64_t)(h) + 1) << 32 | (uint64_t)(i))
#define MASK_ALL 0xffffffffull

static int get_handles(unsigned h, uint64_t *all, unsigned *num, uint64_t *hctr, unsigned max,
		       int ll, const char *fn)
{
	int rc;
	bgpm_set *s = find(h, 0, NULL, ANY_THREAD, fn, &rc);
	if (!s)
		return rc;
	if (s->unit != BGPMUnitType_PUNIT)
		return fail(BGPM_EINV_OP, fn, "handles are for Punit sets");
	if (s->hwmode)
		return fail(BGPM_EINV_OP, fn, "hardware-distributed sets have no handles; use Bgpm_ReadThreadEvent");
	if (ll != (me.mode == BGPM_MODE_LLDISTRIB))
		return fail(BGPM_EINV_OP, fn, "%s handles need %s mode", ll ? "low-latency" : "fast",
			    ll ? "BGPM_MODE_LLDISTRIB" : "BGPM_MODE_SWDISTRIB");
	if (!s->cs)
		return fail(BGPM_ENOT_APPLIED, fn, "apply event set %u first", h);
	if ((unsigned)s->n > max)
		return fail(BGPM_EARRAY_TOO_SMALL, fn, "%d events, %u handles", s->n, max);
	*all = HANDLE(h, MASK_ALL);
	*num = (unsigned)s->n;
	for (int i = 0; i < s->n; i++)
		hctr[i] = HANDLE(h, i);
	return BGPM_EOK;
}

int Bgpm_Punit_GetHandles(unsigned h, Bgpm_Punit_Handles_t *p)
{
	if (!p)
		return null_arg(__func__);
	return get_handles(h, &p->allCtrMask, &p->numCtrs, p->hCtr, BGPM_MAX_PUNIT_HANDLES, 0, __func__);
}

int Bgpm_Punit_GetLLHandles(unsigned h, Bgpm_Punit_LLHandles_t *p)
{
	if (!p)
		return null_arg(__func__);
	return get_handles(h, &p->allCtrMask, &p->numCtrs, p->hCtr, UPC_P_NUM_COUNTERS, 1, __func__);
}

/* The set behind a handle or mask; errors are printed (these calls return nothing). */
static bgpm_set *by_handle(uint64_t hc, const char *fn)
{
	int rc;
	unsigned h = (unsigned)(hc >> 32);
	if (!h) {
		fail(BGPM_EINV_PARM, fn, "0x%llx is not a Punit handle", (unsigned long long)hc);
		return NULL;
	}
	return find(h - 1, 0, NULL, ANY_THREAD, fn, &rc);
}

/* Counters of one simulated set start and stop together: any mask of a
 * set starts or stops all of it. */
void Bgpm_Punit_Start(uint64_t mask)
{
	bgpm_set *s = by_handle(mask, __func__);
	if (s)
		Bgpm_Start(s->handle);
}

void Bgpm_Punit_Stop(uint64_t mask)
{
	bgpm_set *s = by_handle(mask, __func__);
	if (s)
		Bgpm_Stop(s->handle);
}

uint64_t Bgpm_Punit_Read(uint64_t hCtr)
{
	bgpm_set *s = by_handle(hCtr, __func__);
	uint64_t v = 0;
	if (s)
		Bgpm_ReadEvent(s->handle, (unsigned)(hCtr & MASK_ALL), &v);
	return v;
}

void Bgpm_Punit_LLStart(uint64_t mask) { Bgpm_Punit_Start(mask); }
void Bgpm_Punit_LLStop(uint64_t mask) { Bgpm_Punit_Stop(mask); }

void Bgpm_Punit_LLResetStart(uint64_t mask)
{
	bgpm_set *s = by_handle(mask, __func__);
	if (!s)
		return;
	if (s->running)
		Bgpm_Stop(s->handle);
	Bgpm_ResetStart(s->handle);
}

/* A low-latency counter is the Punit's own 14-bit counter: the low 14
 * bits of the count, and the big-overflow bit (BGPM_LLCOUNT_OVERFLOW)
 * once it has wrapped. */
uint64_t Bgpm_Punit_LLRead(uint64_t hCtr)
{
	uint64_t v = Bgpm_Punit_Read(hCtr);
	return (v & 0x3fff) | (v > 0x3fff ? BGPM_LL_BIG_OVF : 0);
}

void Bgpm_Punit_LLWrite(uint64_t hCtr, uint64_t val)
{
	bgpm_set *s = by_handle(hCtr, __func__);
	if (!s)
		return;
	int run = s->running;
	if (run)
		Bgpm_Stop(s->handle);
	Bgpm_WriteEvent(s->handle, (unsigned)(hCtr & MASK_ALL), val & 0x3fff);
	if (run)
		Bgpm_Start(s->handle);
}

/* ---- hardware-distributed reads --------------------------------------------------- */

/* Event idx of a hardware-distributed set summed over the threads in
 * thdMask (bit 63-h); agent threads (the kernel's) count nothing here.
 * BGPM_WNOT_ATTACHED when a thread asked for is not counted. */
int Bgpm_ReadThreadEvent(unsigned h, unsigned idx, uint64_t thdMask, uint64_t agentMask, uint64_t *pValue)
{
	(void)agentMask;
	FIND_EVENT(ANY_THREAD);
	if (!pValue)
		return null_arg(__func__);
	if (!s->hwmode || s->unit != BGPMUnitType_PUNIT)
		return fail(BGPM_EINV_OP, __func__, "event set %u is not a hardware-distributed Punit set", h);
	if (!s->frozen)
		return fail(BGPM_ENOT_APPLIED, __func__, "attach event set %u to threads first", h);
	int64_t vals[CLAB_EVSET_MAX_EVENTS];
	if ((rc = raw_read(s, vals, thdMask)))
		return from_clab(rc, s->unit, __func__);
	*pValue = (uint64_t)vals[e->first];
	return thdMask & ~s->targets ? BGPM_WNOT_ATTACHED : BGPM_EOK;
}

/* ---- more event attributes --------------------------------------------------------- */

/* As IBM's: Punit attributes on a set with no events yet, or of another unit. */
static int punit_only(const bgpm_set *s, const char *fn)
{
	if (!s->unit)
		return fail(BGPM_EEVT_SET_UNASSIGNED, fn, "event set %u has no events", s->handle);
	if (s->unit != BGPMUnitType_PUNIT)
		return fail(BGPM_EINV_OP, fn, "event set %u counts %s events, not Punit ones", s->handle, unit_name[s->unit]);
	return 0;
}

/* A2 unit events can count the cycles (or edges) of their inverted signal. */
int Bgpm_SetEventInvert(unsigned h, unsigned idx, ushort invert)
{
	FIND_EVENT(UNFROZEN);
	if ((rc = punit_only(s, __func__)))
		return rc;
	if (!is_a2_event(e->id))
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s is not an A2 core unit event: its signal cannot be inverted",
			    bgpm_ids[e->id].label);
	e->invert = invert != 0;
	return BGPM_EOK;
}

int Bgpm_GetEventInvert(unsigned h, unsigned idx, ushort *pInvert)
{
	FIND_EVENT(ANY_THREAD);
	if ((rc = punit_only(s, __func__)))
		return rc;
	if (!pInvert)
		return null_arg(__func__);
	*pInvert = (ushort)e->invert;
	return BGPM_EOK;
}

/* QFPU events count instructions or, with countFp, floating-point
 * operations; only opcode-group and FP events take it. */
static int is_fp_event(unsigned id)
{
	const char *l = bgpm_ids[id].label;
	return bgpm_ids[id].unit == BGPMUnitType_PUNIT && !strncmp(l, "PEVT_INST_QFPU_", 15);
}

int Bgpm_SetQfpuFp(unsigned h, unsigned idx, ushort countFp)
{
	FIND_EVENT(UNFROZEN);
	if ((rc = punit_only(s, __func__)))
		return rc;
	if (!is_fp_event(e->id))
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s is not a QFPU instruction event", bgpm_ids[e->id].label);
	e->count_fp = countFp != 0;
	return BGPM_EOK;
}

int Bgpm_GetQfpuFp(unsigned h, unsigned idx, ushort *pCountFp)
{
	FIND_EVENT(ANY_THREAD);
	if ((rc = punit_only(s, __func__)))
		return rc;
	if (!pCountFp)
		return null_arg(__func__);
	*pCountFp = (ushort)(is_fp_event(e->id) && e->count_fp);
	return BGPM_EOK;
}

/* Instruction matching and FP scales are the core's: the sets applied
 * on one core must agree on each. */
enum { RSV_XU = 1, RSV_QFPU = 2, RSV_SQRT = 4, RSV_DIV = 8 };

/* 0, or the error naming the applied set on s's core that holds what
 * differs (what: one RSV_* bit). */
static int core_conflict(const bgpm_set *s, unsigned what)
{
	int core = clab_thread_hwthread(s->thread) / 4;
	pthread_mutex_lock(&lock);
	const bgpm_set *o = NULL;
	for (unsigned h = 0; h < MAX_SETS && !o; h++) {
		const bgpm_set *x = sets[h];
		if (!x || x == s || !x->frozen || !(x->rsv & what) || clab_thread_hwthread(x->thread) / 4 != core)
			continue;
		int same = what == RSV_XU ? x->xu_match == s->xu_match && x->xu_mask == s->xu_mask
			: what == RSV_QFPU ? x->qfpu_match == s->qfpu_match && x->qfpu_mask == s->qfpu_mask &&
				x->qfpu_scale == s->qfpu_scale
			: what == RSV_SQRT ? x->sqrt_scale == s->sqrt_scale : x->div_scale == s->div_scale;
		if (!same)
			o = x;
	}
	pthread_mutex_unlock(&lock);
	if (!o)
		return 0;
	int rc = what == RSV_XU ? BGPM_EXU_RSV_MISMATCH : what == RSV_QFPU ? BGPM_EQFPU_RSV_MISMATCH
		: what == RSV_SQRT ? BGPM_ESQRT_SCALE_MISMATCH : BGPM_EDIV_SCALE_MISMATCH;
	return fail(rc, "Bgpm_Set*", "event set %u on core %d uses another value", o->handle, core);
}

int Bgpm_SetXuMatch(unsigned h, unsigned idx, uint16_t match, uint16_t mask)
{
	FIND_EVENT(UNFROZEN);
	if ((rc = punit_only(s, __func__)))
		return rc;
	if (e->id != PEVT_INST_XU_MATCH)
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s is not PEVT_INST_XU_MATCH", bgpm_ids[e->id].label);
	uint16_t om = s->xu_match, ok = s->xu_mask;
	s->xu_match = match;
	s->xu_mask = mask;
	if ((rc = core_conflict(s, RSV_XU))) {
		s->xu_match = om;
		s->xu_mask = ok;
		return rc;
	}
	s->rsv |= RSV_XU;
	return BGPM_EOK;
}

int Bgpm_GetXuMatch(unsigned h, unsigned idx, uint16_t *pMatch, uint16_t *pMask)
{
	FIND_EVENT(ANY_THREAD);
	if ((rc = punit_only(s, __func__)))
		return rc;
	if (e->id != PEVT_INST_XU_MATCH)
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s is not PEVT_INST_XU_MATCH", bgpm_ids[e->id].label);
	if (!pMatch || !pMask)
		return null_arg(__func__);
	*pMatch = s->xu_match;
	*pMask = s->xu_mask;
	return BGPM_EOK;
}

int Bgpm_SetQfpuMatch(unsigned h, unsigned idx, uint16_t match, uint16_t mask, ushort fpScale)
{
	FIND_EVENT(UNFROZEN);
	if ((rc = punit_only(s, __func__)))
		return rc;
	if (e->id != PEVT_INST_QFPU_MATCH)
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s is not PEVT_INST_QFPU_MATCH", bgpm_ids[e->id].label);
	if (fpScale > 3)
		return fail(BGPM_EINV_PARM, __func__, "FP scale %u is not 0..3", fpScale);
	bgpm_set old = *s;
	s->qfpu_match = match;
	s->qfpu_mask = mask;
	s->qfpu_scale = fpScale;
	if ((rc = core_conflict(s, RSV_QFPU))) {
		s->qfpu_match = old.qfpu_match;
		s->qfpu_mask = old.qfpu_mask;
		s->qfpu_scale = old.qfpu_scale;
		return rc;
	}
	s->rsv |= RSV_QFPU;
	return BGPM_EOK;
}

int Bgpm_GetQfpuMatch(unsigned h, unsigned idx, uint16_t *pMatch, uint16_t *pMask, ushort *pFpScale)
{
	FIND_EVENT(ANY_THREAD);
	if ((rc = punit_only(s, __func__)))
		return rc;
	if (e->id != PEVT_INST_QFPU_MATCH)
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "%s is not PEVT_INST_QFPU_MATCH", bgpm_ids[e->id].label);
	if (!pMatch || !pMask || !pFpScale)
		return null_arg(__func__);
	*pMatch = s->qfpu_match;
	*pMask = s->qfpu_mask;
	*pFpScale = s->qfpu_scale;
	return BGPM_EOK;
}

/* Square-root (what) or divide scale of set h. */
static int set_scale(unsigned h, ushort scale, unsigned what, const char *fn)
{
	int rc;
	bgpm_set *s = find(h, 0, NULL, UNFROZEN, fn, &rc);
	if (!s)
		return rc;
	if ((rc = punit_only(s, fn)))
		return rc;
	if (scale > 3)
		return fail(BGPM_EINV_PARM, fn, "FP scale %u is not 0..3", scale);
	ushort *f = what == RSV_SQRT ? &s->sqrt_scale : &s->div_scale, old = *f;
	*f = scale;
	if ((rc = core_conflict(s, what))) {
		*f = old;
		return rc;
	}
	s->rsv |= what;
	return BGPM_EOK;
}

static int get_scale(unsigned h, ushort *p, unsigned what, const char *fn)
{
	int rc;
	bgpm_set *s = find(h, 0, NULL, ANY_THREAD, fn, &rc);
	if (!s)
		return rc;
	if ((rc = punit_only(s, fn)))
		return rc;
	if (!p)
		return null_arg(fn);
	*p = what == RSV_SQRT ? s->sqrt_scale : s->div_scale;
	return BGPM_EOK;
}

int Bgpm_SetFpSqrScale(unsigned h, ushort fpScale) { return set_scale(h, fpScale, RSV_SQRT, __func__); }
int Bgpm_GetFpSqrScale(unsigned h, ushort *pFpScale) { return get_scale(h, pFpScale, RSV_SQRT, __func__); }
int Bgpm_SetFpDivScale(unsigned h, ushort fpScale) { return set_scale(h, fpScale, RSV_DIV, __func__); }
int Bgpm_GetFpDivScale(unsigned h, ushort *pFpScale) { return get_scale(h, pFpScale, RSV_DIV, __func__); }

/* Kernel and user events in one set: the simulated Punit filters by the
 * set's context alone, so this only records the permission. */
int Bgpm_AllowMixedContext(unsigned h)
{
	FIND_SET(UNFROZEN);
	return punit_only(s, __func__);
}

/* The L1p mode the set's L1p events select (none: undefined). */
int Bgpm_GetL1pMode(unsigned h, Bgpml1pModes *pMode)
{
	FIND_SET(ANY_THREAD);
	if (!pMode)
		return null_arg(__func__);
	if (s->unit != BGPMUnitType_PUNIT)
		return fail(BGPM_EUNSUP_ATTRIB, __func__, "only Punit sets have an L1p mode");
	*pMode = (Bgpml1pModes)set_l1p_mode(s);
	return BGPM_EOK;
}

/* Labels until a NULL entry; the number added, or the first error. */
int Bgpm_AddEventStringList(unsigned h, char *evtString[])
{
	if (!evtString)
		return fail(BGPM_EINV_PARM, __func__, "NULL list");
	int n = 0;
	for (; evtString[n]; n++) {
		int rc = Bgpm_AddEventString(h, evtString[n]);
		if (rc < 0)
			return rc;
	}
	return n;
}

/* ---- feedback and printing (our own format) -------------------------------------------- */

int Bgpm_SetThreadFeedbackBuffer(unsigned h, char *buffer, int bufSize)
{
	FIND_SET(ANY_THREAD);
	if (buffer && bufSize <= 0)
		return fail(BGPM_EINV_PARM, __func__, "buffer size %d", bufSize);
	s->feedback = buffer;
	s->feedback_size = buffer ? bufSize : 0;
	if (buffer)
		buffer[0] = '\0';
	return BGPM_EOK;
}

int Bgpm_PrintFeedbackBuffer(const char *buffer, int bufSize)
{
	if (!buffer || bufSize <= 0)
		return fail(BGPM_EINV_PARM, __func__, "need a buffer and its size");
	fprintf(stderr, "%.*s", bufSize, buffer);
	return BGPM_EOK;
}

/* One line per event: its index, label and the counters it holds. */
int Bgpm_PrintCurrentPunitReservations(unsigned h)
{
	FIND_SET(ANY_THREAD);
	if (s->unit != BGPMUnitType_PUNIT)
		return fail(BGPM_EINV_OP, __func__, "event set %u is not a Punit set", h);
	fprintf(stderr, "libbgpm: Punit set %u on hardware thread %d:\n", h, clab_thread_hwthread(s->thread));
	for (int i = 0; i < s->n; i++) {
		uint64_t c = s->cs ? clab_evset_counters(s->cs, s->ev[i].first) : 0;
		fprintf(stderr, "  [%d] %-32s counters 0x%06llx\n", i, bgpm_ids[s->ev[i].id].label, (unsigned long long)c);
	}
	return BGPM_EOK;
}

static void dump_set(const bgpm_set *s, unsigned h, unsigned indentLvl)
{
	int in = (int)indentLvl * 2;
	fprintf(stderr, "%*sevent set %u: %s unit, %d events, %s%s%s\n", in, "", h, unit_name[s->unit], s->n,
		applied(s) ? "applied" : "not applied", s->running ? ", running" : "", s->mux ? ", multiplexed" : "");
	for (int i = 0; i < s->n; i++)
		fprintf(stderr, "%*s  [%d] %s%s\n", in, "", i, bgpm_ids[s->ev[i].id].label,
			s->ev[i].period ? " (overflow)" : "");
}

int Bgpm_DumpEvtSet(unsigned h, unsigned indentLvl)
{
	FIND_SET(ANY_THREAD);
	dump_set(s, h, indentLvl);
	return BGPM_EOK;
}

/* Sets are deleted by their own thread only: the caller's stay put. */
int Bgpm_DumpEvtSetList(unsigned indentLvl)
{
	for (unsigned h = 0; h < MAX_SETS; h++) {
		pthread_mutex_lock(&lock);
		const bgpm_set *s = sets[h];
		pthread_mutex_unlock(&lock);
		if (s)
			dump_set(s, h, indentLvl);
	}
	return BGPM_EOK;
}

ushort Bgpm_DumpOnError(ushort val)
{
	ushort old = (ushort)me.dump;
	me.dump = val != 0;
	return old;
}

/* The node as libbgpm shares it between threads: mode, L2 mode, links. */
void Bgpm_DebugDumpShrMem(void)
{
	pthread_mutex_lock(&lock);
	fprintf(stderr, "libbgpm: mode %d (%d threads), L2 %s (%d sets)\n", proc_mode, proc_inits,
		l2_refs ? (l2_combined ? "combined" : "per slice") : "unset", l2_refs);
	for (int l = 0; l < NW_LINKS; l++)
		if (link_refs[l])
			fprintf(stderr, "libbgpm: link %d: %d sets, controlled by set %d\n", l, link_refs[l],
				link_ctl[l] ? (int)link_ctl[l]->handle : -1);
	pthread_mutex_unlock(&lock);
}

/* The calling thread's Punit sets and the counters they hold. */
void Bgpm_DumpUPCPState(void)
{
	for (unsigned h = 0; h < MAX_SETS; h++) {
		pthread_mutex_lock(&lock);
		bgpm_set *s = sets[h];
		int mine = s && s->unit == BGPMUnitType_PUNIT && pthread_equal(s->owner, pthread_self());
		pthread_mutex_unlock(&lock);
		if (mine)
			Bgpm_PrintCurrentPunitReservations(h);
	}
}

/* libbgpm keeps no trace: these are accepted and do nothing. */
void Bgpm_EnableTracePrint(void) {}
void Bgpm_DisableTracePrint(void) {}
