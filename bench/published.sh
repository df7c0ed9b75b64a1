#!/usr/bin/env bash
# The published network experiments rerun through counterlab-netsim, as a
# user would run them, in both engines with the model's defaults: prints
# one JSON object (bench/results/published.json) with, per figure, the
# published value, the model's in each engine, the commands and whether
# the model meets the published result. docs/torus.md's table of
# published experiments is made from it (bench/tables.sh published).
#
# usage: published.sh BINDIR SCRATCHDIR
set -euo pipefail
bin=$1 tmp=$2
mkdir -p "$tmp"
netsim() { "$bin/counterlab-netsim" --quiet --format json "$@"; }
engines=(flow packet)

# one experiment's row: id, what, published, the bounds the model must
# meet (a jq filter applied to each engine's figure), source, commands,
# and the model's figures
row() { # id what published bounds source commands flow packet
	jq -nc --arg id "$1" --arg what "$2" --arg pub "$3" --arg bounds "$4" \
		--arg src "$5" --arg cmds "$6" --argjson flow "$7" --argjson packet "$8" \
		'{id: $id, experiment: $what, published: $pub, bounds: $bounds, source: $src,
		  commands: $cmds, flow: $flow, packet: $packet}
		 | .meets = ([.flow, .packet] | map('"$4"') | all)'
}

# BG/Q 3D-FFT, 512 nodes, 512^3 on 16 x 512: ABCDET against each grid
# column on one node
isc="McCraw, Terpstra, Dongarra, Davis, Musselman, \"Beyond the CPU: Hardware Performance Counter Monitoring on Blue Gene/Q\", ISC 2013 (LNCS 7905)"
"$bin/counterlab-map" --machine bgq group:size=16,stride=512 -o "$tmp/columns.map" > /dev/null
fft="--pattern fft3d:n=512,grid=16x512"
step() { jq --arg s "$1" '[.steps[] | select(.step == "fft3d: " + $s) | .times.total_s] | add'; }
declare -A first second gain
for e in "${engines[@]}"; do
	netsim $fft --engine "$e" > "$tmp/fft-abcdet-$e.json"
	netsim $fft --map "$tmp/columns.map" --engine "$e" > "$tmp/fft-columns-$e.json"
	a=$tmp/fft-abcdet-$e.json c=$tmp/fft-columns-$e.json
	first[$e]=$(jq -n --argjson a "$(step "all-to-all in columns" < "$a")" --argjson c "$(step "all-to-all in columns" < "$c")" '$a / $c')
	second[$e]=$(jq -n --argjson a "$(step "all-to-all in rows" < "$a")" --argjson c "$(step "all-to-all in rows" < "$c")" '$c / $a')
	gain[$e]=$(jq -n --argjson a "$(jq .time_s < "$a")" --argjson c "$(jq .time_s < "$c")" '1 - $c / $a')
done
cmd="counterlab-netsim $fft [--map columns.map] [--engine packet]; columns.map: counterlab-map --machine bgq group:size=16,stride=512"
rows=()
rows+=("$(row fft-first "BG/Q 3D-FFT, 512 nodes 4x4x4x4x2, 16 ranks per node, 512^3 on 16 x 512, each grid column on one node against ABCDET: first all-to-all, times faster" \
	"about 10" '. >= 5 and . <= 15' "$isc" "$cmd" "${first[flow]}" "${first[packet]}")")
rows+=("$(row fft-second "same, second all-to-all: column map's time over ABCDET's" \
	"no degradation" '. <= 1.15' "$isc" "$cmd" "${second[flow]}" "${second[packet]}")")
rows+=("$(row fft-whole "same, whole FFT: fraction faster" \
	"0.10 to 0.18 (mid-size problems)" '. >= 0.05 and . <= 0.30' "$isc" "$cmd" "${gain[flow]}" "${gain[packet]}")")

# BG/L receiver congestion: a centre receiving 1 MB from 1..5 neighbours
# at once; per sender count, how many senders count no-token cycles
declare -A stalled
for e in "${engines[@]}"; do
	s=()
	for k in 1 2 3 4 5; do
		netsim --machine bgl --torus 4x4x2 --pattern "incast:senders=$k,center=5" --per-node --engine "$e" |
			jq '[.per_node[] | .counters | to_entries
			     | {sent: (map(select(.key | endswith("_PKTS")) | .value) | add),
			        waited: (map(select(.key | endswith("_TOKENS")) | .value) | add)}
			     | select(.sent > 0)] | map(select(.waited > 0)) | length' > "$tmp/incast-$e-$k"
		s+=("$(cat "$tmp/incast-$e-$k")")
	done
	stalled[$e]="[$(IFS=,; echo "${s[*]}")]"
