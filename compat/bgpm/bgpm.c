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

struct bgpm_idfact {
	const char *label;
	int unit;  /* BgpmUnitTypes */
	int scope; /* UPC_EventScope_t */
	int edge;  /* counts edges (1) or cycles (0) */
	uint32_t sel;
};
#include "bgpm_table.h"

#define MAX_SETS 1024
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
	Bgpm_OverflowHandler_t handler;
	clab_evset *cs;
	int nreq;
} bgpm_set;

typedef struct bgpm_tls {
	int inited, mode;
	clab_thread *thread;
	int print, exitflag, flags_set;
} bgpm_tls;

static __thread bgpm_tls me;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bgpm_set *sets[MAX_SETS];
static clab_machine *machine;

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
	case BGPM_ECTRRESERVED: return "counters needed by the event are taken";
	case BGPM_EINV_EVT_IDX: return "no event at this index of the set";
	case BGPM_EINV_OVF: return "overflow period must be below 2^63";
	case BGPM_EINITED: return "thread already initialized";
	case BGPM_ENOMEM: return "out of memory";
	case BGPM_EINV_SET_HANDLE: return "invalid event set handle";
	case BGPM_EEVT_SET_UNASSIGNED: return "event set has no unit yet (no events)";
	case BGPM_ECONF_UNIT: return "event belongs to another unit than the set's";
	case BGPM_EXHAUSTED: return "no resources left to add the event";
	case BGPM_EINV_ATTRIB_VAL: return "invalid attribute value";
	case BGPM_EUNSUP_ATTRIB: return "attribute not supported by this event";
	case BGPM_EUNSUP_OVERFLOW: return "overflow not supported for this event";
	case BGPM_ENO_OVERFLOW: return "no overflow set";
	case BGPM_EARRAY_TOO_SMALL: return "array too small";
	case BGPM_ENOT_MUXED: return "event set is not multiplexed";
	case BGPM_ECONF_L2_COMBINE: return "L2 combined and per-slice events cannot be mixed";
	case BGPM_ENO_CONFIG: return "no events configured";
	case BGPM_ENOT_MASK_EVENT: return "event is not an opcode group mask event";
	case BGPM_ENOT_EMPTY: return "event set not empty";
	case BGPM_EUNREC_EVTID: return "unrecognized event id";
	case BGPM_EINV_OP: return "operation invalid for this event set";
	case BGPM_ENOT_APPLIED: return "event set is not applied or attached";
	case BGPM_EINV_L2_SLICE: return "invalid L2 slice";
	case BGPM_EES_FROZEN: return "event set frozen by apply or attach";
	case BGPM_ENOT_CONTROL_THREAD: return "only the thread that created the set controls it";
	case BGPM_EUPDATE_DISALLOWED: return "update not allowed while the set runs";
	case BGPM_EMAX_EVTSETS: return "too many event sets";
	case BGPM_ECTRS_IN_USE: return "counters held by another event set";
	case BGPM_EINV_WRT2OVF: return "cannot write an event armed for overflow";
	case BGPM_WALREADY_ATTACHED: return "warning: already attached";
	case BGPM_WNOT_ATTACHED: return "warning: not attached";
	case BGPM_WALREADY_STARTED: return "warning: already started";
	case BGPM_WALREADY_STOPPED: return "warning: already stopped";
	case BGPM_WNOT_LINK_CTL: return "warning: set controls no links";
	}
	return "unknown BGPM code";
}

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
	if (me.print) {
		char why[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, sizeof why, fmt, ap);
		va_end(ap);
		fprintf(stderr, "BGPM error %d (%s) in %s: %s\n", rc, Bgpm_ErrorString(rc), fn, why);
	}
	if (me.exitflag) {
		if (me.print)
			fprintf(stderr, "BGPM: exiting on error (Bgpm_ExitOnError, $BGPM_NO_EXIT_ON_ERR)\n");
		exit(EXIT_FAILURE);
	}
	return rc;
}

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
	if (m == BGPM_MODE_HWDISTRIB)
		return fail(BGPM_ENOTIMPL, __func__,
			    "hardware-distributed mode (one thread controlling every hardware thread's counters) is not implemented by libbgpm; use BGPM_MODE_SWDISTRIB");
	int rc = open_machine();
	if (!rc)
		rc = clab_thread_attach(machine, &me.thread);
	if (rc)
		return from_clab(rc, 0, __func__);
	me.inited = 1;
	me.mode = m;
	return BGPM_EOK;
}

