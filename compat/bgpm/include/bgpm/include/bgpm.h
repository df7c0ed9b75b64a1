/* libbgpm: the Blue Gene/Q performance-monitor API (BGPM) over counterlab's
 * simulated BG/Q node. Names, signatures and numeric codes follow IBM's
 * documented interface so that programs written for it build unchanged;
 * what this implementation does and does not do is in docs/bgpm-gpcd.md. Link with -lbgpm -lcounterlab. */
#ifndef COUNTERLAB_BGPM_H
#define COUNTERLAB_BGPM_H

#include <stdint.h>
#include <ucontext.h>
#include "bgpm/include/events.h" /* PEVT_* event ids, generated from the event table */
#include "spi/include/upci/upci.h" /* _AT_, Upci_Delay, the Kernel_* location calls */

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned short ushort;
typedef int UpciBool_t;

#define BGPM_TRUE 1
#define BGPM_FALSE 0

/* ---- return codes: 0 ok, negative errors, positive warnings ------------- */
#define BGPM_EOK                  0
#define BGPM_EINTERNAL            (-1000)
#define BGPM_ENOTIMPL             (-1001)
#define BGPM_EINV_EVENT           (-1002)
#define BGPM_EINV_PARM            (-1003)
#define BGPM_ENOT_INIT            (-1004)
#define BGPM_ERESERVED            (-1005)
#define BGPM_ESIGRESERVED         (-1006)
#define BGPM_ECTRRESERVED         (-1007)
#define BGPM_EL1PMODERESERVED     (-1008)
#define BGPM_ETHRDCORE_MISMATCH   (-1009)
#define BGPM_ESYSCALL_DATASIZE    (-1010)
#define BGPM_ESYSCALL_NOTIMPL     (-1011)
#define BGPM_ESYSCALL_INVALID     (-1012)
#define BGPM_ESYSCALL_RETRY       (-1013)
#define BGPM_EMODE_MISMATCH       (-1014)
#define BGPM_EMODE_MISMATCH_UNIT  (-1015)
#define BGPM_EINV_EVT_IDX         (-1016)
#define BGPM_EINV_OVF             (-1017)
#define BGPM_ERESERVED1           (-1018)
#define BGPM_EINV_OPCTRMODE       (-1019)
#define BGPM_EINV_UKVER_MISMATCH  (-1020)
#define BGPM_ETHD_CTRS_RSV        (-1021)
#define BGPM_ECSEVT_REQALLTHDS    (-1022)
#define BGPM_MIN_ERRNO            (-2000)
#define BGPM_EINITED              (-2000)
#define BGPM_EHWINITED            (-2001)
#define BGPM_ECONF_MODE           (-2002)
#define BGPM_ENOMEM               (-2003)
#define BGPM_EINV_SET_HANDLE      (-2004)
#define BGPM_EEVT_SET_UNASSIGNED  (-2005)
#define BGPM_ECONF_UNIT           (-2006)
#define BGPM_EXHAUSTED            (-2007)
#define BGPM_EINV_ATTRIB          (-2008)
#define BGPM_EINV_ATTRIB_VAL      (-2009)
#define BGPM_EUNSUP_ATTRIB        (-2010)
#define BGPM_EUNSUP_OVERFLOW      (-2011)
#define BGPM_ENO_OVERFLOW         (-2012)
#define BGPM_EARRAY_TOO_SMALL     (-2013)
#define BGPM_ENOT_MUXED           (-2014)
#define BGPM_ECONF_L2_COMBINE     (-2015)
#define BGPM_ENO_CONFIG           (-2016)
#define BGPM_ENOT_MASK_EVENT      (-2017)
#define BGPM_ENOT_QFPU_INST_EVENT (-2018)
#define BGPM_ENOT_EMPTY           (-2019)
#define BGPM_EUNREC_EVTID         (-2020)
#define BGPM_EINV_OP              (-2021)
#define BGPM_ESHM_OPEN_ERR        (-2022)
#define BGPM_ESWTHD_MOVED         (-2023)
#define BGPM_ENOT_APPLIED         (-2024)
#define BGPM_EINV_L2_SLICE        (-2025)
#define BGPM_ETHD_COUNTS_RSV      (-2026)
#define BGPM_EINV_SUBNODE         (-2027)
#define BGPM_EPRERSV_EXISTS       (-2028)
#define BGPM_ECTX_MISMATCH        (-2029)
#define BGPM_EEVT_CTX_MISMATCH    (-2030)
#define BGPM_EES_FROZEN           (-2031)
#define BGPM_EQFPU_RSV_MISMATCH   (-2032)
#define BGPM_EXU_RSV_MISMATCH     (-2033)
#define BGPM_ESQRT_SCALE_MISMATCH (-2034)
#define BGPM_EDIV_SCALE_MISMATCH  (-2035)
#define BGPM_ETHRES_MISMATCH      (-2036)
#define BGPM_ENOT_CONTROL_THREAD  (-2037)
#define BGPM_EUPDATE_DISALLOWED   (-2038)
#define BGPM_EMAX_EVTSETS         (-2039)
#define BGPM_ECTRS_IN_USE         (-2040)
#define BGPM_ELINK_CTRS_INCOMPAT  (-2041)
#define BGPM_ELONGDESC_CORRUPT    (-2042)
#define BGPM_EINV_WRT2OVF         (-2043)
#define BGPM_MAX_ERRNO            (-2043)
#define BGPM_MIN_WARNING_NO       3000
#define BGPM_WALREADY_ATTACHED    3000
#define BGPM_WNOT_ATTACHED        3001
#define BGPM_WALREADY_STARTED     3002
#define BGPM_WALREADY_STOPPED     3003
#define BGPM_WEVTSET_STILL_USED   3004
#define BGPM_WNOT_LINK_CTL        3005
#define BGPM_MAX_WARNING_NO       3005

