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

run() { # name command...: runs, shows the output, counts (exit 77: not run)
	local name=$1 t0=$SECONDS rc
	shift
	echo "== $name"
	"$@" > "$out/logs/${name//\//_}.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		passed=$((passed + 1))
		echo "   ($((SECONDS - t0)) s)"
		grep -E '^\[  (PASSED|FAILED|  OK  )|PASSED|FAILED' "$out/logs/${name//\//_}.log" | tail -3
	elif [ $rc = 77 ]; then
		notrun+=("$name")
		sed 's/^/   /' "$out/logs/${name//\//_}.log"
	else
		failed=$((failed + 1))
		failures+=("$name")
		tail -40 "$out/logs/${name//\//_}.log"
		echo "-- $name FAILED"
	fi
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

build() { # output source archive flags...: compile or count a failure
	local exe=$1 src=$2 lib=$3
	shift 3
	if ! $CC -std=gnu11 -g -Wall -Wextra -Werror -pthread -Iinclude -I"$BUILD/gen" \
		-DCLAB_DATADIR="\"$PREFIX/share/counterlab\"" "$@" -o "$exe" "$src" \
		-Wl,--whole-archive "$lib" -Wl,--no-whole-archive \
		-liniparser -lhwloc -lpfm -lcmocka -lpng -lpthread -lm 2> "$exe.build.log"; then
		cat "$exe.build.log"
		failed=$((failed + 1))
		failures+=("build $src")
		return 1
	fi
}

SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
plain=0 asan=0
archive "$out/unit/libclab.a" -O1 && plain=1
QUICK=${QUICK:-0}
[ "$QUICK" = 1 ] || { archive "$out/asan/libclab.a" -O1 "${SAN[@]}" && asan=1; }

# 1. unit tests, then 2. the same under the sanitizers
for src in tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	[ $plain = 1 ] && build "$out/unit/$name" "$src" "$out/unit/libclab.a" -O1 &&
		run "unit/$name" "$out/unit/$name"
	[ $asan = 1 ] && build "$out/asan/$name" "$src" "$out/asan/libclab.a" -O1 "${SAN[@]}" &&
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 run "asan/$name" "$out/asan/$name"
done

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
		build "$out/tsan/$name" "tests/unit/$name.c" "$out/tsan/libclab.a" -O1 "${TSAN[@]}" &&
			TSAN_OPTIONS=halt_on_error=1 run "tsan/$name" tsan_run "$out/tsan/$name"
	done
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

# 3b. libbgpm (IBM's BGPM API over the simulator), cross-checked with PAPI
mkdir -p "$out/bgpm"
for src in tests/bgpm/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	if $CC -std=gnu11 -O1 -g -Wall -Wextra -Werror -pthread -I"$PREFIX/include" -o "$out/bgpm/$name" \
		"$src" -L"$PREFIX/lib" -lbgpm -lpapi -lcounterlab -lcmocka -Wl,-rpath,"$PREFIX/lib" 2> "$out/bgpm/$name.build.log"; then
		run "bgpm/$name" "$out/bgpm/$name"
	else
		cat "$out/bgpm/$name.build.log"
		failed=$((failed + 1))
		failures+=("build $src")
	fi
done

# 3c. libgpcd (Cray's GPCD API over the simulated Gemini): its behaviour,
# and the published tile-sampling loop, a program that includes only
# gpcd_lib.h, built unchanged against it: 288 registers listed newest first
mkdir -p "$out/gpcd"
gpcd_build() { # name libs...: build tests/gpcd/NAME.c or count a failure
	local name=$1
	shift
	$CC -std=gnu11 -O1 -g -Wall -Wextra -Werror -I"$PREFIX/include" -o "$out/gpcd/$name" \
		"tests/gpcd/$name.c" -L"$PREFIX/lib" "$@" -Wl,-rpath,"$PREFIX/lib" 2> "$out/gpcd/$name.build.log" && return 0
	cat "$out/gpcd/$name.build.log"
	failed=$((failed + 1))
	failures+=("build tests/gpcd/$name.c")
	return 1
}
gpcd_build test_gpcd -lgpcd -lcounterlab -lcmocka && run "gpcd/test_gpcd" "$out/gpcd/test_gpcd"
sample_tiles() {
	local o
	o=$(env -u COUNTERLAB_MACHINE "$out/gpcd/sample_tiles") || return 1
	echo "$o" | sed -n '1p;$p'
	[ "$(echo "$o" | wc -l)" = 288 ] &&
		echo "$o" | head -1 | grep -qx 'GPCD Context print   0 : GM_5_7_TILE_PERFORMANCE_COUNTERS_5 : 0' &&
		echo "$o" | tail -1 | grep -qx 'GPCD Context print 287 : GM_0_0_TILE_PERFORMANCE_COUNTERS_0 : 0' &&
		echo "288 registers PASSED"
}
gpcd_build sample_tiles -lgpcd && run "gpcd/sample_tiles" sample_tiles

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
