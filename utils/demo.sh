#!/bin/bash
# The main demo (make demo): the simulated BG/Q node behind real PAPI tools.
set -euo pipefail
PREFIX=${PREFIX:?PREFIX not set}
bin=$PREFIX/bin
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "PAPI sees counterlab's components (papi_component_avail)"
"$bin/papi_component_avail" | sed -n '/Active components/,$p'

say "PAPI presets resolved to simulated BG/Q events (papi_avail)"
"$bin/papi_avail" | grep -E '^(PAPI_TOT_CYC|PAPI_TOT_INS|PAPI_FP_OPS|PAPI_BR_NTK|PAPI_STL_CCY) |^Of '

say "What papi_native_avail cannot show: counters, scope, overflow"
"$bin/counterlab-native-avail" -e PAPI_BR_NTK
"$bin/counterlab-native-avail" -e PEVT_XU_PROC_BUSY

say "A PAPI program counting on the virtual clock (10^6 cycles per read)"
COUNTERLAB_MACHINE=bgq:clock=virtual,tick=1000000 \
	"$bin/papi_command_line" PAPI_TOT_CYC PAPI_TOT_INS PAPI_FP_OPS PAPI_STL_CCY | grep -E 'PAPI_|---'

say "The node-wide L2 unit: lookups are the L1p misses of the node's threads"
COUNTERLAB_MACHINE=bgq:clock=virtual,tick=1000000 \
	"$bin/papi_command_line" l2:::L2_ACCESSES l2:::PEVT_L2_HITS l2:::PEVT_L2_MISSES l2:::L2_MEM_BYTES | grep -E 'l2:::|---'
"$bin/counterlab-native-avail" -e 'PEVT_L2_HITS_SLICE:slice=5'

say "Combined and per-slice L2 events cannot be mixed (the node's L2 has one mode)"
COUNTERLAB_MACHINE=bgq:clock=virtual \
	"$bin/papi_command_line" l2:::PEVT_L2_HITS l2:::PEVT_L2_MISSES_SLICE 2>&1 | grep -E 'l2:::|Failed|because' | head -4 || true

say "Counting what cannot be counted together"
COUNTERLAB_MACHINE=bgq:clock=virtual \
	"$bin/papi_command_line" PEVT_L1P_SW_MAS_SW_REQ_VAL PEVT_L1P_STRM_LINE_ESTB 2>&1 | grep -E 'PEVT|Failed|conflict|hardware' | head -4 || true
echo
echo "Next: make check (every test), make bench (benchmarks), README.md (the tour)."
