#!/bin/bash
# Live MPI programs across two hosts: libcounterlab-mpi's counts when the
# ranks run on two Linux hosts over TCP equal, counter by counter and node
# by node, those of the same program on one host and counterlab-netsim's
# offline model, for BG/Q, BG/L and Gemini profiles: the FFT, ping-pong
# and stencil programs. The two hosts are network namespaces on this
# machine joined by a veth pair, with hostnames of their own, made and
# removed here (twohosts.sh); Open MPI starts its daemons in them through
# an agent. Ranks go round-robin over the hosts (--map-by node), so every
# simulated node has ranks on both: the map alone places them.
# Needs root (namespaces): as another user it says it was not run and
# exits 77, which tests/run.sh reports as not run.
# usage: test_multihost.sh BINDIR
set -u
[ $# = 1 ] || { echo "usage: test_multihost.sh BINDIR (where counterlab-fft3d and the other programs are)" >&2; exit 2; }
bindir=$(readlink -f "$1")
if [ "$(id -u)" != 0 ]; then
	echo "NOT RUN: test_multihost makes network namespaces, which needs root (it runs as root in CI)"
	exit 77
fi
here=$(dirname "$(readlink -f "$0")")
. "$here/twohosts.sh"
tmp=$(mktemp -d)
hosts=clab$$ # the namespaces clab<pid>-h1 and -h2
watchdog=
cleanup() {
	[ -n "$watchdog" ] && kill "$watchdog" 2>/dev/null
	twohosts_down "$hosts"
	rm -rf "$tmp"
}
trap cleanup EXIT
exec 3>&1 # the test's output, also from a trap that fires within a redirection
trap 'echo "FAIL - test_multihost: interrupted (the namespaces are removed)" >&3; exit 130' INT TERM
# a generous bound on the whole test (each run has its own, twohosts.sh)
limit=${MULTIHOST_WATCHDOG:-1800}
(trap 'kill "$s" 2>/dev/null; exit' TERM
 sleep "$limit" & s=$!
 wait "$s" && echo "test_multihost: watchdog: still running after $limit s" >&3 && kill -TERM $$) &
watchdog=$!
fails=0
ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }
export COUNTERLAB_MACHINES=${COUNTERLAB_MACHINES:-$(dirname "$(dirname "$here")")/machines}

if ! twohosts_up "$hosts" 2>"$tmp/up.err"; then
	echo "FAIL - could not make the two hosts: $(cat "$tmp/up.err")"
	exit 1
fi
# the daemons run in the namespaces, one hostname each
twohosts_mpirun "$hosts" -n 2 --map-by node hostname 2>"$tmp/names.err" | sort > "$tmp/names"
if [ "$(paste -sd' ' "$tmp/names")" = "h1 h2" ]; then
	ok "Open MPI starts a daemon on each host (hostnames h1 and h2)"
else
	bad "the two hosts: mpirun's ranks ran on '$(paste -sd' ' "$tmp/names")', not h1 and h2 ($(tail -3 "$tmp/names.err"))"
	exit 1
fi

# run NAME WHERE MACHINE RANKS PROGRAM ARGS...: the per-node table of the
# program's counters ($EVENTS) in $tmp/NAME.WHERE (WHERE: 1 = this
# machine, 2 = the two hosts)
run() {
	local name=$1 where=$2 mach=$3 n=$4 prog=$5
	shift 5
	local args=(-n "$n" -x COUNTERLAB_MACHINE -x COUNTERLAB_MACHINES "$bindir/counterlab-$prog" "$@"
		--events "$EVENTS" --per-node "$tmp/$name.$where")
	if [ "$where" = 2 ]; then
		COUNTERLAB_MACHINE=$mach twohosts_mpirun "$hosts" --map-by node "${args[@]}"
	else
		COUNTERLAB_MACHINE=$mach timeout -k 10 300 mpirun --allow-run-as-root --oversubscribe "${args[@]}"
	fi >"$tmp/$name.$where.out" 2>"$tmp/$name.$where.err"
}