/* Short text of a return code (our wording); Bgpm_ErrStrg is IBM's name. */
const char *Bgpm_ErrorString(int rc);
const char *Bgpm_ErrStrg(int errnum);
/* The calling thread's last error code and what was wrong (kept until the
 * next error: successes do not clear them). */
int Bgpm_LastErr(void);
const char *Bgpm_LastErrStrg(void);

/* ---- types and constants ------------------------------------------------ */
typedef enum eBgpm_Modes {
	BGPM_MODE_DEFAULT = 0,   /* $BGPM_MODE, else software-distributed */
	BGPM_MODE_LLDISTRIB = 1, /* low latency: Punit LL handles only */
	BGPM_MODE_SWDISTRIB = 2, /* software-thread perspective */
	BGPM_MODE_HWDISTRIB = 3, /* hardware-thread perspective: Punit sets attach to threads */
	BGPM_MAX_MODES = 4
} Bgpm_Modes;

typedef enum eRsvMuxCtrs {
	BGPMMuxMinEvts = 5,
	BGPMMuxMedEvts = 11,
	BGPMMuxMaxEvts = 23
} RsvMuxCtrs;

typedef enum eBgpm_Context {
	BGPM_CTX_DEFAULT = 0, /* $BGPM_CONTEXT, else both */
	BGPM_CTX_KERNEL = 1,
	BGPM_CTX_USER = 2,
	BGPM_CTX_BOTH = 3
} Bgpm_Context;

typedef enum eBgpml1pModes {
	BGPMl1pMode_UNDEF = 0,
	BGPMl1pMode_STREAM = 1,
	BGPMl1pMode_SWITCH = 2,
	BGPMl1pMode_LIST = 3
} Bgpml1pModes;

typedef enum eBgpmUnitTypes {
	BGPMUnitType_UNDEF = 0,
	BGPMUnitType_PUNIT = 1,
	BGPMUnitType_L2 = 2,
	BGPMUnitType_IO = 3,
	BGPMUnitType_NW = 4,
	BGPMUnitType_CNK = 5
} BgpmUnitTypes;

