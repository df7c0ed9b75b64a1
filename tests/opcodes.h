/* Test and benchmark data: BG/Q opcode-class events, the 25 XU classes then
 * 5 QFPU ones. Each is a primary event any counter of a thread can count,
 * which makes them the events to fill counters and groups with. */
#ifndef CLAB_TEST_OPCODES_H
#define CLAB_TEST_OPCODES_H

static const char *const clab_opcode_events[30] = {
	"PEVT_INST_XU_IADD", "PEVT_INST_XU_ILOG", "PEVT_INST_XU_ICMP",
	"PEVT_INST_XU_IMOV", "PEVT_INST_XU_BITS", "PEVT_INST_XU_LD",
	"PEVT_INST_XU_ST", "PEVT_INST_XU_BRC", "PEVT_INST_XU_BRU",
	"PEVT_INST_XU_FLD", "PEVT_INST_XU_FST", "PEVT_INST_XU_QLD",
	"PEVT_INST_XU_QST", "PEVT_INST_XU_CINV", "PEVT_INST_XU_CSTO",
	"PEVT_INST_XU_CTCH", "PEVT_INST_XU_ICSW", "PEVT_INST_XU_IDIV",
	"PEVT_INST_XU_IMUL", "PEVT_INST_XU_INT", "PEVT_INST_XU_LSCX",
	"PEVT_INST_XU_SYNC", "PEVT_INST_XU_TLB", "PEVT_INST_XU_TLBI",
	"PEVT_INST_XU_WCH", "PEVT_INST_QFPU_FMA", "PEVT_INST_QFPU_QMA",
	"PEVT_INST_QFPU_FADD", "PEVT_INST_QFPU_QADD", "PEVT_INST_QFPU_FMUL",
};
#endif
