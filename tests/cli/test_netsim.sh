#!/bin/bash
# counterlab-netsim's command line: its options (--ranks,
# --set, --list-params, --heatmap-range, --heatmap-with, the heat map's
# title, the incast pattern) and their
# errors, each a distinct message and exit status 2.
# usage: test_netsim.sh BINDIR
set -u
bin=${1:?usage: test_netsim.sh BINDIR}/counterlab-netsim
. "$(dirname "$0")/lib.sh"

# refuse ARGS... -- NEEDLE: exit status 2 and NEEDLE on stderr
refuse() {
	local args=() needle
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	needle=$2
	# a watchdog: a hang (reading a device, waiting on a FIFO) is a failure
	if timeout 120 "$bin" --quiet "${args[@]}" >"$tmp/out" 2>"$tmp/err"; then
		bad "${args[*]}: accepted"
	elif [ $? -ne 2 ] || ! grep -qF -- "$needle" "$tmp/err"; then
		bad "${args[*]}: $(cat "$tmp/err") (want '$needle')"
	else
		ok "${args[*]}: $needle"
	fi
}

refuse --engine cycle --pattern pingpong -- "--engine cycle: want flow or packet"
refuse --routing west --pattern pingpong -- "--routing west: want mpi, deterministic or adaptive"
refuse --seed -1 --pattern pingpong -- "--seed -1: want a whole number"
refuse --machine torus --torus 2x2x2x2x2x2x2 --pattern pingpong -- "has 7 dimensions"
refuse --machine gemini --gemini c0-0c0s0 --pattern pingpong -- "--gemini c0-0c0s0 names a router of a --tilemap dump"
refuse --machine torus --torus 8x8y --pattern pingpong -- "'y' after dimension B's size: sizes are joined by x"
refuse --machine torus --torus 8,8 --pattern pingpong -- "',' after dimension A's size"
refuse --machine bgq --torus 4x4x4x4 --pattern pingpong -- "a bgq torus has 5 dimensions (ABCDE)"
refuse --machine torus --torus 3x3 --pattern perm:bitcomp -- "needs a power of two of ranks"
refuse --machine torus --pattern perm:file=/nonexistent -- "permutation file /nonexistent"
refuse --machine torus --pattern perm:tornado,k=3 -- "perm:tornado,k=3: k= goes only with perm:shift"
refuse --machine torus --pattern perm:bitcomp,seed=2 -- "perm:bitcomp,seed=2: seed= goes only with perm:random"
refuse --machine torus --pattern pingpong:a=3,b=3 -- "pingpong:a=3,b=3: a and b are both rank 3: the message needs two ranks"
refuse --set chunk=0 --pattern pingpong -- "chunk=0: want a whole number"
# open loop: packet engine and one pattern; a row per load, then where it
# saturates (a ring of 4 where node 0 alone sends: one link's worth)
refuse --open-loop 0.5 --pattern pingpong -- "--open-loop needs --engine packet and one --pattern"
refuse --engine packet --open-loop 0,1 --pattern pingpong -- "--open-loop 0,1: want up to 64 loads"
refuse --engine packet --open-loop 0.5 --open-loop-window 10 --pattern pingpong -- "--open-loop-window 10: want W,M"
for w in -1,5 1000,10000xyz 10,10,10 ,5; do
	refuse --engine packet --open-loop 0.5 --open-loop-window $w --pattern pingpong -- "--open-loop-window $w: want W,M"
done
for opt in --open-loop --map --order --torus --pattern; do
	refuse --engine packet $opt '' --pattern pingpong -- "$opt '': give a value"
done
refuse --engine packet --open-loop-window 10,10 --pattern pingpong -- "--open-loop-window needs --open-loop"
refuse --engine packet --open-loop-period 100 --pattern pingpong -- "--open-loop-period needs --open-loop"
# a window that measures no packet gives no verdict (accepting 0 is not saturation)
refuse --machine torus --torus 4 --engine packet --pattern oneway:a=0,b=1 --open-loop 0.1 \
	--open-loop-window 1000,10 -- "load 0.1: no packet was measured"
grep -q "saturation: not measured" "$tmp/out" && ok "no packet measured: no saturation claimed" ||
	bad "no packet measured: $(cat "$tmp/out")"