#define UPC_P_NUM_COUNTERS 24
#define UPC_L2_NUM_COUNTERS 16
#define UPC_L2_NUM_SLICES 16
#define UPC_C_IOSRAM_NUM_COUNTERS 64
#define UPC_NW_NUM_LINKS 11
#define UPC_NW_NUM_CTRS 6

/* Network links as masks (link n is bit 15-n: A- first), and virtual channels. */
#define UPC_NW_LINK_bit(n) (1 << (15 - (n)))
typedef enum {
	UPC_NW_LINK_A = 0xC000, UPC_NW_LINK_A_MINUS = 0x8000, UPC_NW_LINK_A_PLUS = 0x4000,
	UPC_NW_LINK_B = 0x3000, UPC_NW_LINK_B_MINUS = 0x2000, UPC_NW_LINK_B_PLUS = 0x1000,
	UPC_NW_LINK_C = 0x0C00, UPC_NW_LINK_C_MINUS = 0x0800, UPC_NW_LINK_C_PLUS = 0x0400,
	UPC_NW_LINK_D = 0x0300, UPC_NW_LINK_D_MINUS = 0x0200, UPC_NW_LINK_D_PLUS = 0x0100,
	UPC_NW_LINK_E = 0x00C0, UPC_NW_LINK_E_MINUS = 0x0080, UPC_NW_LINK_E_PLUS = 0x0040,
	UPC_NW_LINK_IO = 0x0020,
	UPC_NW_ALL_TORUS_LINKS = 0xFFC0,
	UPC_NW_ALL_LINKS = 0xFFE0
} UPC_NW_LinkMasks;
typedef enum {
	UPC_NW_VC_USER_DYNAMIC = 0x40,
	UPC_NW_VC_USER_ESCAPE = 0x20,
	UPC_NW_VC_USER_PRIORITY = 0x10,
	UPC_NW_VC_SYSTEM = 0x08,
	UPC_NW_VC_COL_USER_WORLD = 0x04,
	UPC_NW_VC_COL_USER_SUBCOMM = 0x02,
	UPC_NW_VC_COL_SYSTEM = 0x01,
	UPC_NW_VC_ALL = 0x7F
} UPC_NW_Vchannels;
#define UPC_NW_ALL_LINKCTRS 0xFFFFFFFFFFFFFE00ULL

/* Hardware thread t in the thread masks of Bgpm_Attach and Bgpm_ReadThreadEvent. */
#define UPC_APP_HWTID_MASK(t) (0x8000000000000000ULL >> (t))
#define UPC_AGENT_HWTID_MASK(t) (0x8000000000000000ULL >> (t))

#define BGPM_MAX_PUNIT_HANDLES (UPC_P_NUM_COUNTERS + 20)
typedef struct sBgpm_Punit_Handles {
	uint64_t allCtrMask;  /* starts and stops every counter of the set */
	unsigned numCtrs;
	uint64_t hCtr[BGPM_MAX_PUNIT_HANDLES];
} Bgpm_Punit_Handles_t;

typedef struct sBgpm_Punit_LLHandles {
	uint64_t allCtrMask;
	unsigned numCtrs;
	uint64_t hCtr[UPC_P_NUM_COUNTERS];
} Bgpm_Punit_LLHandles_t;

typedef int UPC_EventSources_t;
typedef enum { UPC_SCOPE_UNDEF = 0, UPC_SCOPE_THREAD = 1, UPC_SCOPE_CORE = 2,
	       UPC_SCOPE_CORESHARED = 3, UPC_SCOPE_NODE = 4 } UPC_EventScope_t;
typedef enum { UPC_METRIC_UNDEF = 0, UPC_METRIC_COUNT = 1, UPC_METRIC_CYCLE = 2 } UPC_EventMetric_t;

