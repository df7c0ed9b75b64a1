#!/bin/bash
# Live MPI programs on the simulated network (libcounterlab-mpi): the
# instrumented programs run under mpirun on small BG/Q and BG/L partitions, read
# their counters through PAPI, and every node's point-to-point chunks sent
# and packets received must equal what counterlab-netsim's offline engine
# counts for the same traffic (deterministic routing: eager messages, or
# routes along one line). Also: two memory domains (the several-hosts
# path, its counts exchanged at world barriers) give the same counts, and a map that puts each fft3d column group on one node leaves
# that phase with no network traffic.
# usage: test_live_mpi.sh BINDIR
set -u
bindir=${1:?usage: test_live_mpi.sh BINDIR}
. "$(dirname "$0")/lib.sh"
export COUNTERLAB_MACHINES=${COUNTERLAB_MACHINES:-$PWD/machines}
EVENTS=PEVT_NW_USER_PP_SENT,PEVT_NW_USER_PP_RECV

# live NAME RANKS TORUS PPN [MAP] -- PROGRAM ARGS...: runs it; its
# per-node table in $tmp/NAME.live, its stdout in $tmp/NAME.out. The
# machine is $MACH (bgq unless set), counting $EVENTS.
MACH=bgq
live() {
	local name=$1 n=$2 torus=$3 ppn=$4 map=${MAP:-ABCDET}
	shift 4
	[ "$1" != -- ] && { map=$1; shift; }
	shift
	local prog=$1
	shift
	COUNTERLAB_MACHINE="$MACH:clock=virtual,activity=none,torus=$torus,ppn=$ppn,map=$map" \
		timeout 120 mpirun --allow-run-as-root --oversubscribe -n "$n" \
		-x COUNTERLAB_MACHINE -x COUNTERLAB_MACHINES -x COUNTERLAB_MPI_DOMAINS \
		"$bindir/counterlab-$prog" "$@" --events "$(sed 's/[^,]*/network:::&/g' <<<"$EVENTS")" \
		--per-node "$tmp/$name.live" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? > "$tmp/$name.rc"
}

# offline NAME TORUS PPN PATTERN [MAP]: the same table from counterlab-netsim
offline() {
	local k
	k=$(tr , '\n' <<<"$EVENTS" | wc -l)
	"$bindir/counterlab-netsim" --machine "$MACH" --quiet --torus "$2" --ppn "$3" \
		--map "${5:-${MAP:-ABCDET}}" --pattern "$4" --per-node --format csv --counters "$EVENTS" 2>&1 |
		awk -F, -v k="$k" 'started && NF > k { l = $1; for (i = NF - k + 1; i <= NF; i++) l = l "," $i; print l }
			/^node,/ { started = 1 } /^$/ { started = 0 }' > "$tmp/$1.offline"
}

# agree NAME WHAT: the live table's rows equal the offline ones, and some
# count is non-zero (a test that cannot fail is no test)
agree() {
	tail -n +2 "$tmp/$1.live" > "$tmp/$1.rows" 2>/dev/null
	if [ ! -s "$tmp/$1.rows" ]; then
		bad "$2: no live table ($(tail -3 "$tmp/$1.err" 2>/dev/null))"
	elif ! cmp -s "$tmp/$1.rows" "$tmp/$1.offline"; then
		bad "$2: live and offline differ"
		paste -d'|' "$tmp/$1.rows" "$tmp/$1.offline" | sed 's/^/    live|offline /'
	elif ! awk -F, '{ for (i = 2; i <= NF; i++) if ($i > 0) found = 1 } END { exit !found }' "$tmp/$1.rows"; then
		bad "$2: every count is zero"
	elif [ "$(head -1 "$tmp/$1.live" | tr , '\n' | wc -l)" != $(($(tr , '\n' <<<"$EVENTS" | wc -l) + 1)) ]; then
		bad "$2: the live table has other columns than $EVENTS"
	else
		ok "$2: live = offline ($(paste -sd' ' "$tmp/$1.rows"))"
	fi
}