# a pattern refused leaves no half-written output; a pattern's quote is escaped in JSON
refuse --machine torus --torus 4 --engine packet --pattern 'nosuch"x' --open-loop 0.5 --format json -- "nosuch"
[ -s "$tmp/out" ] && bad "refused open-loop pattern: output left: $(cat "$tmp/out")"
if "$bin" --quiet --machine torus --torus 4 --engine packet --pattern oneway:a=0,b=1 \
	--open-loop 0.5,2 --open-loop-window 100,100000 --format json >"$tmp/ol" &&
	grep -q '"saturation_above": 0.5, "saturation_below": 2}' "$tmp/ol"; then
	ok "--open-loop: saturates between 0.5 and 2"
else
	bad "--open-loop: $(cat "$tmp/ol")"
fi
# steady state: the verdict is BookSim2's, load 2 given up as unstable
refuse --engine packet --open-loop 0.5 --open-loop-period 0 --pattern pingpong -- "--open-loop-period 0: want chunk times"
if "$bin" --quiet --machine torus --torus 4 --engine packet --pattern oneway:a=0,b=1 \
	--open-loop 0.5,2 --open-loop-period 10000 --format json >"$tmp/ol" &&
	grep -q '"unstable": false}, {"offered": 2, .*"unstable": true}], "saturation_above": 0.5, "saturation_below": 2}' "$tmp/ol"; then
	ok "--open-loop-period: unstable at 2, not at 0.5"
else
	bad "--open-loop-period: $(cat "$tmp/ol")"
fi

# the engine that produced the figures is named, in the table and in JSON
if "$bin" --quiet --machine torus --torus 4x4 --engine packet --pattern perm:tornado,bytes=4k \
	--format json | grep -q '"engine": "packet"'; then
	ok "--engine packet: JSON names the engine"
else
	bad "--engine packet: JSON lacks \"engine\": \"packet\""
fi
if "$bin" --quiet --machine torus --torus 4x4 --pattern perm:tornado | grep -q "(flow engine)"; then
	ok "the table names the flow engine"
else
	bad "the table does not name the engine"
fi
refuse --machine bgl --ranks 0 --pattern pingpong -- "--ranks 0: want a whole number"
refuse --machine bgl --ranks 129 --pattern pingpong -- "the map places only 128 ranks"
refuse --set gap_s --pattern pingpong -- "want KEY=VALUE"
refuse --set nope=1 --pattern pingpong -- 'unknown network parameter "nope"'
refuse --set drain_links=0 --pattern pingpong -- "drain_links=0: want a number"
refuse --heatmap-range 5:1 --heatmap "$tmp/h.png" --pattern pingpong -- "want LO:HI"
refuse --heatmap-range 1 --heatmap "$tmp/h.png" --pattern pingpong -- "want LO:HI"
refuse --heatmap-range 0:1 --pattern pingpong -- "needs --heatmap"
refuse --machine bgl --pattern incast:senders=9 -- "within 1..6"
refuse --machine bgl --pattern incast:sends=1 -- 'unknown key "sends"'
# pattern values: of any length, numbers only as digits, data files only
# regular files, decompositions where each rank holds a point
long=$tmp/$(printf 'p%.0s' $(seq 200))
seq 7 -1 0 > "$long"
if timeout 120 "$bin" --quiet --machine torus --torus 2x2x2 --pattern "perm:file=$long,bytes=64" >"$tmp/out" 2>"$tmp/err"; then
	ok "perm:file= with a ${#long}-character path"
else
	bad "perm:file= with a ${#long}-character path: $(cat "$tmp/err")"