done
rows+=("$(row bgl-receiver "BG/L receiver congestion, 32 nodes 4x4x2, a centre receiving 1 MB from each of 1..5 neighbours at once: senders counting no-token cycles, for 1..5 senders" \
	"none with up to 3 senders; all from the 4th on" '. == [0, 0, 0, 4, 5]' \
	"BG/L torus-counter congestion measurement (as recalled; title not re-checked)" \
	"counterlab-netsim --machine bgl --torus 4x4x2 --pattern incast:senders=K,center=5 --per-node [--engine packet]" \
	"${stalled[flow]}" "${stalled[packet]}")")

# BG/L NAS on the 128-node block (an 8x4x4 mesh), coprocessor mode, the
# six XYZ permutations: BT on 121 ranks, CG and MG on 128
sb="Smith and Bode, \"Performance effects of node mappings on the IBM BlueGene/L machine\", Euro-Par 2005, LNCS 3648 (the setting from its abstract; the figures recalled, not re-checked)"
perms=(XYZT XZYT YXZT YZXT ZXYT ZYXT)
declare -A nas
for e in "${engines[@]}"; do
	for b in bt cg mg; do
		r=128
		[ $b = bt ] && r=121
		t=()
		for p in "${perms[@]}"; do
			t+=("$(netsim --machine bgl --torus 8mx4mx4m --ranks $r --map $p --pattern $b:class=A --engine "$e" | jq .time_s)")
		done
		nas[$e$b]="[$(IFS=,; echo "${t[*]}")]"
	done
done
ncmd="counterlab-netsim --machine bgl --torus 8mx4mx4m --ranks 121|128 --map XYZT|XZYT|YXZT|YZXT|ZXYT|ZYXT --pattern bt|cg|mg:class=A [--engine packet]"
faster() { jq -nc --argjson t "$1" '[1 - $t[3] / $t[0], 1 - $t[5] / $t[0]]'; }
spread() { jq -nc --argjson t "$1" '($t | max) / ($t | min)'; }
rows+=("$(row nas-bt "BG/L NAS BT class A, 121 ranks on the 128-node block (8x4x4 mesh), coprocessor mode: YZX and ZYX, fraction faster than XYZ" \
	"about 0.15 both" 'min >= 0.10' "$sb" "$ncmd" "$(faster "${nas[flowbt]}")" "$(faster "${nas[packetbt]}")")")
sp() { jq -nc --argjson bt "$(spread "${nas[${1}bt]}")" --argjson cg "$(spread "${nas[${1}cg]}")" --argjson mg "$(spread "${nas[${1}mg]}")" '{BT: $bt, CG: $cg, MG: $mg}'; }
rows+=("$(row nas-spread "same block, class A, slowest / fastest of the six XYZ permutations (BT 121 ranks, CG and MG 128)" \
	"BT varies most; CG little, MG less still" '.CG <= .BT and .MG <= .CG' "$sb" "$ncmd" "$(sp flow)" "$(sp packet)")")
best() { jq -nc --argjson bt "${nas[${1}bt]}" --argjson cg "${nas[${1}cg]}" --argjson mg "${nas[${1}mg]}" \
	'{BT: (1 - ($bt | min) / $bt[0]), CG: (1 - ($cg | min) / $cg[0]), MG: (1 - ($mg | min) / $mg[0])}'; }
rows+=("$(row nas-best "same, best permutation against the default XYZ: fraction faster" \
	"no more than about 0.15" '[.[]] | max <= 0.15' "$sb" "$ncmd" "$(best flow)" "$(best packet)")")

# Gemini: the "sonar" message, 1 MB one way between neighbouring nodes,
# read at the sender's router (TX: from its NICs, RX: from the network;
# a phit is 3 bytes of the tiles' traffic count)
cug="Pedretti, Vaughan, Barrett, Devine, Hemmert, \"Using the Cray Gemini Performance Counters\", Cray User Group 2013"
declare -A sonar
for e in "${engines[@]}"; do
	for d in random zero; do
		netsim --machine gemini --torus 4x4x4 --ppn 1 --pattern oneway:bytes=1M --payload $d --engine "$e" \
			--per-node --counters LINK_HOST_PACKETS,LINK_HOST_TRAFFIC,LINK_NET_PACKETS,LINK_NET_TRAFFIC |
			jq -c '.per_node[0].counters' > "$tmp/sonar-$e-$d.json"
	done
	sonar[$e]=$(jq -sc '{tx_packets: .[0].LINK_HOST_PACKETS, tx_phits_random: (.[0].LINK_HOST_TRAFFIC / 3),
		tx_phits_zero: (.[1].LINK_HOST_TRAFFIC / 3), rx_packets: .[0].LINK_NET_PACKETS,
		rx_phits: (.[0].LINK_NET_TRAFFIC / 3)}' "$tmp/sonar-$e-random.json" "$tmp/sonar-$e-zero.json")