typedef struct sEventInfo {
	unsigned evtId;
	const char *label;
	const char *desc;
	BgpmUnitTypes unitType;
	UPC_EventSources_t srcType;
	UPC_EventScope_t scope;
	UPC_EventMetric_t metric;
	ushort edge;
	ushort inverted;
	uint32_t selVal;
} Bgpm_EventInfo_t;

typedef struct sMuxStats {
	int active;
	uint64_t period;          /* cycles between switches (0: only Bgpm_SwitchMux) */
	int normalize;
	unsigned numGrps;
	unsigned maxEvtsPerGrp;
	unsigned numSwitches;
	uint64_t elapsedCycles;
} Bgpm_MuxStats_t;

#define BGPM_NORMAL 1
#define BGPM_NOTNORMAL 0
#define BGPM_PERIOD2THRES(_period_) (_period_)
#define BGPM_MAX_OVERFLOW_EVENTS UPC_P_NUM_COUNTERS

typedef void (*Bgpm_OverflowHandler_t)(int hEvtSet, uint64_t address, uint64_t ovfVector,
				       const ucontext_t *pContext);

/* ---- functions ---------------------------------------------------------- */
int Bgpm_Init(Bgpm_Modes mode);
int Bgpm_Disable(void);
int Bgpm_LibLinked(void);

int Bgpm_CreateEventSet(void);
int Bgpm_DeleteEventSet(unsigned hEvtSet);
int Bgpm_AddEvent(unsigned hEvtSet, unsigned eventId);
int Bgpm_AddEventList(unsigned hEvtSet, unsigned *eventIds, unsigned num);
int Bgpm_AddEventString(unsigned hEvtSet, char *evtString);
int Bgpm_NumEvents(unsigned hEvtSet);
int Bgpm_NumTargets(unsigned hEvtSet);
const char *Bgpm_GetEventLabel(unsigned hEvtSet, unsigned evtIdx);
const char *Bgpm_GetEventIdLabel(unsigned evtId);
int Bgpm_GetEventId(unsigned hEvtSet, unsigned evtIdx);
int Bgpm_GetEventIdFromLabel(const char *evtLabel);
int Bgpm_GetEventIndex(unsigned hEvtSet, unsigned evtId, unsigned startIdx);
int Bgpm_GetEventIdInfo(unsigned evtId, Bgpm_EventInfo_t *pInfo);
int Bgpm_GetUnitType(unsigned hEvtSet);
int Bgpm_GetLongDesc(unsigned evtId, char *pBuff, int *pLen);

int Bgpm_SetEventSetUser1(unsigned hEvtSet, uint64_t value);
int Bgpm_GetEventSetUser1(unsigned hEvtSet, uint64_t *pValue);
int Bgpm_SetEventSetUser2(unsigned hEvtSet, uint64_t value);
int Bgpm_GetEventSetUser2(unsigned hEvtSet, uint64_t *pValue);
int Bgpm_SetEventUser1(unsigned hEvtSet, unsigned evtIdx, uint64_t value);
int Bgpm_GetEventUser1(unsigned hEvtSet, unsigned evtIdx, uint64_t *pValue);
int Bgpm_SetEventUser2(unsigned hEvtSet, unsigned evtIdx, uint64_t value);
int Bgpm_GetEventUser2(unsigned hEvtSet, unsigned evtIdx, uint64_t *pValue);

int Bgpm_SetContext(unsigned hEvtSet, Bgpm_Context context);
int Bgpm_GetContext(unsigned hEvtSet, Bgpm_Context *pContext);
int Bgpm_SetQfpuGrpMask(unsigned hEvtSet, unsigned evtIdx, uint64_t mask);
int Bgpm_GetQfpuGrpMask(unsigned hEvtSet, unsigned evtIdx, uint64_t *pMask);
int Bgpm_SetXuGrpMask(unsigned hEvtSet, unsigned evtIdx, uint64_t mask);
int Bgpm_GetXuGrpMask(unsigned hEvtSet, unsigned evtIdx, uint64_t *pMask);
int Bgpm_SetEventEdge(unsigned hEvtSet, unsigned evtIdx, ushort setEdge);
int Bgpm_GetEventEdge(unsigned hEvtSet, unsigned evtIdx, ushort *pEdge);
int Bgpm_GetL2Combine(unsigned hEvtSet, UpciBool_t *pEnable);
int Bgpm_SetEventVirtChannels(unsigned hEvtSet, unsigned evtIdx, UPC_NW_Vchannels vchan);
int Bgpm_GetEventVirtChannels(unsigned hEvtSet, unsigned evtIdx, UPC_NW_Vchannels *pVchan);

