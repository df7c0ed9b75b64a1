#!/bin/bash
# Runs every test of counterlab (see docs/testing.md): cmocka unit tests, the
# same built with AddressSanitizer and UndefinedBehaviorSanitizer, PAPI-level
# tests through the real PAPI API, and PAPI's whole test suite against its
# table of expected verdicts (tests/papi-suite.sh). Prints a summary
# line "N passed, N failed" (and ", N not run (NAMES)" for tests that
# cannot run here: a test exits 77 to say so) and exits non-zero on any
# failure.
# QUICK=1 (make check-quick) leaves out the sanitizer builds and PAPI's
# suite: the unit, command-line, setup and PAPI-level tests in minutes.
set -u
cd "$(dirname "$0")/.."
BUILD=$(realpath -m "${BUILD:-build}") # (absolute: the paths below hang from it)
PREFIX=${PREFIX:-$BUILD/prefix}
CC=${CC:-cc}
out=$BUILD/tests
mkdir -p "$out/unit" "$out/asan" "$out/tsan" "$out/papi" "$out/logs"
export COUNTERLAB_MACHINES=$PWD/machines
passed=0 failed=0 failures=() notrun=()

JOBS=${JOBS:-2}

# A test's output goes to its log, its exit status and seconds to a file
# beside it, so that a test run in the background reports as one run here.
logof() { echo "$out/logs/${1//\//_}.log"; }

execute() { # name command...: runs it into its log, notes status and time
	local name=$1 t0=$SECONDS rc log
	shift
	log=$(logof "$name")
	"$@" > "$log" 2>&1
	rc=$?
	echo "$rc $((SECONDS - t0))" > "$log.rc.tmp" && mv "$log.rc.tmp" "$log.rc"
}

report() { # name: shows how an executed test ended and counts it (exit 77: not run)
	local name=$1 log rc secs
	log=$(logof "$name")
	read -r rc secs < "$log.rc" || rc=1
	echo "== $name"
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		echo "   ($secs s)"
		grep -E '^\[  (PASSED|FAILED|  OK  )|PASSED|FAILED' "$log" | tail -3
	elif [ "$rc" = 77 ]; then
		notrun+=("$name")
		sed 's/^/   /' "$log"
	else
		failed=$((failed + 1))
		failures+=("$name")
		tail -40 "$log"
		echo "-- $name FAILED"
	fi
}

run() { # name command...: runs it now
	rm -f "$(logof "$1").rc"
	execute "$@"
	report "$1"
}