# ping-pong between neighbouring nodes: eager, and rendezvous along a line
live pp8 2 1x2x1x1x2 1 -- pingpong --bytes 8 --iters 3
offline pp8 1x2x1x1x2 1 pingpong:bytes=8,iters=3
agree pp8 "pingpong 8 B x 3, BG/Q 1x2x1x1x2"
# two ranks on one node: rank 0 says why its link counters are zero
live ppsame 2 1x2x1x1x2 2 -- pingpong --bytes 8
if grep -q "ranks 0 and 1 are both on simulated node 0" "$tmp/ppsame.err" &&
	! grep -q "both on simulated node" "$tmp/pp8.err"; then
	ok "pingpong: ranks on one node are said to be, ranks on two are not"
else
	bad "pingpong on one node: $(cat "$tmp/ppsame.err")"
fi
live pp64k 2 1x2x1x1x2 1 -- pingpong --bytes 65536 --iters 2 --fill random
offline pp64k 1x2x1x1x2 1 pingpong:bytes=65536,iters=2
agree pp64k "pingpong 64 KB x 2 (random fill), BG/Q 1x2x1x1x2"
live pp64kz 2 1x2x1x1x2 1 -- pingpong --bytes 65536 --iters 2 --fill zero
if cmp -s "$tmp/pp64k.live" "$tmp/pp64kz.live" && [ -s "$tmp/pp64k.live" ]; then
	ok "pingpong: BG/Q counts do not depend on the buffer's content"
else
	bad "pingpong: zero and random fill count differently on BG/Q"
fi
# rank 0's line: its node's counters (chunks: 3 iterations x 1 packet of 2 chunks)
if grep -qx '8,zero,3,6,3' "$tmp/pp8.out"; then
	ok "pingpong prints rank 0's link counters (8,zero,3,6,3)"
else
	bad "pingpong's CSV line: $(tail -1 "$tmp/pp8.out")"
fi

# all-to-all of 16 ranks (fft3d on a 1x16 grid: its row phase is the
# all-to-all of all ranks, 256 B per pair)
live a2a 16 1x2x1x1x2 4 -- fft3d --n 16 --grid 1x16
offline a2a 1x2x1x1x2 4 alltoall:bytes=256
agree a2a "all-to-all 16 ranks x 256 B, BG/Q 1x2x1x1x2 ppn 4"

# the 3D FFT on a 4x4 grid, and the halo exchange of a 27-point stencil
live fft 16 1x2x1x1x2 4 -- fft3d --n 16 --grid 4x4
offline fft 1x2x1x1x2 4 fft3d:n=16,grid=4x4,compute=0
agree fft "fft3d n=16 grid 4x4, BG/Q 1x2x1x1x2 ppn 4"
if [ "$(cat "$tmp/fft.rc")" = 0 ] && grep -q 'largest error against the serial FFT' "$tmp/fft.err"; then
	ok "fft3d verified against the serial FFT ($(grep -o 'FFT .*' "$tmp/fft.err"))"
else
	bad "fft3d: not verified ($(cat "$tmp/fft.err"))"
fi
live halo 8 1x2x1x1x2 2 -- stencil --n 8 --grid 2x2x2 --stencil 27 --steps 2
offline halo 1x2x1x1x2 2 halo3d:n=8,grid=2x2x2,stencil=27,steps=2
agree halo "halo exchange 27-point 2x2x2, 2 steps, BG/Q 1x2x1x1x2 ppn 2"

# two memory domains: each keeps every node's blocks, the other domain's
# counts come at the world barriers (as across hosts)
COUNTERLAB_MPI_DOMAINS=2 live fft2 16 1x2x1x1x2 4 -- fft3d --n 16 --grid 4x4
cp "$tmp/fft.offline" "$tmp/fft2.offline"
agree fft2 "fft3d over 2 shared-memory domains (counts exchanged at world barriers)"

# 16-rank fft3d: the default map spreads each column group (ranks c, c+4,
# ...) over the 4 nodes; a map placing column c on node c keeps that
# phase on the nodes, and the row phase goes on the network instead
for r in $(seq 0 15); do
	c=$((r % 4)); echo "0 $((c / 2)) 0 0 $((c % 2)) $((r / 4))"
