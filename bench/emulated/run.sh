#!/usr/bin/env bash
# Emulated execution (counterlab-run): for three real programs (a sort, a
# stencil, FFTW transforms; sources beside this script), the plugin's
# throughput in guest instructions per second and the slowdown against the
# same program run natively, with the A2 cache model on, in CPU time (user +
# system: on a shared machine wall time measures the others' load more than
# ours), QEMU's alone and QEMU's with a plugin whose callbacks do nothing
# (callbacks.c: what calling a plugin costs before it works), each the best
# of 3 runs (native: of 10); and the
# plugin's counts in cachegrind's cache policy against valgrind's cachegrind
# with the same geometry (below: how they are made comparable). Writes
# emulated.json into $BENCH_RESULTS.
#   PREFIX BUILD CC BENCH_RESULTS as bench/run.sh; BENCH_MACHINE its date and machine (JSON members);
#   QEMU_PLUGIN_H the plugin API header (default the build's; none: no empty-plugin figure)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$(dirname "$here")")
BUILD=${BUILD:-$root/build}
PREFIX=${PREFIX:-$BUILD/prefix}
CC=${CC:-gcc}
out=$BUILD/bench/emulated
results=${BENCH_RESULTS:-$BUILD/bench-results}
mkdir -p "$out" "$results"
run=$PREFIX/bin/counterlab-run
"$CC" -O2 -g -o "$out/sort" "$here/sort.c"
"$CC" -O2 -g -o "$out/stencil" "$here/stencil.c"
"$CC" -O2 -g -o "$out/fft" "$here/fft.c" -lfftw3 -lm
header=${QEMU_PLUGIN_H:-$BUILD/qemu-src/qemu-plugin.h}
callbacks=
if [ -f "$header" ]; then
	"$CC" -O2 -Wall -Wextra -Werror -shared -fPIC -I"$(dirname "$header")" \
		-o "$out/callbacks.so" "$here/callbacks.c"
	callbacks=$out/callbacks.so