int Bgpm_LibLinked(void) { return BGPM_TRUE; }

/* What a call needs of the set it names. */
enum { ANY_THREAD = 0, OWNER = 1, UNFROZEN = 3 /* the owner, before apply */, MUXED = 4 };

/* Set h and, when e is given, its event idx, if this thread may have them
 * as need says; otherwise NULL with *rc the (printed) error. */
static bgpm_set *find(unsigned h, unsigned idx, bgpm_event **e, int need, const char *fn, int *rc)
{
	if (!me.inited) {
		*rc = fail(BGPM_ENOT_INIT, fn, "call Bgpm_Init in this thread first");
		return NULL;
	}
	pthread_mutex_lock(&lock);
	bgpm_set *s = h < MAX_SETS ? sets[h] : NULL;
	pthread_mutex_unlock(&lock);
	if (!s)
		*rc = fail(BGPM_EINV_SET_HANDLE, fn, "no event set has handle %u", h);
	else if (e && idx >= (unsigned)s->n)
		*rc = fail(BGPM_EINV_EVT_IDX, fn, "event set %u has %d events, no index %u", h, s->n, idx);
	else if ((need & OWNER) && !pthread_equal(s->owner, pthread_self()))
		*rc = fail(BGPM_ENOT_CONTROL_THREAD, fn, "event set %u belongs to another thread", h);
	else if ((need & UNFROZEN) == UNFROZEN && s->frozen)
		*rc = fail(BGPM_EES_FROZEN, fn, "event set %u is applied: its events and attributes are fixed", h);
	else if ((need & MUXED) && !s->mux)
		*rc = fail(BGPM_ENOT_MUXED, fn, "event set %u is not multiplexed", h);
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
	s->ctx = context_from_env();
	pthread_mutex_lock(&lock);
	unsigned h = 0;
	while (h < MAX_SETS && sets[h])
		h++;
	if (h < MAX_SETS) {
		s->handle = h;
		sets[h] = s;
	}
	pthread_mutex_unlock(&lock);
	if (h == MAX_SETS) {
		free(s);
		return fail(BGPM_EMAX_EVTSETS, __func__, "all %d event set handles are in use", MAX_SETS);
	}
	return (int)h;
}