# offline NAME MACHINE TORUS PPN MAP PATTERN: netsim's per-node table of
# $OFFLINE (the first columns of $EVENTS) in $tmp/NAME.off
offline() {
	local k
	k=$(tr , '\n' <<<"$OFFLINE" | wc -l)
	"$bindir/counterlab-netsim" --machine "$2" --quiet --torus "$3" --ppn "$4" --map "$5" \
		--pattern "$6" --per-node --format csv --counters "$OFFLINE" 2>&1 |
		awk -F, -v k="$k" 'started && NF > k { l = $1; for (i = NF - k + 1; i <= NF; i++) l = l "," $i; print l }
			/^node,/ { started = 1 } /^$/ { started = 0 }' > "$tmp/$1.off"
}

# cols FILE K: its rows (no header), node and the first K counters
cols() { tail -n +2 "$1" 2>/dev/null | cut -d, -f1-$(($2 + 1)); }

# same NAME WHAT: two hosts = one host, every counter; some count non-zero
same() {
	if [ ! -s "$tmp/$1.2" ]; then
		bad "$2: no table from the two hosts ($(tail -3 "$tmp/$1.2.err"))"
		return 1
	elif [ ! -s "$tmp/$1.1" ]; then
		bad "$2: no table from one host ($(tail -3 "$tmp/$1.1.err"))"
		return 1
	elif ! cmp -s "$tmp/$1.2" "$tmp/$1.1"; then
		bad "$2: two hosts and one host differ"
		paste -d'|' "$tmp/$1.2" "$tmp/$1.1" | sed 's/^/    two|one /'
		return 1
	elif ! tail -n +2 "$tmp/$1.2" | awk -F, '{ for (i = 2; i <= NF; i++) if ($i > 0) f = 1 } END { exit !f }'; then
		bad "$2: every count is zero"
		return 1
	fi
	ok "$2: two hosts = one host ($(tail -n +2 "$tmp/$1.2" | paste -sd' '))"
}

# model NAME WHAT: the two hosts' first columns = netsim's
model() {
	local k
	k=$(tr , '\n' <<<"$OFFLINE" | wc -l)
	cols "$tmp/$1.2" "$k" > "$tmp/$1.rows"
	if [ -s "$tmp/$1.rows" ] && cmp -s "$tmp/$1.rows" "$tmp/$1.off"; then
		ok "$2: two hosts = netsim's model ($OFFLINE)"
	else
		bad "$2: two hosts and netsim's model differ ($OFFLINE)"
		paste -d'|' "$tmp/$1.rows" "$tmp/$1.off" | sed 's/^/    two|netsim /'
	fi
}

# both NAME WHAT MACHINE TORUS PPN MAP RANKS PROGRAM ARGS... -- PATTERN: the
# program on the two hosts and on one, the same pattern offline; with
# EXACT=1 the two hosts' table must equal netsim's
both() {
	local name=$1 what=$2 mach=$3 torus=$4 ppn=$5 map=$6 n=$7 prog=$8 pattern
	shift 8
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	pattern=$2
	local m="$mach:clock=virtual,activity=none,torus=$torus,ppn=$ppn,map=$map"
	run "$name" 2 "$m" "$n" "$prog" "${args[@]}"
	run "$name" 1 "$m" "$n" "$prog" "${args[@]}"
	same "$name" "$what" || return
	offline "$name" "$mach" "$torus" "$ppn" "$map" "$pattern"
	[ "$EXACT" = 0 ] || model "$name" "$what"
}