int Bgpm_SetOverflow(unsigned hEvtSet, unsigned evtIdx, uint64_t period);
int Bgpm_SetOverflowHandler(unsigned hEvtSet, Bgpm_OverflowHandler_t handler);
int Bgpm_GetOverflow(unsigned hEvtSet, unsigned evtIdx, uint64_t *pPeriod,
		     Bgpm_OverflowHandler_t *pHandler);
int Bgpm_GetOverflowEventIndices(unsigned hEvtSet, uint64_t ovfVector, unsigned *pIndicies,
				 unsigned *pLen);

int Bgpm_SetMultiplex(unsigned hEvtSet, uint64_t period, int normalize);
int Bgpm_SetMultiplex2(unsigned hEvtSet, uint64_t period, int normalize,
		       RsvMuxCtrs maxEventsPerGroup);
int Bgpm_GetMultiplex(unsigned hEvtSet, Bgpm_MuxStats_t *pMuxStats);
int Bgpm_SwitchMux(unsigned hEvtSet);
int Bgpm_GetMuxGroups(unsigned hEvtSet);
uint64_t Bgpm_GetMuxElapsedCycles(unsigned hEvtSet, unsigned muxGrpNum);
uint64_t Bgpm_GetMuxEventElapsedCycles(unsigned hEvtSet, unsigned evtIdx);

int Bgpm_Apply(unsigned hEvtSet);
int Bgpm_Attach(unsigned hEvtSet, uint64_t targMask, uint64_t agentMask);
int Bgpm_Detach(unsigned hEvtSet);
int Bgpm_IsController(unsigned hEvtSet);
int Bgpm_Start(unsigned hEvtSet);
int Bgpm_ResetStart(unsigned hEvtSet);
int Bgpm_Reset(unsigned hEvtSet);
int Bgpm_Stop(unsigned hEvtSet);
int Bgpm_ReadEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t *pValue);
int Bgpm_ReadEventList(unsigned hEvtSet, uint64_t *pValues, unsigned *pLen);
int Bgpm_WriteEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t value);
int Bgpm_NW_ReadLinkEvent(unsigned hEvtSet, unsigned evtIdx, UPC_NW_LinkMasks mask,
			  uint64_t *pValue);
int Bgpm_L2_ReadEvent(unsigned hEvtSet, unsigned slice, unsigned idx, uint64_t *pValue);
int Bgpm_L2_WriteEvent(unsigned hEvtSet, unsigned slice, unsigned idx, uint64_t value);
int Bgpm_CNK_SampleEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t *pValue);

/* Fast access to an applied Punit set: handles name counters, masks name
 * sets of them. Real BGPM inlines these as UPC register accesses; here they
 * are calls into the simulated Punit. */
int Bgpm_Punit_GetHandles(unsigned hEvtSet, Bgpm_Punit_Handles_t *pH);
void Bgpm_Punit_Start(uint64_t mask);
void Bgpm_Punit_Stop(uint64_t mask);
uint64_t Bgpm_Punit_Read(uint64_t hCtr);
int Bgpm_Punit_GetLLHandles(unsigned hEvtSet, Bgpm_Punit_LLHandles_t *pH);
void Bgpm_Punit_LLStart(uint64_t mask);
void Bgpm_Punit_LLResetStart(uint64_t mask);
void Bgpm_Punit_LLStop(uint64_t mask);
uint64_t Bgpm_Punit_LLRead(uint64_t hCtr);
void Bgpm_Punit_LLWrite(uint64_t hCtr, uint64_t val);
/* A low-latency counter is 14 bits wide: this bit says it wrapped. */
#define BGPM_LL_BIG_OVF 0x8000
#define BGPM_LLCOUNT_OVERFLOW(_val_) (((_val_) & BGPM_LL_BIG_OVF) != 0)