# Tests that share nothing with each other (each unit test, plain and under
# the sanitizers, each PAPI-level program) run JOBS at a time in the
# background; they report in the order they were started. Every verdict is
# independent of load (the suite passes with every core busy), so running
# them side by side changes only how long make check takes.
started=() # started in the background, not yet reported
spawn() { # name command...: starts it once fewer than JOBS run
	while [ "$(jobs -pr | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	rm -f "$(logof "$1").rc"
	execute "$@" &
	started+=("$1")
	reap
}

reap() { # [all]: reports the started tests that have ended, in order (all: waits for every one)
	local rc
	while [ ${#started[@]} -gt 0 ]; do
		rc=$(logof "${started[0]}").rc
		if [ ! -e "$rc" ]; then
			[ "${1:-}" = all ] || return 0
			if [ -n "$(jobs -pr)" ]; then
				wait -n
			else # (ended without noting its status: a failure)
				echo "1 0" > "$rc"
			fi
			continue
		fi
		report "${started[0]}"
		started=("${started[@]:1}")
	done
}

LIB_SRCS=$(ls framework/*.c sim_backends/activity/*.c sim_backends/bgq/*.c sim_backends/bgl/*.c sim_backends/torus/*.c sim_backends/gemini/*.c backends/linux/*.c)

# The library is compiled once per flavour (plain, sanitizers) into an
# archive every unit test links whole: compiling it again for each test
# took most of make check's time.
archive() { # archive flags...: compile the library into it, or count a failure
	local a=$1 dir=$1.d
	shift
	rm -rf "$dir" "$a"
	mkdir -p "$dir"
	if printf '%s\n' $LIB_SRCS utils/heatmap.c |
		xargs -P "${JOBS:-2}" -I{} sh -c 'o="$1/$(echo "$2" | tr / _).o"; shift 2
			exec "$@" -c "$0" -o "$o"' {} "$dir" {} \
			$CC -std=gnu11 -g -Wall -Wextra -Werror -pthread -Iinclude -I"$BUILD/gen" "$@" \
			2> "$a.build.log" && ar rcs "$a" "$dir"/*.o 2>> "$a.build.log"; then
		return 0
	fi
	cat "$a.build.log"
	failed=$((failed + 1))
	failures+=("build $a")
	return 1
}

built() { # exe source archive flags...: compiles the unit test, then runs it
	local exe=$1 src=$2 lib=$3
	shift 3
	$CC -std=gnu11 -g -Wall -Wextra -Werror -pthread -Iinclude -I"$BUILD/gen" \
		-DCLAB_DATADIR="\"$PREFIX/share/counterlab\"" "$@" -o "$exe" "$src" \
		-Wl,--whole-archive "$lib" -Wl,--no-whole-archive \
		-liniparser -lhwloc -lpfm -lcmocka -lpng -lpthread -lm || return
	"$exe"
}

SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
plain=0 asan=0
archive "$out/unit/libclab.a" -O1 && plain=1
QUICK=${QUICK:-0}
[ "$QUICK" = 1 ] || { archive "$out/asan/libclab.a" -O1 "${SAN[@]}" && asan=1; }

# 1. unit tests, then 2. the same under the sanitizers (a test that does
# not compile fails with the compiler's errors as its log)
for src in tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	[ $plain = 1 ] && spawn "unit/$name" built "$out/unit/$name" "$src" "$out/unit/libclab.a" -O1
	[ $asan = 1 ] && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		spawn "asan/$name" built "$out/asan/$name" "$src" "$out/asan/libclab.a" -O1 "${SAN[@]}"
done
reap all

# 2b. the unit tests whose threads read counters other threads move, under
# ThreadSanitizer (gcc warns that it does not model fences; the counts
# the read seqlock guards are atomic on both sides, which is what it checks)
tsan_run() { # not run (77) where this kernel's address-space layout defeats TSan
	local log rc
	log=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$log"
	[ $rc != 0 ] && grep -q "unexpected memory mapping" <<<"$log" && return 77
	return $rc
}
TSAN=(-fsanitize=thread)
$CC -fsanitize=thread -Wno-tsan -Werror -x c -c /dev/null -o /dev/null 2>/dev/null && TSAN+=(-Wno-tsan)
if [ "$QUICK" != 1 ] && archive "$out/tsan/libclab.a" -O1 "${TSAN[@]}"; then
	for name in test_framework test_punit; do
		TSAN_OPTIONS=halt_on_error=1 spawn "tsan/$name" \
			tsan_run built "$out/tsan/$name" "tests/unit/$name.c" "$out/tsan/libclab.a" -O1 "${TSAN[@]}"
	done
	reap all
fi

# counterlab-netsim's command line (options and their errors)
run "cli/test_netsim" bash tests/cli/test_netsim.sh "$PREFIX/bin"

# every counterlab-* program's --help, errors and self-description
run "cli/test_tools" bash tests/cli/test_tools.sh "$PREFIX/bin"

# README's tour as written, and what README says it prints
run "cli/test_readme" bash tests/cli/test_readme.sh "$PREFIX/bin"

# the documentation names nothing outside the repository and no issue numbers
run "cli/test_docs_refs" bash tests/cli/test_docs_refs.sh

# the docs' benchmark tables are bench/results/*.json's (bench/tables.sh), and
# figures in their prose what their stated source gives now
run "cli/test_docs_figures" bash tests/cli/test_docs_figures.sh "$PWD" "$PREFIX/bin"

# counterlab-run: the program's own instructions under the emulator
run "cli/test_emulated" env CC="$CC" PREFIX="$PREFIX" bash tests/cli/test_emulated.sh "$PREFIX/bin"

# live MPI programs (libcounterlab-mpi) against the offline engine
run "cli/test_live_mpi" bash tests/cli/test_live_mpi.sh "$PREFIX/bin"

# live MPI programs across two hosts (network namespaces made by the test:
# root only; as another user it is reported as not run)
run "multihost/test_multihost" bash tests/multihost/test_multihost.sh "$PREFIX/bin"

# setup scripts (deps, PAPI source, install) against made-up apt configurations
run "setup/test_setup" bash tests/setup/test_setup.sh

# 3. PAPI-level tests: plain PAPI programs, built against the staged
# libraries as a user's program would be
compiled() { # exe source libs...: compiles the program
	local exe=$1 src=$2
	shift 2
	$CC -std=gnu11 -O1 -g -Wall -Wextra -Werror -pthread -I"$PREFIX/include" -o "$exe" "$src" \
		-L"$PREFIX/lib" "$@" -Wl,-rpath,"$PREFIX/lib"
}
linked() { # exe source libs...: compiles the program, then runs it
	compiled "$@" && "$1"
}
for src in tests/papi/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	spawn "papi/$name" linked "$out/papi/$name" "$src" -lpapi -lcounterlab
done

# 3b. libbgpm (IBM's BGPM API over the simulator), cross-checked with PAPI
mkdir -p "$out/bgpm"
for src in tests/bgpm/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	spawn "bgpm/$name" linked "$out/bgpm/$name" "$src" -lbgpm -lpapi -lcounterlab -lcmocka
done
reap all

# 3c. libgpcd (Cray's GPCD API over the simulated Gemini): its behaviour,
# and the published tile-sampling loop, a program that includes only
# gpcd_lib.h, built unchanged against it: 288 registers listed newest first
mkdir -p "$out/gpcd"
run "gpcd/test_gpcd" linked "$out/gpcd/test_gpcd" tests/gpcd/test_gpcd.c -lgpcd -lcounterlab -lcmocka
sample_tiles() {
	local o
	compiled "$out/gpcd/sample_tiles" tests/gpcd/sample_tiles.c -lgpcd || return 1
	o=$(env -u COUNTERLAB_MACHINE "$out/gpcd/sample_tiles") || return 1
	echo "$o" | sed -n '1p;$p'
	[ "$(echo "$o" | wc -l)" = 288 ] &&
		echo "$o" | head -1 | grep -qx 'GPCD Context print   0 : GM_5_7_TILE_PERFORMANCE_COUNTERS_5 : 0' &&
		echo "$o" | tail -1 | grep -qx 'GPCD Context print 287 : GM_0_0_TILE_PERFORMANCE_COUNTERS_0 : 0' &&
		echo "288 registers PASSED"
}
run "gpcd/sample_tiles" sample_tiles

if [ "$QUICK" = 1 ]; then
	echo
	[ $failed -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
	echo "$passed passed, $failed failed${notrun:+, ${#notrun[@]} not run (${notrun[*]})} (quick: no sanitizers, no PAPI suite)"
	[ $failed = 0 ]
	exit
fi

# 4. PAPI's whole test suite (every ctest, ftest and validation test of the
# built PAPI tree, and Debian's papi-tools binaries) on the virtual and the
# host clock, each against its expected verdict in tests/papi/expected.tsv;
# a row counts as passed when the observed verdict is the expected one,
# whatever that verdict is, and as failed otherwise (see tests/papi-suite.sh).
echo "== papi-suite (tests/papi/expected.tsv)"
BUILD=$BUILD PREFIX=$PREFIX bash tests/papi-suite.sh ${PAPI_SUITE_ARGS:-} > "$out/logs/papi-suite.log" 2>&1
cp "$BUILD/tests/papi-suite/observed.tsv" "$out/papi-suite-observed.tsv" 2> /dev/null
grep -v '^ok ' "$out/logs/papi-suite.log"
ok=$(grep -c '^ok ' "$out/logs/papi-suite.log")
bad=$(sed -n 's/^papi-suite: [0-9]* as expected, \([0-9]*\) deviations$/\1/p' "$out/logs/papi-suite.log")
passed=$((passed + ok))
if [ -z "$bad" ]; then
	failed=$((failed + 1))
	failures+=("papi-suite (did not finish; see $out/logs/papi-suite.log)")
elif [ "$bad" -gt 0 ]; then
	failed=$((failed + bad))
	failures+=($(sed -n 's/^DEVIATION \([^ ]*\) \[\([a-z]*\)\].*/papi-suite:\1[\2]/p' "$out/logs/papi-suite.log"))
fi

# zero_pthreads used to skip at random (a dead thread's hardware thread
# leaked): 20 runs in a row must pass, on each clock.
zero_pthreads_x20() { # clock
	local i
	for i in $(seq 20); do
		PAPI_SUITE_JOBS=1 bash tests/papi-suite.sh --clock "$1" ctests/zero_pthreads > "$out/logs/zp.log" 2>&1 ||
			{ echo "run $i:"; cat "$out/logs/zp.log"; return 1; }
	done
	echo "20 runs PASSED"
}
run "ctest/zero_pthreads_x20_virtual" zero_pthreads_x20 virtual
run "ctest/zero_pthreads_x20_host" zero_pthreads_x20 host

echo
if [ $failed -gt 0 ]; then
	printf 'failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed${notrun:+, ${#notrun[@]} not run (${notrun[*]})}"
[ $failed = 0 ]