int Bgpm_DeleteEventSet(unsigned h)
{
	FIND_SET(OWNER);
	if (s->cs)
		clab_evset_destroy(s->cs);
	pthread_mutex_lock(&lock);
	sets[h] = NULL;
	pthread_mutex_unlock(&lock);
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
	return BGPM_EOK;
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
		int sl = is_slice_event(eventId);
		if (s->l2_slice >= 0 && sl != s->l2_slice)
			return fail(BGPM_ECONF_L2_COMBINE, __func__, "%s is a %s event but the set counts %s",
				    bgpm_ids[eventId].label, sl ? "per-slice" : "combined",
				    s->l2_slice ? "per slice" : "combined");
		/* a _SLICE event is counted on all 16 slices */
		if (sl && s->n >= CLAB_EVSET_MAX_EVENTS / L2_SLICES)
			return fail(BGPM_EXHAUSTED, __func__,
				    "libbgpm counts each _SLICE event on all 16 slices: at most %d per set",
				    CLAB_EVSET_MAX_EVENTS / L2_SLICES);
		s->l2_slice = sl;
	}
	if (s->n >= MAX_EVENTS)
		return fail(BGPM_EXHAUSTED, __func__, "event set %u holds %d events already", h, MAX_EVENTS);
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
	if (me.mode == BGPM_MODE_LLDISTRIB)
		return fail(BGPM_EUNSUP_OVERFLOW, __func__, "low-latency mode has no overflow interrupts");
	int u = bgpm_ids[e->id].unit;
	if (u == BGPMUnitType_NW || u == BGPMUnitType_CNK || (u == BGPMUnitType_L2 && is_slice_event(e->id)))
		return fail(BGPM_EUNSUP_OVERFLOW, __func__, "%s cannot interrupt on overflow (only Punit, combined L2 and I/O events can)",
			    bgpm_ids[e->id].label);
	if (s->mux && period)
		return fail(BGPM_EUNSUP_OVERFLOW, __func__, "libbgpm's multiplexed sets do not interrupt on overflow");
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
	for (int i = 0; i < s->n; i++) {
		if (!s->ev[i].period || !(vector_of(s, i) & ovfVector))
			continue;
		if (n == *pLen)
			return fail(BGPM_EARRAY_TOO_SMALL, __func__, "more than %u events overflowed", *pLen);
		pIdx[n++] = (unsigned)i;
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
	if (max != BGPMMuxMinEvts && max != BGPMMuxMedEvts && max != BGPMMuxMaxEvts)
		return fail(BGPM_EINV_PARM, __func__, "maxEventsPerGroup %d is none of 5, 11, 23", (int)max);
	if (s->n)
		return fail(BGPM_ENOT_EMPTY, __func__, "multiplexing is chosen before events are added");
	if (me.mode == BGPM_MODE_LLDISTRIB)
		return fail(BGPM_EINV_OP, __func__, "low-latency mode does not multiplex");
	if (period && period < CLAB_MPX_MIN_PERIOD)
		return fail(BGPM_EINV_PARM, __func__, "period %llu is below %d cycles", (unsigned long long)period, CLAB_MPX_MIN_PERIOD);
	s->mux = 1;
	s->mux_period = period;
	s->normalize = normalize != 0;
	s->mux_max = (unsigned)max;
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

int Bgpm_GetMultiplex(unsigned h, Bgpm_MuxStats_t *p)
{
	FIND_SET(MUXED);
	if (!p)
		return null_arg(__func__);
	clab_mpx_stats st = mux_stats(s);
	*p = (Bgpm_MuxStats_t){
		.active = 1, .period = s->mux_period, .normalize = s->normalize,
		.numGrps = s->cs ? (unsigned)st.ngroups : 0, .maxEvtsPerGrp = s->mux_max,
		.numSwitches = (unsigned)st.switches, .elapsedCycles = st.elapsed,
	};
	return BGPM_EOK;
}

int Bgpm_SwitchMux(unsigned h)
{
	FIND_SET(MUXED);
	if (!s->cs)
		return fail(BGPM_ENOT_APPLIED, __func__, "apply event set %u first", h);
	rc = clab_evset_switch(s->cs);
	return rc ? from_clab(rc, s->unit, __func__) : BGPM_EOK;
}

int Bgpm_GetMuxGroups(unsigned h)
{
	FIND_SET(MUXED);
	if (!s->cs)
		return fail(BGPM_ENOT_APPLIED, __func__, "groups are formed when event set %u is applied", h);
	return mux_stats(s).ngroups;
}

/* These two return cycles, 0 on any error (printed). */
uint64_t Bgpm_GetMuxElapsedCycles(unsigned h, unsigned grp)
{
	int rc;
	bgpm_set *s = find(h, 0, NULL, MUXED, __func__, &rc);
	clab_mpx_stats st = s ? mux_stats(s) : (clab_mpx_stats){0};
	return grp < (unsigned)st.ngroups ? st.cycles[grp] : 0;
}

uint64_t Bgpm_GetMuxEventElapsedCycles(unsigned h, unsigned idx)
{
	int rc;
	bgpm_event *e;
	bgpm_set *s = find(h, idx, &e, MUXED, __func__, &rc);
	if (!s || !s->cs)
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

/* Builds the counterlab set: the events, their qualifiers, the context,
 * multiplexing and overflow arming. */
static int build(bgpm_set *s, const char *fn)
{
	if (!s->n)
		return fail(BGPM_ENO_CONFIG, fn, "event set %u has no events", s->handle);
	clab_component *c = clab_machine_component(machine, unit_comp[s->unit]);
	if (!c)
		return from_clab(CLAB_E_NOCOMP, s->unit, fn);
	uint32_t codes[CLAB_EVSET_MAX_EVENTS];
	int nreq = 0;
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
		if (nreq + k > CLAB_EVSET_MAX_EVENTS)
			return fail(BGPM_EXHAUSTED, fn, "the set needs more than %d simulator events (network events count once per attached link)",
				    CLAB_EVSET_MAX_EVENTS);
		e->first = nreq;
		e->nreq = k;
		for (int j = 0; j < k; j++) {
			int rc = clab_event_lookup(c, names[j], &codes[nreq++]);
			if (rc)
				return from_clab(rc, s->unit, fn);
		}
	}
	clab_evset *cs;
	int rc = clab_evset_create(c, s->thread, &cs);
	if (rc)
		return from_clab(rc, s->unit, fn);
	if (s->unit == BGPMUnitType_PUNIT) {
		int ctx = s->ctx == BGPM_CTX_KERNEL ? CLAB_CTX_KERNEL
			: s->ctx == BGPM_CTX_USER ? CLAB_CTX_USER : CLAB_CTX_ALL;
		rc = clab_evset_set_context(cs, ctx);
	}
	if (!rc && s->mux) /* period 0: switches only on Bgpm_SwitchMux */
		rc = clab_evset_set_multiplex(cs, s->mux_period ? s->mux_period : UINT64_MAX / 4);
	if (!rc)
		rc = clab_evset_program(cs, codes, nreq);
	for (int i = 0; !rc && i < s->n; i++)
		if (s->ev[i].period)
			rc = clab_evset_overflow(cs, s->ev[i].first, s->ev[i].period, on_overflow, s);
	if (rc) {
		int b = from_clab(rc, s->unit, fn);
		clab_evset_destroy(cs);
		return b;
	}
	s->cs = cs;
	s->nreq = nreq;
	zero(s);
	s->frozen = 1;
	return BGPM_EOK;
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
	if (s->cs) { /* applied again: counts restart from zero */
		rc = clab_evset_reset(s->cs);
		zero(s);
		return rc ? from_clab(rc, s->unit, __func__) : BGPM_EOK;
	}
	return build(s, __func__);
}

/* Network sets attach to links (targMask, UPC_NW_LinkMasks bits); other
 * units only in hardware-distributed mode, which libbgpm lacks. */
int Bgpm_Attach(unsigned h, uint64_t targMask, uint64_t agentMask)
{
	(void)agentMask;
	FIND_SET(OWNER);
	if (!s->unit)
		return fail(BGPM_EEVT_SET_UNASSIGNED, __func__, "event set %u has no events", h);
	if (s->unit != BGPMUnitType_NW)
		return fail(BGPM_EINV_OP, __func__, "in software-distributed mode only network sets attach; apply %s sets with Bgpm_Apply",
			    unit_name[s->unit]);
	if (s->cs)
		return targMask == s->links ? BGPM_WALREADY_ATTACHED
			: fail(BGPM_EES_FROZEN, __func__, "event set %u is attached to links 0x%x already", h, s->links);
	if (!targMask || (targMask & ~(uint64_t)UPC_NW_ALL_LINKS))
		return fail(BGPM_EINV_PARM, __func__, "link mask 0x%llx is not a non-empty subset of UPC_NW_ALL_LINKS (0xffe0)",
			    (unsigned long long)targMask);
	s->links = (unsigned)targMask;
	rc = build(s, __func__);
	if (rc)
		s->links = 0;
	return rc;
}

int Bgpm_Detach(unsigned h)
{
	FIND_SET(OWNER);
	if (s->unit != BGPMUnitType_NW || !s->cs)
		return BGPM_WNOT_ATTACHED;
	clab_evset_destroy(s->cs);
	s->cs = NULL;
	s->running = 0;
	s->frozen = 0;
	s->links = 0;
	return BGPM_EOK;
}

int Bgpm_IsController(unsigned h)
{
	FIND_SET(ANY_THREAD);
	return pthread_equal(s->owner, pthread_self()) && s->cs ? BGPM_TRUE : BGPM_FALSE;
}

static int read_all(bgpm_set *s, int64_t *vals, const char *fn);

/* Start needs an applied (Punit, L2 optional) or attached (network) set;
 * node-wide L2, I/O and CNK sets are applied on first start. */
static bgpm_set *startable(unsigned h, const char *fn, int *rc)
{
	bgpm_set *s = find(h, 0, NULL, OWNER, fn, rc);
	if (s && !s->cs) {
		if (s->unit == BGPMUnitType_PUNIT || s->unit == BGPMUnitType_NW || !s->unit) {
			*rc = fail(BGPM_ENOT_APPLIED, fn, "event set %u: %s first", h,
				   s->unit == BGPMUnitType_NW ? "attach it to links" : "apply it");
			return NULL;
		}
		if ((*rc = build(s, fn)) < 0)
			return NULL;
	}
	return s;
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
		rc = clab_evset_reset(s->cs);
	} else if (s->started && (rc = read_all(s, vals, fn)) < 0)
		return rc;
	for (int i = 0; !reset && s->started && i < s->n; i++)
		for (int j = 0; j < s->ev[i].nreq; j++)
			s->ev[i].offset[j] = vals[s->ev[i].first + j];
	if (!rc)
		rc = clab_evset_start(s->cs);
	if (rc)
		return from_clab(rc, s->unit, fn);
	s->running = s->started = 1;
	return BGPM_EOK;
}

