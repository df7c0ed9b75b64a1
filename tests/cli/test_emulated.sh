#!/bin/bash
# counterlab-run and the emulator plugin (activity = emulated): kernels
# with counts worked by hand, through PAPI inside the program
# (tests/emulated/kernels.c) and exactly from the plugin's totals (two runs
# that differ only in N differ by N's share); the same run twice gives the
# same counts; and each program the emulator cannot count is refused with
# the reason; PAPI's fast validation tests pass under it.
# usage: test_emulated.sh BINDIR   (CC, PREFIX from tests/run.sh)
set -u
bindir=$(cd "${1:?usage: test_emulated.sh BINDIR}" && pwd)
run=$bindir/counterlab-run
prefix=${PREFIX:-$bindir/..}
. "$(dirname "$0")/lib.sh"
export COUNTERLAB_MACHINES=${COUNTERLAB_MACHINES:-$(cd "$(dirname "$0")/../.." && pwd)/machines}

if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -pthread -I"$prefix/include" \
	-o "$tmp/kernels" "$(dirname "$0")/../emulated/kernels.c" -L"$prefix/lib" -lbgpm -lpapi -lcounterlab -lm \
	-Wl,-rpath,"$prefix/lib"; then
	echo "FAIL - build tests/emulated/kernels.c"
	exit 1
fi

# 1. through PAPI, inside the program (a watchdog: a hang is a failure)
if timeout 300 "$run" -- "$tmp/kernels" > "$tmp/papi.out" 2>&1; then
	ok "kernels under counterlab-run:"
	sed 's/^/    /' "$tmp/papi.out"
else
	bad "kernels under counterlab-run: $(cat "$tmp/papi.out")"
fi

# 1b. a forked child counts apart from its parent
if timeout 300 "$run" -- "$tmp/kernels" fork > "$tmp/fork.out" 2>&1; then
	ok "fork: $(cat "$tmp/fork.out")"
else
	bad "fork: $(cat "$tmp/fork.out")"
fi

# 1c. the program's own signal handlers (qemu-user enters them misaligned)
if timeout 300 "$run" -- "$tmp/kernels" handlers > "$tmp/handlers.out" 2>&1; then
	ok "handlers: $(cat "$tmp/handlers.out")"
else
	bad "handlers: $(cat "$tmp/handlers.out")"
fi

pre=$(LD_PRELOAD=libm.so.6 timeout 300 "$run" -- env | grep '^LD_PRELOAD=')
if [[ "$pre" == LD_PRELOAD=*/guest.so:libm.so.6 ]]; then
	ok "the program's own LD_PRELOAD comes after counterlab-run's: $pre"
else
	bad "the program's LD_PRELOAD: '$pre', want counterlab-run's guest.so, then libm.so.6"
fi

# 1c'. a thread the emulator has no slot for is refused, not counted as 0
if timeout 300 "$run" -- "$tmp/kernels" slots > "$tmp/slots.out" 2>&1; then
	ok "$(cat "$tmp/slots.out")"
else
	bad "slots: $(cat "$tmp/slots.out")"
fi

# 1d. programs the program executes run under the emulator too: through
# env (an exec that keeps the process), a shell's child (fork, then exec)
# and a counterlab-run run by the program, each counting as kernels' own
# checks want; argv[0] as the executing program gave it
wrapped() { # what wraps kernels...
	if timeout 300 "$run" -- "$@" > "$tmp/wrap.out" 2>&1; then
		ok "counted through '${*% "$tmp/kernels"}'"
	else
		bad "counted through '$*': $(cat "$tmp/wrap.out")"
	fi
}
wrapped /usr/bin/env "$tmp/kernels"
wrapped /bin/sh -c '"$0" && :' "$tmp/kernels"
wrapped "$run" -- "$tmp/kernels"
a0=$(timeout 300 "$run" -- /bin/bash -c 'exec -a myname /bin/sh -c "echo \$0"' 2>&1)
if [ "$a0" = myname ]; then
	ok "an executed program keeps the argv[0] it was given"
else
	bad "argv[0] of an executed program: '$a0', want myname"
fi

# 2. the plugin's totals: kernel N against kernel 2N, everything else equal
total() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
for n in 100000 200000; do
	timeout 300 "$run" --summary "$tmp/loop$n" -- "$tmp/kernels" loop $n || bad "loop $n"
	timeout 300 "$run" --summary "$tmp/fma$n" -- "$tmp/kernels" fma $n || bad "fma $n"