done > "$tmp/columns.map"
live dflt 16 1x2x1x1x2 4 -- fft3d --n 16 --grid 4x4
live cmap 16 1x2x1x1x2 4 "$tmp/columns.map" -- fft3d --n 16 --grid 4x4
col() { awk -F, -v p="$2" '$1 == p { print $2 }' "$tmp/$1.out"; }
if [ "$(col cmap alltoall-columns)" = 0 ] && [ "$(col dflt alltoall-columns)" -gt 0 ] 2>/dev/null &&
	[ "$(col cmap alltoall-rows)" -gt 0 ] 2>/dev/null; then
	ok "fft3d columns: 0 chunks with the column map, $(col dflt alltoall-columns) with the default"
else
	bad "fft3d map: columns $(col cmap alltoall-columns) (custom) vs $(col dflt alltoall-columns) (default)"
	cat "$tmp/cmap.err" "$tmp/dflt.err"
fi
offline cmap 1x2x1x1x2 4 fft3d:n=16,grid=4x4,compute=0 "$tmp/columns.map"
agree cmap "fft3d with the column map"

# The same traffic on BG/L (machines/bgl.ini: a 3D torus, XYZT leftmost
# fastest, its UPC torus events per direction), 2x2x2 nodes. Message sizes
# are eager (<= 1000 B) or along one line, so routing is deterministic.
# Collectives run on BG/L's tree network: the torus events never see the
# programs' own reductions and barriers.
MACH=bgl MAP=XYZT
EVENTS=BGL_UPC_TS_XP_32B_CHUNKS,BGL_UPC_TS_XM_32B_CHUNKS,BGL_UPC_TS_YP_32B_CHUNKS,BGL_UPC_TS_YM_32B_CHUNKS,BGL_UPC_TS_ZP_32B_CHUNKS,BGL_UPC_TS_ZM_32B_CHUNKS,BGL_UPC_TS_XP_VCBN_CHUNKS,BGL_UPC_TS_XM_ACKS
live lpp8 2 2x2x2 1 -- pingpong --bytes 8 --iters 3
offline lpp8 2x2x2 1 pingpong:bytes=8,iters=3
agree lpp8 "BG/L pingpong 8 B x 3, 2x2x2"
live lpp64k 2 2x2x2 1 -- pingpong --bytes 65536 --iters 2
offline lpp64k 2x2x2 1 pingpong:bytes=65536,iters=2
agree lpp64k "BG/L pingpong 64 KB x 2 (rendezvous along X), 2x2x2"
live la2a 16 2x2x2 2 -- fft3d --n 16 --grid 1x16
offline la2a 2x2x2 2 alltoall:bytes=256
agree la2a "BG/L all-to-all 16 ranks x 256 B, 2x2x2 virtual node mode"
live lfft 16 2x2x2 2 -- fft3d --n 8 --grid 4x4
offline lfft 2x2x2 2 fft3d:n=8,grid=4x4,compute=0
agree lfft "BG/L fft3d n=8 grid 4x4, 2x2x2 virtual node mode"
live lhalo 8 2x2x2 1 -- stencil --n 8 --grid 2x2x2 --stencil 27 --steps 2
offline lhalo 2x2x2 1 halo3d:n=8,grid=2x2x2,stencil=27,steps=2
agree lhalo "BG/L halo exchange 27-point 2x2x2, 2 steps"

# counterlab-congest: a centre on a 3x3x3 BG/L torus receives 1 MB from
# 1..6 neighbours at once (and sends back with --send 1). The no-token
# cycles come from the live layer's timing of each step on the torus
# model: every step's total equals netsim's incast phase, and they start
# where the model's drain limit (3 links' worth) is passed: at 4 senders
# when the centre only receives, at 2 when it also sends.
{ echo "1 1 1 0"; echo "0 1 1 0"; echo "2 1 1 0"; echo "1 0 1 0"; echo "1 2 1 0"
  echo "1 1 0 0"; echo "1 1 2 0"; } > "$tmp/centre.map"
