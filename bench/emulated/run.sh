#!/usr/bin/env bash
# Emulated execution (counterlab-run): for three real programs (a sort, a
# stencil, FFTW transforms; sources beside this script), the plugin's
# throughput in guest instructions per second and the slowdown against the
# same program run natively (best of 3), with the A2 cache model on; and the
# plugin's counts in cachegrind's cache policy against valgrind's cachegrind
# with the same geometry. Writes emulated.json into $BENCH_RESULTS.
#   PREFIX BUILD CC BENCH_RESULTS as bench/run.sh
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
ns() { date +%s%N; }
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
rows=()
for spec in "sort 2000000" "stencil 1024 40" "fft 262144 20"; do
	read -r -a cmd <<< "$spec"
	prog=$out/${cmd[0]}
	best=
	for _ in 1 2 3; do
		t0=$(ns); "$prog" "${cmd[@]:1}" > /dev/null; t1=$(ns)
		d=$((t1 - t0)); [ -z "$best" ] || [ "$d" -lt "$best" ] && best=$d
	done
	t0=$(ns); "$run" --summary "$out/${cmd[0]}.a2" -- "$prog" "${cmd[@]:1}" > /dev/null; t1=$(ns)
	emu=$((t1 - t0))
	"$run" --cache cachegrind --summary "$out/${cmd[0]}.cg" -- "$prog" "${cmd[@]:1}" > /dev/null
	if command -v valgrind > /dev/null; then
		valgrind --tool=cachegrind --cache-sim=yes --D1=16384,8,64 --LL=33554432,16,128 \
			--cachegrind-out-file="$out/${cmd[0]}.cgout" "$prog" "${cmd[@]:1}" > /dev/null 2>&1
		read -r Ir _ _ Dr D1mr DLmr Dw D1mw DLmw <<< "$(grep '^summary:' "$out/${cmd[0]}.cgout" | cut -d' ' -f2-)"
	else
		Ir=0 Dr=0 D1mr=0 DLmr=0 Dw=0 D1mw=0 DLmw=0
	fi
	s=$out/${cmd[0]}.cg
	ins=$(val "$out/${cmd[0]}.a2" guest_instructions)
	rows+=("$(awk -v name="${cmd[*]}" -v nat="$best" -v emu="$emu" -v ins="$ins" \
		-v Ir="$Ir" -v Dr="$Dr" -v D1mr="$D1mr" -v DLmr="$DLmr" -v Dw="$Dw" -v D1mw="$D1mw" -v DLmw="$DLmw" \
		-v pi="$(val "$s" guest_instructions)" -v pr="$(( $(val "$s" loads) + $(val "$s" qloads) ))" \
		-v p1r="$(val "$s" l1d_load_misses)" -v pLr="$(val "$s" llc_misses)" \
		-v pw="$(( $(val "$s" stores) + $(val "$s" qstores) ))" -v p1w="$(val "$s" l1d_store_misses)" \
		-v pLw="$(val "$s" l2_store_misses)" 'function rel(a, b) { return b ? sprintf("%.4f", (a - b) / b) : "null" }
		BEGIN { printf "{\"program\":\"%s\",\"native_s\":%.3f,\"emulated_s\":%.3f,\"slowdown\":%.1f,", name, nat / 1e9, emu / 1e9, emu / nat
			printf "\"guest_instructions\":%d,\"guest_mips\":%.1f,\"meets_30x\":%s,", ins, ins / (emu / 1e9) / 1e6, emu / nat <= 30 ? "true" : "false"
			printf "\"cachegrind\":{\"Ir\":[%d,%d,%s],\"Dr\":[%d,%d,%s],\"D1mr\":[%d,%d,%s],\"DLmr\":[%d,%d,%s],\"Dw\":[%d,%d,%s],\"D1mw\":[%d,%d,%s],\"DLmw\":[%d,%d,%s]}}",
				Ir, pi, rel(pi, Ir), Dr, pr, rel(pr, Dr), D1mr, p1r, rel(p1r, D1mr), DLmr, pLr, rel(pLr, DLmr),
				Dw, pw, rel(pw, Dw), D1mw, p1w, rel(p1w, D1mw), DLmw, pLw, rel(pLw, DLmw) }')")
	echo "bench: emulated ${rows[-1]}"
done
printf '{"benchmark":"emulated","note":"cachegrind fields: [cachegrind, plugin in cachegrind policy, relative difference]","runs":[%s]}\n' \
	"$(IFS=,; echo "${rows[*]}")" > "$results/emulated.json"
echo "bench: wrote $results/emulated.json"