int Bgpm_Start(unsigned h) { return start(h, 0, __func__); }
int Bgpm_ResetStart(unsigned h) { return start(h, 1, __func__); }

int Bgpm_Stop(unsigned h)
{
	FIND_SET(OWNER);
	if (!s->running)
		return BGPM_WALREADY_STOPPED;
	rc = clab_evset_stop(s->cs, NULL);
	s->running = 0;
	return rc ? from_clab(rc, s->unit, __func__) : BGPM_EOK;
}

int Bgpm_Reset(unsigned h)
{
	FIND_SET(OWNER);
	if (!s->cs)
		return fail(BGPM_ENOT_APPLIED, __func__, "event set %u is not applied", h);
	if (s->running)
		return fail(BGPM_EUPDATE_DISALLOWED, __func__, "stop event set %u before resetting it (or use Bgpm_ResetStart)", h);
	rc = clab_evset_reset(s->cs);
	zero(s);
	return rc ? from_clab(rc, s->unit, __func__) : BGPM_EOK;
}

/* ---- reading and writing ------------------------------------------------------ */

/* The counterlab set's counts (none before its first start). */
static int raw_read(bgpm_set *s, int64_t *vals)
{
	if (!s->started) {
		memset(vals, 0, sizeof *vals * (size_t)s->nreq);
		return CLAB_OK;
	}
	return s->mux && !s->normalize ? clab_evset_read_raw(s->cs, vals) : clab_evset_read(s->cs, vals);
}