# What a read sees of counts made on the other host, and when: rank 1
# reads the receive side of rank 0's message (counted by rank 0) once it
# has arrived, after PMPI_Barrier and after the world MPI_Barrier
prefix=$(dirname "$bindir")
if mpicc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-function -I"$prefix/include" \
	"$here/visibility.c" -o "$tmp/visibility" -L"$prefix/lib" -lcounterlab-mpi -lpapi -lcounterlab \
	-Wl,-rpath,"$prefix/lib" 2>"$tmp/vis.err"; then
	m="bgq:clock=virtual,activity=none,torus=1x2x1x1x2,ppn=1"
	COUNTERLAB_MACHINE=$m twohosts_mpirun "$hosts" --map-by node -n 2 -x COUNTERLAB_MACHINE \
		-x COUNTERLAB_MACHINES "$tmp/visibility" 2>>"$tmp/vis.err" | sort | paste -sd' ' > "$tmp/vis.2"
	COUNTERLAB_MACHINE=$m timeout -k 10 300 mpirun --allow-run-as-root --oversubscribe -n 2 \
		-x COUNTERLAB_MACHINE -x COUNTERLAB_MACHINES "$tmp/visibility" 2>>"$tmp/vis.err" |
		sort | paste -sd' ' > "$tmp/vis.1"
	if [ "$(cat "$tmp/vis.1")" = "recv,1,1,1 sent,2" ] && [ "$(cat "$tmp/vis.2")" = "recv,0,0,1 sent,2" ]; then
		ok "a count made on the other host shows at the next world MPI_Barrier, one made on the reader's host at once (one host: $(cat "$tmp/vis.1"); two: $(cat "$tmp/vis.2"))"
	else
		bad "visibility: one host '$(cat "$tmp/vis.1")' (want recv,1,1,1 sent,2), two hosts '$(cat "$tmp/vis.2")' (want recv,0,0,1 sent,2) ($(tail -3 "$tmp/vis.err"))"
	fi
else
	bad "visibility.c does not build: $(cat "$tmp/vis.err")"
fi

# BG/Q: point-to-point chunks and packets (netsim's), the collective VCs
# (the programs' own barriers and reductions) and the receive-FIFO
# occupancy the hosts' leads write from the model's timing
EVENTS=$(sed 's/[^,]*/network:::&/g' <<<PEVT_NW_USER_PP_SENT,PEVT_NW_USER_PP_RECV,PEVT_NW_USER_WORLD_COL_SENT,PEVT_NW_USER_PP_RECV_FIFO)
OFFLINE=PEVT_NW_USER_PP_SENT,PEVT_NW_USER_PP_RECV EXACT=1
both qfft "BG/Q fft3d n=16 grid 4x4, 16 ranks" bgq 1x2x1x1x2 4 ABCDET 16 fft3d --n 16 --grid 4x4 \
	-- fft3d:n=16,grid=4x4,compute=0
if grep -q 'largest error against the serial FFT' "$tmp/qfft.2.err"; then
	ok "fft3d across the hosts verified against the serial FFT"
else
	bad "fft3d across the hosts: not verified ($(tail -2 "$tmp/qfft.2.err"))"
fi
both qpp "BG/Q pingpong 64 KB x 2" bgq 1x2x1x1x2 1 ABCDET 2 pingpong --bytes 65536 --iters 2 \
	-- pingpong:bytes=65536,iters=2
both qhalo "BG/Q 27-point stencil 2x2x2, 2 steps" bgq 1x2x1x1x2 2 ABCDET 8 stencil --n 8 --grid 2x2x2 \
	--stencil 27 --steps 2 -- halo3d:n=8,grid=2x2x2,stencil=27,steps=2

# BG/L: the torus events (collectives go on its tree network)
OFFLINE=BGL_UPC_TS_XP_32B_CHUNKS,BGL_UPC_TS_XM_32B_CHUNKS,BGL_UPC_TS_YP_32B_CHUNKS,BGL_UPC_TS_YM_32B_CHUNKS,BGL_UPC_TS_ZP_32B_CHUNKS,BGL_UPC_TS_ZM_32B_CHUNKS,BGL_UPC_TS_XP_VCBN_CHUNKS,BGL_UPC_TS_XM_ACKS
EVENTS=$(sed 's/[^,]*/network:::&/g' <<<"$OFFLINE")
both lfft "BG/L fft3d n=8 grid 4x4, 16 ranks" bgl 2x2x2 2 XYZT 16 fft3d --n 8 --grid 4x4 \
	-- fft3d:n=8,grid=4x4,compute=0