fi
refuse --machine torus --torus 2x2x2 --pattern "perm:file=$long.gone" -- "permutation file $long.gone: No such file"
mkfifo "$tmp/fifo"
refuse --machine torus --torus 2x2x2 --pattern perm:file=/dev/zero -- "permutation file /dev/zero is a character device, not a file"
refuse --machine torus --torus 2x2x2 --pattern "perm:file=$tmp/fifo" -- "is a FIFO, not a file"
refuse --machine torus --torus 2x2x2 --map /dev/zero --pattern pingpong -- "map file /dev/zero is a character device"
refuse --machine torus --torus 2x2x2 --map "$tmp" --pattern pingpong -- "is a directory, not a file"
refuse --pattern fft3d:n=128,grid=16x512 -- "nx=128 is split over the 512 ranks of a grid row (grid 16x512): less than one point per rank; want nx >= 512"
refuse --pattern fft3d:n=512,nz=8,grid=16x512 -- "nz=8 is split over the 16 ranks of a grid column"
refuse --machine torus --torus 2x2x2 --pattern uniform:seed=-7 -- "seed=-7: want a whole number"
refuse --machine torus --torus 2x2x2 --pattern "uniform:seed= -7" -- "seed= -7: want a whole number"
refuse --machine torus --torus 2x2x2 --pattern pingpong:bytes=99999999999999999999 -- "bytes=99999999999999999999: want a whole number 0..1099511627776"
refuse --machine torus --torus 2x2x2 --pattern pingpong: -- "nothing after ':'"
refuse --machine torus --torus 2x2x2 --pattern pingpong:a=0, -- "an empty item between commas"
refuse --seed " -1" --pattern pingpong -- "--seed  -1: want a whole number"
refuse --torus " 4x4x4x4x2" --pattern pingpong -- 'torus " 4x4x4x4x2": dimension A needs a size'
key=$(printf 'k%.0s' $(seq 100))
refuse --set "$key=1" --pattern pingpong -- "unknown network parameter \"$key\""

# 121 ranks on 128 BG/L nodes: the table says so, BT runs on 11 x 11
if "$bin" --quiet --machine bgl --ranks 121 --pattern bt:iters=1 >"$tmp/out" 2>"$tmp/err" &&
	grep -q "(121 ranks), map XYZT (leftmost letter fastest)" "$tmp/out"; then
	ok "--ranks 121 runs BT on BG/L"
else
	bad "--ranks 121: $(cat "$tmp/err" "$tmp/out" | head -5)"
fi
# --set changes the profile: a zero hop latency shortens a pingpong by 2 hops' worth
t() { "$bin" --quiet --format json "$@" | sed -n 's/.*"time_s": \([0-9.e+-]*\).*/\1/p'; }
a=$(t --machine bgl --pattern pingpong:b=2) b=$(t --machine bgl --set hop_s=0 --pattern pingpong:b=2)
# ranks 0 and 2 on BG/L's default map: (0,0,0) and (2,0,0), 2 hops each way
if awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d > 3.999e-7 && d < 4.001e-7) }'; then
	ok "--set hop_s=0: $a -> $b s"
else
	bad "--set hop_s=0: $a -> $b s, want 4e-7 less"
fi
if "$bin" --machine bgl --list-params | grep -q "^  drain_links    3 "; then
	ok "--list-params"
else
	bad "--list-params: $("$bin" --machine bgl --list-params | head -3)"
fi
# every output format carries the time breakdown
for f in table csv json; do
	if "$bin" --quiet --format "$f" --pattern fft3d:n=512,grid=16x512 | grep -q "whole run\|\"times\": {\"phases\""; then
		ok "--format $f has the times"
	else
		bad "--format $f lacks the times"
	fi
done
# one colour scale for two heat maps
if "$bin" --quiet --heatmap "$tmp/h.png" --heatmap-range 0:1e6 --pattern alltoall:bytes=1k >/dev/null &&
	[ -s "$tmp/h.png" ]; then
	ok "--heatmap-range writes the picture"
else
	bad "--heatmap-range wrote nothing"
fi
# the picture's title (its PNG Title text): event, unit, step, machine and
# torus, and the map by its file name, never the directory it was in
png_title() { LC_ALL=C tr -c '[:print:]' '\n' < "$1" | grep -a -A1 'tEXtTitle$' | sed -n 2p; }
png_width() { od -An -tu1 -j16 -N4 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }'; }
"$bin" --quiet --machine torus --torus 8x8 --ppn 1 --pattern perm:tornado --per-node --format csv |
	awk -F, '/^node,/ { go = 1; next } go && NF > 3 { print $2, $3, 0 }' > "$tmp/tor.map"
if "$bin" --quiet --machine torus --torus 8x8 --ppn 1 --map "$tmp/tor.map" --pattern perm:tornado \
	--heatmap "$tmp/t.png" >/dev/null && title=$(png_title "$tmp/t.png") &&
	case $title in *"$tmp"*) false ;; *) true ;; esac &&
	echo "$title" | grep -qF "TORUS_SENT_CHUNKS (32-byte chunks per node), perm, torus 8x8, map tor.map"; then
	ok "heat map title: event, unit, step, torus, the map's file name: $title"
