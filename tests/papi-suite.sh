#!/bin/bash
# PAPI's whole test suite against our libpapi (docs/testing.md): every ctest,
# ftest and validation test of the built PAPI tree and Debian's papi-tools
# binaries, on each clock, compared with tests/papi/expected.tsv
# (test, clock, verdict, reason).
#
#   bash tests/papi-suite.sh              run every row; a deviation in either
#                                         direction fails (exit 1)
#   bash tests/papi-suite.sh --observe    run every row and print a table of
#                                         observed verdicts beside the expected
#                                         ones (to update expected.tsv by hand)
#   bash tests/papi-suite.sh [--clock virtual|host|emulated] [-j N] [TEST...]
#                                         only these clocks / tests
#                                         (TEST as in the table, e.g. ctests/zero)
#   bash tests/papi-suite.sh --jitter SEED [--observe] ...
#                                         the same with every thread's CPU clock
#                                         running at a rate drawn anew at each
#                                         reading (tests/jitter/cpu_jitter.c), as
#                                         CPU time varies on a busy machine
#
# Clocks: virtual and host are the profile-driven BG/Q (a run without
# --clock runs both); emulated runs the test under counterlab-run (activity
# = emulated), only when asked (--clock emulated: the slow rows take minutes
# of CPU each), and has rows for the validation tests only, which compare
# counts with the work of their own loops.
#
# Verdicts: PASS, FAIL, SKIP as the test reports them (a row may list
# alternatives, "FAIL|CRASH", for a test seen to vary; its reason says so).
# A verdict written "load:..." marks a row whose outcome follows the CPU
# time its loops take, which the load of the machine decides (rows that
# change verdict under --jitter): it runs and its verdict is printed, but it
# does not gate, unless it crashes or is missing. (PAPI's test library
# prints PASSED / FAILED!!! / SKIPPED and exits 0/1/0; the Fortran tests print
# "<file> PASSED|FAILED|SKIPPED" and always exit 0; the tools only have their
# exit code), TIMEOUT (killed after $PAPI_SUITE_CPU s of CPU time, or after
# $PAPI_SUITE_TIMEOUT s of wall time, which only a hang reaches) and CRASH
# (killed by a signal); both of the latter count as failures but are
# recorded apart. The limit is on CPU time because a busy machine stretches
# a test's wall time but not the CPU its loops need (multiplex1_pthreads
# needs about 95 s of CPU here; the wall limit would flip with the load).
# Logs go to $BUILD/tests/logs/papi-suite/<clock>/<test>.log.
set -u
cd "$(dirname "$0")/.."
BUILD=$(realpath -m "${BUILD:-build}") # (absolute: the paths below hang from it)
PREFIX=${PREFIX:-$BUILD/prefix}
TABLE=${PAPI_SUITE_TABLE:-tests/papi/expected.tsv}
TIMEOUT=${PAPI_SUITE_TIMEOUT:-900}
CPU_LIMIT=${PAPI_SUITE_CPU:-300}
JOBS=${PAPI_SUITE_JOBS:-2}
SRC=$BUILD/papi/src
OUT=$BUILD/tests/papi-suite
LOGS=$BUILD/tests/logs/papi-suite
TOOLS=${PAPI_TOOLS_DIR:-/usr/bin}
JITTER_SO=${CLAB_JITTER_SO:-}
export COUNTERLAB_MACHINES=$PWD/machines
# OpenMP threads sleep at barriers rather than spin: on 2 busy cores a
# spinning barrier starves the thread it waits for (omptough: 2 s instead
# of 36 s alone and over the timeout beside other tests)
export OMP_WAIT_POLICY=passive

machine_of() { # clock -> COUNTERLAB_MACHINE
	case $1 in
	virtual) echo bgq:clock=virtual,tick=100000000 ;;
	host) echo bgq:clock=host ;;
	emulated) echo bgq ;; # counterlab-run adds activity = emulated
	*) return 1 ;;
	esac
}

# The command line of a test, as "path args...". PAPI's tests get the
# TESTS_QUIET argument as PAPI's run_tests.sh gives it (timer_overflow skips
# itself then, as a long test; errors are printed all the same); the tools
# get arguments that make them count something.
command_of() {
	local t=$1
	case $t in
	ctests/* | ftests/* | validation_tests/*) echo "$SRC/$t TESTS_QUIET" ;;
	tools/papi_command_line) echo "$TOOLS/papi_command_line PAPI_TOT_CYC PAPI_TOT_INS" ;;
	tools/papi_event_chooser) echo "$TOOLS/papi_event_chooser PRESET PAPI_TOT_CYC" ;;
	# 1000 start/stop pairs per measurement instead of its default, which
	# takes many minutes (it says so itself)
	tools/papi_multiplex_cost) echo "$TOOLS/papi_multiplex_cost -t 1000" ;;
	tools/*) echo "$TOOLS/${t#tools/}" ;;
	*) return 1 ;;
	esac
}

# Every test the PAPI tree built (executables beside their sources), and the
# tools; a test here without a row in the table is a deviation.
discover() {
	local d
	for d in ctests ftests validation_tests; do
		find "$SRC/$d" -maxdepth 1 -type f -perm -u+x ! -name '*.*' ! -name 'Makefile*' \
			-printf "$d/%f\n" 2>/dev/null
	done | sort
}

# reap tag: kills what a test left behind, found by the tag in its
# environment (PAPI's attach tests fork children that stop themselves and
# stay stopped when the attach fails).
reap() {
	local f
	for f in $(grep -lzxF "CLAB_SUITE_TAG=$1" /proc/[0-9]*/environ 2>/dev/null); do
		f=${f#/proc/}
		kill -KILL "${f%/environ}" 2>/dev/null
	done
}