for send in 0 1; do
	COUNTERLAB_MACHINE="bgl:torus=3x3x3,map=$tmp/centre.map" timeout 120 mpirun --allow-run-as-root \
		--oversubscribe -n 7 -x COUNTERLAB_MACHINE -x COUNTERLAB_MACHINES \
		"$bindir/counterlab-congest" --senders 1..6 --send $send >"$tmp/cg$send.out" 2>"$tmp/cg$send.err"
	awk -F, 'NR > 1 { s = 0; for (i = 3; i <= NF; i++) s += $i; print $1 "," s }' "$tmp/cg$send.out" \
		> "$tmp/cg$send.live"
	"$bindir/counterlab-netsim" --machine bgl --quiet --torus 3x3x3 --map "$tmp/centre.map" \
		--pattern "incast:senders=1..6,send=$send" --format csv 2>&1 |
		awk -F, '/^"incast/ { n++; print n "," $NF }' > "$tmp/cg$send.offline"
	onset=$(awk -F, '$2 > 0 { print $1; exit }' "$tmp/cg$send.live")
	want=$([ $send = 0 ] && echo 4 || echo 2)
	if [ ! -s "$tmp/cg$send.live" ] || ! cmp -s "$tmp/cg$send.live" "$tmp/cg$send.offline"; then
		bad "congest send=$send: live no-token per step differs from netsim's incast"
		paste -d'|' "$tmp/cg$send.live" "$tmp/cg$send.offline" | sed 's/^/    live|offline /'
		cat "$tmp/cg$send.err"
	elif [ "$onset" != "$want" ]; then
		bad "congest send=$send: no-token cycles start at ${onset:-no} senders, not $want"
	else
		ok "congest send=$send: no-token per step = netsim's incast, from $want senders on ($(paste -sd' ' "$tmp/cg$send.live"))"
	fi
done
MACH=bgq MAP=ABCDET

# The I/O unit's message-unit counters and the CNK's message-unit
# interrupts, per node, against the traffic. The programs' own barriers
# and reductions are messages too (on BG/Q's collective network), the same
# in runs of 3 and of 7 ping-pong iterations: so the difference of the
# two runs must be exactly what netsim counts for 4 iterations. Eager
# messages land in a memory FIFO, rendezvous data as direct puts; with
# irq_packets=1 every FIFO packet interrupts once. ppn 2 puts ranks 0 and
# 1 on one node: on-node copies through the message unit.
MU=io:::PEVT_MU_PKT_INJ,io:::PEVT_MU_MSG_INJ,io:::PEVT_MU_FIFO_PKT_RCV,io:::PEVT_MU_PUT_PKT_RCV
mu_run() { # NAME PPN BYTES ITERS EVENTS [MACHINE KEYS]
	COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,torus=1x2x1x1x2,ppn=$2${6:+,$6}" \
		timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 -x COUNTERLAB_MACHINE \
		-x COUNTERLAB_MACHINES "$bindir/counterlab-pingpong" --bytes "$3" --iters "$4" \
		--events "$5" --per-node "$tmp/$1.live" >"$tmp/$1.out" 2>"$tmp/$1.err"
}
for c in "1 8" "1 65536" "2 8" "2 65536"; do
	read -r ppn bytes <<<"$c"
	mu_run mu3 "$ppn" "$bytes" 3 $MU
	mu_run mu7 "$ppn" "$bytes" 7 $MU
	# node, injected packets, messages, FIFO and put packets received: 7 - 3
	paste -d, "$tmp/mu3.live" "$tmp/mu7.live" | awk -F, 'NR > 1 { print $1 "," $7-$2 "," $8-$3 "," $9-$4 "," $10-$5 }' > "$tmp/mu.rows"
	"$bindir/counterlab-netsim" --quiet --torus 1x2x1x1x2 --ppn "$ppn" --pattern "pingpong:bytes=$bytes,iters=4" \
		--per-node --format csv --counters PEVT_MU_PKT_INJ,PEVT_MU_MSG_INJ,PEVT_MU_PUT_PKT_RCV 2>&1 |
		awk -F, -v eager=$((bytes <= 2048)) 'started && NF > 3 { r = $NF
			print $1 "," $(NF-2) "," $(NF-1) "," (eager ? r : 0) "," (eager ? 0 : r) }
			/^node,/ { started = 1 } /^$/ { started = 0 }' > "$tmp/mu.offline"
	if [ -s "$tmp/mu.rows" ] && cmp -s "$tmp/mu.rows" "$tmp/mu.offline" &&
		awk -F, '$2 > 0 { f = 1 } END { exit !f }' "$tmp/mu.rows"; then
		ok "message unit, ppn $ppn, $bytes B: 4 more iterations add netsim's packets and messages per node, received in the $([ "$bytes" -le 2048 ] && echo FIFO || echo put) counter ($(paste -sd' ' "$tmp/mu.rows"))"
	else
		bad "message unit, ppn $ppn, $bytes B: live 7-3 iterations (node,inj,msg,fifo,put) vs netsim"
		paste -d'|' "$tmp/mu.rows" "$tmp/mu.offline" | sed 's/^/    live|offline /'
		cat "$tmp/mu3.err" "$tmp/mu7.err"
	fi