else
	bad "heat map title: ${title:-none}"
fi
# BG/L events by what one count is: a no-token event counts cycles (the
# priority VC's too, though no traffic uses it), an ack event acks
for ev in "XP_LINK_AVAIL_NO_VCBP_TOKENS:network cycles" "XP_ACKS:acks" "XP_TOKEN_ACKS:token acks"; do
	if "$bin" --quiet --machine bgl --pattern incast:senders=4 --heatmap "$tmp/b.png" \
		--heatmap-event "BGL_UPC_TS_${ev%%:*}" >/dev/null &&
		png_title "$tmp/b.png" | grep -qF "BGL_UPC_TS_${ev%%:*} (${ev#*:} per node)"; then
		ok "BG/L heat map unit: ${ev%%:*} in ${ev#*:}"
	else
		bad "BG/L heat map unit of ${ev%%:*}: $(png_title "$tmp/b.png")"
	fi
done
# two runs side by side on one scale; the other run's per-node CSV must be
# of the same torus and hold the event
"$bin" --quiet --machine torus --torus 8x8 --ppn 1 --map "$tmp/tor.map" --pattern perm:tornado \
	--per-node --format csv > "$tmp/other.csv"
if "$bin" --quiet --machine torus --torus 8x8 --ppn 1 --pattern perm:tornado --heatmap "$tmp/two.png" \
	--heatmap-with "map other=$tmp/other.csv" --heatmap-range 0:100 >/dev/null &&
	[ "$(png_width "$tmp/two.png")" -gt "$(png_width "$tmp/t.png")" ] &&
	! png_title "$tmp/two.png" | grep -q "map"; then
	ok "--heatmap-with: two panels in one wider picture, the maps in their labels"
else
	bad "--heatmap-with: $(png_width "$tmp/two.png") px against $(png_width "$tmp/t.png"), $(png_title "$tmp/two.png")"
fi
refuse --machine torus --torus 8x8 --ppn 1 --pattern perm:tornado --heatmap-with "$tmp/other.csv" \
	-- "--heatmap-with needs --heatmap"
refuse --machine torus --torus 8x8 --ppn 1 --pattern perm:tornado --heatmap "$tmp/x.png" \
	--heatmap-with "$tmp/none.csv" -- "--heatmap-with $tmp/none.csv: No such file"
# a model larger than the memory the process may have ends with a
# message, not a crash (the program caps its address space at the
# machine's memory and swap, so this is what a torus too large gets)
for engine in flow packet; do
	if (ulimit -v 1000000; timeout 120 "$bin" --quiet --machine torus --torus 64x64x16x16 --ppn 1 \
		--engine $engine --pattern pingpong >/dev/null 2>"$tmp/err"); then
		bad "$engine engine: 1M nodes in 1 GB accepted"
	elif [ $? -eq 2 ] && grep -q "no memory" "$tmp/err"; then
		ok "$engine engine: 1M nodes in 1 GB: $(cat "$tmp/err")"
	else
		bad "$engine engine: 1M nodes in 1 GB: $(cat "$tmp/err")"
	fi
done
# and so does traffic too large: the packet engine keeps every message
# of a phase (an all-to-all on 32K nodes is 1G of them)
if (ulimit -v 1000000; timeout 120 "$bin" --quiet --machine torus --torus 32x32x32 --ppn 1 \
	--engine packet --pattern alltoall:bytes=1k >/dev/null 2>"$tmp/err"); then
	bad "packet engine: an all-to-all on 32K nodes in 1 GB accepted"
elif [ $? -eq 2 ] && grep -q "no memory for the flows" "$tmp/err"; then
	ok "packet engine: an all-to-all on 32K nodes in 1 GB: $(cat "$tmp/err")"
else
	bad "packet engine: an all-to-all on 32K nodes in 1 GB: $(cat "$tmp/err")"
fi

# pictures are written whole or not at all, to regular files only, and a
# path that cannot be written is said before the run (nothing on stdout)
for where in "$tmp/fifo" "$tmp"; do
	refuse --machine torus --torus 4x4 --ppn 1 --pattern pingpong --heatmap "$where" \
		-- "--heatmap $where is a"
	[ -s "$tmp/out" ] && bad "--heatmap $where: the run went ahead"