/* vals gets the set's counterlab counts (scaled for a normalized
 * multiplexed set), each with its written offset. */
static int read_all(bgpm_set *s, int64_t *vals, const char *fn)
{
	if (!s->cs)
		return fail(BGPM_ENOT_APPLIED, fn, "event set %u is not %s", s->handle,
			    s->unit == BGPMUnitType_NW ? "attached" : "applied");
	int rc = raw_read(s, vals);
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
	if (!s->cs)
		return fail(BGPM_ENOT_APPLIED, fn, "event set %u is not applied", s->handle);
	if (e->period)
		return fail(BGPM_EINV_WRT2OVF, fn, "%s is armed for overflow", bgpm_ids[e->id].label);
	if (s->running)
		return fail(BGPM_EUPDATE_DISALLOWED, fn, "stop event set %u before writing it", s->handle);
	if (s->mux)
		return fail(BGPM_EINV_OP, fn, "multiplexed counts cannot be written");
	int64_t vals[CLAB_EVSET_MAX_EVENTS];
	int rc = raw_read(s, vals);
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
 * bits of the count, and bit 14 once it has wrapped. */
uint64_t Bgpm_Punit_LLRead(uint64_t hCtr)
{
	uint64_t v = Bgpm_Punit_Read(hCtr);
	return (v & 0x3fff) | (v > 0x3fff ? 0x4000 : 0);
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