/* Error reporting switches; each returns the previous setting. */
ushort Bgpm_PrintOnError(ushort val);
ushort Bgpm_ExitOnError(ushort val);
ushort Bgpm_DumpOnError(ushort val); /* errors also print every event set */

/* Hardware-distributed sets: an event summed over the threads in thdMask
 * (bit 63-h; agentMask: the kernel's threads, none here). */
int Bgpm_ReadThreadEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t thdMask, uint64_t agentMask,
			 uint64_t *pValue);

/* More Punit attributes: inverted signal (A2 unit events), FP operations
 * instead of instructions (QFPU events), instruction matching on
 * PEVT_INST_XU_MATCH / PEVT_INST_QFPU_MATCH and the FP scales (per core:
 * the core's applied sets must agree), mixed context, the L1p mode. */
int Bgpm_SetEventInvert(unsigned hEvtSet, unsigned evtIdx, ushort invert);
int Bgpm_GetEventInvert(unsigned hEvtSet, unsigned evtIdx, ushort *pInvert);
int Bgpm_SetQfpuFp(unsigned hEvtSet, unsigned evtIdx, ushort countFp);
int Bgpm_GetQfpuFp(unsigned hEvtSet, unsigned evtIdx, ushort *pCountFp);
int Bgpm_SetXuMatch(unsigned hEvtSet, unsigned evtIdx, uint16_t match, uint16_t mask);
int Bgpm_GetXuMatch(unsigned hEvtSet, unsigned evtIdx, uint16_t *pMatch, uint16_t *pMask);
int Bgpm_SetQfpuMatch(unsigned hEvtSet, unsigned evtIdx, uint16_t match, uint16_t mask, ushort fpScale);
int Bgpm_GetQfpuMatch(unsigned hEvtSet, unsigned evtIdx, uint16_t *pMatch, uint16_t *pMask, ushort *pFpScale);
int Bgpm_SetFpSqrScale(unsigned hEvtSet, ushort fpScale);
int Bgpm_GetFpSqrScale(unsigned hEvtSet, ushort *pFpScale);
int Bgpm_SetFpDivScale(unsigned hEvtSet, ushort fpScale);
int Bgpm_GetFpDivScale(unsigned hEvtSet, ushort *pFpScale);
int Bgpm_AllowMixedContext(unsigned hEvtSet);
int Bgpm_GetL1pMode(unsigned hEvtSet, Bgpml1pModes *pMode);
/* Labels up to a NULL entry: the number added, or the first error. */
int Bgpm_AddEventStringList(unsigned hEvtSet, char *evtString[]);

/* Feedback and printing, to stderr in libbgpm's own format. */
#define BGPM_FEEDBACK_BUFSIZE 4100
int Bgpm_SetThreadFeedbackBuffer(unsigned hEvtSet, char *buffer, int bufSize);
int Bgpm_PrintFeedbackBuffer(const char *buffer, int bufSize);
int Bgpm_PrintCurrentPunitReservations(unsigned hEvtSet);
int Bgpm_DumpEvtSet(unsigned hEvtSet, unsigned indentLvl);
int Bgpm_DumpEvtSetList(unsigned indentLvl);
void Bgpm_DebugDumpShrMem(void);  /* the process's mode, L2 mode and link control */
void Bgpm_DumpUPCPState(void);    /* the calling thread's Punit sets and counters */
void Bgpm_EnableTracePrint(void);
void Bgpm_DisableTracePrint(void);

#ifdef __cplusplus
}
#endif
#endif
