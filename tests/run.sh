#!/bin/bash
# Runs every test of counterlab (see README "Tests"): cmocka unit tests, the
# same built with AddressSanitizer and UndefinedBehaviorSanitizer, PAPI-level
# tests through the real PAPI API, and PAPI's own ctests. Prints a summary
# line "N passed, N failed" and exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PREFIX=${PREFIX:-$PWD/$BUILD/prefix}
CC=${CC:-cc}
out=$BUILD/tests
mkdir -p "$out/unit" "$out/asan" "$out/papi" "$out/logs"
export COUNTERLAB_MACHINES=$PWD/machines
passed=0 failed=0 failures=()

run() { # name command...: runs, shows the output, counts
	local name=$1
	shift
	echo "== $name"
	if "$@" > "$out/logs/${name//\//_}.log" 2>&1; then
		passed=$((passed + 1))
		grep -E '^\[  (PASSED|FAILED|  OK  )|PASSED|FAILED' "$out/logs/${name//\//_}.log" | tail -3
	else
		failed=$((failed + 1))
		failures+=("$name")
		tail -40 "$out/logs/${name//\//_}.log"
		echo "-- $name FAILED"
	fi
}

build() { # output source flags...: compile or count a failure
	local exe=$1 src=$2
	shift 2
	if ! $CC -std=gnu11 -g -Wall -Wextra -Werror -pthread -Iinclude -I"$BUILD/gen" \
		-DCLAB_DATADIR="\"$PREFIX/share/counterlab\"" "$@" -o "$exe" "$src" \
		$LIB_SRCS utils/heatmap.c -liniparser -lhwloc -lcmocka -lpng -lpthread 2> "$exe.build.log"; then
		cat "$exe.build.log"
		failed=$((failed + 1))
		failures+=("build $src")
		return 1
	fi
}

LIB_SRCS=$(ls framework/*.c sim_backends/activity/*.c sim_backends/bgq/*.c sim_backends/bgl/*.c sim_backends/torus/*.c)

# 1. unit tests, then 2. the same under the sanitizers
for src in tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	build "$out/unit/$name" "$src" -O1 && run "unit/$name" "$out/unit/$name"
	build "$out/asan/$name" "$src" -O1 -fsanitize=address,undefined \
		-fno-omit-frame-pointer -fno-sanitize-recover=undefined &&
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 run "asan/$name" "$out/asan/$name"
done

# setup scripts (deps, PAPI source, install) against made-up apt configurations
run "setup/test_setup" bash tests/setup/test_setup.sh

# 3. PAPI-level tests: plain PAPI programs
for src in tests/papi/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	if $CC -std=gnu11 -O1 -g -Wall -Wextra -Werror -pthread -I"$PREFIX/include" -o "$out/papi/$name" \
		"$src" -L"$PREFIX/lib" -lpapi -lcounterlab -Wl,-rpath,"$PREFIX/lib" 2> "$out/papi/$name.build.log"; then
		run "papi/$name" "$out/papi/$name"
	else
		cat "$out/papi/$name.build.log"
		failed=$((failed + 1))
		failures+=("build $src")
	fi
done

# 4. PAPI's own ctests from the built PAPI tree, on the bgq profile. The
# virtual clock lets each thread run 10^8 cycles of the compute profile
# before every read, so their sanity checks see deterministic counts.
ctest_dir=$BUILD/papi/src/ctests
ctest() { # name: passes when the test says PASSED
	local exe=$ctest_dir/$1
	COUNTERLAB_MACHINE=${CTEST_MACHINE:-bgq:clock=virtual,tick=100000000} "$exe" > "$out/logs/ctest_$1.out" 2>&1
	local rc=$?
	cat "$out/logs/ctest_$1.out"
	[ $rc = 0 ] && grep -q 'PASSED' "$out/logs/ctest_$1.out"
}
for t in zero first derived all_native_events cmpinfo get_event_component; do
	run "ctest/$t" ctest "$t"
done
# Overflow and profiling tests run on the host clock: simulated time follows
# each thread's CPU time and a CPU-time timer lets overflows interrupt the
# running loop, as on the machine.
for t in overflow overflow2 overflow_single_event overflow_twoevents \
	overflow_index overflow_one_and_read overflow_allcounters \
	overflow_pthreads profile; do
	CTEST_MACHINE=bgq:clock=host run "ctest/$t" ctest "$t"
done
# More of them on the host clock (issue 12). Not here: overflow_force_software
# (the glue's ctl refuses PAPI_DEF_ITIMER), fork_overflow (its child cannot
# add events: it inherits the parent's counters, and skips) and
# exec_overflow (passes, but execs ./child_overflow from the ctests folder).
for t in overflow3_pthreads profile_pthreads profile_twoevents byte_profile \
	sprofile; do
	CTEST_MACHINE=bgq:clock=host run "ctest/$t" ctest "$t"
done
# Multiplexing: the core component multiplexes in the framework (kernel
# multiplexing to PAPI); multiplex2 and kufrin fill a set with every
# non-derived preset, which takes two groups. reset_multiplex compares the
# counts of a loop with those of half of it, so its counts must follow the
# work done: the host clock.
for t in multiplex1 multiplex2 multiplex1_pthreads sdsc-mpx kufrin; do
	run "ctest/$t" ctest "$t"
done
CTEST_MACHINE=bgq:clock=host run "ctest/reset_multiplex" ctest reset_multiplex

echo
if [ $failed -gt 0 ]; then
	printf 'failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