done
mu_run irq3 1 8 3 kernel:::PEVT_CNKNODE_MUINT kernel.irq_packets=1
mu_run irq7 1 8 7 kernel:::PEVT_CNKNODE_MUINT kernel.irq_packets=1
mu_run irq7off 1 8 7 kernel:::PEVT_CNKNODE_MUINT
d=$(paste -d, "$tmp/irq3.live" "$tmp/irq7.live" | awk -F, 'NR > 1 { printf "%s%d", s, $4 - $2; s = " " }')
off=$(awk -F, 'NR > 1 { s += $2 } END { print s + 0 }' "$tmp/irq7off.live")
if [ "$d" = "4 4 0 0" ] && [ "$off" = 0 ]; then
	ok "CNK message-unit interrupts: one per FIFO packet with irq_packets=1 (4 more per node for 4 more round trips), none when polling"
else
	bad "CNK message-unit interrupts: 7-3 iterations per node '$d' (want '4 4 0 0'), polling $off (want 0); $(cat "$tmp/irq7.err")"
fi

# non-blocking collectives and one-sided puts count what their blocking
# forms and a send do (tests/mpi/ways.c: the same traffic both ways;
# point-to-point and world-collective VCs, chunks sent)
prefix=$(cd "$bindir/.." && pwd)
if mpicc -std=gnu11 -Wall -Werror -I"$prefix/include" -Iinclude tests/mpi/ways.c -o "$tmp/ways" \
	-L"$prefix/lib" -lcounterlab-mpi -lpapi -lcounterlab -Wl,-rpath,"$prefix/lib" 2>"$tmp/ways.cc"; then
	for way in blocking nonblocking; do
		COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,torus=2x2x1x1x2,ppn=1" \
			timeout 120 mpirun --allow-run-as-root --oversubscribe -n 8 -x COUNTERLAB_MACHINE \
			-x COUNTERLAB_MACHINES "$tmp/ways" $way --bytes 4096 \
			--events network:::PEVT_NW_USER_PP_SENT,network:::PEVT_NW_USER_WORLD_COL_SENT \
			--per-node "$tmp/ways.$way" >"$tmp/ways.$way.out" 2>&1
	done
	if [ -s "$tmp/ways.blocking" ] && cmp -s "$tmp/ways.blocking" "$tmp/ways.nonblocking" &&
		awk -F, 'NR > 1 && $2 > 0 && $3 > 0 { n++ } END { exit n != 8 }' "$tmp/ways.blocking"; then
		ok "Ialltoall, Iallreduce, Ibcast and MPI_Put count as Alltoall, Allreduce, Bcast and a send ($(tail -n +2 "$tmp/ways.blocking" | paste -sd' '))"
	else
		bad "non-blocking and one-sided: blocking '$(tail -n +2 "$tmp/ways.blocking" 2>/dev/null | paste -sd' ')', non-blocking '$(tail -n +2 "$tmp/ways.nonblocking" 2>/dev/null | paste -sd' ')' ($(tail -2 "$tmp/ways.nonblocking.out"))"
	fi
	# an inter-communicator's broadcast, reduction and all-to-all count the
	# messages Open MPI sends for them (all VCs: PEVT_NW_SENT)
	for way in inter intersends; do
		COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,torus=2x2x1x1x2,ppn=1" \
			timeout 120 mpirun --allow-run-as-root --oversubscribe -n 8 -x COUNTERLAB_MACHINE \
			-x COUNTERLAB_MACHINES "$tmp/ways" $way --bytes 4096 --events network:::PEVT_NW_SENT \
			--per-node "$tmp/ways.$way" >"$tmp/ways.$way.out" 2>&1
	done
	if [ -s "$tmp/ways.inter" ] && cmp -s "$tmp/ways.inter" "$tmp/ways.intersends"; then
		ok "inter-communicator Bcast, Reduce, Alltoall count their messages ($(tail -n +2 "$tmp/ways.inter" | paste -sd' '))"
	else
		bad "inter-communicator collectives: '$(tail -n +2 "$tmp/ways.inter" 2>/dev/null | paste -sd' ')', as sends '$(tail -n +2 "$tmp/ways.intersends" 2>/dev/null | paste -sd' ')' ($(tail -2 "$tmp/ways.inter.out"))"
	fi