done
expect() { # file-a file-b quantity difference
	local a b
	a=$(total "$1" "$3")
	b=$(total "$2" "$3")
	if [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) = "$4" ]; then
		ok "$3: $a -> $b (+$4)"
	else
		bad "$3: '$a' -> '$b', want +$4"
	fi
}
# 100,000 more iterations of "dec; jnz": 200,000 instructions and cycles,
# 100,000 conditional branches, all taken, no more mispredictions, no
# more memory traffic
for q in instructions:200000 cycles:200000 branches:100000 taken:100000 branch_misses:0 \
	loads:0 stores:0 l1d_load_misses:0 llc_misses:0 jumps:0 fma:0 dep_stalls:0 il1_misses:0; do
	expect "$tmp/loop100000" "$tmp/loop200000" "${q%%:*}" "${q#*:}"
done
# N FMAs: exactly N in the whole process (nothing else fuses), and 3N
# instructions (vfmadd, dec, jnz)
expect "$tmp/fma100000" "$tmp/fma200000" fma 100000
expect "$tmp/fma100000" "$tmp/fma200000" instructions 300000
[ "$(total "$tmp/fma100000" fma)" = 100000 ] && ok "100000 FMAs: fma 100000" ||
	bad "100000 FMAs: fma $(total "$tmp/fma100000" fma)"