done
[ -p "$tmp/fifo" ] && ok "--heatmap FIFO: still a FIFO" || bad "--heatmap FIFO: replaced"
refuse --machine torus --torus 4x4 --ppn 1 --pattern pingpong --heatmap "$tmp/no/such/x.png" \
	-- "cannot create --heatmap $tmp/no/such/x.png: No such file or directory"
refuse --machine torus --torus 4x4 --ppn 1 --pattern pingpong --heatmap "$tmp/x.png" \
	--heatmap-with "a=/dev/zero" -- "--heatmap-with /dev/zero is a character device, not a file"
ln -s "$tmp/target.png" "$tmp/link.png"
if "$bin" --quiet --machine torus --torus 4x4 --ppn 1 --pattern pingpong --heatmap "$tmp/link.png" >/dev/null &&
	[ -L "$tmp/link.png" ] && [ -s "$tmp/target.png" ]; then
	ok "--heatmap through a symbolic link writes its target, the link stays"
else
	bad "--heatmap through a symbolic link: $(ls -l "$tmp/link.png" "$tmp/target.png" 2>&1 | tr '\n' ' ')"
fi
refuse --machine torus --torus 8x8 --ppn 1 --pattern perm:tornado --heatmap "$tmp/x.png" \
	--heatmap-event TORUS_SENT_DYNAMIC_CHUNKS --heatmap-with "$tmp/other.csv" -- "has no column of the heat map's event"
refuse --machine torus --torus 4x2x2 --ppn 1 --pattern perm:tornado --heatmap "$tmp/x.png" \
	--heatmap-with "$tmp/other.csv" -- "its coordinates are not this torus's dimensions"
refuse --machine torus --torus 8x4 --ppn 1 --pattern perm:tornado --heatmap "$tmp/x.png" \
	--heatmap-with "$tmp/other.csv" -- "is not a node of this torus"
head -5 "$tmp/other.csv" > "$tmp/short.csv"
refuse --machine torus --torus 8x8 --ppn 1 --pattern perm:tornado --heatmap "$tmp/x.png" \
	--heatmap-with "$tmp/short.csv" -- "has not all 64 nodes"
if [ ! -e "$tmp/x.png" ]; then
	ok "--heatmap-with refusals write no picture"
else
	bad "a refused --heatmap-with wrote $tmp/x.png"
fi
# Gemini: per-router link metrics from the tiles, one router's tiles, its options' errors
refuse --machine gemini --order ZYX --pattern pingpong -- "--order ZYX: Gemini routes X, then Y, then Z"
refuse --tiles 0 --pattern pingpong -- "--tilemap, --gemini, --tiles and --payload are for --machine gemini"
refuse --payload zero --pattern pingpong -- "--tilemap, --gemini, --tiles and --payload are for --machine gemini"
refuse --machine gemini --payload ones --pattern pingpong -- "--payload ones: want random or zero"
refuse --machine gemini --tiles 64 --pattern pingpong -- "--tiles 64: routers are 0..63"
refuse --machine gemini --tilemap /nonexistent --pattern pingpong -- "tile map /nonexistent"
printf 'c0-0c0s0g0l00 Z+ -> c0-0c0s1g0l00 LinkType: backplane\n' > "$tmp/short.txt"
refuse --machine gemini --tilemap "$tmp/short.txt" --pattern pingpong -- "has 1 network tiles, a Gemini has 40"
# ranks 0 and 32 sit on routers (0,0,0) and (0,0,1): 1 KB and MPI's
# 64-byte header = 17 PUTs of 32 phits each way, entering (0,0,1) by its Z-
# tiles and (0,0,0) by its Z+ ones, with 17 ACKs of 3 phits each way
out=$("$bin" --quiet --machine gemini --pattern pingpong:a=0,b=32,bytes=1024 --format csv --tiles 1)
if echo "$out" | grep -qx 'LINK_ZM_TRAFFIC,0,27.890625,1785,1785' &&
	echo "$out" | grep -qx 'LINK_ZM_PACKETS,0,0.531250,34,34' &&
	echo "$out" | grep -qx 'LINK_XP_TRAFFIC,0,0.000000,0,0'; then
	ok "gemini: Z- of router 1 takes 17 x 32 + 17 x 3 phits (1785 bytes), nothing else moves in X"