# run_one test clock: runs the test in a fresh directory, writes the log and
# prints "test clock verdict seconds".
run_one() {
	local t=$1 clock=$2 cmd machine log dir rc verdict start end secs
	machine=$(machine_of "$clock") || { echo "$t $clock BADCLOCK 0"; return; }
	log=$LOGS/$clock/${t//\//_}.log
	dir=$OUT/work/$clock/${t//\//_}
	rm -rf "$dir"
	mkdir -p "$dir" "$(dirname "$log")"
	# PAPI's run_tests.sh runs in src/: exec_overflow, system_overflow and
	# system_child_overflow run ./ctests/child_overflow or ./ctests/burn
	ln -s "$SRC/ctests" "$dir/ctests"
	cmd=$(command_of "$t") || { echo "$t $clock UNKNOWN 0"; return; }
	if [ ! -x "${cmd%% *}" ]; then
		echo "not built or not installed: ${cmd%% *}" > "$log"
		echo "$t $clock MISSING 0"
		return
	fi
	[ "$clock" = emulated ] && cmd="$PREFIX/bin/counterlab-run -- $cmd"
	start=$(date +%s%N)
	{
		echo "# $cmd"
		echo "# COUNTERLAB_MACHINE=$machine"
		echo "# cwd $dir"
		# PATH as PAPI's run_tests.sh sets it: the attach tests exec attach_target
		(cd "$dir" && { [ -z "$JITTER_SO" ] || export LD_PRELOAD=$JITTER_SO; } &&
			ulimit -S -t "$CPU_LIMIT" && ulimit -H -t $((CPU_LIMIT + 10)) &&
			PATH=$SRC/ctests:$PATH COUNTERLAB_MACHINE=$machine LD_LIBRARY_PATH=$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
			CLAB_SUITE_TAG=$dir exec timeout -k 10 "$TIMEOUT" $cmd) < /dev/null 2>&1
		rc=$?
		echo "# exit $rc"
	} > "$log" 2>&1
	reap "$dir"
	end=$(date +%s%N)
	secs=$(((end - start) / 1000000))
	secs=$((secs / 1000)).$(printf %03d $((secs % 1000)))
	rc=$(sed -n 's/^# exit //p' "$log" | tail -1)
	# 124: the wall limit; 152 (SIGXCPU) or 137 (SIGKILL): the CPU limit
	if [ "$rc" = 124 ] || [ "$rc" = 152 ] || [ "$rc" = 137 ]; then
		verdict=TIMEOUT
	elif [ "$rc" -gt 128 ]; then
		verdict=CRASH
	else
		case $t in
		tools/*) [ "$rc" = 0 ] && verdict=PASS || verdict=FAIL ;;
		*)
			# "FAILED!!!" (C), "<file>   FAILED" (Fortran); not event
			# names such as PEVT_XU_ICSWX_FAILED
			if grep -Eq 'FAILED!!!|(^|[[:space:]])FAILED[[:space:]]*$' "$log"; then
				verdict=FAIL
			elif [ "$rc" != 0 ]; then
				verdict=FAIL
			elif grep -Eq '(^|[[:space:]])SKIPPED[[:space:]]*$' "$log"; then
				verdict=SKIP
			else
				verdict=PASS
			fi
			;;
		esac
	fi
	echo "$t $clock $verdict $secs"
}

if [ "${1:-}" = --run-one ]; then
	run_one "$2" "$3"
	exit 0
fi

observe=0 clocks="" only=() jitter=
while [ $# -gt 0 ]; do
	case $1 in
	--observe) observe=1 ;;
	--clock) clocks="$clocks $2"; shift ;;
	-j) JOBS=$2; shift ;;
	--jitter) jitter=$2; shift ;;
	-h | --help) sed -n '2,32p' "$0"; exit 0 ;;
	-*) echo "papi-suite: unknown option $1" >&2; exit 2 ;;
	*) only+=("$1") ;;
	esac
	shift
done

[ -f "$TABLE" ] || { echo "papi-suite: no table $TABLE" >&2; exit 2; }
[ -d "$SRC/ctests" ] || { echo "papi-suite: no PAPI tree at $SRC (run make first)" >&2; exit 2; }
if [ -n "$jitter" ]; then
	[[ "$jitter" =~ ^[0-9]+$ ]] || { echo "papi-suite: --jitter takes a seed, a whole number (got '$jitter')" >&2; exit 2; }
	mkdir -p "$OUT"
	${CC:-cc} -O2 -Wall -Wextra -Werror -shared -fPIC -o "$OUT/cpu_jitter.so" tests/jitter/cpu_jitter.c -ldl ||
		{ echo "papi-suite: cannot build tests/jitter/cpu_jitter.c" >&2; exit 2; }
	export CLAB_JITTER_SO=$OUT/cpu_jitter.so CLAB_JITTER_SEED=$jitter
fi

# the rows to run: test<TAB>clock<TAB>verdict<TAB>reason
rows=$(mktemp) results=$(mktemp)
trap 'rm -f "$rows" "$results"' EXIT
awk -F'\t' 'NR > 1 && !/^#/ && NF >= 3' "$TABLE" | while IFS=$'\t' read -r t c v r; do
	if [[ " ${clocks:-virtual host} " != *" $c "* ]]; then continue; fi
	if [ ${#only[@]} -gt 0 ]; then
		keep=0
		for o in "${only[@]}"; do [ "$o" = "$t" ] && keep=1; done
		[ $keep = 1 ] || continue
	fi
	printf '%s\t%s\t%s\t%s\n' "$t" "$c" "$v" "$r"
done > "$rows"

deviations=0
# tests the tree built that the table does not know (whole runs only)
if [ ${#only[@]} = 0 ]; then
	for c in ${clocks:-virtual host}; do
		for t in $(discover); do
			[ $c = emulated ] && [[ $t != validation_tests/* ]] && continue
			if ! awk -F'\t' -v t="$t" -v c="$c" '$1 == t && $2 == c { f = 1 } END { exit !f }' "$TABLE"; then
				echo "DEVIATION $t [$c]: no row in $TABLE"
				deviations=$((deviations + 1))
			fi
		done
	done
fi

start=$(date +%s)
cut -f1,2 "$rows" | tr '\t' ' ' | xargs -r -P "$JOBS" -L 1 bash "$0" --run-one > "$results"
elapsed=$(($(date +%s) - start))

as_expected=0 reported=0
declare -A count
observed=$OUT/observed.tsv
printf 'test\tclock\tobserved\texpected\tseconds\treason\n' > "$observed"
[ $observe = 1 ] && head -1 "$observed"
while IFS=$'\t' read -r t c v r; do
	read -r _ _ o secs < <(grep -F "$t $c " "$results" | head -1)
	o=${o:-NORESULT}
	count[$c.$o]=$((${count[$c.$o]:-0} + 1))
	log=$BUILD/tests/logs/papi-suite/$c/${t//\//_}.log
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$c" "$o" "$v" "$secs" "$r" >> "$observed"
	if [ $observe = 1 ]; then
		tail -1 "$observed"
	elif [[ "|${v#load:}|" == *"|$o|"* ]]; then # "FAIL|CRASH": either, for a flaky row
		as_expected=$((as_expected + 1))
		printf 'ok %-40s %-7s %-7s %6.1fs\n' "$t" "$c" "$o" "$secs"
	elif [[ $v == load:* && $o != CRASH && $o != MISSING && $o != NORESULT ]]; then
		reported=$((reported + 1))
		printf 'report %-36s %-7s %-7s %6.1fs (expected %s; does not gate: its verdict follows CPU time)\n' \
			"$t" "$c" "$o" "$secs" "${v#load:}"
	else
		deviations=$((deviations + 1))
		echo "DEVIATION $t [$c]: expected $v, observed $o (log: $log)"
		tail -15 "$log" 2>/dev/null | sed 's/^/    | /'
	fi
done < "$rows"

echo
for c in ${clocks:-virtual host}; do
	line="$c:"
	for v in PASS FAIL SKIP TIMEOUT CRASH MISSING NORESULT; do
		[ -n "${count[$c.$v]:-}" ] && line="$line $v ${count[$c.$v]}"
	done
	echo "papi-suite $line"
done
echo "papi-suite: ${elapsed}s with $JOBS job(s), limits ${CPU_LIMIT}s of CPU and ${TIMEOUT}s of wall time per test; observed verdicts in $observed"
if [ $observe = 1 ]; then
	exit 0
fi
[ -n "$jitter" ] && echo "papi-suite: CPU clocks jittered (seed $jitter)"
echo "papi-suite: $reported load rows reported apart, not gating"
echo "papi-suite: $as_expected as expected, $deviations deviations"
[ $deviations = 0 ]