# 2'. the in-order issue model, worked by hand per iteration (one block;
# latencies: FP 6 cycles, an integer load's 6, simple integer 1).
# depchain: movapd, then 8 mulsd each on the one before, dec, jnz: every
# multiply waits 5 cycles for its source (8 * 5 = 40 stall cycles, the
# AXU's: FP registers), dec and jnz none: 11 instructions, 51 cycles.
# viachain: cvtsi2sd %rax,%xmm0 is std and lfd (issued as soon as %rax
# is ready: cycles 0 and 1), fcfid when the load's data is in (cycle 8:
# 6 cycles waited); cvttsd2si %xmm0,%rax is fctidz on fcfid's result
# (cycle 14: 5 waited), stfd on its result (cycle 20: 5 waited), ld; dec,
# jnz: 8 instructions, 24 cycles, 16 of them the AXU's stalls.
# indep: 8 mulsd on 8 registers, dec, jnz: 10 instructions, 10 cycles, no
# stall, 3 instruction fetches (of four instructions).
# bigloop: 32 KB of nops from a line's start, then dec and jnz in the next
# line: 513 lines, 8 or 9 per set of the 4-way L1I, each missing every
# iteration (82 cycles of reload each); the dec-jnz loop above: no miss.
# rmw: over 128-byte lines never seen (both runs' buffers mmap'd), an
# 8-byte load per line, then a load and a store to it per line. Once the
# L1p's stream runs (from the second line), each load finds its line
# prefetched 2 ahead and sets up the next: in the first pass the line is
# still on its way from memory (the L2 missed: a prefetch that becomes a
# demand fetch), in the second the L2 has it (a hit), and the store
# invalidates it. The store waits 5 cycles for the load (the FXU's: integer
# registers). Per line: 2 lines set up, a hit, a demand fetch, a
# write-invalidate, no new stream.
for k in depchain:1000 viachain:1000 indep:1000 bigloop:100 rmw:2000; do
	for n in ${k#*:} $((2 * ${k#*:})); do
		timeout 300 "$run" --summary "$tmp/${k%:*}$n" -- "$tmp/kernels" ${k%:*} $n ||
			bad "${k%:*} $n"
	done
done
expect_each() { # file-a file-b quantity:difference...
	local a=$1 b=$2 q
	shift 2
	for q; do expect "$a" "$b" "${q%%:*}" "${q#*:}"; done
}
expect_each "$tmp/depchain1000" "$tmp/depchain2000" dep_stalls:40000 axu_dep_stalls:40000 \
	cycles:51000 instructions:11000 il1_misses:0
expect_each "$tmp/viachain1000" "$tmp/viachain2000" dep_stalls:16000 axu_dep_stalls:16000 \
	cycles:24000 instructions:8000 fcvt:2000 st_insns:1000 fld_insns:1000 fst_insns:1000 ld_insns:1000
expect_each "$tmp/indep1000" "$tmp/indep2000" dep_stalls:0 cycles:10000 instructions:10000 \
	ifetches:3000
expect_each "$tmp/bigloop100" "$tmp/bigloop200" il1_misses:51300 \
	il1_miss_cycles:$((51300 * 82)) dep_stalls:0
expect_each "$tmp/rmw2000" "$tmp/rmw4000" dep_stalls:10000 axu_dep_stalls:0 l1p_lines:4000 \
	l1p_hits:2000 l1p_pf2dfc:2000 l1p_wrt_inval:2000 l1p_streams:0 l1p_evict_unused:0

# 2a. accesses as cachegrind counts them (--cache cachegrind): valgrind
# reads a 4-wide FMA's memory operand one element at a time (4 loads) and a
# 256-bit vmovddup's as two; the A2 policy counts each instruction's access
# once (16 bytes or more: a quad load). An 8-byte load across two lines
# never seen is one L1 miss for cachegrind, two (one per line) on the A2.
for n in 100000 200000; do
	for c in a2 cachegrind; do
		timeout 300 "$run" --cache $c --summary "$tmp/qfm$c$n" -- "$tmp/kernels" qfmamem $n ||
			bad "qfmamem $n ($c)"
		timeout 300 "$run" --cache $c --summary "$tmp/cross$c$n" -- "$tmp/kernels" cross $n ||
			bad "cross $n ($c)"
	done
done
for q in qloads:200000 loads:0; do
	expect "$tmp/qfma2100000" "$tmp/qfma2200000" "${q%%:*}" "${q#*:}"
done
for q in loads:600000 qloads:0; do
	expect "$tmp/qfmcachegrind100000" "$tmp/qfmcachegrind200000" "${q%%:*}" "${q#*:}"
done
expect "$tmp/crossa2100000" "$tmp/crossa2200000" l1d_load_misses 200000
expect "$tmp/crosscachegrind100000" "$tmp/crosscachegrind200000" l1d_load_misses 100000
# The same for vector accesses, which QEMU makes in 8-byte pieces: a
# 32-byte load and a 16-byte store, each across two lines never seen, are
# one quad load and one quad store an iteration; cachegrind counts one
# miss for each, the A2 one per line (its L1D allocates no store, so both
# of the store's lines miss).
for n in 100000 200000; do
	for c in a2 cachegrind; do
		timeout 300 "$run" --cache $c --summary "$tmp/cvec$c$n" -- "$tmp/kernels" crossvec $n ||
			bad "crossvec $n ($c)"
	done
done
for c in a2:2 cachegrind:1; do
	for q in qloads:100000 qstores:100000 l1d_load_misses:$((${c#*:} * 100000)) \
		l1d_store_misses:$((${c#*:} * 100000)); do
		expect "$tmp/cvec${c%:*}100000" "$tmp/cvec${c%:*}200000" "${q%%:*}" "${q#*:}"
	done
done

# 2a''. scalar SSE and AVX accesses, which QEMU makes whole, are loads
# and stores of their size; a scalar FMA's, which QEMU 7.2 makes as 16
# bytes in two 8-byte pieces, is joined: a quad load
for n in 100000 200000; do
	timeout 300 "$run" --summary "$tmp/scalar$n" -- "$tmp/kernels" scalar $n || bad "scalar $n"
done
# and their instructions are FP loads and stores (lfd, lfs, stfd, stfs):
# movsd, addsd, vmulss, cvtsi2sdq (lfd, then fcfid) and the FMA's operand
# are FLD, movss and movq FST, none integer or quad
for q in loads:400000 stores:200000 qloads:100000 qstores:0 fld_insns:500000 \
	fst_insns:200000 ld_insns:0 st_insns:0 qld_insns:0 qst_insns:0; do
	expect "$tmp/scalar100000" "$tmp/scalar200000" "${q%%:*}" "${q#*:}"
done
# x[i] *= y[i] over N doubles: movsd, mulsd from memory, movsd to memory,
# inc, cmp, jne: 2 FP loads (FLD), 1 FP store (FST), 7 A2 instructions,
# 1 multiply an iteration; the accesses stay loads and stores
for n in 100000 200000; do
	timeout 300 "$run" --summary "$tmp/xmuly$n" -- "$tmp/kernels" xmuly $n || bad "xmuly $n"
done
for q in fld_insns:200000 fst_insns:100000 ld_insns:0 st_insns:0 qld_insns:0 qst_insns:0 \
	loads:200000 stores:100000 fmul:100000 instructions:700000 branches:100000; do
	expect "$tmp/xmuly100000" "$tmp/xmuly200000" "${q%%:*}" "${q#*:}"
done

# 2a'. an instruction across a page boundary that is not its block's first:
# QEMU ends the block before it and runs it at the start of the next; it
# runs once an iteration (add, movabs, dec, jnz: 4 instructions)
for n in 100000 200000; do
	timeout 300 "$run" --summary "$tmp/page$n" -- "$tmp/kernels" pagecross $n || bad "pagecross $n"
done
for q in guest_instructions:400000 instructions:400000 ld_insns:0 st_insns:0 branches:100000; do
	expect "$tmp/page100000" "$tmp/page200000" "${q%%:*}" "${q#*:}"
done

# 2b. a pointer chase (one load per 128-byte node, in a random cycle):
# through 1 MB, between the L1D's 16 KB and the L2's 32 MB, every load
# misses the L1D and hits the L2; through 64 MB every load misses both
for size in 1048576 67108864; do
	for n in 100000 200000; do
		timeout 300 "$run" --summary "$tmp/chase$size.$n" -- "$tmp/kernels" chase $size $n ||
			bad "chase $size $n"
	done
	a=$tmp/chase$size.100000 b=$tmp/chase$size.200000
	dl=$(($(total "$b" loads) - $(total "$a" loads)))
	d1=$(($(total "$b" l1d_load_misses) - $(total "$a" l1d_load_misses)))
	d2=$(($(total "$b" llc_misses) - $(total "$a" llc_misses)))
	want2=0
	[ $size -gt $((32 << 20)) ] && want2=$dl
	# per load within 1%
	if [ $dl = 100000 ] && [ $((d1 - dl)) -le 1000 ] && [ $((dl - d1)) -le 1000 ] &&
		[ $((d2 - want2)) -le 1000 ] && [ $((want2 - d2)) -le 1000 ]; then
		ok "chase through $size bytes: +$dl loads, +$d1 L1D misses, +$d2 L2 misses"
	else
		bad "chase through $size bytes: +$dl loads (want 100000), +$d1 L1D misses (want $dl), +$d2 L2 misses (want $want2)"
	fi
done

# 2b'. integer operations by XU group (kernels.c's intops, per iteration):
# imul, div, four ILOG (a register copy, and, xor, a test against a mask),
# two BITS (shr, movzbl), two ICMP (cmp, a register tested against
# itself), one IMOV (cmov), four integer adds, one branch: 16 instructions;
# the multiplier busy a cycle, the divider its 39 (a 32-bit divide)
for n in 100000 200000; do
	timeout 300 "$run" --summary "$tmp/intops$n" -- "$tmp/kernels" intops $n || bad "intops $n"
done
expect_each "$tmp/intops100000" "$tmp/intops200000" imul:100000 idiv:100000 ilog:400000 \
	bits:200000 icmp:200000 imov:100000 syscalls:0 branches:100000 instructions:1600000 \
	muldiv_busy:$((100000 * (1 + 39)))

# and scalar FP by AXU group (kernels.c's fpops, per iteration): a compare,
# two conversions, two roundings, a register copy, two sign or select
# operations, a square root; dec and jnz; the conversions' ways through
# memory (the A2 moves nothing between its integer and FP registers): an
# integer store and an FP load into fcfid, an FP store and an integer load
# out of fctiwz: 15 instructions
for n in 100000 200000; do
	timeout 300 "$run" --summary "$tmp/fpops$n" -- "$tmp/kernels" fpops $n || bad "fpops $n"
done
expect_each "$tmp/fpops100000" "$tmp/fpops200000" fcmp:100000 fcvt:200000 frnd:200000 \
	fmov:100000 foth:200000 fsqrt:100000 fp:0 branches:100000 instructions:1500000 \
	st_insns:100000 fld_insns:100000 fst_insns:100000 ld_insns:100000
# and moves between integer and vector registers (kernels.c's vecmoves): an
# insert and a movq in (an integer store and an FP load each), an extract
# and a movq out (an FP store and an integer load each), the insert and
# extract operations; dec and jnz: 12 instructions, no FP group
for n in 100000 200000; do
	timeout 300 "$run" --summary "$tmp/vecmoves$n" -- "$tmp/kernels" vecmoves $n || bad "vecmoves $n"
done
expect_each "$tmp/vecmoves100000" "$tmp/vecmoves200000" instructions:1200000 st_insns:200000 \
	fld_insns:200000 fst_insns:200000 ld_insns:200000 fcvt:0 fmov:0 loads:0 stores:0

# 2c. x87, string and atomic instructions (totals, N against 2N). PAPI's
# papi_tot_ins loop, 9 x86 instructions an iteration: fldl and the two
# movs are a load or a store each, fnstcw, fldcw, fldcw and fistpl an
# operation and a load or a store each (x87 reads or writes memory, never
# both), loop one: 13 A2 instructions, 4 loads, 3 stores; of the load
# and store instructions fldl and fistpl move FP data (lfd, stfiwx: FLD
# and FST), the control word and the movs are integer; fistpl's operation
# is a conversion (fctiwz). x87 operations by AXU group (kernels.c's
# x87ops, 12 x86 instructions an iteration): fildl a load and a
# conversion, fiaddl and fimull a load, a conversion and the operation,
# fistpl a conversion and a store, fchs and fabs FOTH, frndint FRND, two
# stack copies FMOV, fucomip FCMP, a pop and loop: 18 A2 instructions. N bytes of rep
# stosb (a store each) and rep movsb (a load and a store each). N locked
# adds, as a PowerPC compiler writes an atomic add (sync, ldarx, add,
# stdcx., bne- back, isync; then dec, jnz: 8 A2 instructions, of them a
# load-and-reserve, a store-conditional, two synchronizing instructions,
# one sync to the L2, two branches), the same whether QEMU makes them
# atomic (a second thread alive) or not: the access's load brings the line
# into the L1D, so its store hits. N times mfence, lfence, sfence (sync,
# lwsync, lwsync), dec, jnz.
for k in x87 x87ops strings atomic fences; do
	for n in 100000 200000; do
		timeout 300 "$run" --summary "$tmp/$k$n" -- "$tmp/kernels" $k $n || bad "$k $n"
	done
done
for q in guest_instructions:900000 instructions:1300000 ld_insns:300000 st_insns:200000 \
	fld_insns:100000 fst_insns:100000 loads:400000 stores:300000 branches:100000 fcvt:100000; do
	expect "$tmp/x87100000" "$tmp/x87200000" "${q%%:*}" "${q#*:}"
done
expect_each "$tmp/x87ops100000" "$tmp/x87ops200000" guest_instructions:1200000 \
	instructions:1800000 fld_insns:300000 fst_insns:100000 ld_insns:0 st_insns:0 loads:300000 \
	stores:100000 fcvt:400000 fp:100000 fmul:100000 foth:200000 frnd:100000 fmov:200000 \
	fcmp:100000 branches:100000
# the summary is the process's: the program env executes reports there
# (the same differences), a shell's forked child does not (the shell's
# counts: no x87 conversion, whatever N; how many instructions the shell
# runs while it waits for the child depends on timing, as natively)
for n in 100000 200000; do
	timeout 300 "$run" --summary "$tmp/envx$n" -- /usr/bin/env "$tmp/kernels" x87ops $n ||
		bad "env kernels x87ops $n"
	timeout 300 "$run" --summary "$tmp/shx$n" -- /bin/sh -c "\"\$0\" x87ops $n && :" "$tmp/kernels" ||
		bad "sh -c kernels x87ops $n"
done
expect_each "$tmp/envx100000" "$tmp/envx200000" guest_instructions:1200000 fcvt:400000 fmov:200000
for n in 100000 200000; do
	c=$(total "$tmp/shx$n" fcvt)
	[ "$c" = 0 ] && ok "sh -c kernels x87ops $n: the shell's summary, fcvt 0" ||
		bad "sh -c kernels x87ops $n: the summary has fcvt '$c', want the shell's 0"
done
for q in guest_instructions:200000 instructions:300000 ld_insns:100000 st_insns:200000 \
	loads:100000 stores:200000; do
	expect "$tmp/strings100000" "$tmp/strings200000" "${q%%:*}" "${q#*:}"
done
atomic_counts="instructions:800000 ld_insns:0 st_insns:0 larx:100000 stcx:100000 syncs:200000
	msyncs:100000 branches:200000 loads:100000 stores:100000 l1d_load_misses:0 l1d_store_misses:0"
for q in $atomic_counts; do
	expect "$tmp/atomic100000" "$tmp/atomic200000" "${q%%:*}" "${q#*:}"
done
expect_each "$tmp/fences100000" "$tmp/fences200000" instructions:500000 syncs:300000 \
	msyncs:100000 larx:0 loads:0 stores:0 branches:100000
# N stores to N fresh 128-byte lines, N of 2^19 and 2^20 (64 and 128 MB,
# beyond the 32 MB L2): every store misses the L2 and brings its line in
# dirty, and once the L2 is full each evicts the least recent line of its
# set, which an earlier store made dirty: the 2^19 more stores write 2^19
# more lines back (both runs end with the last 32 MB in the L2)
for n in 524288 1048576; do
	timeout 300 "$run" --summary "$tmp/wstream$n" -- "$tmp/kernels" wstream $n ||
		bad "wstream $n"
done
expect_each "$tmp/wstream524288" "$tmp/wstream1048576" stores:524288 l2_store_misses:524288 \
	l2_writebacks:524288
# The same with a second thread alive (QEMU then makes the adds atomic).
# A thread counts what it executes, and threads can take other paths from
# run to run: here both threads call read, and the dynamic linker binds it
# lazily in whichever thread calls it first (Debian 12's glibc: 615 x86
# instructions, 652 counted), so the main thread's counts include the
# binding in some runs and not in others (the waiter's part is uncounted).
# With LD_BIND_NOW=1 everything is bound at start, before the second
# thread exists, and the counts are the same however the threads
# interleave: gating. Lazily bound (the default), only reported.
for n in 100000 200000; do
	LD_BIND_NOW=1 timeout 300 "$run" --summary "$tmp/atomic-threaded$n" -- \
		"$tmp/kernels" atomic-threaded $n || bad "atomic-threaded $n (LD_BIND_NOW=1)"
	timeout 300 "$run" --summary "$tmp/atomic-lazy$n" -- "$tmp/kernels" atomic-threaded $n ||
		bad "atomic-threaded $n"
done
for q in $atomic_counts; do
	expect "$tmp/atomic-threaded100000" "$tmp/atomic-threaded200000" "${q%%:*}" "${q#*:}"
done
a=$(total "$tmp/atomic-lazy100000" instructions) b=$(total "$tmp/atomic-lazy200000" instructions)
echo "report - atomic-threaded, bound lazily: instructions $a -> $b (+$((b - a)); +800000 when" \
	"the same thread binds read in both runs, some 650 more or fewer when not)"

# 2e. interrupts while the program runs: the emulator ticks every timer_us
# of the thread's simulated time (10 us: 16,000 cycles, 8,000 iterations of
# "dec; jnz"). 1,014,000 branches armed every 25,000: 40 handler calls,
# each at the first tick after its threshold, inside the loop (the 40th
# threshold, 1,000,000, falls some 14,000 iterations before the loop's end,
# the branches of PAPI's code and of the handlers, about 50 a call, count
# too; all of them stay below the 41st); 1,012,000 armed every 20,000, as
# many PAPI_profil samples in the loop's buckets as thresholds, 50.
# BGPM's automatic multiplexing every 1,000,000 cycles over
# 10,000,000 iterations (about 20 M cycles): a switch at the first tick
# after each period, so between cycles / (period + tick) - 1 and cycles /
# period switches. The same run twice: the same output.
m=bgq:timer_us=10
for k in "overflow 1014000 25000" "profil 1012000 20000" "mux 10000000 1000000"; do
	for i in 1 2; do
		timeout 300 "$run" --machine $m -- "$tmp/kernels" $k > "$tmp/tick$i.out" 2>&1
	done
	out=$(cat "$tmp/tick1.out")
	cmp -s "$tmp/tick1.out" "$tmp/tick2.out" && ok "${k%% *}, run twice: $out" ||
		bad "${k%% *}: two runs differ: $out / $(cat "$tmp/tick2.out")"
	read -r what a b c _ <<< "$(tr -d ',' < "$tmp/tick1.out" | awk '{ print $1, $2, $4, $6 }')"
	case $what in
	overflow:)
		[ "$a" = 40 ] && [ "$b" = 40 ] && ok "overflow: 40 handler calls, all inside the loop" ||
			bad "overflow: $a calls, $b inside the loop (want 40, 40)" ;;
	profil:)
		[ "$a" = 50 ] && ok "profil: 50 samples in the loop" ||
			bad "profil: $a samples in the loop (want 50)" ;;
	mux:)
		lo=$((c / (1000000 + 16000) - 1)) hi=$((c / 1000000))
		[ "$a" = 2 ] && [ "$b" -ge $lo ] && [ "$b" -le $hi ] &&
			ok "mux: $b switches in $c cycles ($lo..$hi)" ||
			bad "mux: $a groups, $b switches in $c cycles (want 2 groups, $lo..$hi switches)" ;;
	*) bad "${k%% *}: $out" ;;
	esac
done
# BGPM's Upci_Delay spins on the timebase as on a BG/Q: 1,000,000 cycles
# pass (and the set's own start and stop, some thousands), and the spin's
# instructions count (one or two a cycle at most, a third at the least)
read -r c i <<< "$(timeout 300 "$run" -- "$tmp/kernels" delay 1000000 2>&1 | tr -d ',' |
	awk '/^delay:/ { print $2, $4 }')"
if [ -n "$i" ] && [ "$c" -ge 1000000 ] && [ "$c" -le 1030000 ] && [ "$i" -ge 333333 ] && [ "$i" -le 2000000 ]; then
	ok "Upci_Delay(1000000): $c cycles, $i instructions"
else
	bad "Upci_Delay(1000000): '$c' cycles, '$i' instructions (want 1000000..1030000, 333333..2000000)"
fi
# An overflow handler that asks libbgpm which events overflowed, as IBM's
# examples do, while the program reads the set in a loop: interrupts land
# inside libbgpm's calls too, and none may wait for a lock its thread holds
# (a hang here is the failure the watchdog turns into one)
if out=$(timeout 300 "$run" --machine $m -- "$tmp/kernels" bgpm-handler 20000 200 2>&1) &&
	[[ $out == "bgpm-handler: 20000 reads, "* ]] && [[ $out != *" 0 overflows"* ]]; then
	ok "$out"
else
	bad "bgpm-handler 20000 200 (a handler calling libbgpm): ${out:-no output, killed after 300 s}"
fi

# 2d. PAPI's own validation tests that compare counts with their loops'
# real work, and fail on every profile-driven clock (tests/papi/expected.tsv),
# pass under the emulator (the fast ones; all are the table's emulated
# rows, tests/papi-suite.sh --clock emulated); and
# PAPI's overflow test, whose handler runs on the emulator's signal frame
src=${PAPI_TESTS_DIR:-$prefix/../papi/src}
for t in validation_tests/papi_br_cn validation_tests/papi_br_ins validation_tests/papi_br_ucn \
	validation_tests/papi_br_tkn validation_tests/cycles_validation ctests/overflow; do
	log=$tmp/${t##*/}.log
	if [ ! -x "$src/$t" ]; then
		bad "PAPI's $t is not built in $src"
	elif (cd "$src/${t%/*}" && timeout 300 "$run" -- "./${t##*/}" -q > "$log" 2>&1) &&
		grep -q PASSED "$log"; then
		ok "PAPI's $t under counterlab-run: PASSED"
	else
		bad "PAPI's $t under counterlab-run: $(tail -3 "$log" | tr '\n' ' ')"
	fi
done
# the fast ones that fail under emulation, with the verdicts and reasons of
# tests/papi/expected.tsv (its emulated rows; the others take minutes)
fast="validation_tests/papi_br_ntk validation_tests/papi_tot_ins validation_tests/papi_hw_int
	validation_tests/papi_sr_ins"
if PREFIX=$prefix bash "$(dirname "$0")/../papi-suite.sh" --clock emulated $fast > "$tmp/suite.log" 2>&1; then
	ok "PAPI's $(echo $fast | wc -w) fast failing validation tests under counterlab-run: as tests/papi/expected.tsv says"
else
	bad "PAPI's fast failing validation tests under counterlab-run: $(grep -A4 DEVIATION "$tmp/suite.log")"
fi

# 3. deterministic: the same run, the same counts (caches included)
timeout 300 "$run" --summary "$tmp/again" -- "$tmp/kernels" loop 100000
if cmp -s "$tmp/loop100000" "$tmp/again"; then
	ok "the same run twice: identical totals"
else
	bad "the same run twice differs: $(diff "$tmp/loop100000" "$tmp/again" | tr '\n' ' ')"
fi

# 3a. the stack where the program starts, and so the cache sets of what it
# keeps there, do not move with the environment, the arguments or the
# program's path (a user's, a machine's)
ln -s "$tmp/kernels" "$tmp/a-much-longer-name-for-the-same-kernels-program"
s1=$("$run" -- "$tmp/kernels" stack)
s2=$(env -i PATH="$PATH" "$run" -- "$tmp/kernels" stack)
s3=$(BIG=$(printf "%03000d" 0) A=1 B=2 C=3 "$run" -- \
	"$tmp/a-much-longer-name-for-the-same-kernels-program" stack one two three)
if [ -n "$s1" ] && [ "$s1" = "$s2" ] && [ "$s1" = "$s3" ]; then
	ok "main's stack frame at $s1 in three environments"
else
	bad "main's stack frame moves with the environment: $s1, $s2, $s3"
fi

# 3b. terminated, counterlab-run passes the signal on and removes its file
# (its own: the emulator's environment names it; other counterlab-runs on
# the machine have theirs)
"$run" -- "$(command -v sleep)" 60 &
pid=$!
slot=
for _ in $(seq 100); do
	for c in $(cat /proc/$pid/task/*/children 2> /dev/null); do
		slot=$(tr '\0' '\n' < /proc/$c/environ 2> /dev/null | sed -n 's/^COUNTERLAB_EMULATED=//p')
	done
	[ -n "$slot" ] && [ -e "$slot" ] && break
	sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] && [ -n "$slot" ] && [ ! -e "$slot" ] && ok "SIGTERM: status 143, its slot file removed" ||
	bad "SIGTERM: status $rc, slot file '$slot' $([ -e "$slot" ] && echo left || echo 'not found')"

# 4. what the emulator cannot count, refused with the reason (status 127)
refuse() { # needle command...
	local needle=$1
	shift
	if "$@" > "$tmp/out" 2> "$tmp/err"; then
		bad "$*: accepted"
	elif ! grep -qF -- "$needle" "$tmp/err"; then
		bad "$*: $(cat "$tmp/err") (want '$needle')"
	else
		ok "${*: -1}: $needle"
	fi
}
printf 'int main(void) { return 0; }\n' > "$tmp/s.c"
${CC:-cc} -static -o "$tmp/static" "$tmp/s.c" 2> /dev/null &&
	refuse "is statically linked" "$run" -- "$tmp/static"
cp "$tmp/kernels" "$tmp/arm"
printf '\xb7\x00' | dd of="$tmp/arm" bs=1 seek=18 conv=notrunc status=none # EM_AARCH64
refuse "is not an x86-64 program" "$run" -- "$tmp/arm"
cp "$tmp/kernels" "$tmp/noexec" && chmod -x "$tmp/noexec"
refuse "is not an executable file" "$run" -- "$tmp/noexec"
printf '#!/bin/sh\nexit 0\n' > "$tmp/script" && chmod +x "$tmp/script"
refuse "is not an ELF program" "$run" -- "$tmp/script"
refuse "no such program" "$run" -- no-such-program-here
refuse "qemu-x86_64 is missing" env PATH=/nonexistent "$run" -- "$tmp/kernels"
# a summary that cannot be written at exit: the reason, not just the name
if [ -w /dev/full ]; then
	"$run" --summary /dev/full -- "$tmp/kernels" loop 10 > /dev/null 2> "$tmp/err"
	grep -qF "cannot write summary=/dev/full: No space left on device" "$tmp/err" &&
		ok "--summary /dev/full: the reason it cannot be written" ||
		bad "--summary /dev/full: $(cat "$tmp/err")"
fi
# activity = emulated without the emulator: the reason, not a count
COUNTERLAB_MACHINE=bgq:activity=emulated "$bindir/counterlab-native-avail" > "$tmp/avail" 2>&1
grep -q "start it as 'counterlab-run" "$tmp/avail" && ok "activity = emulated outside counterlab-run: disabled with the reason" ||
	bad "activity = emulated outside counterlab-run: $(grep -i disabled "$tmp/avail" | head -2)"

finish