fi
cpu() { # command...: its CPU seconds, user + system, children included
	local TIMEFORMAT='%3U %3S'
	{ time "$@" > /dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}
best3() { (for _ in 1 2 3; do cpu "$@"; done) | sort -g | head -1; }
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# Like with like: valgrind and QEMU show the program different CPUs, so
# glibc would copy differently (rep movsb, one count per byte in both
# tools, up to 2 MB under valgrind, 512 KB under QEMU): both runs get the
# same choice. Each tool's count of an empty program linked against the
# same libraries (the loader's start-up, which differs: valgrind preloads
# its own objects) is taken off: the empty program goes by the measured
# one's name and arguments, so that the strings the loader reads from the
# stack lie on the same cache lines in both runs. And every call the
# program binds lazily looks its symbol up through the preloaded objects,
# reading their hash tables (FFTW's calls: 2-3 L2 load misses): each
# tool's run preloads the other's object too (valgrind's core preload,
# counterlab-run's guest library), so that both look through the same.
tun=glibc.cpu.hwcaps=-ERMS:glibc.cpu.x86_non_temporal_threshold=0x200000
printf 'int main(void) { return 0; }\n' > "$out/empty.c"
"$CC" -O2 -o "$out/empty" "$out/empty.c"
"$CC" -O2 -o "$out/empty-fftw" "$out/empty.c" -Wl,--no-as-needed -lfftw3 -lm
# Like with like, the stack too: where the stack falls within a page
# decides which L1 sets the program's stack data share with its arrays
# (FFTW's L1 store misses move by 1% with it). counterlab-run starts every
# program at the same stack address whatever its environment; valgrind's
# stack moves with the environment's size. Both tools run each program
# from the same directory with the same arguments and an environment of
# GLIBC_TUNABLES and PAD alone, PAD long enough that cachegrind's initial
# stack has the plugin's page offset: a probe of that name and arguments,
# run under each tool from a directory whose path is as long (valgrind
# puts the program's full path on the stack), prints it.
cmpdir=$out/compare
mkdir -p "$cmpdir/count" "$cmpdir/empty" "$cmpdir/probe"
vgpreload=
for d in /usr/libexec/valgrind /usr/lib/x86_64-linux-gnu/valgrind /usr/lib/valgrind; do
	[ -f "$d/vgpreload_core-amd64-linux.so" ] && { vgpreload=$d/vgpreload_core-amd64-linux.so; break; }
done
guest=$PREFIX/lib/counterlab/guest.so
printf '#include <stdio.h>\nint main(int c, char **v) { (void)c; printf("%%lu\\n", (unsigned long)v %% 4096); return 0; }\n' \
	> "$out/stackprobe.c"
"$CC" -O2 -o "$out/stackprobe" "$out/stackprobe.c"
# (count/, empty/ and probe/: paths as long, as valgrind puts them on the stack)
for p in sort stencil fft; do
	cp "$out/$p" "$cmpdir/count/$p"
	cp "$out/empty$([ $p = fft ] && echo -fftw)" "$cmpdir/empty/$p"
	cp "$out/stackprobe" "$cmpdir/probe/$p"
done
[ -n "$vgpreload" ] || ! command -v valgrind > /dev/null ||
	echo "bench: valgrind's vgpreload_core not found: the plugin's runs do not preload it (compared as they fall)" >&2
# under TOOL (cg or pl) in directory DIR of $cmpdir, with PAD of $pad bytes: NAME ARGS...
under() {
	local tool=$1 dir=$2 other
	shift 2
	local env=(env -i "GLIBC_TUNABLES=$tun" "PAD=$(printf "%${pad}s" "" | tr ' ' x)")
	[ "$tool" = cg ] && other=$guest || other=$vgpreload
	[ -z "$other" ] || env+=("LD_PRELOAD=$other")
	if [ "$tool" = cg ]; then
		# address-space randomization off, as counterlab-run has it
		(cd "$cmpdir/$dir" && "${env[@]}" "$(command -v setarch)" "$(uname -m)" -R \
			"$(command -v valgrind)" --tool=cachegrind --cache-sim=yes \
			--D1=16384,8,64 --LL=33554432,16,128 --cachegrind-out-file="$out/cg.out" "./$1" "${@:2}")
	else
		(cd "$cmpdir/$dir" && "${env[@]}" "$run" --cache cachegrind --summary "$out/pl.out" \
			-- "./$1" "${@:2}")
	fi
}
# the PAD that puts cachegrind's initial stack where the plugin's is (empty: none found)
stackpad() {
	local want got tries
	pad=0
	want=$(under pl probe "$@")
	for tries in 1 2 3 4; do
		got=$(under cg probe "$@" 2> /dev/null)
		[ "$got" = "$want" ] && { echo "$pad"; return; }
		pad=$((pad + (got - want + 4096) % 4096))
	done
}
# counts "Ir Dr D1mr DLmr Dw D1mw DLmw" of a run (DIR NAME ARGS...): cachegrind's, the plugin's
cgcounts() {
	if command -v valgrind > /dev/null; then
		under cg "$@" > /dev/null 2>&1
		grep '^summary:' "$out/cg.out" | awk '{ print $2, $5, $6, $7, $8, $9, $10 }'
	else
		echo 0 0 0 0 0 0 0
	fi
}
plcounts() {
	under pl "$@" > /dev/null
	awk '{ v[$1] = $2 } END { print v["guest_instructions"], v["loads"] + v["qloads"],
		v["l1d_load_misses"], v["llc_misses"], v["stores"] + v["qstores"],
		v["l1d_store_misses"], v["l2_store_misses"] }' "$out/pl.out"
}
rows=()
for spec in "sort 2000000" "stencil 1024 40" "fft 262144 20"; do
	read -r -a cmd <<< "$spec"
	prog=$out/${cmd[0]}
	pad=0
	if command -v valgrind > /dev/null; then
		pad=$(stackpad "${cmd[@]}")
		[ -n "$pad" ] ||
			echo "bench: no PAD puts cachegrind's stack where the plugin's is for ${cmd[0]} (compared as it falls)" >&2
	fi
	cg=$(pad=${pad:-0} cgcounts count "${cmd[@]}")
	cg0=$(pad=${pad:-0} cgcounts empty "${cmd[@]}")
	pl=$(pad=${pad:-0} plcounts count "${cmd[@]}")
	pl0=$(pad=${pad:-0} plcounts empty "${cmd[@]}")
	# native: a run of 30-300 ms, the best of 10 (3 are not enough to
	# see past a busy machine's noise)
	best=$( (for _ in 1 2 3 4 5 6 7 8 9 10; do cpu "$prog" "${cmd[@]:1}"; done) | sort -g | head -1)
	emu=$(best3 "$run" --summary "$out/${cmd[0]}.a2" -- "$prog" "${cmd[@]:1}")
	bare=$(best3 qemu-x86_64 -cpu max "$prog" "${cmd[@]:1}") # the emulator's own share
	calls=0 # and with a plugin that does nothing (0: not measured)
	[ -z "$callbacks" ] || calls=$(best3 qemu-x86_64 -cpu max -plugin "$callbacks" "$prog" "${cmd[@]:1}")
	ins=$(val "$out/${cmd[0]}.a2" guest_instructions)
	rows+=("$(awk -v name="${cmd[*]}" -v nat="$best" -v emu="$emu" -v bare="$bare" -v calls="$calls" -v ins="$ins" \
		-v cg="$cg" -v cg0="$cg0" -v pl="$pl" -v pl0="$pl0" -v pad="${pad:-null}" '
		function rel(a, b) { return b ? sprintf("%.4f", (a - b) / b) : "null" }
		BEGIN { printf "{\"program\":\"%s\",\"native_cpu_s\":%.3f,\"emulated_cpu_s\":%.3f,\"slowdown\":%.1f,\"qemu_alone_slowdown\":%.1f,\"qemu_callbacks_slowdown\":%s,", name, nat, emu, emu / nat, bare / nat, (calls > 0 ? sprintf("%.1f", calls / nat) : "null")
			printf "\"guest_instructions\":%d,\"guest_mips\":%.1f,\"meets_30x\":%s,", ins, ins / emu / 1e6, (emu / nat <= 30 ? "true" : "false")
			split(cg, c); split(cg0, c0); split(pl, p); split(pl0, p0)
			split("Ir Dr D1mr DLmr Dw D1mw DLmw", k)
			printf "\"startup_Ir\":[%d,%d],\"stack_pad\":%s,\"cachegrind\":{", c0[1], p0[1], pad
			for (i = 1; i <= 7; i++)
				printf "%s\"%s\":[%d,%d,%s]", (i > 1 ? "," : ""), k[i], c[i] - c0[i], p[i] - p0[i], rel(p[i] - p0[i], c[i] - c0[i])
			printf "}}" }')")
	echo "bench: emulated ${rows[-1]}"
done
printf '{"benchmark":"emulated",%s"note":"cachegrind fields: [cachegrind, plugin in cachegrind policy, relative difference], each less the count of an empty program run by the same name and arguments (startup_Ir: that of instructions), every run with GLIBC_TUNABLES=%s and PAD alone in the environment, PAD of stack_pad bytes, so that cachegrind'"'"'s initial stack has the page offset of the plugin'"'"'s (which no environment moves), and with the other tool'"'"'s object preloaded too (valgrind'"'"'s core preload, counterlab-run'"'"'s guest library)","runs":[%s]}\n' "${BENCH_MACHINE:+$BENCH_MACHINE,}" "$tun" \
	"$(IFS=,; echo "${rows[*]}")" > "$results/emulated.json"
echo "bench: wrote $results/emulated.json"
