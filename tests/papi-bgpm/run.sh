#!/bin/bash
# make check-papi-bgpm: PAPI 7.0's own bgpm/L2unit, IOunit, NWunit and
# CNKunit components (the papi-bgpm build, over libbgpm) against
# counterlab's l2, io, network and kernel components (the main build).
#  1. The bgpm components list every event of their unit in the BG/Q event
#     table, in id order, and nothing else.
#  2. Each listed event, counted alone over the same activity on the
#     virtual clock, counts exactly what counterlab's component counts; the
#     reserved PEVT_CNKPROC_RSV is refused by both.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=$(realpath -m "${BUILD:-build}") # (absolute: the paths below hang from it)
PREFIX=${PREFIX:-$BUILD/prefix}
BGPM_SRC=$BUILD/papi-bgpm/src
out=$BUILD/tests/papi-bgpm
mkdir -p "$out"
export COUNTERLAB_MACHINES=$PWD/machines
CFLAGS=(-std=gnu11 -O1 -g -Wall -Wextra -Werror)

# the same program against each PAPI (its papi.h first)
cc "${CFLAGS[@]}" -I"$BGPM_SRC" -I"$PREFIX/include" -o "$out/units-bgpm" tests/papi-bgpm/units.c \
	-L"$BGPM_SRC" -L"$PREFIX/lib" -lpapi -lcounterlab -Wl,-rpath,"$BGPM_SRC" -Wl,-rpath,"$PREFIX/lib"
cc "${CFLAGS[@]}" -I"$PREFIX/include" -o "$out/units-clab" tests/papi-bgpm/units.c \
	-L"$PREFIX/lib" -lpapi -lcounterlab -Wl,-rpath,"$PREFIX/lib"
# (ldd's output captured first: under pipefail, `ldd | grep -q` fails when
# grep exits before ldd has written everything)
libs=$(ldd "$out/units-bgpm")
grep -q "$BGPM_SRC/libpapi" <<< "$libs" || { echo "units-bgpm does not load the papi-bgpm libpapi"; exit 1; }

fail=0
"$out/units-bgpm" list > "$out/listed"
awk -F, 'NR > 1 && $3 != "punit" {
	u = $3 == "l2unit" ? "L2" : $3 == "iounit" ? "IO" : $3 == "nwunit" ? "NW" : "CNK"
	print u, $2 }' sim_backends/bgq/data/bgq_events.csv > "$out/table"
for u in L2 IO NW CNK; do
	n=$(grep -c "^$u " "$out/listed")
	# PAPI's CNKunit walks ids 385..414, the reserved placeholder 387 too
	rsv=$(grep -c "^$u PEVT_CNKPROC_RSV$" "$out/listed" || true)
	printf '%s: %d events listed%s\n' "$u" $((n - rsv)) \
		"$([ "$rsv" = 0 ] || echo " and the reserved id PEVT_CNKPROC_RSV")"
done
if ! diff "$out/table" "$out/listed"; then
	echo "FAILED: the bgpm components' listing (>) differs from the event table (<)"
	fail=1
fi

"$out/units-bgpm" count < "$out/listed" > "$out/bgpm.counts" 2> "$out/bgpm.log" ||
	{ cat "$out/bgpm.log"; exit 1; }
"$out/units-clab" count < "$out/listed" > "$out/clab.counts" 2> "$out/clab.log" ||
	{ cat "$out/clab.log"; exit 1; }
if ! diff "$out/clab.counts" "$out/bgpm.counts"; then
	echo "FAILED: counts through PAPI's bgpm components (>) differ from counterlab's components (<)"
	fail=1
fi
for u in L2 IO NW CNK; do
	printf '%s: %d counted, %d of them nonzero, %d refused\n' "$u" \
		"$(awk -v u=$u '$1 == u && $3 != "refused"' "$out/bgpm.counts" | wc -l)" \
		"$(awk -v u=$u '$1 == u && $3 != "refused" && $3 != 0' "$out/bgpm.counts" | wc -l)" \
		"$(awk -v u=$u '$1 == u && $3 == "refused"' "$out/bgpm.counts" | wc -l)"
	# a unit whose events all read 0 would compare equal without proving anything
	if ! awk -v u=$u '$1 == u && $3 != "refused" && $3 != 0 { f = 1 } END { exit !f }' "$out/bgpm.counts"; then
		echo "FAILED: no $u event counted anything"
		fail=1
	fi
done
refused=$(awk '$3 == "refused" { print $2 }' "$out/bgpm.counts")
if [ "$refused" != PEVT_CNKPROC_RSV ]; then
	echo "FAILED: refused events should be PEVT_CNKPROC_RSV alone, are: $refused"
	fail=1
fi
[ $fail = 0 ] && echo "papi-bgpm: PASSED" || { echo "papi-bgpm: FAILED"; exit 1; }
