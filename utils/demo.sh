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
# ---- the flagship: what a rank mapping does to the torus --------------------
out=${DEMO_OUT:-$(dirname "$PREFIX")/demo}
mkdir -p "$out"
fft=n=512,grid=16x512
say "The BG/Q 3D-FFT mapping study: 512 nodes (4x4x4x4x2), 16 ranks per node, 512^3 double complex on a 16 x 512 grid"
echo "Phase 1 is the all-to-all inside each grid column (16 ranks c, c+512, ...); phase 2 inside each row (512 ranks)."
echo "Default map ABCDET puts consecutive ranks on a node, so a column's 16 ranks sit on 16 nodes across the machine."
echo "The custom map groups each column on one node:"
echo "  counterlab-map --machine bgq group:size=16,stride=512 -o $out/fft-columns.map"
"$bin/counterlab-map" --machine bgq group:size=16,stride=512 -o "$out/fft-columns.map"
get() { # json event field: one summary figure of a netsim JSON output
	sed -n "s/.*\"$2\": {\"min\": \([0-9]*\), \"mean\": \([0-9.]*\), \"max\": \([0-9]*\).*/\1 \2 \3/p" "$1" |
		awk -v f="$3" '{ print (f == "min") ? $1 : (f == "mean") ? $2 : $3 }'
}
printf '\n%-8s %-6s %12s %16s %16s %16s %14s\n' map phase "a2a (ms)" "sent chunks/node" "max chunks/node" "recv-FIFO mean" "bytes kept on nodes"
for map in ABCDET "$out/fft-columns.map"; do
	name=$([ "$map" = ABCDET ] && echo ABCDET || echo columns)
	for phase in 1 2; do
		j=$out/fft-$name-phase$phase.json
		"$bin/counterlab-netsim" --quiet --map "$map" --pattern "fft3d:$fft,phase=$phase,compute=0" --format json > "$j"
		printf '%-8s %-6s %12.3f %16.0f %16s %16.0f %14s\n' "$name" "$phase" \
			"$(sed -n 's/.*"time_s": \([0-9.e+-]*\).*/\1/p' "$j" | awk '{ print $1 * 1000 }')" \
			"$(get "$j" PEVT_NW_USER_PP_SENT mean)" "$(get "$j" PEVT_NW_USER_PP_SENT max)" \
			"$(get "$j" PEVT_NW_USER_PP_RECV_FIFO mean)" \
			"$(sed -n 's/.*"local_bytes": \([0-9]*\).*/\1/p' "$j")"
	done
done
echo
echo "The whole FFT (z FFTs, all-to-all in columns, y FFTs, all-to-all in rows, x FFTs),"
echo "each step's network, on-node and compute time in ms (docs/torus.md):"
printf '%-8s %-32s %10s %10s %10s %10s\n' map step network on-node compute total
for map in ABCDET "$out/fft-columns.map"; do
	name=$([ "$map" = ABCDET ] && echo ABCDET || echo columns)
	"$bin/counterlab-netsim" --quiet --map "$map" --pattern "fft3d:$fft" --format csv |
		sed -n '2,/^$/p' | sed '/^$/d' | tr -d '"' > "$out/fft-$name-steps.csv"
	awk -F, -v m="$name" '{ sub(/^fft3d: /, "", $1)
		printf "%-8s %-32s %10.3f %10.3f %10.3f %10.3f\n", m, $1, $3 * 1e3, $4 * 1e3, $5 * 1e3, $6 * 1e3 }' \
		"$out/fft-$name-steps.csv"
done
step() { grep "$2" "$out/fft-$1-steps.csv" | cut -d, -f6; } # map step: its total s
awk -v c1="$(step ABCDET 'in columns')" -v c2="$(step columns 'in columns')" \
	-v r1="$(step ABCDET 'in rows')" -v r2="$(step columns 'in rows')" \
	-v w1="$(step ABCDET 'whole run')" -v w2="$(step columns 'whole run')" 'BEGIN {
	printf "Columns on one node against ABCDET: first all-to-all %.1fx faster, second %.2f of its time, whole FFT %.0f%% faster\n",
		c1 / c2, r2 / r1, 100 * (1 - w2 / w1)
	print "(published on BG/Q: about 10x, no degradation, 10-18% for mid-size problems; docs/torus.md)" }'
# both maps' second all-to-all side by side in one picture, one colour scale
# from 0 to the busier map's busiest node (--heatmap-range, --heatmap-with)
top=$(for name in ABCDET columns; do get "$out/fft-$name-phase2.json" PEVT_NW_USER_PP_SENT max; done | sort -n | tail -1)
[ "$top" -gt 0 ] || top=1
row="fft3d:$fft,phase=2,compute=0"
"$bin/counterlab-netsim" --quiet --map "$out/fft-columns.map" --pattern "$row" --per-node > "$out/fft-columns.txt"
"$bin/counterlab-netsim" --quiet --map "$out/fft-columns.map" --pattern "$row" --per-node --format csv \
	> "$out/fft-columns-phase2.csv"
"$bin/counterlab-netsim" --quiet --map ABCDET --pattern "$row" --per-node \
	--heatmap "$out/fft-maps.png" --heatmap-event PEVT_NW_USER_PP_SENT --heatmap-range "0:$top" \
	--heatmap-with "map columns=$out/fft-columns-phase2.csv" > "$out/fft-ABCDET.txt"
echo
echo "Per-node counters of phase 2, summed over each node's torus links (first 4 nodes; all in $out/fft-*.txt):"
for name in ABCDET columns; do
	awk '/^machine/ { print } /^node / { n = 5 } n-- > 0' "$out/fft-$name.txt" | sed "s/^/  /"
done
echo
echo "Heat map of PEVT_NW_USER_PP_SENT per node in phase 2 (the row all-to-all), ABCDET beside"
echo "the column map on one colour scale 0..$top: $out/fft-maps.png"
echo "(every node of the column map passes on more chunks: its rows span all five dimensions)"
echo
echo "Next: make check (every test), make bench (benchmarks), README.md (the tour)."