else
	bad "gemini: link metrics of a pingpong: $(echo "$out" | grep LINK_Z)"
fi
if [ "$(echo "$out" | grep -c '^[0-9]*,[0-5],[0-7],')" = 48 ]; then
	ok "gemini: --tiles lists 48 tiles"
else
	bad "gemini: --tiles: $(echo "$out" | tail -3)"
fi
# 1 MB one way by PUT from router (0,0,0): 16384 data packets of 32 phits
# (random) or 16 (zeros, compressed), and MPI's 3 headers of 32; each
# packet ACKed by 3 phits
for p in random:524384 zero:262240; do
	out=$("$bin" --quiet --machine gemini --torus 4x4x4 --ppn 1 --pattern oneway:bytes=1M \
		--payload "${p%%:*}" --per-node --counters LINK_HOST_TRAFFIC,LINK_NET_TRAFFIC --format csv | grep "^0,")
	if [ "$out" = "0,0,0,0,$((${p#*:} * 3)),$((16387 * 3 * 3))" ]; then
		ok "gemini: --payload ${p%%:*}: ${p#*:} phits out of router 0's NICs, 3 x 16387 back"
	else
		bad "gemini: --payload ${p%%:*}: router 0 reads $out"
	fi
done
# link types by position: router 2 of 2x2x2 is (0,1,0), the second router
# of its blade: Y- (tile 34) the mezzanine, Y+ (tile 37) a cable
out=$("$bin" --quiet --machine gemini --torus 2x2x2 --ppn 2 --pattern pingpong --format csv --tiles 2)
if echo "$out" | grep -q '^34,4,2,Y-,mezzanine,' && echo "$out" | grep -q '^37,4,5,Y+,cable,'; then
	ok "gemini: --tiles shows the link types of the router's position"
else
	bad "gemini: --tiles of router (0,1,0): $(echo "$out" | grep -E '^3[47],')"
fi
# the sonar test: 1 MB one way, by PUT (16384 data packets and 3 MPI
# headers of 32 phits each, random payload), ACKs of 3 phits back
out=$("$bin" --quiet --machine gemini --torus 4x1x1 --ppn 1 --pattern oneway:bytes=1048576 --format csv)
if echo "$out" | grep -q '^LINK_HOST_PACKETS,0,[0-9.]*,16387,32774$' &&
	echo "$out" | grep -q '^LINK_HOST_TRAFFIC,0,[0-9.]*,1573152,1720635$'; then
	ok "gemini: oneway 1 MB: the sender's router takes 16387 packets, 524384 phits from its NIC"
else
	bad "gemini: oneway 1 MB: $(echo "$out" | grep LINK_HOST)"
fi
if "$bin" --quiet --machine gemini --heatmap "$tmp/g.png" --heatmap-event LINK_ZM_TRAFFIC \
	--pattern halo3d:grid=8x8x32,n=8 >/dev/null && [ -s "$tmp/g.png" ]; then
	ok "gemini: heat map of a link metric"
else
	bad "gemini: no heat map"
fi
# The README tour's last command, and class A with every node's counters:
# BG/L's dynamic routes once printed no-token cycles near 2^64 (a negative
# time cast to a count). No number printed comes near that.
huge() { grep -oE '[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?' "$1" | awk '$1 + 0 >= 2^62 { print; exit 1 }'; }
for args in "--pattern cg:class=B" "--pattern cg:class=A --per-node --format csv"; do
	# shellcheck disable=SC2086 # args: several words
	if ! "$bin" --quiet --machine bgl --torus 8x4x4 $args >"$tmp/out" 2>"$tmp/err" ||
		! grep -q "LINK_AVAIL_NO_VCD0_VCD_VCBN_TOKENS" "$tmp/out"; then
		bad "bgl 8x4x4 $args: $(head -3 "$tmp/err" "$tmp/out")"
	elif n=$(huge "$tmp/out"); then
		ok "bgl 8x4x4 $args: every number printed below 2^62"
	else
		bad "bgl 8x4x4 $args: prints $n (>= 2^62: a wrapped counter)"
	fi
done
finish