done
scmd="counterlab-netsim --machine gemini --torus 4x4x4 --ppn 1 --pattern oneway:bytes=1M --payload random|zero --per-node --counters LINK_HOST_PACKETS,LINK_HOST_TRAFFIC,LINK_NET_PACKETS,LINK_NET_TRAFFIC [--engine packet]"
for f in tx_packets:16407:"TX packets" tx_phits_random:524709:"TX phits, random data" \
	tx_phits_zero:262565:"TX phits, zero-filled data" rx_packets:16407:"RX packets" rx_phits:49221:"RX phits"; do
	IFS=: read -r key pub what <<< "$f"
	rows+=("$(row "sonar-$key" "Gemini, one 1 MB MPI message one way between neighbouring nodes, read at the sender's router: $what" \
		"$pub" "(. / $pub - 1) | fabs < 0.01" "$cug" "$scmd" \
		"$(jq ".$key" <<< "${sonar[flow]}")" "$(jq ".$key" <<< "${sonar[packet]}")")")
done

# the FFT's steps under both maps in each engine (docs/torus.md's table of
# what the custom map does, and the figures around it): per step its
# times, and per run the share of chunks that fell back to the escape VC;
# and the row all-to-all in the packet engine with a crossbar speedup of 2,
# and with links serving the oldest waiting packet first instead of BG/Q's
# sender arbiter (its time and escape share)
steps() { # engine: {ABCDET: [...], columns: [...]}
	jq -c '[.steps[] | {step: (.step | sub("^fft3d: "; "")), network_s: .times.network_s,
		onnode_s: .times.onnode_s, compute_s: .times.compute_s, total_s: .times.total_s}]
		+ [{step: "whole run", network_s: .times.network_s, onnode_s: .times.onnode_s,
		    compute_s: .times.compute_s, total_s: .times.total_s}]' "$tmp/fft-abcdet-$1.json" "$tmp/fft-columns-$1.json" |
		jq -sc '{ABCDET: .[0], columns: .[1]}'
}
escape=$(jq -c '.summary.counters | .PEVT_NW_USER_ESC_PP_SENT.total / .PEVT_NW_USER_PP_SENT.total' \
	"$tmp/fft-abcdet-packet.json" "$tmp/fft-columns-packet.json" | jq -sc '{ABCDET: .[0], columns: .[1]}')
netsim $fft,phase=2,compute=0 --engine packet --set speedup=2 > "$tmp/fft-abcdet-speedup.json"
netsim $fft,phase=2,compute=0 --map "$tmp/columns.map" --engine packet --set speedup=2 > "$tmp/fft-columns-speedup.json"
speedup=$(jq -c .time_s "$tmp/fft-abcdet-speedup.json" "$tmp/fft-columns-speedup.json" | jq -sc '{ABCDET: .[0], columns: .[1]}')
netsim $fft,phase=2,compute=0 --engine packet --set transit_ratio=0 > "$tmp/fft-abcdet-transit0.json"
netsim $fft,phase=2,compute=0 --map "$tmp/columns.map" --engine packet --set transit_ratio=0 > "$tmp/fft-columns-transit0.json"
transit0=$(jq -c '{time_s, escape_share: (.summary.counters | .PEVT_NW_USER_ESC_PP_SENT.total / .PEVT_NW_USER_PP_SENT.total)}' \
	"$tmp/fft-abcdet-transit0.json" "$tmp/fft-columns-transit0.json" | jq -sc '{ABCDET: .[0], columns: .[1]}')

printf '{"benchmark":"published","rows":[%s],"fft_steps_flow":%s,"fft_steps_packet":%s,"fft_escape_share_packet":%s,"fft_rows_speedup2_packet_s":%s,"fft_rows_transit0_packet":%s}\n' \
	"$(IFS=,; echo "${rows[*]}")" "$(steps flow)" "$(steps packet)" "$escape" "$speedup" "$transit0"