both lpp "BG/L pingpong 64 KB x 2" bgl 2x2x2 1 XYZT 2 pingpong --bytes 65536 --iters 2 \
	-- pingpong:bytes=65536,iters=2
both lhalo "BG/L 27-point stencil 2x2x2, 2 steps" bgl 2x2x2 1 XYZT 8 stencil --n 8 --grid 2x2x2 \
	--stencil 27 --steps 2 -- halo3d:n=8,grid=2x2x2,stencil=27,steps=2

# Gemini: its routers' host and network links. The programs' own barriers
# are messages on Gemini's torus too, which netsim's patterns do not have:
# two runs with the same barriers and different traffic (sizes, or
# iterations) differ by exactly what netsim counts for the two patterns.
OFFLINE=LINK_HOST_PACKETS,LINK_HOST_TRAFFIC,LINK_NET_PACKETS,LINK_NET_TRAFFIC
EVENTS=$(sed 's/[^,]*/network:::&/g' <<<"$OFFLINE") EXACT=0
# gdiff NAME WHAT A B: the two hosts' A - B = netsim's A - B
gdiff() {
	paste -d, "$tmp/$3.2" "$tmp/$4.2" | awk -F, 'NR > 1 { print $1 "," $2-$7 "," $3-$8 "," $4-$9 "," $5-$10 }' \
		> "$tmp/$1.rows"
	paste -d, "$tmp/$3.off" "$tmp/$4.off" | awk -F, '{ print $1 "," $2-$7 "," $3-$8 "," $4-$9 "," $5-$10 }' \
		> "$tmp/$1.off"
	if [ -s "$tmp/$1.rows" ] && cmp -s "$tmp/$1.rows" "$tmp/$1.off" &&
		awk -F, '$2 > 0 { f = 1 } END { exit !f }' "$tmp/$1.rows"; then
		ok "$2: two hosts' difference = netsim's ($(paste -sd' ' "$tmp/$1.rows"))"
	else
		bad "$2: two hosts' difference and netsim's differ"
		paste -d'|' "$tmp/$1.rows" "$tmp/$1.off" | sed 's/^/    two|netsim /'
	fi
}
g=gemini
both gpp3 "Gemini pingpong 64 KB x 3" $g 4x1x1 1 XYZT 2 pingpong --bytes 65536 --iters 3 --fill random \
	-- pingpong:bytes=65536,iters=3 &&
both gpp1 "Gemini pingpong 64 KB x 1" $g 4x1x1 1 XYZT 2 pingpong --bytes 65536 --iters 1 --fill random \
	-- pingpong:bytes=65536,iters=1 &&
gdiff gpp "Gemini pingpong, 3 - 1 iterations" gpp3 gpp1
both gfft16 "Gemini fft3d n=16 grid 4x4, 16 ranks" $g 2x1x1 8 XYZT 16 fft3d --n 16 --grid 4x4 \
	-- fft3d:n=16,grid=4x4,compute=0 &&
both gfft8 "Gemini fft3d n=8 grid 4x4, 16 ranks" $g 2x1x1 8 XYZT 16 fft3d --n 8 --grid 4x4 \
	-- fft3d:n=8,grid=4x4,compute=0 &&
gdiff gfft "Gemini fft3d, n=16 - n=8" gfft16 gfft8
both ghalo8 "Gemini 27-point stencil n=8 2x2x2" $g 2x1x1 4 XYZT 8 stencil --n 8 --grid 2x2x2 --stencil 27 \
	--steps 1 -- halo3d:n=8,grid=2x2x2,stencil=27,steps=1 &&
both ghalo4 "Gemini 27-point stencil n=4 2x2x2" $g 2x1x1 4 XYZT 8 stencil --n 4 --grid 2x2x2 --stencil 27 \
	--steps 1 -- halo3d:n=4,grid=2x2x2,stencil=27,steps=1 &&
gdiff ghalo "Gemini stencil, n=8 - n=4" ghalo8 ghalo4

echo "$fails failed"
[ $fails = 0 ]