else
	bad "tests/mpi/ways.c does not compile: $(head -3 "$tmp/ways.cc")"
fi

# threads: two per rank sending at once and collectives of the world and
# a duplicate at once count what the same sends in turn count; an
# all-to-all(v)'s empty blocks are no messages; counts hold after
# MPI_Finalize (tests/mpi/threads.c checks and says)
if mpicc -std=gnu11 -Wall -Werror -I"$prefix/include" tests/mpi/threads.c -o "$tmp/threads" \
	-L"$prefix/lib" -lcounterlab-mpi -lpapi -lcounterlab -Wl,-rpath,"$prefix/lib" 2>"$tmp/threads.cc"; then
	if COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,torus=2x2x1x1x2,ppn=1" \
		timeout 180 mpirun --allow-run-as-root --oversubscribe -n 4 -x COUNTERLAB_MACHINE \
		-x COUNTERLAB_MACHINES "$tmp/threads" 20000 >"$tmp/threads.out" 2>&1 &&
		[ "$(grep -c ' ok: ' "$tmp/threads.out")" = 4 ]; then
		ok "MPI_THREAD_MULTIPLE: $(grep -m1 ' ok: ' "$tmp/threads.out")"
	else
		bad "MPI_THREAD_MULTIPLE: $(grep -v '^ *$' "$tmp/threads.out" | head -5 | tr '\n' ' ')"
	fi
else
	bad "tests/mpi/threads.c does not compile: $(head -3 "$tmp/threads.cc")"
fi

# a stencil grid is three whole numbers joined by x, nothing else: said
# once, exit 2
for g in 0x2x2 2x2x1junk -1x-1x4 2x2; do
	COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,ppn=1" \
		timeout 60 mpirun --allow-run-as-root --oversubscribe -n 4 -x COUNTERLAB_MACHINE \
		-x COUNTERLAB_MACHINES "$bindir/counterlab-stencil" --grid $g >"$tmp/grid.out" 2>"$tmp/grid.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(grep -c "counterlab-stencil: --grid" "$tmp/grid.err")" = 1 ] && ! [ -s "$tmp/grid.out" ]; then
		ok "stencil --grid $g: $(grep "counterlab-stencil: --grid" "$tmp/grid.err")"
	else
		bad "stencil --grid $g: exit $rc, $(head -2 "$tmp/grid.err" | tr '\n' ' ') $(head -2 "$tmp/grid.out")"
	fi
done

# a machine whose map has fewer slots than ranks: a clear message
COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,torus=1x2x1x1x2,ppn=1" \
	timeout 60 mpirun --allow-run-as-root --oversubscribe -n 5 -x COUNTERLAB_MACHINE \
	-x COUNTERLAB_MACHINES "$bindir/counterlab-pingpong" >"$tmp/few.out" 2>"$tmp/few.err"
if [ "$(grep -c "5 ranks run but the machine's map places 4" "$tmp/few.err")" = 1 ]; then
	ok "too many ranks for the map: said once"
else
	bad "too many ranks for the map: $(head -3 "$tmp/few.err")"
fi

# memory a rank cannot have (address space limited to 8 GB, so that no
# kernel's overcommit lets the 275 GB blocks through): said once, exit 2,
# no abort
(ulimit -v 8000000
COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,ppn=1" \
	timeout 60 mpirun --allow-run-as-root --oversubscribe -n 4 -x COUNTERLAB_MACHINE \
	-x COUNTERLAB_MACHINES "$bindir/counterlab-fft3d" --n 4096 --grid 2x2 >"$tmp/mem.out" 2>"$tmp/mem.err")
rc=$?
if [ $rc = 2 ] && [ "$(grep -c "no memory" "$tmp/mem.err")" = 1 ] && ! grep -q MPI_ABORT "$tmp/mem.err"; then
	ok "fft3d --n 4096: $(grep "no memory" "$tmp/mem.err")"
else
	bad "fft3d --n 4096: exit $rc, $(head -3 "$tmp/mem.err" | tr '\n' ' ')"
fi

# a set-up failure of every rank is said once, by rank 0; one of a single
# rank (its own environment) by that rank, the others not hanging
COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,ppn=1" COUNTERLAB_MPI_DOMAINS=2abc \
	timeout 60 mpirun --allow-run-as-root --oversubscribe -n 4 -x COUNTERLAB_MACHINE \
	-x COUNTERLAB_MACHINES -x COUNTERLAB_MPI_DOMAINS "$bindir/counterlab-pingpong" >"$tmp/dom.out" 2>"$tmp/dom.err"
if [ "$(grep -c "not counted" "$tmp/dom.err")" = 1 ] &&
	grep -q "(rank 0 and others): COUNTERLAB_MPI_DOMAINS=2abc: a number of domains per host" "$tmp/dom.err"; then
	ok "COUNTERLAB_MPI_DOMAINS=2abc: said once"
else
	bad "COUNTERLAB_MPI_DOMAINS=2abc: $(head -5 "$tmp/dom.err" | tr '\n' ' ')"
fi
COUNTERLAB_MACHINE="bgq:clock=virtual,activity=none,ppn=1" \
	timeout 60 mpirun --allow-run-as-root --oversubscribe -x COUNTERLAB_MACHINE -x COUNTERLAB_MACHINES \
	-n 2 "$bindir/counterlab-pingpong" : -n 1 env COUNTERLAB_MPI_DOMAINS=x "$bindir/counterlab-pingpong" : \
	-n 1 "$bindir/counterlab-pingpong" >"$tmp/dom.out" 2>"$tmp/dom.err"
rc=$?
if [ $rc != 124 ] && [ "$(grep -c "not counted" "$tmp/dom.err")" = 1 ] &&
	grep -q "(rank 2): COUNTERLAB_MPI_DOMAINS=x" "$tmp/dom.err"; then
	ok "one rank's set-up failure: said by that rank, no hang"
else
	bad "one rank's set-up failure: exit $rc, $(head -5 "$tmp/dom.err" | tr '\n' ' ')"
fi

# Gemini: the pingpong's sender reads its router's tiles. Ranks 0 and 1
# on routers (0,0,0) and (1,0,0); 1 MB messages go by rendezvous PUT: per
# message the sender's 64-byte MPI header (32 phits) before the data and
# after each of its two 512 KB chunks, and 16384 data PUTs of 32 phits with
# random data (10 of header, 22 of payload), 16 with zeros (the
# interposer hands the send buffer to the model, which compresses each
# zero 8-byte word to a 2-byte code: 17 bytes, 6 phits); every PUT is
# ACKed by 3 phits. Two more iterations add, at the sender's router, 2 x
# 2 x 16387 packets entering from its NIC (its PUTs and its ACKs of the
# answer) with 2 x (16384 x (32 or 16) + 96 + 16387 x 3) phits, and as
# many from the network. The program's own barriers count too, and
# whether another rank's barrier message lands before or after rank 0's
# first read varies from run to run (a 0-byte message: its 64-byte header
# in 1 packet of 32 phits, its ACK 3): a few packets of slack.
gem() { # ITERS FILL [--one-way]: rank 0's CSV row
	COUNTERLAB_MACHINE="gemini:clock=virtual,torus=4x1x1,ppn=1" \
		timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 -x COUNTERLAB_MACHINE \
		-x COUNTERLAB_MACHINES "$bindir/counterlab-pingpong" --bytes 1048576 --iters "$1" \
		--fill "$2" ${3:-} 2>"$tmp/gem.err" | tail -1
}
near() { # VALUE WANT SLACK
	[ "$1" -ge $(($2 - $3)) ] && [ "$1" -le $(($2 + $3)) ] 2>/dev/null
}
for fill in random:1147090 zero:622802; do
	want=${fill#*:} fill=${fill%:*}
	one=$(gem 1 "$fill")
	three=$(gem 3 "$fill")
	d=$(awk -F, -v a="$one" 'BEGIN { split(a, x, ",") } { printf "%d %d %d %d", $4 - x[4], $5 - x[5], $6 - x[6], $7 - x[7] }' <<< "$three")
	read -r dtp dtf drp drf <<< "$d"
	if near "$dtp" 65548 4 && near "$dtf" "$want" 80 && near "$drp" 65548 4 && near "$drf" "$want" 80; then
		ok "gemini pingpong, $fill data: 2 iterations add TX/RX packets and phits $d (65548 and $want each, give or take a barrier message)"
	else
		bad "gemini pingpong, $fill data: iters 1: $one, iters 3: $three, difference $d, want 65548 and $want ($(tail -2 "$tmp/gem.err"))"
	fi
done
# The published sonar test ("Using the Cray Gemini Performance Counters",
# CUG 2013): 1 MB one way, read at the sender's router: TX 16407 packets,
# 524709 phits (random) or 262565 (zeros), RX 16407 packets, 49221 phits.
# One message, barriers included, within 1% of each (awk: |v/p - 1| < 0.01).
for fill in random:524709 zero:262565; do
	want=${fill#*:} fill=${fill%:*}
	row=$(gem 1 "$fill" --one-way)
	if awk -F, -v w="$want" 'function off(v, p) { return v / p > 1.01 || v / p < 0.99 }
		{ exit off($4, 16407) || off($5, w) || off($6, 16407) || off($7, 49221) }' <<< "$row"; then
		ok "gemini one-way 1 MB, $fill data: TX/RX $row within 1% of the published 16407, $want, 16407, 49221"
	else
		bad "gemini one-way 1 MB, $fill data: $row, want within 1% of 16407, $want, 16407, 49221 ($(tail -2 "$tmp/gem.err"))"
	fi
done

# MiniGhost on Gemini with 16 ranks per node: a 2x2x16 rank grid on 4
# nodes (2 routers), each node a 2x2x4 block (the XYZT map) or a 1x1x16
# column (a map file). Offline, hand-worked for 2x2x4: only the 3 z
# boundaries cross nodes; per boundary and direction 4 ranks send a face
# (512 B and MPI's 64-byte header: 9 PUTs of 32 phits), 2 edges (64 B and
# the header: 2 x 32 phits) and a corner (8 B and the header: 32 + 13
# phits), each of the 15 packets with a 3-phit ACK: 506 phits, x 4 x 6 =
# 12144 phits entering routers from NICs = 36432 bytes of host-link traffic.
# Live through PAPI, the same plus the app's own collectives; the column
# layout moves about 5 times as much over the host links.
for r in $(seq 0 63); do
	k=$((r % 2 + 2 * (r / 2 % 2))); echo "$((k / 2)) 0 0 $((k % 2 * 16 + r / 4))"
done > "$tmp/col16.map"
host() { # MAP: offline LINK_HOST_TRAFFIC total, then live
	"$bindir/counterlab-netsim" --quiet --machine gemini --torus 2x1x1 --ppn 32 --map "$1" \
		--pattern halo3d:n=8,grid=2x2x16,stencil=27 --format csv | awk -F, '$1 == "LINK_HOST_TRAFFIC" { print $5 }'
	COUNTERLAB_MACHINE="gemini:clock=virtual,torus=2x1x1,ppn=32,map=$1" \
		timeout 300 mpirun --allow-run-as-root --oversubscribe -n 64 -x COUNTERLAB_MACHINE \
		-x COUNTERLAB_MACHINES "$bindir/counterlab-stencil" --n 8 --grid 2x2x16 --stencil 27 \
		--steps 1 --events network:::LINK_HOST_TRAFFIC,network:::LINK_NET_TRAFFIC 2>"$tmp/st.err" |
		awk -F, '$1 == 1 { print $2 }'
}
read -r -d '' off_blk live_blk < <(host XYZT)
read -r -d '' off_col live_col < <(host "$tmp/col16.map")
if [ "$off_blk" = 36432 ] && [ "$off_col" -gt $((4 * off_blk)) ] 2>/dev/null &&
	[ "$live_blk" -ge "$off_blk" ] && [ "$live_col" -ge "$off_col" ] &&
	[ "$live_col" -gt $((4 * live_blk)) ]; then
	ok "gemini stencil host-link bytes: 2x2x4 $live_blk (offline $off_blk), 1x1x16 $live_col (offline $off_col)"
else
	bad "gemini stencil host-link bytes: 2x2x4 live '$live_blk' offline '$off_blk', 1x1x16 live '$live_col' offline '$off_col' ($(tail -2 "$tmp/st.err"))"
fi

finish
